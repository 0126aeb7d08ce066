/*
 * repomap/repomap: per-file symbol extraction (cached), ranking, rendering.
 *
 * Data structures:
 *  - struct fentry: what one file yields — its definitions (name, line,
 *    signature) in line order and its used identifiers, sorted and unique.
 *    Entries live in the static `cache` (pointer array + an open-addressing
 *    map from absolute path to index); an entry is valid while the file's
 *    (mtime ns, size) match.  `gen` marks entries seen by the current build;
 *    the others are dropped at its end.
 *  - struct smap: string -> size_t, open addressing with linear probing,
 *    keys borrowed (they outlive the map), at most half full.
 *  - `disk`: root's on-disk cache (repomap_store), loaded at the first miss of a
 *    build and freed at its end, and only when the memory cache is empty
 *    or held another root (`disk_ok`): later misses are changed files; `dirty` says the build changed the set
 *    of entries or one of them, so the disk cache is rewritten.
 * Extraction itself (parse, tags query, used names) is repomap_extract's.
 */
#include "repomap/repomap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fs.h"
#include "repomap/store.h"
#include "repomap/extract.h"
#include "base/str.h"
#include "code/code.h"
#include "io/work.h"
#include "base/xmalloc.h"

#define MINIFIED_MIN 4096   /* bytes: smaller files are never "minified" */
#define MINIFIED_LINE 300   /* average line length above which a file is */

struct fentry {
	char *abs, *rel;
	long long mtime_ns;
	off_t size;
	unsigned gen;
	int skipped;         /* 1 binary or unparsable, 2 minified or generated */
	uint64_t stamp;      /* repomap_extract's, of the file's language */
	struct repomap_store_def *defs;
	size_t ndefs;
	char **refs;         /* sorted, unique */
	size_t nrefs;
	size_t score;        /* of the current build */
};

struct smap {
	const char **key;
	size_t *val;
	size_t cap, n;       /* cap a power of two */
};

static struct {
	struct fentry **v;
	size_t n, cap;
	struct smap index;   /* abs -> position in v */
	unsigned gen;
	struct repomap_stats st;
	const char *root;    /* of the current build */
	char *last_root;     /* of the previous build */
	struct repomap_store *disk;
	int disk_ok, dirty;
} cache;

/* FNV-1a of a string. */
static size_t
str_hash(const char *s)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * UINT64_C(0x100000001b3);
	return (size_t)h;
}

/* The value slot for k (created with 0 when `create`), or NULL. */
static size_t *
smap_get(struct smap *m, const char *k, int create)
{
	size_t i, j, oldcap;
	const char **ok;
	size_t *ov;

	if (create && (m->n + 1) * 2 > m->cap) {
		ok = m->key, ov = m->val, oldcap = m->cap;
		m->cap = m->cap ? m->cap * 2 : 64;
		m->key = xcalloc(m->cap, sizeof *m->key);
		m->val = xcalloc(m->cap, sizeof *m->val);
		m->n = 0;
		for (j = 0; j < oldcap; j++)
			if (ok[j])
				*smap_get(m, ok[j], 1) = ov[j];
		free(ok), free(ov);
	}
	if (!m->cap)
		return NULL;
	for (i = str_hash(k) & (m->cap - 1); m->key[i]; i = (i + 1) & (m->cap - 1))
		if (!strcmp(m->key[i], k))
			return &m->val[i];
	if (!create)
		return NULL;
	m->key[i] = k;
	m->n++;
	return &m->val[i];
}

/* Free the map's arrays (not the keys). */
static void
smap_free(struct smap *m)
{
	free(m->key);
	free(m->val);
	memset(m, 0, sizeof *m);
}

/* Free what an entry yields (definitions, names), keeping its identity. */
static void
fentry_clear(struct fentry *f)
{
	size_t i;

	for (i = 0; i < f->ndefs; i++)
		free(f->defs[i].name), free(f->defs[i].sig);
	for (i = 0; i < f->nrefs; i++)
		free(f->refs[i]);
	free(f->defs), free(f->refs);
	f->defs = NULL, f->refs = NULL;
	f->ndefs = f->nrefs = 0;
	f->skipped = 0;
}

