/*
 * session/read: read a session file into entries and find its active branch.
 *
 * struct lines is the line splitter's state: the line being gathered (its
 * start offset and number), whether it is being skipped as too long, and
 * the running file offset.  Entries are appended to r->v as lines end.
 */
#include "session/read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/json.h"
#include "base/xmalloc.h"

size_t session_read_line_max = (size_t)64 << 20;

struct lines {
	struct buf line; /* the current line so far (empty while skipping) */
	size_t ln;       /* its number, from 1 */
	off_t off;       /* bytes consumed so far */
	off_t start;     /* where the current line starts */
	int skipping;    /* the current line is too long */
};

/* Decode one complete line and keep it when it is an entry. */
static void
add_line(struct session_read *r, struct lines *s, int last)
{
	struct session_line_src src = { r->path, s->ln, last, r->warn };
	struct session_line_entry x;
	int rc;

	if (s->skipping) {
		r->skipped++;
		if (r->warn)
			buf_addf(r->warn, "%s:%zu: line longer than %zu bytes; skipped\n", r->path,
				 s->ln, session_read_line_max);
		return;
	}
	if ((rc = session_line_decode(s->line.data, s->line.len, &src, &x)) < 0)
		r->skipped++;
	if (rc <= 0)
		return;
	x.off = s->start;
	x.len = s->line.len;
	if (r->n == r->alloc) {
		r->alloc = r->alloc ? r->alloc * 2 : 64;
		r->v = xrealloc(r->v, r->alloc * sizeof *r->v);
	}
	r->v[r->n++] = x;
}

/* Split a chunk into lines, handing each complete one to add_line. */
static void
split(struct session_read *r, struct lines *s, const char *chunk, size_t n)
{
	size_t i, k;

	for (i = 0; i < n;) {
		const char *nl = memchr(chunk + i, '\n', n - i);
		k = nl ? (size_t)(nl - chunk) - i : n - i;
		if (!s->skipping && s->line.len + k > session_read_line_max) {
			s->skipping = 1;
			buf_reset(&s->line);
		}
		if (!s->skipping)
			buf_add(&s->line, chunk + i, k);
		i += k + (nl != NULL);
		s->off += (off_t)(k + (nl != NULL));
		if (!nl)
			break;
		add_line(r, s, 0);
		s->skipping = 0;
		buf_reset(&s->line);
		s->ln++;
		s->start = s->off;
	}
}

/* Read the file line by line; a last line without '\n' is decoded as torn. */
static int
read_all(struct session_read *r, int fd, struct err *e)
{
	struct lines s = { BUF_INIT, 1, 0, 0, 0 };
	char chunk[65536];
	ssize_t n;

	while ((n = read(fd, chunk, sizeof chunk)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			buf_release(&s.line);
			return err_errno(e, "read session %s", r->path);
		}
		split(r, &s, chunk, (size_t)n);
	}
	if (s.skipping || s.line.len)
		add_line(r, &s, 1);
	buf_release(&s.line);
	return 0;
}

/* Open a regular file and read it into r. */
int
session_read_load(struct session_read *r, const char *path, struct buf *warnings, struct err *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), rc;
	struct stat st;

	memset(r, 0, sizeof *r);
	r->path = path;
	r->warn = warnings;
	if (fd < 0)
		return err_errno(e, "open session %s", path);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return err_set(e, "open session %s: not a regular file", path);
	}
	json_init();
	rc = read_all(r, fd, e);
	close(fd);
	return rc;
}

/* Index of the parent of entry i (searched among earlier entries), or -1. */
static long
find_parent(struct session_read *r, size_t i)
{
	const char *p = r->v[i].parent;
	size_t j;

	if (!p)
		return -1;
	for (j = i; j-- > 0;)
		if (!strcmp(r->v[j].id, p))
			return (long)j;
	if (r->warn)
		buf_addf(r->warn, "%s: entry %s: parent %s not found; continuing from the entry "
			 "before it\n", r->path, r->v[i].id, p);
	return (long)i - 1;
}

/* Walk parents from the last entry, then reverse into file order. */
size_t *
session_read_branch(struct session_read *r, size_t *n)
{
	size_t *idx = xcalloc(r->n + 1, sizeof *idx), k = 0, j;
	long i = (long)r->n - 1;

	while (i >= 0) {
		idx[k++] = (size_t)i;
		i = find_parent(r, (size_t)i);
	}
	for (j = 0; j < k / 2; j++) {
		size_t t = idx[j];
		idx[j] = idx[k - 1 - j];
		idx[k - 1 - j] = t;
	}
	*n = k;
	return idx;
}

/* Free every entry and the array. */
void
session_read_release(struct session_read *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		session_line_entry_release(&r->v[i]);
	free(r->v);
	memset(r, 0, sizeof *r);
}
