/*
 * session/list: listing, resolving and forking the sessions of a workspace.
 *
 * A list is a malloc'd array of struct session_list_info grown one row per
 * file, sorted once at the end.  Fork reads the source with session_read (so
 * each entry knows its byte range), then copies the branch's lines
 * verbatim through session_append_line into a session_create_bare file.
 */
#include "session/list.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "session/read.h"
#include "base/xmalloc.h"

/* First user text of l, one line, cut at 80 bytes on a UTF-8 boundary. */
static char *
first_prompt(const struct session_loaded *l)
{
	struct buf b = BUF_INIT;
	size_t i, n;

	for (i = 0; i < l->conv.nmsgs && !b.len; i++)
		if (l->conv.msgs[i].role == CONV_USER)
			conv_msg_text(&l->conv.msgs[i], &b);
	for (i = 0; i < b.len; i++)
		if ((unsigned char)b.data[i] < 0x20)
			b.data[i] = ' ';
	if (b.len > 80) {
		for (n = 80; n > 0 && ((unsigned char)b.data[n] & 0xc0) == 0x80; n--)
			;
		buf_setlen(&b, n);
		buf_adds(&b, "\xe2\x80\xa6");
	}
	return buf_detach(&b, NULL);
}

/* Newest write first, then newer id first. */
static int
info_cmp(const void *a, const void *b)
{
	const struct session_list_info *x = a, *y = b;

	if (x->mtime != y->mtime)
		return x->mtime < y->mtime ? 1 : -1;
	return strcmp(y->id, x->id);
}

/* Add one file of the sessions directory to the list (others are ignored). */
static void
list_one(const char *dir, const char *name, struct session_list_info **v, size_t *n)
{
	struct session_loaded l;
	struct stat st;
	struct buf p = BUF_INIT;
	struct session_list_info *x;
	size_t len = strlen(name);

	if (len <= 6 || strcmp(name + len - 6, ".jsonl") || name[0] == '.')
		return;
	buf_addf(&p, "%s/%s", dir, name);
	if (stat(p.data, &st) < 0 || !S_ISREG(st.st_mode) || session_load(p.data, &l, NULL, NULL)) {
		buf_release(&p);
		return;
	}
	*v = xrealloc(*v, (*n + 1) * sizeof **v);
	x = &(*v)[(*n)++];
	x->id = xstrndup(name, len - 6);
	x->path = buf_detach(&p, NULL);
	x->first_prompt = first_prompt(&l);
	x->mtime = st.st_mtime;
	x->nmsgs = l.conv.nmsgs;
	session_loaded_release(&l);
}

/* The sessions of root, newest first. */
int
session_list_list(const char *root, struct session_list_info **out, size_t *n, struct err *e)
{
	struct buf dir = BUF_INIT;
	struct dirent *de;
	DIR *d;

	*out = NULL;
	*n = 0;
	if (session_dir(root, &dir, e) < 0)
		return -1;
	if (!(d = opendir(dir.data))) {
		int rc = errno == ENOENT ? 0 : err_errno(e, "read session directory %s", dir.data);
		buf_release(&dir);
		return rc;
	}
	while ((de = readdir(d)) != NULL)
		list_one(dir.data, de->d_name, out, n);
	closedir(d);
	buf_release(&dir);
	if (*n)
		qsort(*out, *n, sizeof **out, info_cmp);
	return 0;
}

/* Free a list. */
void
session_list_free(struct session_list_info *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].id), free(v[i].path), free(v[i].first_prompt);
	free(v);
}

/* The newest session of root. */
int
session_list_latest(const char *root, struct buf *path, struct err *e)
{
	struct session_list_info *v;
	size_t n;

	if (session_list_list(root, &v, &n, e) < 0)
		return -1;
	if (n)
		buf_adds(path, v[0].path);
	session_list_free(v, n);
	return n ? 0 : err_set(e, "no session to continue in %s; start one with hearth", root);
}

/* A path, or a unique id prefix among root's sessions. */
int
session_list_resolve(const char *root, const char *arg, struct buf *path, struct err *e)
{
	struct session_list_info *v;
	size_t n, i, hits = 0, len = strlen(arg), at = 0;

	if (strchr(arg, '/')) {
		if (access(arg, R_OK) < 0)
			return err_errno(e, "open session %s", arg);
		buf_adds(path, arg);
		return 0;
	}
	if (session_list_list(root, &v, &n, e) < 0)
		return -1;
	for (i = 0; i < n; i++)
		if (len && !strncmp(v[i].id, arg, len))
			hits++, at = i;
	if (hits == 1)
		buf_adds(path, v[at].path);
	else if (hits == 0)
		err_set(e, "no session \"%s\" in %s; hearth -r lists them", arg, root);
	else
		err_set(e, "session id \"%s\" is ambiguous (%zu sessions); give more of it", arg, hits);
	session_list_free(v, n);
	return hits == 1 ? 0 : -1;
}