/* Free one entry's contents and itself. */
static void
fentry_free(struct fentry *f)
{
	fentry_clear(f);
	free(f->abs), free(f->rel);
	free(f);
}

/* mtime of st in nanoseconds. */
static long long
mtime_ns(const struct stat *st)
{
	return (long long)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec;
}

/* Whether text looks minified or generated: over 4 KB with lines averaging over 300 bytes. */
static int
minified(const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	size_t lines = 1;

	if (len < MINIFIED_MIN)
		return 0;
	while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL)
		p++, lines++;
	return len / lines > MINIFIED_LINE;
}

/* Move what r yields into f. */
static void
fentry_take(struct fentry *f, struct repomap_store_rec *r)
{
	f->skipped = r->skipped;
	f->defs = r->defs, f->ndefs = r->ndefs;
	f->refs = r->refs, f->nrefs = r->nrefs;
}

/* (Re)fill f: from the disk cache when it is current there, else read and extract. */
static void
fentry_fill(struct fentry *f, const struct stat *st, uint64_t stamp)
{
	struct repomap_store_rec r = { f->abs, 0, 0, 0, 0, NULL, 0, NULL, 0 };
	struct buf text = BUF_INIT;

	fentry_clear(f);
	f->mtime_ns = mtime_ns(st);
	f->size = st->st_size;
	f->stamp = stamp;
	cache.dirty = 1;
	if (!cache.disk && cache.disk_ok)
		cache.disk = repomap_store_load(cache.root);
	if (repomap_store_take(cache.disk, f->abs, f->mtime_ns, f->size, stamp, &r)) {
		cache.st.disk++;
		fentry_take(f, &r);
		return;
	}
	cache.st.misses++;
	if (buf_read_file(&text, f->abs, CODE_MAX_BYTES, NULL) < 0 ||
	    fs_is_binary(text.data, text.len < FS_SNIFF ? text.len : FS_SNIFF))
		r.skipped = 1;
	else if (minified(text.data, text.len))
		r.skipped = 2;
	else /* by its name, and a .h header by its text (C or C++) */
		repomap_extract_file(code_lang_for_file(f->rel, text.data, text.len), text.data, text.len,
			       &r);
	fentry_take(f, &r);
	buf_release(&text);
}

/* The entry for abs: the cached one when (mtime, size) still match, else refilled. */
static struct fentry *
lookup(const char *abs, const char *rel, const struct stat *st, uint64_t stamp)
{
	size_t *slot = smap_get(&cache.index, abs, 0);
	struct fentry *f = slot ? cache.v[*slot] : NULL;

	if (f && strcmp(f->rel, rel)) { /* the same file seen from another root */
		free(f->rel);
		f->rel = xstrdup(rel);
	}
	if (f && f->mtime_ns == mtime_ns(st) && f->size == st->st_size && f->stamp == stamp) {
		cache.st.hits++;
		return f;
	}
	if (!f) {
		f = xcalloc(1, sizeof *f);
		f->abs = xstrdup(abs);
		f->rel = xstrdup(rel);
		if (cache.n == cache.cap)
			cache.v = xrealloc(cache.v, (cache.cap = cache.cap ? cache.cap * 2 : 64) *
					   sizeof *cache.v);
		cache.v[cache.n] = f;
		*smap_get(&cache.index, f->abs, 1) = cache.n++;
	}
	fentry_fill(f, st, stamp);
	return f;
}

/* One build: the files of this walk (entries borrowed from the cache). */
struct build {
	struct fentry **files;
	size_t n, cap;
	size_t big, binary, minified; /* files skipped */
	int stopped;                  /* work_shutdown is waiting: the build gives up */
};

