/*
 * tools/stale: per-path records of what the agent last saw of a file.
 *
 * The table is a chained hash table keyed by the absolute path (FNV-1a of
 * the path bytes); buckets double when the records outnumber them, so a
 * lookup stays O(1) however many files a session touches.  Each record owns
 * its path.  A record's hash covers the whole content; a check re-reads the
 * file in 64 KB chunks (memory stays bounded whatever its size).
 */
#include "tools/stale.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/xmalloc.h"

#define TOOL_STALE_CHUNK 65536

struct rec {
	struct rec *next;
	char *path;
	uint64_t hash;   /* content hash */
	off_t size;
	long long mtime_ns;
	ino_t ino;
};

struct tool_stale {
	struct rec **bucket;
	size_t nbucket; /* a power of two */
	size_t n;
};

/* FNV-1a over n bytes, continuing from h. */
uint64_t
tool_stale_hash(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= c[i];
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}

/* An empty table with 64 buckets. */
struct tool_stale *
tool_stale_new(void)
{
	struct tool_stale *s = xcalloc(1, sizeof *s);

	s->nbucket = 64;
	s->bucket = xcalloc(s->nbucket, sizeof *s->bucket);
	return s;
}

/* Free every record and the table. */
void
tool_stale_free(struct tool_stale *s)
{
	struct rec *r, *next;
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nbucket; i++)
		for (r = s->bucket[i]; r; r = next) {
			next = r->next;
			free(r->path);
			free(r);
		}
	free(s->bucket);
	free(s);
}

/* Records held. */
size_t
tool_stale_count(const struct tool_stale *s)
{
	return s ? s->n : 0;
}

/* Bucket index of path. */
static size_t
slot(const struct tool_stale *s, const char *path)
{
	return (size_t)tool_stale_hash(TOOL_STALE_HASH_INIT, path, strlen(path)) & (s->nbucket - 1);
}

/* The link that points at path's record (or at the NULL ending its chain). */
static struct rec **
find(struct tool_stale *s, const char *path)
{
	struct rec **p = &s->bucket[slot(s, path)];

	while (*p && strcmp((*p)->path, path))
		p = &(*p)->next;
	return p;
}

/* Double the buckets and rehash every record. */
static void
grow(struct tool_stale *s)
{
	struct rec **old = s->bucket, *r, *next;
	size_t i, nold = s->nbucket;

	s->nbucket *= 2;
	s->bucket = xcalloc(s->nbucket, sizeof *s->bucket);
	for (i = 0; i < nold; i++)
		for (r = old[i]; r; r = next) {
			next = r->next;
			r->next = s->bucket[slot(s, r->path)];
			s->bucket[slot(s, r->path)] = r;
		}
	free(old);
}

/* mtime of st in nanoseconds. */
static long long
mtime_ns(const struct stat *st)
{
	return (long long)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec;
}

/* Insert or update abs's record. */
void
tool_stale_seen(struct tool_stale *s, const char *abs, const struct stat *st, uint64_t h)
{
	struct rec **p, *r;

	if (!s || !abs)
		return;
	p = find(s, abs);
	if (!*p) {
		if (s->n >= s->nbucket) {
			grow(s);
			p = find(s, abs);
		}
		r = xcalloc(1, sizeof *r);
		r->path = xstrdup(abs);
		*p = r;
		s->n++;
	}
	(*p)->hash = h;
	(*p)->size = st->st_size;
	(*p)->mtime_ns = mtime_ns(st);
	(*p)->ino = st->st_ino;
}

/* Record the agent's own write: the bytes it wrote, the file's new stat. */
void
tool_stale_wrote(struct tool_stale *s, const char *abs, const void *data, size_t n)
{
	struct stat st;

	if (!s || !abs)
		return;
	if (stat(abs, &st) < 0) {
		tool_stale_forget(s, abs);
		return;
	}
	tool_stale_seen(s, abs, &st, tool_stale_hash(TOOL_STALE_HASH_INIT, data, n));
}

/* Unlink and free abs's record, if any. */
void
tool_stale_forget(struct tool_stale *s, const char *abs)
{
	struct rec **p, *r;

	if (!s || !abs)
		return;
	p = find(s, abs);
	if (!*p)
		return;
	r = *p;
	*p = r->next;
	free(r->path);
	free(r);
	s->n--;
}

/* Hash the file's content; -1 when it cannot be read. */
static int
hash_file(const char *abs, uint64_t *h)
{
	char *chunk;
	ssize_t n;
	int fd = open(abs, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -1;
	chunk = xmalloc(TOOL_STALE_CHUNK);
	*h = TOOL_STALE_HASH_INIT;
	for (;;) {
		n = read(fd, chunk, TOOL_STALE_CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		*h = tool_stale_hash(*h, chunk, (size_t)n);
	}
	free(chunk);
	close(fd);
	return n < 0 ? -1 : 0;
}

/* Whether the file on disk is what r recorded: size first, then the content hash. */
static int
unchanged(const struct rec *r, const char *abs, const struct stat *st)
{
	uint64_t h;

	if (st->st_size != r->size)
		return 0;
	if (hash_file(abs, &h) < 0)
		return 1; /* unreadable: let the tool report it */
	return h == r->hash;
}

/* The guard itself (see tools/stale.h). */
int
tool_stale_check(struct tool_stale *s, const char *abs, const char *rel, const char *verb,
	    struct err *e)
{
	struct stat st;
	struct rec *r;

	if (!s || stat(abs, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	r = *find(s, abs);
	if (!r)
		return err_set(e, "%s has not been read yet; read it before %s (so you work "
			       "from its current content)", rel, verb);
	if (!unchanged(r, abs, &st))
		return err_set(e, "%s changed on disk since you last read it (by the user or "
			       "another process); read it again before %s", rel, verb);
	return 0;
}
