/*
 * repomap/store: repomap's per-file results on disk, and the blob encoding
 * (format in repomap/store.h).
 *
 * Data structures:
 *  - struct repomap_store: the whole cache file in `data` (checked: magic,
 *    version, checksum, names distinct, every record and blob in bounds
 *    and consistent) and the records, pointing into it.
 *  - struct rd: a bounds-checked reader over data; any read past the end
 *    sets `bad` and yields zeros.
 */
#include "repomap/store.h"

#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/xmalloc.h"

#define MAGIC "HRMC"
#define MAX_FILE (1024u << 20)
#define REC_FIXED (8 + 8 + 8 + 1 + 4 + 4 + 4) /* a record after its path */

struct rd {
	const unsigned char *p, *end;
	int bad;
};

/* FNV-1a over len bytes, continuing h. */
static uint64_t
fnv_more(uint64_t h, const void *p, size_t len)
{
	const unsigned char *s = p;

	while (len--)
		h = (h ^ *s++) * UINT64_C(0x100000001b3);
	return h;
}

/* FNV-1a over len bytes. */
static uint64_t
fnv(const void *p, size_t len)
{
	return fnv_more(UINT64_C(0xcbf29ce484222325), p, len);
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

/* Read n bytes into v (zeros when out of bounds). */
static void
rd_copy(struct rd *r, void *v, size_t n)
{
	const unsigned char *p = rd_take(r, n);

	if (p)
		memcpy(v, p, n);
	else
		memset(v, 0, n);
}

/* Read a u32. */
static uint32_t
rd_u32(struct rd *r)
{
	uint32_t v;

	rd_copy(r, &v, 4);
	return v;
}

/* Read a string (u16 length with its NUL, then the bytes); "" when bad. */
static const char *
rd_str(struct rd *r)
{
	const unsigned char *s;
	uint16_t n;

	rd_copy(r, &n, 2);
	s = n ? rd_take(r, n) : NULL;
	if (!s || s[n - 1] || memchr(s, 0, n - 1)) {
		r->bad = 1;
		return "";
	}
	return (const char *)s;
}

/* Start reading a blob. */
void
repomap_store_blob_open(struct repomap_blob *r, const unsigned char *p, size_t len)
{
	r->p = p;
	r->end = p + len;
	r->last = 0;
	r->bad = 0;
}

/* A varint (7 bits a byte, low first; at most 5 bytes). */
static uint32_t
blob_varint(struct repomap_blob *r)
{
	uint32_t v = 0;
	int shift;

	for (shift = 0; shift < 35; shift += 7) {
		if (r->p >= r->end) {
			r->bad = 1;
			return 0;
		}
		v |= (uint32_t)(*r->p & 0x7f) << shift;
		if (!(*r->p++ & 0x80))
			return v;
	}
	r->bad = 1;
	return 0;
}

/* Read one definition. */
void
repomap_store_blob_def(struct repomap_blob *r, struct repomap_def *d)
{
	d->name = blob_varint(r);
	d->line = blob_varint(r);
	d->sig_off = blob_varint(r);
	if (r->bad || r->end - r->p < 2) {
		r->bad = 1;
		memset(d, 0, sizeof *d);
		return;
	}
	d->sig_len = *r->p++;
	d->self = *r->p++;
}

/* Read one used name's id. */
uint32_t
repomap_store_blob_ref(struct repomap_blob *r)
{
	uint32_t d = blob_varint(r);

	if (r->bad)
		return 0;
	r->last += d;
	return r->last;
}

/* Append a varint. */
static void
put_varint(struct buf *b, uint32_t v)
{
	unsigned char t[5];
	size_t n = 0;

	do {
		t[n] = v & 0x7f;
		v >>= 7;
		if (v)
			t[n] |= 0x80;
		n++;
	} while (v);
	buf_add(b, t, n);
}

/* Append one definition. */
void
repomap_store_put_def(struct buf *b, const struct repomap_def *d)
{
	unsigned char t[2] = { d->sig_len, d->self != 0 };

	put_varint(b, d->name);
	put_varint(b, d->line);
	put_varint(b, d->sig_off);
	buf_add(b, t, 2);
}

/* Append the used names. */
void
repomap_store_put_refs(struct buf *b, const uint32_t *ids, size_t n)
{
	uint32_t last = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		put_varint(b, ids[i] - last);
		last = ids[i];
	}
}

