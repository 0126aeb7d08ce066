/*
 * session/list: listing, resolving and forking the sessions of a workspace.
 *
 * A list is a malloc'd array of struct session_list_info grown one row per
 * file, sorted once at the end.  The files the listing cache does not
 * answer for are loaded after the directory is read, on one thread per
 * online core (at most LIST_THREADS) when there are LIST_THREADED or more
 * (a first listing of 1,000 sessions, ten of 2,000 turns, is 90 % the
 * JSON of the long ones: 62 ms on one core).  Fork reads the source with session_read (so
 * each entry knows its byte range), then copies the branch's lines
 * verbatim through session_append_line into a session_create_bare file.
 */
#include "session/list.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/json.h"
#include "session/read.h"
#include "base/xmalloc.h"

#define LIST_THREADS 4   /* loading threads at most */
#define LIST_THREADED 8  /* files to load from which threads help */

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

/*
 * The listing cache, DIR/.list-cache: one line per session file
 * "NAME\tSIZE\tMTIME_S\tMTIME_NS\tINODE\tNMSGS\tFIRST_PROMPT" (the prompt has
 * no control characters).  A row whose size, mtime and inode still match
 * the file is taken as it is; any other file is loaded in full and the
 * cache is rewritten (fs_write_atomic), so a listing reads one small file
 * and stats each session instead of parsing them all.  A damaged or
 * missing cache only costs the loads.
 */
struct cache_row {
	char *name;
	long long size, sec, nsec, ino;
	size_t nmsgs;
	char *prompt;
};

struct cache {
	struct cache_row *v;
	size_t n;
	int dirty;
};

/* Order of cache rows by name. */
static int
row_cmp(const void *a, const void *b)
{
	return strcmp(((const struct cache_row *)a)->name, ((const struct cache_row *)b)->name);
}

/* Read DIR/.list-cache (rows sorted by name); nothing when missing or damaged. */
static void
cache_read(const char *dir, struct cache *c)
{
	struct buf p = BUF_INIT, b = BUF_INIT;
	struct err e = ERR_INIT;
	char *line, *save = NULL;

	memset(c, 0, sizeof *c);
	buf_addf(&p, "%s/.list-cache", dir);
	if (buf_read_file(&b, p.data, (size_t)64 << 20, &e) == 0 && b.len) {
		for (line = strtok_r(b.data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char *f[7], *q = line;
			int k;
			for (k = 0; k < 7 && q; k++) {
				f[k] = q;
				q = k < 6 ? strchr(q, '\t') : NULL;
				if (q)
					*q++ = '\0';
			}
			if (k < 7)
				continue;
			c->v = xrealloc(c->v, (c->n + 1) * sizeof *c->v);
			c->v[c->n].name = xstrdup(f[0]);
			c->v[c->n].size = atoll(f[1]);
			c->v[c->n].sec = atoll(f[2]);
			c->v[c->n].nsec = atoll(f[3]);
			c->v[c->n].ino = atoll(f[4]);
			c->v[c->n].nmsgs = (size_t)atoll(f[5]);
			c->v[c->n].prompt = xstrdup(f[6]);
			c->n++;
		}
		if (c->n)
			qsort(c->v, c->n, sizeof *c->v, row_cmp);
	}
	buf_release(&b);
	buf_release(&p);
}

/* The row of name, or NULL. */
static struct cache_row *
cache_find(struct cache *c, const char *name)
{
	struct cache_row key;

	key.name = (char *)name;
	return c->n ? bsearch(&key, c->v, c->n, sizeof *c->v, row_cmp) : NULL;
}

/* Write the listed sessions as the new cache (best effort: a failure costs the next listing). */
static void
cache_write(const char *dir, const struct session_list_info *v, const struct stat *st, size_t n)
{
	struct buf p = BUF_INIT, b = BUF_INIT;
	struct err e = ERR_INIT;
	size_t i;

	for (i = 0; i < n; i++)
		buf_addf(&b, "%s.jsonl\t%lld\t%lld\t%lld\t%lld\t%zu\t%s\n", v[i].id, (long long)st[i].st_size,
			 (long long)st[i].st_mtim.tv_sec, (long long)st[i].st_mtim.tv_nsec,
			 (long long)st[i].st_ino, v[i].nmsgs, v[i].first_prompt ? v[i].first_prompt : "");
	buf_addf(&p, "%s/.list-cache", dir);
	(void)fs_write_atomic(p.data, b.data ? b.data : "", b.len, &e);
	buf_release(&p);
	buf_release(&b);
}

/* Free the cache. */
static void
cache_free(struct cache *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->v[i].name), free(c->v[i].prompt);
	free(c->v);
}

/* Whether a directory entry names a session file. */
static int
is_session_name(const char *name)
{
	size_t len = strlen(name);

	return len > 6 && !strcmp(name + len - 6, ".jsonl") && name[0] != '.';
}

/* The rows a listing has to load, shared by the threads that load them. */
struct loads {
	struct session_list_info *v;
	size_t *idx, n;          /* the rows of v to load */
	unsigned char *failed;   /* by position in idx: the file did not load */
	atomic_size_t next;      /* the next position to take */
};

/* Load the k-th row to load: its first prompt and message count. */
static void
load_row(struct loads *ld, size_t k)
{
	struct session_list_info *x = &ld->v[ld->idx[k]];
	struct session_loaded l;

	if (session_load(x->path, &l, NULL, NULL)) {
		ld->failed[k] = 1;
		return;
	}
	x->first_prompt = first_prompt(&l);
	x->nmsgs = l.conv.nmsgs;
	session_loaded_release(&l);
}