#define SESSION_LIST_COPY_CHUNK (4u << 20) /* entry lines written (and synced) together */

/* Append the line of entry x from the descriptor src to chunk (verbatim, '\n'-separated). */
static int
copy_entry(struct buf *chunk, int src, const struct session_line_entry *x, struct err *e)
{
	if (chunk->len)
		buf_addch(chunk, '\n');
	buf_grow(chunk, x->len);
	if (pread(src, chunk->data + chunk->len, x->len, x->off) != (ssize_t)x->len)
		return err_errno(e, "read session entry %s", x->id);
	chunk->len += x->len;
	chunk->data[chunk->len] = '\0';
	return 0;
}

/*
 * Copy the entries idx[0..n) of r, in order, into the new session s: a
 * few MB per write and fdatasync, not one sync per entry (a fork of a
 * 100 000-entry session takes well under a second, not minutes).
 */
static int
copy_branch(struct session *s, struct session_read *r, const size_t *idx, size_t n, struct err *e)
{
	int fd = open(r->path, O_RDONLY | O_CLOEXEC), rc = 0;
	struct buf chunk = BUF_INIT;
	size_t i;

	if (fd < 0)
		return err_errno(e, "open session %s", r->path);
	for (i = 0; i < n && rc == 0; i++) {
		rc = copy_entry(&chunk, fd, &r->v[idx[i]], e);
		if (rc == 0 && (chunk.len >= SESSION_LIST_COPY_CHUNK || i + 1 == n)) {
			rc = session_append_line(s, chunk.data, chunk.len, r->v[idx[i]].id, e);
			buf_reset(&chunk);
		}
	}
	close(fd);
	buf_release(&chunk);
	return rc;
}

/* The fork's meta: the newest one before branch position `at`, plus created and forked_from. */
static struct session_meta
fork_meta(const struct session_read *r, const size_t *idx, size_t at, const char *entry_id,
	  struct buf *ff, struct buf *now)
{
	struct session_meta m = { 0 };
	const char *base = strrchr(r->path, '/') ? strrchr(r->path, '/') + 1 : r->path;

	while (at > 0 && r->v[idx[at - 1]].type != SESSION_LINE_META)
		at--;
	if (at > 0)
		m = r->v[idx[at - 1]].meta;
	buf_addf(ff, "%.*s %s", (int)strcspn(base, "."), base, entry_id);
	session_add_now(now);
	m.created = now->data;
	m.forked_from = ff->data;
	return m;
}

/* Position of entry_id on the branch idx[0..n), or n when absent. */
static size_t
branch_find(const struct session_read *r, const size_t *idx, size_t n, const char *entry_id)
{
	size_t i;

	for (i = 0; i < n && strcmp(r->v[idx[i]].id, entry_id); i++)
		;
	return i;
}

/* Create the fork file, copy idx[0..n) into it, then its meta (at: the fork point). */
static struct session *
fork_write(struct session_read *r, const size_t *idx, size_t at, size_t n, const char *entry_id,
	   const char *root, struct err *e)
{
	struct buf ff = BUF_INIT, now = BUF_INIT;
	struct session_meta m;
	struct session *s = session_create_bare(root, e);

	if (!s)
		return NULL;
	m = fork_meta(r, idx, at, entry_id, &ff, &now);
	if (copy_branch(s, r, idx, n, e) < 0 || session_append_meta(s, &m, e) < 0) {
		unlink(session_path(s));
		session_close(s);
		s = NULL;
	}
	buf_release(&ff);
	buf_release(&now);
	return s;
}

/* A new session from the branch of src_path up to entry_id. */
struct session *
session_list_fork(const char *src_path, const char *entry_id, int inclusive, const char *root,
	      struct err *e)
{
	struct session *s = NULL;
	struct session_read r;
	size_t nb = 0, at, *idx = NULL;

	if (session_read_load(&r, src_path, NULL, e) == 0) {
		idx = session_read_branch(&r, &nb);
		at = branch_find(&r, idx, nb, entry_id);
		if (at == nb)
			err_set(e, "fork: entry %s is not on the active branch of %s", entry_id,
				src_path);
		else
			s = fork_write(&r, idx, at, at + (inclusive != 0), entry_id, root, e);
	}
	free(idx);
	session_read_release(&r);
	return s;
}
