/* base/buf: growable NUL-terminated byte strings (see base/buf.h for invariants). */
#include "base/buf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/xmalloc.h"

char buf_slopbuf[1];

/* Start empty, optionally pre-allocating. */
void
buf_init(struct buf *b, size_t hint)
{
	b->data = buf_slopbuf;
	b->len = 0;
	b->alloc = 0;
	if (hint)
		buf_grow(b, hint);
}

/* Free storage and return to the empty state. */
void
buf_release(struct buf *b)
{
	if (b->alloc)
		free(b->data);
	buf_init(b, 0);
}

/* Hand the bytes to the caller; an empty buf yields a fresh "" allocation. */
char *
buf_detach(struct buf *b, size_t *len_out)
{
	char *p;

	if (len_out)
		*len_out = b->len;
	if (!b->alloc)
		p = xstrndup("", 0);
	else
		p = b->data;
	buf_init(b, 0);
	return p;
}

/* Amortised doubling growth. */
void
buf_grow(struct buf *b, size_t extra)
{
	size_t need;

	if (extra > SIZE_MAX - b->len - 1)
		fatal("buffer size overflow");
	need = b->len + extra + 1;
	if (need <= b->alloc)
		return;
	if (!b->alloc)
		b->data = NULL;
	b->alloc = b->alloc ? b->alloc : 64;
	while (b->alloc < need)
		b->alloc = b->alloc > SIZE_MAX / 2 ? need : b->alloc * 2;
	b->data = xrealloc(b->data, b->alloc);
	if (b->len == 0)
		b->data[0] = '\0';
}

/* Truncate, keeping the terminator. */
void
buf_setlen(struct buf *b, size_t n)
{
	if (n > b->len)
		n = b->len;
	b->len = n;
	if (b->alloc)
		b->data[n] = '\0';
}

/* Append raw bytes. */
void
buf_add(struct buf *b, const void *data, size_t n)
{
	if (!n)
		return;
	buf_grow(b, n);
	memmove(b->data + b->len, data, n);
	b->len += n;
	b->data[b->len] = '\0';
}

/* Append a C string. */
void
buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

/* Append one byte. */
void
buf_addch(struct buf *b, int c)
{
	buf_grow(b, 1);
	b->data[b->len++] = (char)c;
	b->data[b->len] = '\0';
}

/* Close an unfinished last line. */
void
buf_end_line(struct buf *b)
{
	if (b->len && b->data[b->len - 1] != '\n')
		buf_addch(b, '\n');
}

/* Append printf-formatted text. */
void
buf_addf(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(b, fmt, ap);
	va_end(ap);
}

/* vprintf flavour: format once to size, then into place. */
void
buf_vaddf(struct buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	buf_grow(b, (size_t)n);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

/* Cut a span out. */
void
buf_remove(struct buf *b, size_t pos, size_t n)
{
	if (pos >= b->len)
		return;
	if (n > b->len - pos)
		n = b->len - pos;
	memmove(b->data + pos, b->data + pos + n, b->len - pos - n);
	buf_setlen(b, b->len - n);
}

/* Splice bytes in at pos. */
void
buf_insert(struct buf *b, size_t pos, const void *data, size_t n)
{
	if (pos > b->len)
		pos = b->len;
	if (!n)
		return;
	buf_grow(b, n);
	memmove(b->data + pos + n, b->data + pos, b->len - pos);
	memcpy(b->data + pos, data, n);
	b->len += n;
	b->data[b->len] = '\0';
}

/* Strip trailing spaces, tabs and newlines. */
void
buf_rtrim(struct buf *b)
{
	size_t n = b->len;

	while (n && (b->data[n - 1] == ' ' || b->data[n - 1] == '\t' ||
		     b->data[n - 1] == '\n' || b->data[n - 1] == '\r'))
		n--;
	buf_setlen(b, n);
}

/* Slurp a file, bounded by max so a 1 GB file is refused, not loaded. */
int
buf_read_file(struct buf *b, const char *path, size_t max, struct err *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return err_errno(e, "open %s", path);
	rc = buf_read_fd(b, fd, path, max, e);
	close(fd);
	return rc;
}

/* buf_read_file's loop on an fd the caller opened (beneath the workspace, say). */
int
buf_read_fd(struct buf *b, int fd, const char *path, size_t max, struct err *e)
{
	struct stat st;

	if (fstat(fd, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return err_set(e, "read %s: is a directory", path);
		if (max && S_ISREG(st.st_mode) && (uintmax_t)st.st_size > max)
			return err_set(e, "read %s: file is %jd bytes, over the %zu byte limit",
				       path, (intmax_t)st.st_size, max);
		if (S_ISREG(st.st_mode))
			return buf_read_fd_sized(b, fd, path, max, (long long)st.st_size, e);
	}
	return buf_read_fd_sized(b, fd, path, max, -1, e);
}

/* See base/buf.h. */
int
buf_read_fd_sized(struct buf *b, int fd, const char *path, size_t max, long long size, struct err *e)
{
	size_t total = 0, want = 65536;
	ssize_t n;
	/* a regular file in one read of its size and a byte more: a short read is its end */
	int reg = size >= 0 && (unsigned long long)size < SIZE_MAX / 2;

	if (reg)
		want = (size_t)size + 1;
	for (;;) {
		buf_grow(b, want);
		n = read(fd, b->data + b->len, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			b->data[b->len] = '\0';
			return err_errno(e, "read %s", path);
		}
		if (n == 0)
			break;
		total += (size_t)n;
		if (max && total > max) {
			b->data[b->len] = '\0';
			return err_set(e, "read %s: over the %zu byte limit", path, max);
		}
		b->len += (size_t)n;
		if (reg && (size_t)n < want)
			break;
		want = 65536;
	}
	b->data[b->len] = '\0';
	return 0;
}

void
buf_add_shquoted(struct buf *b, const char *s)
{
	buf_addch(b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			buf_adds(b, "'\\''");
		else
			buf_addch(b, *s);
	}
	buf_addch(b, '\'');
}
