/*
 * route/privlines: the private lines' hash set and the result filter (see
 * route/privlines.h).  The walk is iterative over a stack of directory
 * paths, so depth costs no C stack.
 */
#include "route/privlines.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/xmalloc.h"
#include "route/privacy.h"

#define PRIVLINES_MAX_FILE (1u << 20)
#define PRIVLINES_SEPS 16

struct route_privlines {
	uint64_t *h; /* sorted, distinct */
	size_t n, cap;
};

/* Blank for trimming. */
static int
privlines_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* Trim text[0..*len) in place of the view; returns the new start. */
static const char *
privlines_trim(const char *s, size_t *len)
{
	while (*len && privlines_blank(*s)) {
		s++;
		(*len)--;
	}
	while (*len && privlines_blank(s[*len - 1]))
		(*len)--;
	return s;
}

/* FNV-1a, 64 bits. */
static uint64_t
privlines_hash(const char *s, size_t n)
{
	uint64_t h = 14695981039346656037u;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211u;
	}
	return h;
}

/* Whether the trimmed view has enough non-blank bytes. */
static int
privlines_meaningful(const char *s, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n && k < ROUTE_PRIVLINES_MIN; i++)
		k += !privlines_blank(s[i]);
	return k >= ROUTE_PRIVLINES_MIN;
}

/* Add the lines of one file's contents. */
static void
privlines_add_text(struct route_privlines *s, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		const char *t = privlines_trim(p, &n);

		if (privlines_meaningful(t, n)) {
			if (s->n == s->cap) {
				s->cap = s->cap ? 2 * s->cap : 64;
				s->h = xrealloc(s->h, s->cap * sizeof *s->h);
			}
			s->h[s->n++] = privlines_hash(t, n);
		}
		p = nl ? nl + 1 : end;
	}
}

/* Read one regular file (at most PRIVLINES_MAX_FILE bytes) into the set; 1 if read. */
static int
privlines_add_file(struct route_privlines *s, const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	char *data;
	ssize_t r;
	size_t got = 0;

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > PRIVLINES_MAX_FILE) {
		close(fd);
		return 0;
	}
	data = xmalloc((size_t)st.st_size + 1);
	while (got < (size_t)st.st_size && (r = read(fd, data + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)r;
	close(fd);
	privlines_add_text(s, data, got);
	free(data);
	return 1;
}

/* qsort order. */
static int
privlines_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Walk root. */
struct route_privlines *
route_privlines_build(const char *root, const char *const *globs, size_t nglobs, size_t *nfiles)
{
	struct route_privlines *s = xcalloc(1, sizeof *s);
	struct route_policy pol;
	char **stack = NULL; /* relative directory paths ("" = root) */
	size_t nstack = 0, cap = 0, entries = 0, files = 0, i, k;

	memset(&pol, 0, sizeof pol);
	pol.privacy = (char **)(uintptr_t)globs; /* only read */
	pol.nprivacy = nglobs;
	if (nglobs) {
		stack = xmalloc(16 * sizeof *stack);
		cap = 16;
		stack[nstack++] = xstrdup("");
	}
	while (nstack) {
		char *rel = stack[--nstack];
		struct buf dir = BUF_INIT;
		DIR *d;
		struct dirent *de;

		buf_addf(&dir, "%s%s%s", root, *rel ? "/" : "", rel);
		d = opendir(dir.data);
		while (d && (de = readdir(d)) != NULL && entries < ROUTE_PRIVLINES_MAX_ENTRIES) {
			struct buf path = BUF_INIT, sub = BUF_INIT;
			struct stat st;

			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
			    (!*rel && !strcmp(de->d_name, ".git")))
				continue;
			entries++;
			buf_addf(&sub, "%s%s%s", rel, *rel ? "/" : "", de->d_name);
			buf_addf(&path, "%s/%s", dir.data, de->d_name);
			if (lstat(path.data, &st) == 0) {
				if (S_ISDIR(st.st_mode)) {
					if (nstack == cap) {
						cap *= 2;
						stack = xrealloc(stack, cap * sizeof *stack);
					}
					stack[nstack++] = buf_detach(&sub, NULL);
				} else if (S_ISREG(st.st_mode) && route_privacy_match(&pol, sub.data)) {
					files += (size_t)privlines_add_file(s, path.data);
				}
			}
			buf_release(&sub);
			buf_release(&path);
		}
		if (d)
			closedir(d);
		buf_release(&dir);
		free(rel);
	}
	while (nstack)
		free(stack[--nstack]);
	free(stack);
	if (s->n) {
		qsort(s->h, s->n, sizeof *s->h, privlines_cmp);
		for (i = 1, k = 1; i < s->n; i++)
			if (s->h[i] != s->h[k - 1])
				s->h[k++] = s->h[i];
		s->n = k;
	}
	if (nfiles)
		*nfiles = files;
	return s;
}

/* Free. */
void
route_privlines_free(struct route_privlines *s)
{
	if (!s)
		return;
	free(s->h);
	free(s);
}

/* Distinct lines. */
size_t
route_privlines_count(const struct route_privlines *s)
{
	return s ? s->n : 0;
}

/* Lookup. */
int
route_privlines_has(const struct route_privlines *s, const char *text, size_t len)
{
	const char *t = privlines_trim(text, &len);
	uint64_t h;
	size_t lo = 0, hi;

	if (!s || !s->n || !privlines_meaningful(t, len))
		return 0;
	h = privlines_hash(t, len);
	hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->h[mid] == h)
			return 1;
		if (s->h[mid] < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* Whether a result line holds a private line: whole, or after a ':' / TAB prefix. */
static int
privlines_line(const struct route_privlines *s, const char *p, size_t n)
{
	size_t i, seps = 0;

	if (route_privlines_has(s, p, n))
		return 1;
	for (i = 0; i < n && seps < PRIVLINES_SEPS; i++)
		if (p[i] == ':' || p[i] == '\t') {
			seps++;
			if (route_privlines_has(s, p + i + 1, n - i - 1))
				return 1;
		}
	return 0;
}

/* Redact a text. */
size_t
route_privlines_redact(const struct route_privlines *s, const char *text, struct buf *out)
{
	const char *p = text ? text : "";
	size_t k = 0;

	while (*p) {
		size_t n = strcspn(p, "\n");

		if (s && s->n && privlines_line(s, p, n)) {
			buf_adds(out, ROUTE_PRIVLINES_NOTE);
			k++;
		} else {
			buf_add(out, p, n);
		}
		if (p[n] == '\n')
			buf_addch(out, '\n');
		p += n + (p[n] == '\n');
	}
	return k;
}

/* Redact c's tool results in place. */
size_t
route_privlines_conv(const struct route_privlines *s, struct conv *c)
{
	size_t i, j, changed = 0;

	if (!s || !s->n)
		return 0;
	for (i = 0; i < c->nmsgs; i++)
		for (j = 0; j < c->msgs[i].nblocks; j++) {
			struct conv_block *b = &c->msgs[i].blocks[j];
			struct buf t = BUF_INIT;

			if (b->kind == CONV_TOOL_RESULT && b->text && route_privlines_redact(s, b->text, &t)) {
				free(b->text);
				b->text = buf_detach(&t, NULL);
				conv_msg_touch(&c->msgs[i]);
				changed++;
			} else {
				buf_release(&t);
			}
		}
	return changed;
}