/* A loading thread: rows in turn until none is left. */
static void *
load_run(void *arg)
{
	struct loads *ld = arg;
	size_t k;

	while ((k = atomic_fetch_add(&ld->next, 1)) < ld->n)
		load_row(ld, k);
	return NULL;
}

/*
 * Load the rows in ld (this thread and helpers), then drop from v and sts
 * the rows whose file did not load; *n is v's length.
 */
static void
load_rows(struct loads *ld, struct stat *sts, size_t *n)
{
	pthread_t th[LIST_THREADS - 1];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t want = ld->n < LIST_THREADED ? 1 : cpus < 1 ? 1 : cpus > LIST_THREADS ? LIST_THREADS : (size_t)cpus;
	size_t i, k, started = 0;

	for (i = 1; i < want; i++)
		if (pthread_create(&th[started], NULL, load_run, ld) == 0)
			started++;
	load_run(ld);
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < ld->n; i++)
		if (ld->failed[i]) {
			free(ld->v[ld->idx[i]].id);
			free(ld->v[ld->idx[i]].path);
			ld->v[ld->idx[i]].id = NULL;
		}
	for (i = k = 0; i < *n; i++)
		if (ld->v[i].id) {
			ld->v[k] = ld->v[i];
			sts[k++] = sts[i];
		}
	*n = k;
}

/*
 * Add one session file to the list: its row from the cache when the file
 * is unchanged, else a row for load_rows (without a prompt yet).
 */
static void
list_one(const char *dir, const char *name, struct cache *c, struct session_list_info **v,
	 struct stat **sts, size_t *n, size_t **misses, size_t *nmisses)
{
	struct stat st;
	struct buf p = BUF_INIT;
	struct session_list_info *x;
	struct cache_row *row;
	size_t len = strlen(name);

	buf_addf(&p, "%s/%s", dir, name);
	if (stat(p.data, &st) < 0 || !S_ISREG(st.st_mode)) {
		buf_release(&p);
		return;
	}
	row = cache_find(c, name);
	if (row && (row->size != (long long)st.st_size || row->sec != (long long)st.st_mtim.tv_sec ||
		    row->nsec != (long long)st.st_mtim.tv_nsec || row->ino != (long long)st.st_ino))
		row = NULL;
	if (!row) {
		c->dirty = 1;
		*misses = xrealloc(*misses, (*nmisses + 1) * sizeof **misses);
		(*misses)[(*nmisses)++] = *n;
	}
	*v = xrealloc(*v, (*n + 1) * sizeof **v);
	*sts = xrealloc(*sts, (*n + 1) * sizeof **sts);
	(*sts)[*n] = st;
	x = &(*v)[(*n)++];
	x->id = xstrndup(name, len - 6);
	x->path = buf_detach(&p, NULL);
	x->mtime = st.st_mtime;
	x->first_prompt = row ? xstrdup(row->prompt) : NULL;
	x->nmsgs = row ? row->nmsgs : 0;
}

/* The sessions of root, newest first. */
int
session_list_list(const char *root, struct session_list_info **out, size_t *n, struct err *e)
{
	struct buf dir = BUF_INIT;
	struct stat *sts = NULL;
	struct cache c;
	struct dirent *de;
	struct loads ld;
	size_t counted = 0;
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
	cache_read(dir.data, &c);
	memset(&ld, 0, sizeof ld);
	while ((de = readdir(d)) != NULL)
		if (is_session_name(de->d_name)) {
			counted++;
			list_one(dir.data, de->d_name, &c, out, &sts, n, &ld.idx, &ld.n);
		}
	closedir(d);
	if (ld.n) {
		json_init(); /* (not in the threads: it sets cJSON's hooks) */
		ld.v = *out;
		ld.failed = xcalloc(ld.n, 1);
		atomic_init(&ld.next, 0);
		load_rows(&ld, sts, n);
		free(ld.failed);
		free(ld.idx);
	}
	if (c.dirty || counted != c.n)
		cache_write(dir.data, *out, sts, *n);
	cache_free(&c);
	free(sts);
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

/* Whether a file's first line is a session line (what -c needs to know: the resume reads the rest). */
static int
looks_like_session(const char *path)
{
	char head[512];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t k;

	if (fd < 0)
		return 0;
	k = read(fd, head, sizeof head - 1);
	close(fd);
	if (k <= 0)
		return 0;
	head[k] = '\0';
	return head[0] == '{' && strstr(head, "\"type\"") != NULL;
}

/* The newest session of root: file times only, nothing parsed. */
int
session_list_latest(const char *root, struct buf *path, struct err *e)
{
	struct buf dir = BUF_INIT, p = BUF_INIT, best = BUF_INIT;
	struct timespec bt = { 0, 0 };
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (session_dir(root, &dir, e) < 0)
		return -1;
	d = opendir(dir.data);
	while (d && (de = readdir(d)) != NULL) {
		if (!is_session_name(de->d_name))
			continue;
		buf_reset(&p);
		buf_addf(&p, "%s/%s", dir.data, de->d_name);
		if (stat(p.data, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		/* newest write first, then the newer id (file names sort as ids do) */
		if (best.len && (st.st_mtime < bt.tv_sec ||
				 (st.st_mtime == bt.tv_sec && strcmp(p.data, best.data) < 0)))
			continue;
		if (!looks_like_session(p.data))
			continue;
		bt.tv_sec = st.st_mtime;
		buf_reset(&best);
		buf_add(&best, p.data, p.len);
	}
	int found = best.len > 0;

	if (d)
		closedir(d);
	if (found)
		buf_add(path, best.data, best.len);
	buf_release(&dir);
	buf_release(&p);
	buf_release(&best);
	return found ? 0 : err_set(e, "no session to continue in %s; start one with hearth", root);
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
