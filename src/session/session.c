/*
 * session/session: where sessions live, the writer, and loading (format and rules
 * in session/session.h).
 *
 * Writer state: struct session holds the open O_APPEND descriptor and the
 * id of the last entry written (the parent of the next one).  Each line is
 * written by the caller's write(); its fdatasync runs on the session's
 * syncer thread, so the caller (the loop) does not wait for the disk: a
 * sync took up to 43 ms on an idle machine here and 259 ms beside a large
 * write.  The syncer syncs whatever was written since its last sync (lines
 * written meanwhile share it); a failed sync is reported by the next
 * append or by session_flush.  Without a syncer (pthread_create failed)
 * the caller syncs as before.  Lines are
 * encoded by session_line; loading reads the file with session_read and moves the
 * payloads of the active branch into a struct session_loaded.
 */
#include "session/session.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "session/line.h"
#include "session/read.h"
#include "base/fs.h"
#include "base/xmalloc.h"

struct session {
	int fd;
	char *id, *path, *leaf;
	char next[16]; /* id of the entry being written; becomes leaf once written */
	pthread_t syncer;
	int has_syncer;
	pthread_mutex_t mu;     /* the counts below, between the writer and the syncer */
	pthread_cond_t cv;      /* a line written, a sync done, the close */
	unsigned long written;  /* lines written */
	unsigned long synced;   /* of them, made durable (or failed: sync_errno) */
	int sync_errno;         /* a failed sync not reported yet */
	int closing;
};

/* Free a meta's strings; m stays usable (all NULL). */
void
session_meta_release(struct session_meta *m)
{
	free(m->cwd), free(m->model), free(m->server), free(m->created), free(m->forked_from);
	memset(m, 0, sizeof *m);
}

/* Fill n random bytes (getentropy, or a clock/pid mix when that fails). */
static void
rand_bytes(unsigned char *p, size_t n)
{
	struct timespec ts;
	size_t i;

	if (getentropy(p, n) == 0)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	for (i = 0; i < n; i++)
		p[i] = (unsigned char)((ts.tv_nsec >> (i % 4 * 8)) ^ getpid() ^ (long)i * 131);
}

/* Append 2*n hex digits of random bytes. */
static void
add_rand_hex(struct buf *b, size_t n)
{
	unsigned char r[16];
	size_t i;

	rand_bytes(r, n);
	for (i = 0; i < n; i++)
		buf_addf(b, "%02x", r[i]);
}

/* Append the current UTC time: ISO 8601 with ms, or the compact id form. */
static void
add_now(struct buf *b, int compact)
{
	struct timeval tv;
	struct tm tm;
	char s[32];

	gettimeofday(&tv, NULL);
	gmtime_r(&tv.tv_sec, &tm);
	strftime(s, sizeof s, compact ? "%Y%m%d-%H%M%S" : "%Y-%m-%dT%H:%M:%S", &tm);
	buf_addf(b, compact ? "%s-%03d-" : "%s.%03dZ", s, (int)(tv.tv_usec / 1000));
}

/* The ts/created form of add_now, for fork's meta. */
void
session_add_now(struct buf *b)
{
	add_now(b, 0);
}

/* Sessions root: $XDG_STATE_HOME/hearth/sessions or ~/.local/state/... */
static int
state_root(struct buf *out, struct err *e)
{
	const char *x = getenv("XDG_STATE_HOME"), *h = getenv("HOME");

	if (x && x[0] == '/')
		buf_addf(out, "%s/hearth/sessions", x);
	else if (h && h[0])
		buf_addf(out, "%s/.local/state/hearth/sessions", h);
	else
		return err_set(e, "find the session directory: neither XDG_STATE_HOME nor HOME is set");
	return 0;
}

/* Sessions directory of a workspace: state root + project key. */
int
session_dir(const char *root, struct buf *out, struct err *e)
{
	uint32_t h = 2166136261u;
	size_t n = strlen(root), i, from = n > 80 ? n - 80 : 0;

	if (state_root(out, e) < 0)
		return -1;
	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)root[i]) * 16777619u;
	buf_addch(out, '/');
	while (from < n && root[from] == '/')
		from++;
	for (i = from; i < n; i++) {
		char c = root[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '.' || c == '_';
		buf_addch(out, ok ? c : '-');
	}
	buf_addf(out, "-%08x", (unsigned)h);
	return 0;
}