/* Walk callback: every regular file of a language with a tags query. */
static int
visit(const char *abs, const char *rel, const struct stat *st, void *arg)
{
	struct build *b = arg;
	const struct code_lang *lang;
	struct fentry *f;
	uint64_t stamp;

	if (work_stopping())
		return b->stopped = 1;
	if (!S_ISREG(st->st_mode) || !(lang = code_lang_for_path(rel)) ||
	    !repomap_extract_supported(lang, &stamp))
		return 0;
	if ((size_t)st->st_size > CODE_MAX_BYTES) {
		b->big++;
		return 0;
	}
	f = lookup(abs, rel, st, stamp);
	f->gen = cache.gen;
	if (f->skipped) {
		b->binary += f->skipped == 1;
		b->minified += f->skipped == 2;
		return 0;
	}
	if (b->n == b->cap)
		b->files = xrealloc(b->files, (b->cap = b->cap ? b->cap * 2 : 64) * sizeof *b->files);
	b->files[b->n++] = f;
	return 0;
}

/* Order strings for bsearch. */
static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Whether f itself uses name (its refs are sorted). */
static int
uses(const struct fentry *f, const char *name)
{
	return f->nrefs && bsearch(&name, f->refs, f->nrefs, sizeof *f->refs, cmp_str) != NULL;
}

/* Score each file: for each definition, the files other than it using the name. */
static void
rank(struct build *b)
{
	struct smap users = { NULL, NULL, 0, 0 };
	size_t i, j, *c;

	for (i = 0; i < b->n; i++) /* only defined names are counted */
		for (j = 0; j < b->files[i]->ndefs; j++)
			smap_get(&users, b->files[i]->defs[j].name, 1);
	for (i = 0; i < b->n; i++)
		for (j = 0; j < b->files[i]->nrefs; j++)
			if ((c = smap_get(&users, b->files[i]->refs[j], 0)) != NULL)
				(*c)++;
	for (i = 0; i < b->n; i++) {
		struct fentry *f = b->files[i];
		f->score = 0;
		for (j = 0; j < f->ndefs; j++) {
			c = smap_get(&users, f->defs[j].name, 0);
			if (c)
				f->score += *c - (size_t)uses(f, f->defs[j].name);
		}
	}
	smap_free(&users);
}

/* Most referenced first, then by path. */
static int
cmp_file(const void *a, const void *b)
{
	const struct fentry *x = *(struct fentry *const *)a, *y = *(struct fentry *const *)b;

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return strcmp(x->rel, y->rel);
}

/* Render one file's block. */
static void
put_file(struct buf *out, const struct fentry *f)
{
	size_t i;

	fs_add_utf8(out, f->rel, strlen(f->rel));
	buf_adds(out, ":\n");
	for (i = 0; i < f->ndefs; i++) {
		buf_addf(out, "  %5u  ", f->defs[i].line);
		fs_add_utf8(out, f->defs[i].sig, strlen(f->defs[i].sig));
		buf_addch(out, '\n');
	}
}

/* The first lines of a block too big for the whole budget; returns the definitions cut. */
static size_t
put_part(struct buf *out, const struct buf *block, size_t budget, size_t ndefs)
{
	size_t n = 0, lines = 0, i;

	for (i = 0; i < block->len && i < budget; i++)
		if (block->data[i] == '\n')
			n = i + 1, lines++;
	buf_add(out, block->data, n);
	buf_adds(out, "  ...\n");
	return lines > 1 ? ndefs - (lines - 1) : ndefs;
}

/* Print the blocks that fit in `budget` bytes, then the note on the rest. */
static void
render(struct build *b, size_t budget, struct buf *out)
{
	struct buf block = BUF_INIT;
	size_t i, start = out->len, left = 0, left_defs = 0, shown = 0;

	for (i = 0; i < b->n; i++) {
		if (!b->files[i]->ndefs)
			continue;
		if (left) { /* the map is full: only count the rest */
			left++;
			left_defs += b->files[i]->ndefs;
			continue;
		}
		buf_reset(&block);
		put_file(&block, b->files[i]);
		if (!shown && !left && block.len > budget) {
			left_defs += put_part(out, &block, budget, b->files[i]->ndefs);
			shown++;
			continue;
		}
		if (left || out->len - start + block.len > budget) {
			left++;
			left_defs += b->files[i]->ndefs;
			continue;
		}
		buf_add(out, block.data, block.len);
		shown++;
	}
	buf_release(&block);
	if (!shown && !left)
		buf_adds(out, "no definitions found in files of a supported language\n");
	if (left || left_defs)
		buf_addf(out, "[%zu definitions left out (%zu more file%s); call repo_map with a "
			 "larger budget (max %d) or use outline on a file]\n", left_defs, left,
			 left == 1 ? "" : "s", REPOMAP_MAX_TOKENS);
	if (b->big || b->binary || b->minified)
		buf_addf(out, "[skipped: %zu file%s over %zu MB, %zu binary or unparsable, %zu "
			 "minified or generated]\n", b->big, b->big == 1 ? "" : "s",
			 CODE_MAX_BYTES >> 20, b->binary, b->minified);
}

