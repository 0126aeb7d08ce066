/*
 * repomap/store: repomap's per-file results on disk (format in repomap/store.h).
 *
 * Data structures:
 *  - struct repomap_store: the whole cache file in `data` (checked: magic,
 *    version, checksum, every record in bounds) and an open-addressing
 *    table from abs path (a NUL-terminated string inside `data`) to the
 *    offset of its record, at most half full.  Records are decoded only
 *    when taken.
 *  - struct rd: a bounds-checked reader over data; any read past the end
 *    sets `bad` and yields zeros.
 */
#include "repomap/store.h"

#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/xmalloc.h"

#define MAGIC "HRMC"
#define MAX_FILE (256u << 20)

struct repomap_store {
	struct buf data;
	const char **key;
	size_t *off;
	size_t cap;        /* a power of two, or 0 */
};

struct rd {
	const unsigned char *p, *end;
	int bad;
};

/* FNV-1a over len bytes. */
static uint64_t
fnv(const void *p, size_t len)
{
	const unsigned char *s = p;
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	while (len--)
		h = (h ^ *s++) * UINT64_C(0x100000001b3);
	return h;
}

/* Append root's cache file path (see repomap/store.h). */
int
repomap_store_path(const char *root, struct buf *out)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (xdg && *xdg)
		buf_addf(out, "%s/hearth/repomap", xdg);
	else if (home && *home)
		buf_addf(out, "%s/.cache/hearth/repomap", home);
	else
		return -1;
	buf_addf(out, "/%016llx.bin", (unsigned long long)fnv(root, strlen(root)));
	return 0;
}

/* Read n bytes (NULL when out of bounds). */
static const unsigned char *
rd_take(struct rd *r, size_t n)
{
	const unsigned char *p = r->p;

	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = 1;
		return NULL;
	}
	r->p += n;
	return p;
}

/* Read a u32. */
static uint32_t
rd_u32(struct rd *r)
{
	const unsigned char *p = rd_take(r, 4);
	uint32_t v = 0;

	if (p)
		memcpy(&v, p, 4);
	return v;
}

/* Read a string (u16 length with its NUL, then the bytes); "" when bad. */
static const char *
rd_str(struct rd *r)
{
	const unsigned char *p = rd_take(r, 2), *s;
	uint16_t n = 0;

	if (p)
		memcpy(&n, p, 2);
	s = n ? rd_take(r, n) : NULL;
	if (!s || s[n - 1] || memchr(s, 0, n - 1)) {
		r->bad = 1;
		return "";
	}
	return (const char *)s;
}

/* Skip (or, with rec, decode into malloc'd copies) one record after its path. */
static void
rd_body(struct rd *r, struct repomap_store_rec *rec)
{
	uint32_t i, n;

	r->p += 8 + 8 + 8;  /* mtime, size, stamp: checked by the caller */
	(void)rd_take(r, 1); /* skipped */
	n = rd_u32(r);
	if (rec && !r->bad && n <= (size_t)(r->end - r->p) / 8)
		rec->defs = xcalloc(n ? n : 1, sizeof *rec->defs);
	for (i = 0; i < n && !r->bad; i++) {
		uint32_t line = rd_u32(r);
		const char *name = rd_str(r), *sig = rd_str(r);
		if (rec && rec->defs && !r->bad) {
			rec->defs[i].line = line;
			rec->defs[i].name = xstrdup(name);
			rec->defs[i].sig = xstrdup(sig);
			rec->ndefs = i + 1;
		}
	}
	n = rd_u32(r);
	if (rec && !r->bad && n <= (size_t)(r->end - r->p) / 3)
		rec->refs = xcalloc(n ? n : 1, sizeof *rec->refs);
	for (i = 0; i < n && !r->bad; i++) {
		const char *s = rd_str(r);
		if (rec && rec->refs && !r->bad)
			rec->refs[rec->nrefs++] = xstrdup(s);
	}
}

/* Index every record; -1 when one is out of bounds. */
static int
index_records(struct repomap_store *c, struct rd *r, uint32_t count)
{
	uint32_t k;
	size_t i;

	for (c->cap = 16; c->cap < 2 * (size_t)count; c->cap *= 2)
		;
	c->key = xcalloc(c->cap, sizeof *c->key);
	c->off = xcalloc(c->cap, sizeof *c->off);
	for (k = 0; k < count; k++) {
		size_t off = (size_t)(r->p - (const unsigned char *)c->data.data);
		const char *abs = rd_str(r);
		if (r->bad || (size_t)(r->end - r->p) < 25)
			return -1;
		rd_body(r, NULL);
		if (r->bad)
			return -1;
		for (i = fnv(abs, strlen(abs)) & (c->cap - 1); c->key[i]; i = (i + 1) & (c->cap - 1))
			;
		c->key[i] = abs;
		c->off[i] = off;
	}
	return r->p == r->end ? 0 : -1;
}

/* Drop the table and data: an empty cache. */
static void
make_empty(struct repomap_store *c)
{
	free(c->key), free(c->off);
	c->key = NULL, c->off = NULL, c->cap = 0;
	buf_release(&c->data);
}