/* mkdir -p with 0700 for the components we create. */
static int
mkdirs_private(const char *dir, struct err *e)
{
	char *p = xstrdup(dir), *s;
	int rc = 0;

	for (s = p + 1;; s++) {
		if (*s != '/' && *s)
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, 0700) == 0)
			chmod(p, 0700);
		else if (errno != EEXIST)
			rc = err_errno(e, "create session directory %s", p);
		*s = c;
		if (!c || rc)
			break;
	}
	if (rc && e && (e->code == EACCES || e->code == EROFS || e->code == EPERM))
		snprintf(e->msg + strlen(e->msg), ERR_MSG_MAX - strlen(e->msg),
			 "; set XDG_STATE_HOME to a writable directory");
	free(p);
	return rc;
}

#define WRITE_UNSYNCED (-2) /* write_line: the line is written, a sync failed */

int session_sync_thread = 1;
int (*session_sync_fn)(int fd) = fdatasync;

/* The syncer: a sync whenever lines were written since the last one, until the close. */
static void *
syncer_run(void *arg)
{
	struct session *s = arg;
	unsigned long upto;
	int rc, er;

	pthread_mutex_lock(&s->mu);
	for (;;) {
		while (s->synced == s->written && !s->closing)
			pthread_cond_wait(&s->cv, &s->mu);
		if (s->synced == s->written)
			break; /* closing, nothing left */
		upto = s->written;
		pthread_mutex_unlock(&s->mu);
		rc = session_sync_fn(s->fd);
		er = errno;
		pthread_mutex_lock(&s->mu);
		if (rc < 0 && !s->sync_errno)
			s->sync_errno = er;
		s->synced = upto;
		pthread_cond_broadcast(&s->cv);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

/* A sync failure not reported yet: WRITE_UNSYNCED + e (and it is reported). */
static int
sync_failed(struct session *s, struct err *e)
{
	int er;

	pthread_mutex_lock(&s->mu);
	er = s->sync_errno;
	s->sync_errno = 0;
	pthread_mutex_unlock(&s->mu);
	if (!er)
		return 0;
	errno = er;
	err_errno(e, "sync session %s", s->path);
	return WRITE_UNSYNCED;
}

/*
 * Write the whole line with one write() (retrying only a short write),
 * then have it synced (see above).  0; -1 + e: not written; WRITE_UNSYNCED
 * + e: written, but a sync failed (this line's, or an earlier one's).
 */
static int
write_line(struct session *s, const struct buf *b, struct err *e)
{
	if (fs_write_all(s->fd, b->data, b->len) < 0)
		return err_errno(e, "write session %s", s->path);
	if (!s->has_syncer) {
		if (session_sync_fn(s->fd) == 0)
			return 0;
		err_errno(e, "sync session %s", s->path);
		return WRITE_UNSYNCED;
	}
	pthread_mutex_lock(&s->mu);
	s->written++;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	return sync_failed(s, e);
}

/* See session/session.h. */
int
session_flush(struct session *s, struct err *e)
{
	if (!s->has_syncer)
		return 0;
	pthread_mutex_lock(&s->mu);
	while (s->synced != s->written)
		pthread_cond_wait(&s->cv, &s->mu);
	pthread_mutex_unlock(&s->mu);
	return sync_failed(s, e) ? -1 : 0;
}

/* Start an entry line: a fresh id (kept in s->next), the parent, type and ts. */
static void
entry_head(struct session *s, struct buf *b, const char *type)
{
	struct buf id = BUF_INIT, ts = BUF_INIT;

	add_rand_hex(&id, 6);
	memcpy(s->next, id.data, id.len + 1);
	add_now(&ts, 0);
	session_line_add_head(b, s->next, s->leaf, type, ts.data);
	buf_release(&id);
	buf_release(&ts);
}

/* Write the line of entry `id`; once written (synced or not) it is the new leaf. 0 / -1 + e. */
static int
write_entry(struct session *s, const struct buf *b, const char *id, struct err *e)
{
	int rc = write_line(s, b, e);

	if (rc != -1) {
		free(s->leaf);
		s->leaf = xstrdup(id);
	}
	return rc == 0 ? 0 : -1;
}

/* Write the line built after entry_head (its id in s->next). 0 / -1 + e. */
static int
entry_write(struct session *s, struct buf *b, struct err *e)
{
	int rc = write_entry(s, b, s->next, e);

	buf_release(b);
	return rc;
}

/* Append a message entry. */
int
session_append_msg(struct session *s, const struct conv_msg *m, struct err *e)
{
	struct buf b = BUF_INIT;

	entry_head(s, &b, "message");
	session_line_add_msg(&b, m);
	return entry_write(s, &b, e);
}

/* Append a meta entry. */
int
session_append_meta(struct session *s, const struct session_meta *m, struct err *e)
{
	struct buf b = BUF_INIT;

	entry_head(s, &b, "meta");
	session_line_add_meta(&b, m);
	return entry_write(s, &b, e);
}

/* Append a usage entry. */
int
session_append_usage(struct session *s, long tokens_in, long tokens_out, struct err *e)
{
	struct buf b = BUF_INIT;

	entry_head(s, &b, "usage");
	session_line_add_usage(&b, tokens_in, tokens_out);
	return entry_write(s, &b, e);
}

/* Append a notice entry. */
int
session_append_notice(struct session *s, const char *text, struct err *e)
{
	struct buf b = BUF_INIT;

	entry_head(s, &b, "notice");
	session_line_add_notice(&b, text);
	return entry_write(s, &b, e);
}

/* Append an entry line copied from elsewhere (fork); id becomes the leaf. */
int
session_append_line(struct session *s, const char *line, size_t len, const char *id,
		    struct err *e)
{
	struct buf b = BUF_INIT;
	int rc;

	buf_add(&b, line, len);
	buf_addch(&b, '\n');
	rc = write_entry(s, &b, id, e);
	buf_release(&b);
	return rc;
}

/* Accessors for the caller's status line and picker. */
const char *
session_id(const struct session *s)
{
	return s->id;
}

/* The file being written. */
const char *
session_path(const struct session *s)
{
	return s->path;
}

/* Id of the newest entry (a /fork point). */
void
session_set_leaf(struct session *s, const char *id)
{
	free(s->leaf);
	s->leaf = id ? xstrdup(id) : NULL;
}

const char *
session_leaf(const struct session *s)
{
	return s->leaf;
}

/* Close the file (after the syncer's last sync) and free. */
void
session_close(struct session *s)
{
	if (!s)
		return;
	if (s->has_syncer) {
		pthread_mutex_lock(&s->mu);
		s->closing = 1;
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
		pthread_join(s->syncer, NULL);
		pthread_mutex_destroy(&s->mu);
		pthread_cond_destroy(&s->cv);
	}
	if (s->fd >= 0)
		close(s->fd);
	free(s->id), free(s->path), free(s->leaf);
	free(s);
}

/* Open path for appending (creating it 0600 when `create`). */
static struct session *
open_writer(const char *path, int create, struct err *e)
{
	int fl = O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW | (create ? O_CREAT | O_EXCL : 0);
	int fd = open(path, fl, 0600);
	struct session *s;
	const char *base = strrchr(path, '/');
	size_t n;

	if (fd < 0) {
		err_errno(e, "%s session %s", create ? "create" : "open", path);
		return NULL;
	}
	if (create)
		fchmod(fd, 0600);
	s = xcalloc(1, sizeof *s);
	s->fd = fd;
	s->path = xstrdup(path);
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	s->has_syncer = session_sync_thread && pthread_create(&s->syncer, NULL, syncer_run, s) == 0;
	if (!s->has_syncer) {
		pthread_mutex_destroy(&s->mu);
		pthread_cond_destroy(&s->cv);
	}
	base = base ? base + 1 : path;
	n = strlen(base);
	s->id = xstrndup(base, n > 6 && !strcmp(base + n - 6, ".jsonl") ? n - 6 : n);
	return s;
}

/* Create the file of a new session (directory first) and fsync the directory. */
struct session *
session_create_bare(const char *root, struct err *e)
{
	struct buf dir = BUF_INIT, path = BUF_INIT;
	struct session *s = NULL;
	int dfd;

	if (session_dir(root, &dir, e) == 0 && mkdirs_private(dir.data, e) == 0) {
		buf_addf(&path, "%s/", dir.data);
		add_now(&path, 1);
		add_rand_hex(&path, 4);
		buf_adds(&path, ".jsonl");
		s = open_writer(path.data, 1, e);
		if (s && (dfd = open(dir.data, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
			fsync(dfd);
			close(dfd);
		}
	}
	buf_release(&dir);
	buf_release(&path);
	return s;
}

/* New session with its first meta entry. */
struct session *
session_create(const char *root, const struct session_meta *meta, struct err *e)
{
	struct session_meta m = { 0 };
	struct buf now = BUF_INIT;
	struct session *s = session_create_bare(root, e);

	if (!s)
		return NULL;
	if (meta)
		m = *meta;
	if (!m.created) {
		add_now(&now, 0);
		m.created = now.data;
	}
	if (session_append_meta(s, &m, e) < 0) {
		session_close(s);
		s = NULL;
	}
	buf_release(&now);
	return s;
}

/* Move the payloads of r's active branch into out. */
static void
collect(struct session_read *r, struct session_loaded *out)
{
	size_t nb, i, *idx = session_read_branch(r, &nb);

	out->ids = xcalloc(nb + 1, sizeof *out->ids);
	for (i = 0; i < nb; i++) {
		struct session_line_entry *x = &r->v[idx[i]];
		if (x->type == SESSION_LINE_MSG) {
			out->ids[out->conv.nmsgs] = xstrdup(x->id);
			*conv_add_msg(&out->conv, x->msg.role) = x->msg;
			memset(&x->msg, 0, sizeof x->msg);
		} else if (x->type == SESSION_LINE_USAGE) {
			out->tokens_in += x->tokens_in;
			out->tokens_out += x->tokens_out;
		} else if (x->type == SESSION_LINE_META) {
			session_meta_release(&out->meta);
			out->meta = x->meta;
			memset(&x->meta, 0, sizeof x->meta);
		}
	}
	out->leaf = r->n ? xstrdup(r->v[r->n - 1].id) : NULL;
	free(idx);
}

/* Load a session's active branch. */
int
session_load(const char *path, struct session_loaded *out, struct buf *warnings,
	     struct err *e)
{
	struct session_read r;
	int rc = session_read_load(&r, path, warnings, e);

	memset(out, 0, sizeof *out);
	conv_init(&out->conv);
	if (rc == 0) {
		collect(&r, out);
		out->skipped = r.skipped;
	}
	session_read_release(&r);
	return rc;
}

/* Free a load result. */
void
session_loaded_release(struct session_loaded *l)
{
	size_t i;

	for (i = 0; i < l->conv.nmsgs; i++)
		free(l->ids[i]);
	free(l->ids);
	conv_release(&l->conv);
	session_meta_release(&l->meta);
	free(l->leaf);
	memset(l, 0, sizeof *l);
}

/* When the file's last byte is not '\n' (a torn write), append one. 0 / -1 + e. */
static int
end_torn_line(struct session *s, struct err *e)
{
	struct stat st;
	char c = '\n';

	if (fstat(s->fd, &st) == 0 && st.st_size > 0) {
		int rfd = open(s->path, O_RDONLY | O_CLOEXEC);
		if (rfd >= 0 && pread(rfd, &c, 1, st.st_size - 1) != 1)
			c = '\n';
		if (rfd >= 0)
			close(rfd);
	}
	if (c != '\n' && write(s->fd, "\n", 1) != 1)
		return err_errno(e, "write session %s", s->path);
	return 0;
}

/* Load, then open for appending; a torn last line is closed with '\n' first. */
struct session *
session_resume(const char *path, struct session_loaded *out, struct buf *warnings,
	       struct err *e)
{
	struct session *s;

	if (session_load(path, out, warnings, e) < 0)
		return NULL;
	if (!(s = open_writer(path, 0, e))) {
		session_loaded_release(out);
		return NULL;
	}
	s->leaf = xstrdup(out->leaf);
	if (end_torn_line(s, e) < 0) {
		session_close(s);
		session_loaded_release(out);
		return NULL;
	}
	return s;
}