/* Whether the blob decodes to exactly its counts, within nnames and the file's size. */
static int
blob_ok(const struct repomap_store_rec *rec, uint32_t nnames)
{
	struct repomap_blob b;
	struct repomap_def d;
	uint32_t i, id;

	repomap_store_blob_open(&b, rec->blob, rec->bloblen);
	for (i = 0; i < rec->ndefs && !b.bad; i++) {
		repomap_store_blob_def(&b, &d);
		if (d.name >= nnames || (long long)d.sig_off + d.sig_len > rec->size)
			return 0;
	}
	for (i = 0; i < rec->nrefs && !b.bad; i++) {
		uint32_t before = b.last;
		id = repomap_store_blob_ref(&b);
		if (id >= nnames || (i && id <= before))
			return 0;
	}
	return !b.bad && b.p == b.end;
}

/* Whether names holds exactly nnames distinct NUL-terminated strings. */
static int
names_ok(const char *names, size_t len, uint32_t nnames)
{
	const char **tab;
	const char *p = names, *end = names + len, *nul;
	size_t cap, i;
	uint32_t k;
	int ok = 1;

	if (len && names[len - 1])
		return 0;
	for (cap = 16; cap < 2 * (size_t)nnames; cap *= 2)
		;
	tab = xcalloc(cap, sizeof *tab);
	for (k = 0; k < nnames && ok; k++) {
		if (p >= end || !(nul = memchr(p, 0, (size_t)(end - p)))) {
			ok = 0;
			break;
		}
		for (i = fnv(p, (size_t)(nul - p)) & (cap - 1); tab[i]; i = (i + 1) & (cap - 1))
			if (!strcmp(tab[i], p))
				ok = 0;
		tab[i] = p;
		p = nul + 1;
	}
	free(tab);
	return ok && p == end;
}

/* Decode the records after the names; -1 when one is out of bounds or inconsistent. */
static int
read_records(struct repomap_store *c, struct rd *r, uint32_t count)
{
	uint32_t k;

	c->recs = xcalloc(count ? count : 1, sizeof *c->recs);
	for (k = 0; k < count; k++) {
		struct repomap_store_rec *rec = &c->recs[k];
		unsigned char sk;
		rec->abs = rd_str(r);
		rd_copy(r, &rec->mtime_ns, 8);
		rd_copy(r, &rec->size, 8);
		rd_copy(r, &rec->stamp, 8);
		rd_copy(r, &sk, 1);
		rec->skipped = sk;
		rec->ndefs = rd_u32(r);
		rec->nrefs = rd_u32(r);
		rec->bloblen = rd_u32(r);
		rec->blob = rd_take(r, rec->bloblen);
		if (r->bad || sk > 3 || rec->size < 0 || !blob_ok(rec, c->nnames))
			return -1;
		c->n = k + 1;
	}
	return r->p == r->end ? 0 : -1;
}

/* Drop everything: an empty cache. */
static void
make_empty(struct repomap_store *c)
{
	free(c->recs);
	buf_release(&c->data);
	memset(c, 0, sizeof *c);
	buf_init(&c->data, 0);
}

/* Load root's cache (see repomap/store.h). */
struct repomap_store *
repomap_store_load(const char *root)
{
	struct repomap_store *c = xcalloc(1, sizeof *c);
	struct buf path = BUF_INIT;
	struct rd r;
	uint64_t sum;
	uint32_t count, nbytes;

	buf_init(&c->data, 0);
	if (repomap_store_path(root, &path) < 0 || buf_read_file(&c->data, path.data, MAX_FILE, NULL) < 0 ||
	    c->data.len < 28) {
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
	c->nnames = rd_u32(&r);
	count = rd_u32(&r);
	nbytes = rd_u32(&r);
	c->names = (const char *)rd_take(&r, nbytes);
	c->names_len = nbytes;
	if (r.bad || c->nnames > nbytes || count > c->data.len / (2 + REC_FIXED) ||
	    !names_ok(c->names, nbytes, c->nnames) || read_records(c, &r, count) < 0)
		make_empty(c);
	return c;
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
	unsigned char sk = (unsigned char)r->skipped;

	put_str(b, r->abs);
	buf_add(b, &r->mtime_ns, 8);
	buf_add(b, &r->size, 8);
	buf_add(b, &r->stamp, 8);
	buf_add(b, &sk, 1);
	buf_add(b, &r->ndefs, 4);
	buf_add(b, &r->nrefs, 4);
	buf_add(b, &r->bloblen, 4);
	buf_add(b, r->blob, r->bloblen);
}

/* Write root's cache file (see repomap/store.h). */
int
repomap_store_save(const char *root, const char *names, size_t names_len, uint32_t nnames,
		   const struct repomap_store_rec *recs, size_t n, struct err *e)
{
	struct buf b = BUF_INIT, path = BUF_INIT;
	uint32_t v = REPOMAP_STORE_VERSION, cnt = (uint32_t)n, nb = (uint32_t)names_len;
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
	buf_add(&b, &nnames, 4);
	buf_add(&b, &cnt, 4);
	buf_add(&b, &nb, 4);
	buf_add(&b, names, names_len);
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