/* Drop cache entries this build did not see; rebuild the index. */
static void
prune(void)
{
	size_t i, k;

	for (i = k = 0; i < cache.n; i++) {
		if (cache.v[i]->gen == cache.gen)
			cache.v[k++] = cache.v[i];
		else
			fentry_free(cache.v[i]), cache.dirty = 1;
	}
	cache.n = k;
	smap_free(&cache.index);
	for (i = 0; i < cache.n; i++)
		*smap_get(&cache.index, cache.v[i]->abs, 1) = i;
}

/* Write the entries (all of this build's root, after prune) to the disk cache. */
static void
save(const char *root)
{
	struct repomap_store_rec *r = xcalloc(cache.n ? cache.n : 1, sizeof *r);
	size_t i;

	for (i = 0; i < cache.n; i++) {
		struct fentry *f = cache.v[i];
		r[i].abs = f->abs;
		r[i].mtime_ns = f->mtime_ns, r[i].size = f->size, r[i].stamp = f->stamp;
		r[i].skipped = f->skipped;
		r[i].defs = f->defs, r[i].ndefs = f->ndefs;
		r[i].refs = f->refs, r[i].nrefs = f->nrefs;
	}
	(void)repomap_store_save(root, r, cache.n, NULL); /* optional: a failure costs a reparse */
	free(r);
}

/* Walk, rank, render (see repomap/repomap.h). */
int
repomap_build(const char *root, size_t tokens, struct buf *out, struct err *e)
{
	struct build b = { NULL, 0, 0, 0, 0, 0, 0 };
	struct fs_walk w = { root, visit, &b, 0, 0, 0, 0 };
	int rc;

	if (tokens < REPOMAP_MIN_TOKENS)
		tokens = REPOMAP_MIN_TOKENS;
	if (tokens > REPOMAP_MAX_TOKENS)
		tokens = REPOMAP_MAX_TOKENS;
	cache.gen++;
	cache.root = root;
	cache.dirty = 0;
	/* the disk can only help the first build of a root in this process */
	cache.disk_ok = !cache.n || !cache.last_root || strcmp(cache.last_root, root);
	free(cache.last_root);
	cache.last_root = xstrdup(root);
	rc = fs_walk(&w, root, e);
	if (rc == 0 && b.stopped) /* nothing pruned or saved: the cache stays as it was */
		rc = err_set(e, "build the repository map: interrupted, hearth is shutting down");
	if (rc == 0) {
		rank(&b);
		if (b.n)
			qsort(b.files, b.n, sizeof *b.files, cmp_file);
		render(&b, tokens * REPOMAP_BYTES_PER_TOKEN, out);
		if (w.truncated)
			buf_adds(out, "[the walk stopped early: too many files]\n");
		prune();
		if (cache.dirty)
			save(root);
	}
	repomap_store_free(cache.disk);
	cache.disk = NULL;
	cache.root = NULL;
	free(b.files);
	return rc;
}

/* Copy the counters. */
void
repomap_stats(struct repomap_stats *st)
{
	*st = cache.st;
	st->cached = cache.n;
}

/* Free everything the cache holds. */
void
repomap_cache_free(void)
{
	size_t i;

	for (i = 0; i < cache.n; i++)
		fentry_free(cache.v[i]);
	free(cache.v);
	smap_free(&cache.index);
	repomap_extract_free();
	free(cache.last_root);
	memset(&cache, 0, sizeof cache);
}