/* Load root's cache (see repomap/store.h). */
struct repomap_store *
repomap_store_load(const char *root)
{
	struct repomap_store *c = xcalloc(1, sizeof *c);
	struct buf path = BUF_INIT;
	struct rd r;
	uint64_t sum;
	uint32_t count;

	if (repomap_store_path(root, &path) < 0 || buf_read_file(&c->data, path.data, MAX_FILE, NULL) < 0 ||
	    c->data.len < 20) {
		make_empty(c);
		buf_release(&path);
		return c;
	}
	buf_release(&path);
	r.p = (const unsigned char *)c->data.data;
	r.end = r.p + c->data.len - 8;
	r.bad = 0;
	memcpy(&sum, r.end, 8);
	if (memcmp(r.p, MAGIC, 4) || sum != fnv(r.p, c->data.len - 8)) {
		make_empty(c);
		return c;
	}
	r.p += 4;
	if (rd_u32(&r) != REPOMAP_STORE_VERSION) {
		make_empty(c);
		return c;
	}
	count = rd_u32(&r);
	if (count > c->data.len / 30 || index_records(c, &r, count) < 0)
		make_empty(c);
	return c;
}

/* Take abs's record when it is current (see repomap/store.h). */
int
repomap_store_take(struct repomap_store *c, const char *abs, long long mtime_ns, long long size,
	     uint64_t stamp, struct repomap_store_rec *rec)
{
	struct rd r;
	size_t i;
	long long m, s;
	uint64_t st;

	if (!c || !c->cap)
		return 0;
	for (i = fnv(abs, strlen(abs)) & (c->cap - 1); c->key[i]; i = (i + 1) & (c->cap - 1))
		if (!strcmp(c->key[i], abs))
			break;
	if (!c->key[i])
		return 0;
	r.p = (const unsigned char *)c->data.data + c->off[i];
	r.end = (const unsigned char *)c->data.data + c->data.len - 8;
	r.bad = 0;
	(void)rd_str(&r);
	memcpy(&m, r.p, 8), memcpy(&s, r.p + 8, 8), memcpy(&st, r.p + 16, 8);
	if (m != mtime_ns || s != size || st != stamp)
		return 0;
	rec->skipped = r.p[24] != 0;
	rec->defs = NULL, rec->refs = NULL, rec->ndefs = rec->nrefs = 0;
	rd_body(&r, rec);
	return 1;
}

/* Free a loaded cache. */
void
repomap_store_free(struct repomap_store *c)
{
	if (!c)
		return;
	make_empty(c);
	free(c);
}

/* Append a u16-length-prefixed, NUL-terminated string (cut to fit a u16). */
static void
put_str(struct buf *b, const char *s)
{
	size_t n = strlen(s);
	uint16_t len;

	if (n > 60000)
		n = 60000;
	len = (uint16_t)(n + 1);
	buf_add(b, &len, 2);
	buf_add(b, s, n);
	buf_addch(b, '\0');
}

/* Append one record. */
static void
put_rec(struct buf *b, const struct repomap_store_rec *r)
{
	uint32_t n = (uint32_t)r->ndefs, i;
	unsigned char sk = r->skipped != 0;

	put_str(b, r->abs);
	buf_add(b, &r->mtime_ns, 8);
	buf_add(b, &r->size, 8);
	buf_add(b, &r->stamp, 8);
	buf_add(b, &sk, 1);
	buf_add(b, &n, 4);
	for (i = 0; i < n; i++) {
		buf_add(b, &r->defs[i].line, 4);
		put_str(b, r->defs[i].name);
		put_str(b, r->defs[i].sig);
	}
	n = (uint32_t)r->nrefs;
	buf_add(b, &n, 4);
	for (i = 0; i < n; i++)
		put_str(b, r->refs[i]);
}

/* Write root's cache file (see repomap/store.h). */
int
repomap_store_save(const char *root, const struct repomap_store_rec *recs, size_t n, struct err *e)
{
	struct buf b = BUF_INIT, path = BUF_INIT;
	uint32_t v = REPOMAP_STORE_VERSION, cnt = (uint32_t)n;
	uint64_t sum;
	char *slash;
	size_t i;
	int rc = -1;

	if (repomap_store_path(root, &path) < 0) {
		buf_release(&path);
		return err_set(e, "save the repo map cache: neither XDG_CACHE_HOME nor HOME is set");
	}
	buf_add(&b, MAGIC, 4);
	buf_add(&b, &v, 4);
	buf_add(&b, &cnt, 4);
	for (i = 0; i < n; i++)
		put_rec(&b, &recs[i]);
	sum = fnv(b.data, b.len);
	buf_add(&b, &sum, 8);
	slash = strrchr(path.data, '/');
	*slash = '\0';
	if (fs_mkdirs(path.data, e) == 0) {
		*slash = '/';
		rc = fs_write_atomic(path.data, b.data, b.len, e);
	}
	buf_release(&b);
	buf_release(&path);
	return rc;
}
