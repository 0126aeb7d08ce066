/*
 * repomap/repomap: per-file symbol extraction (cached), ranking, rendering.
 *
 * Data structures (one root at a time: a build of another root starts
 * from an empty cache):
 *  - struct names: the interned names (definition names and used names) of
 *    the root: an arena of NUL-terminated strings, their offsets by id, an
 *    open-addressing table of ids (at most half full).  Ids are dense from
 *    0 and stay valid until the cache is freed or the root changes.  Parse
 *    threads intern under `mu`.
 *  - struct fentry: what one file yields, compactly: its definitions (name
 *    id, line, signature offset and length, whether the file uses the name
 *    itself) and its used names (ids ascending, delta-coded) in one blob in
 *    the repomap/store.h encoding; no text.  A signature is read back from
 *    the file when printed.  Entries live in the static `cache` (pointer
 *    array + an open-addressing map from absolute path to index); an entry
 *    is valid while the file's (mtime ns, size) and the language's stamp
 *    match.  `gen` marks entries seen by the current build; the others are
 *    dropped at its end.  `from_disk`: loaded from the disk cache and not
 *    yet confirmed by a stat.
 *  - struct smap: string -> size_t, open addressing with linear probing,
 *    keys borrowed (they outlive the map), at most half full.
 *  - `ranked`: the previous build's files in rank order; a build that
 *    refilled, added or dropped no entry reuses it instead of ranking again.
 *  - struct pool: the files a build has to parse, taken in order by the
 *    build's thread and its helpers (one per core, repomap_set_threads);
 *    each file's entry is written by the one thread that took it; names
 *    are interned under cache.mu.  The blobs are then moved into one arena
 *    (compact()), so the helpers' malloc arenas can be trimmed.
 *  - `deps`: what the last full walk depended on besides the files (every
 *    walked directory, .gitignore files, and outside the tree the root,
 *    the git index and info/exclude, .gitignore files above the root, the
 *    user's global ignore file).  How a build finds the files:
 *      1. the inotify watches on the walked directories are quiet and the
 *         outside dependencies unchanged: the entries as they are;
 *      2. else, all dependencies unchanged (no file came or went): a stat
 *         per entry;
 *      3. else: fs_walk (and the dependencies and watches again).
 *    Limits: core.excludesFile set to another file than the default, and
 *    ignore rules from the environment, are not watched.
 * Extraction itself (parse, tags query, used names) is repomap_extract's.
 */
#include "repomap/repomap.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#ifdef __linux__
#include <errno.h>
#include <sys/inotify.h>
#endif

#include "base/fs.h"
#include "repomap/store.h"
#include "repomap/extract.h"
#include "code/code.h"
#include "io/work.h"
#include "base/xmalloc.h"

#define MINIFIED_MIN 4096   /* bytes: smaller files are never "minified" */
#define MINIFIED_LINE 300   /* average line length above which a file is */
#define MAX_THREADS 8

struct fentry {
	char *abs;
	long long mtime_ns, size;
	uint64_t stamp;      /* repomap_extract's, of the file's language; 0 = not filled */
	unsigned char *blob; /* repomap/store.h encoding */
	uint32_t bloblen, ndefs, nrefs;
	uint32_t score;      /* of the current build */
	unsigned gen;
	uint16_t rel;        /* offset of the path relative to the root in abs */
	uint8_t skipped;     /* 1 binary or unparsable, 2 minified or generated, 3 over 5 MB */
	uint8_t from_disk;
	uint8_t own_blob;    /* blob malloc'd alone (a fresh parse), else in cache.arena */
};

struct smap {
	const char **key;
	size_t *val;
	size_t cap, n;       /* cap a power of two */
};

struct names {
	char *data;          /* the strings, each NUL-terminated */
	size_t len, cap;
	uint32_t *off;       /* by id */
	uint32_t n, ncap;
	uint64_t *tab;       /* id + 1, 0 = empty; the name's hash's top 32 bits above */
	size_t tcap;         /* a power of two, or 0 */
};

static struct {
	struct fentry **v;
	size_t n, cap;
	struct smap index;   /* abs -> position in v */
	struct names names;
	int rootfd;          /* the root, open while a build parses (-1: open by path) */
	unsigned char *arena; /* the blobs, one after another (compact()) */
	pthread_mutex_t mu;  /* names, while parse threads run */
	unsigned gen;
	struct repomap_stats st;
	char *last_root;     /* of the previous build */
	struct fentry **ranked; /* the previous build's files, in rank order */
	size_t nranked;
	int ranked_ok;
	int dirty;           /* this build changed the entries: rank again, save */
	struct dep *deps;    /* of the last full walk: while all are unchanged, */
	size_t ndeps;        /* no file came or went, and a build stats its entries */
	int deps_ok;
	int ino;             /* inotify on the walked directories, or -1 (see watch_*) */
	int ino_fresh;       /* armed after the last walk: the next build still stats */
	unsigned threads;    /* repomap_set_threads; 0 = one per core */
	int defer;           /* repomap_defer_save: a build leaves its disk cache to repomap_flush */
	int pending;         /* the cache of last_root differs from its disk cache (defer) */
} cache = { .mu = PTHREAD_MUTEX_INITIALIZER, .ino = -1, .rootfd = -1 };

/* FNV-1a of n bytes. */
static size_t
mem_hash(const char *s, size_t n)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	while (n--)
		h = (h ^ (unsigned char)*s++) * UINT64_C(0x100000001b3);
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
	for (i = mem_hash(k, strlen(k)) & (m->cap - 1); m->key[i]; i = (i + 1) & (m->cap - 1))
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

/* A table entry of id with hash h: the hash's top bits tell most other names apart without their text. */
#define NAMES_ENTRY(id, h) (((uint64_t)(id) + 1) | ((uint64_t)(h) >> 32 << 32))
#define NAMES_ID(e) ((uint32_t)(e) - 1)

/* The id of the n-byte name s, added when new (caller holds cache.mu if threads run). */
static uint32_t
names_intern(struct names *nm, const char *s, size_t n)
{
	size_t i, j, h;
	uint32_t id;

	if ((size_t)(nm->n + 1) * 2 > nm->tcap) { /* grown, or dropped after the last build */
		const char *k = nm->data;
		free(nm->tab);
		for (nm->tcap = 1024; nm->tcap < (size_t)(nm->n + 1) * 2; nm->tcap *= 2)
			;
		nm->tab = xcalloc(nm->tcap, sizeof *nm->tab);
		if (!nm->off || nm->ncap < nm->n) /* the strings in id order: offsets again */
			nm->off = xrealloc(nm->off, (nm->ncap = nm->n > 1024 ? nm->n : 1024) *
					   sizeof *nm->off);
		for (id = 0; id < nm->n; id++) {
			size_t len = strlen(k);
			nm->off[id] = (uint32_t)(k - nm->data);
			h = mem_hash(k, len);
			for (j = h & (nm->tcap - 1); nm->tab[j]; j = (j + 1) & (nm->tcap - 1))
				;
			nm->tab[j] = NAMES_ENTRY(id, h);
			k += len + 1;
		}
	}
	h = mem_hash(s, n);
	for (i = h & (nm->tcap - 1); nm->tab[i]; i = (i + 1) & (nm->tcap - 1)) {
		const char *k;
		if ((nm->tab[i] ^ h) >> 32)
			continue;
		k = nm->data + nm->off[NAMES_ID(nm->tab[i])];
		if (!memcmp(k, s, n) && !k[n])
			return NAMES_ID(nm->tab[i]);
	}
	if (nm->n == nm->ncap)
		nm->off = xrealloc(nm->off, (nm->ncap = nm->ncap ? nm->ncap * 2 : 1024) * sizeof *nm->off);
	if (nm->len + n + 1 > nm->cap) {
		while (nm->len + n + 1 > nm->cap)
			nm->cap = nm->cap ? nm->cap * 2 : 16384;
		nm->data = xrealloc(nm->data, nm->cap);
	}
	memcpy(nm->data + nm->len, s, n);
	nm->data[nm->len + n] = '\0';
	nm->off[nm->n] = (uint32_t)nm->len;
	nm->len += n + 1;
	nm->tab[i] = NAMES_ENTRY(nm->n, h);
	return nm->n++;
}

/* The string of an id (a scan when the offsets were dropped: for the rare fallback). */
static const char *
names_str(const struct names *nm, uint32_t id)
{
	const char *k = nm->data;
	uint32_t i;

	if (id >= nm->n)
		return "";
	if (nm->off)
		return nm->data + nm->off[id];
	for (i = 0; i < id; i++)
		k += strlen(k) + 1;
	return k;
}

/* Between builds keep only the strings, at their size: the table and offsets come back when needed. */
static void
names_shrink(struct names *nm)
{
	free(nm->tab), free(nm->off);
	nm->tab = NULL, nm->off = NULL;
	nm->tcap = 0, nm->ncap = 0;
	if (nm->data && nm->cap > nm->len) {
		nm->data = xrealloc(nm->data, nm->len ? nm->len : 1);
		nm->cap = nm->len ? nm->len : 1;
	}
}

/* Free the names. */
static void
names_free(struct names *nm)
{
	free(nm->data), free(nm->off), free(nm->tab);
	memset(nm, 0, sizeof *nm);
}

/* Free what an entry yields, keeping its identity; stamp 0: not filled. */
static void
fentry_clear(struct fentry *f)
{
	if (f->own_blob)
		free(f->blob);
	f->own_blob = 0;
	f->blob = NULL;
	f->bloblen = f->ndefs = f->nrefs = 0;
	f->skipped = 0;
	f->stamp = 0;
}

/* Free one entry's contents and itself. */
static void
fentry_free(struct fentry *f)
{
	if (f->own_blob)
		free(f->blob);
	free(f->abs);
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

/* A new entry for abs (rel: its tail), added to the cache. */
static struct fentry *
fentry_add(const char *abs, size_t rel_len)
{
	struct fentry *f = xcalloc(1, sizeof *f);
	size_t n = strlen(abs);

	f->abs = xstrdup(abs);
	f->rel = (uint16_t)(rel_len <= n && n - rel_len <= UINT16_MAX ? n - rel_len : 0);
	if (cache.n == cache.cap)
		cache.v = xrealloc(cache.v, (cache.cap = cache.cap ? cache.cap * 2 : 64) * sizeof *cache.v);
	cache.v[cache.n] = f;
	*smap_get(&cache.index, f->abs, 1) = cache.n++;
	return f;
}

/* Order uint32 values. */
static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Whether id is in the sorted ids. */
static int
has_id(const uint32_t *ids, size_t n, uint32_t id)
{
	return n && bsearch(&id, ids, n, sizeof *ids, cmp_u32) != NULL;
}

/* Intern what x yields from text and encode it into f (locks cache.mu when `locked`). */
static void
fentry_encode(struct fentry *f, const struct repomap_extract *x, const char *text, int locked)
{
	uint32_t *refs = xmalloc((x->nrefs ? x->nrefs : 1) * sizeof *refs);
	uint32_t *defs = xmalloc((x->ndefs ? x->ndefs : 1) * sizeof *defs);
	struct buf b = BUF_INIT;
	struct repomap_def d;
	size_t i;

	if (locked)
		pthread_mutex_lock(&cache.mu);
	for (i = 0; i < x->nrefs; i++)
		refs[i] = names_intern(&cache.names, text + x->ref_off[i], x->ref_len[i]);
	for (i = 0; i < x->ndefs; i++)
		defs[i] = names_intern(&cache.names, text + x->defs[i].name_off, x->defs[i].name_len);
	if (locked)
		pthread_mutex_unlock(&cache.mu);
	if (x->nrefs)
		qsort(refs, x->nrefs, sizeof *refs, cmp_u32);
	for (i = 0; i < x->ndefs; i++) {
		d.name = defs[i];
		d.line = x->defs[i].line;
		d.sig_off = x->defs[i].sig_off;
		d.sig_len = x->defs[i].sig_len;
		d.self = (uint8_t)has_id(refs, x->nrefs, defs[i]);
		repomap_store_put_def(&b, &d);
	}
	repomap_store_put_refs(&b, refs, x->nrefs);
	f->bloblen = (uint32_t)b.len;
	f->blob = xmalloc(b.len ? b.len : 1);
	f->own_blob = 1;
	memcpy(f->blob, b.data, b.len);
	f->ndefs = (uint32_t)x->ndefs;
	f->nrefs = (uint32_t)x->nrefs;
	buf_release(&b);
	free(refs), free(defs);
}

/* What a walk depends on besides its files: a directory, an ignore file, the git index. */
struct dep {
	char *path;
	long long mtime_ns, size;
	int exists;
	int outside;   /* not in a walked directory (deps_outside) */
};

/* One file to parse. */
struct todo {
	struct fentry *f;
	uint64_t stamp;
};

/* Read, classify and extract one file into its entry (any thread). */
static void
parse_one(const struct todo *t, int locked)
{
	struct fentry *f = t->f;
	struct repomap_extract x;
	struct buf text = BUF_INIT;

	/* beneath the root's descriptor (a short path to resolve), in one read of the walk's size */
	int fd = cache.rootfd >= 0 && f->rel ? openat(cache.rootfd, f->abs + f->rel, O_RDONLY | O_CLOEXEC)
					     : open(f->abs, O_RDONLY | O_CLOEXEC);

	memset(&x, 0, sizeof x);
	if (fd < 0 || buf_read_fd_sized(&text, fd, f->abs, CODE_MAX_BYTES, f->size, NULL) < 0 ||
	    fs_is_binary(text.data, text.len < FS_SNIFF ? text.len : FS_SNIFF))
		f->skipped = 1;
	else if (minified(text.data, text.len))
		f->skipped = 2;
	else { /* by its name, and a .h header by its text (C or C++) */
		repomap_extract_file(code_lang_for_file(f->abs + f->rel, text.data, text.len), text.data,
				     text.len, &x);
		if (x.skipped)
			f->skipped = 1;
		else
			fentry_encode(f, &x, text.data, locked);
		repomap_extract_release(&x);
	}
	f->stamp = t->stamp; /* filled */
	if (fd >= 0)
		close(fd);
	buf_release(&text);
}

/*
 * The files of a build to parse, shared by its threads.  A full walk feeds
 * it as it goes (pool_start before the walk, visit_file adds under mu and
 * signals, pool_finish when the walk is done): the helpers parse while the
 * walk goes on, so the walk's time is not added to the parse's.
 */
struct pool {
	struct todo *t;      /* the build's todo array (moved by a realloc under mu) */
	size_t n, next;
	pthread_mutex_t mu;
	pthread_cond_t more; /* a file was added, or the walk is done */
	int done;            /* no file will be added */
	int stop;            /* work_shutdown is waiting: take no more files */
	int locked;          /* more than one thread: intern under cache.mu */
	pthread_t th[MAX_THREADS];
	unsigned started;
};

/* Take and parse files until none is left and none will come (any thread). */
static void *
pool_run(void *arg)
{
	struct pool *p = arg;
	struct todo cur;

	for (;;) {
		int stop = work_stopping();
		pthread_mutex_lock(&p->mu);
		if (stop)
			p->stop = 1;
		while (!p->stop && p->next == p->n && !p->done)
			pthread_cond_wait(&p->more, &p->mu);
		if (p->stop || p->next == p->n) {
			pthread_mutex_unlock(&p->mu);
			return NULL;
		}
		cur = p->t[p->next++]; /* a copy: the array may move once the lock is dropped */
		pthread_mutex_unlock(&p->mu);
		parse_one(&cur, p->locked);
	}
}

/* How many threads parse: repomap_set_threads's, else one per online core. */
static unsigned
nthreads(size_t files)
{
	long n = cache.threads ? (long)cache.threads : sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		n = 1;
	if (n > MAX_THREADS)
		n = MAX_THREADS;
	if ((size_t)n > files)
		n = files ? (long)files : 1;
	return (unsigned)n;
}

/* Start the helpers of a pool of `want` threads (this one included) on t[0..n). */
static void
pool_start(struct pool *p, unsigned want, struct todo *t, size_t n, int done)
{
	unsigned k;

	memset(p, 0, sizeof *p);
	p->t = t, p->n = n, p->done = done;
	p->locked = want > 1;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->more, NULL);
	for (k = 1; k < want; k++)
		if (pthread_create(&p->th[p->started], NULL, pool_run, p) == 0)
			p->started++;
}

/* No more files (stop: and parse no more): parse the rest here too, join; 1 when stopped early. */
static int
pool_finish(struct pool *p, int stop)
{
	unsigned k;

	pthread_mutex_lock(&p->mu);
	p->done = 1;
	if (stop)
		p->stop = 1;
	pthread_cond_broadcast(&p->more);
	pthread_mutex_unlock(&p->mu);
	cache.st.threads = p->started + 1;
	pool_run(p);
	for (k = 0; k < p->started; k++)
		pthread_join(p->th[k], NULL);
	pthread_cond_destroy(&p->more);
	pthread_mutex_destroy(&p->mu);
	return p->stop;
}

/* Parse the files on this thread and helpers; 1 when stopped early. */
static int
pool_parse(struct todo *t, size_t n)
{
	struct pool p;

	pool_start(&p, nthreads(n), t, n, 1);
	return pool_finish(&p, 0);
}

/* One build: the files of this walk (entries borrowed from the cache). */
struct build {
	struct fentry **files;   /* walk order; skipped ones dropped after the parse */
	size_t n, cap;
	struct todo *todo;       /* to parse */
	size_t ntodo, todocap;
	size_t seen;             /* entries of the cache this walk visited */
	struct dep *deps;        /* noted by a full walk */
	size_t ndeps, depcap;
	size_t big, binary, minified; /* files skipped */
	int stopped;             /* work_shutdown is waiting: the build gives up */
	struct pool *pool;       /* a full walk's: todo is shared with its parsing helpers */
};

/* Note path's state (st, or NULL: stat it) as a dependency of the walk. */
static void
dep_note(struct build *b, const char *path, const struct stat *st)
{
	struct stat sb;
	struct dep *d;

	if (b->ndeps == b->depcap)
		b->deps = xrealloc(b->deps, (b->depcap = b->depcap ? b->depcap * 2 : 64) * sizeof *b->deps);
	d = &b->deps[b->ndeps++];
	d->path = xstrdup(path);
	d->outside = 0;
	if (!st)
		st = lstat(path, &sb) == 0 ? &sb : NULL;
	d->exists = st != NULL;
	d->mtime_ns = st ? mtime_ns(st) : 0;
	d->size = st ? (long long)st->st_size : 0;
}

/* Free a list of dependencies. */
static void
deps_free(struct dep *d, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(d[i].path);
	free(d);
}

/*
 * Whether every dependency of the last full walk is as it was; with
 * `watched`, only those the directory watches do not cover (outside the
 * tree: the root, the git index, ignore files above).
 */
static int
deps_same(int watched)
{
	struct stat st;
	size_t i;

	if (!cache.deps_ok)
		return 0;
	for (i = 0; i < cache.ndeps; i++) {
		const struct dep *d = &cache.deps[i];
		int ok;
		if (watched && !d->outside)
			continue;
		ok = lstat(d->path, &st) == 0;
		if (ok != d->exists || (ok && (mtime_ns(&st) != d->mtime_ns || st.st_size != d->size)))
			return 0;
	}
	return 1;
}

/*
 * The walk's dependencies outside it: the root, the git directory's index
 * and info/exclude, the .gitignore files from the root's parent up to the
 * work tree's top, the user's global ignore file.
 */
static void
deps_outside(struct build *b, const char *root)
{
	struct buf p = BUF_INIT, git = BUF_INIT;
	const char *cfg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	struct stat st;
	size_t len, first = b->ndeps;

	dep_note(b, root, NULL);
	buf_adds(&p, root);
	for (;;) { /* up to the directory holding .git */
		len = p.len;
		buf_adds(&p, "/.git");
		if (lstat(p.data, &st) == 0) {
			if (S_ISDIR(st.st_mode))
				buf_adds(&git, p.data);
			else if (buf_read_file(&git, p.data, 4096, NULL) == 0 && !strncmp(git.data, "gitdir: ", 8)) {
				buf_remove(&git, 0, 8);
				buf_rtrim(&git);
				if (git.len && git.data[0] != '/') {
					buf_setlen(&p, len + 1);
					buf_insert(&git, 0, p.data, p.len);
				}
			}
			break;
		}
		buf_setlen(&p, len);
		if (len > strlen(root)) {
			buf_adds(&p, "/.gitignore");
			dep_note(b, p.data, NULL);
			buf_setlen(&p, len);
		}
		while (p.len > 1 && p.data[p.len - 1] != '/')
			p.len--;
		if (p.len > 1)
			p.len--;
		p.data[p.len] = '\0';
		if (p.len <= 1 && len <= 1)
			break;
	}
	if (git.len) {
		len = git.len;
		buf_adds(&git, "/index");
		dep_note(b, git.data, NULL);
		buf_setlen(&git, len);
		buf_adds(&git, "/info/exclude");
		dep_note(b, git.data, NULL);
	}
	buf_reset(&p);
	if (cfg && *cfg)
		buf_addf(&p, "%s/git/ignore", cfg);
	else if (home && *home)
		buf_addf(&p, "%s/.config/git/ignore", home);
	if (p.len)
		dep_note(b, p.data, NULL);
	for (; first < b->ndeps; first++)
		b->deps[first].outside = 1;
	buf_release(&p);
	buf_release(&git);
}

/*
 * Watching (Linux): after a full walk every walked directory gets an
 * inotify watch for changes of its entries (write, attributes, create,
 * delete, moves).  A build reads the queued events without blocking: none
 * (and no overflow), and the dependencies outside the tree unchanged,
 * means no file changed, so it stats nothing.  The first build after the
 * watches are set still stats (a change between the walk and the watch);
 * any event, an overflow or a failure to watch (the user's watch limit)
 * falls back to stating every entry.
 */
static void
watch_stop(void)
{
	if (cache.ino >= 0)
		close(cache.ino);
	cache.ino = -1;
}

/* Watch the directories among the walk's dependencies (a fresh inotify instance). */
static void
watch_start(const struct dep *d, size_t n)
{
#ifdef __linux__
	size_t i;

	watch_stop();
	if ((cache.ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) < 0)
		return;
	for (i = 0; i < n; i++) {
		struct stat st;
		if (!d[i].exists || lstat(d[i].path, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		if (inotify_add_watch(cache.ino, d[i].path, IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE |
				      IN_CREATE | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF |
				      IN_MOVED_FROM | IN_MOVED_TO | IN_ONLYDIR | IN_DONT_FOLLOW) < 0) {
			watch_stop(); /* over the limit: stat instead */
			return;
		}
	}
	cache.ino_fresh = 1;
#else
	(void)d, (void)n;
#endif
}

/* 1 when the watches say nothing changed since the last build; drains the queue. */
static int
watch_quiet(void)
{
#ifdef __linux__
	char ev[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t got;
	int quiet = cache.ino >= 0 && !cache.ino_fresh;

	if (cache.ino < 0)
		return 0;
	cache.ino_fresh = 0;
	while ((got = read(cache.ino, ev, sizeof ev)) > 0)
		quiet = 0;
	if (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
		watch_stop();
		return 0;
	}
	return quiet;
#else
	return 0;
#endif
}

/* One file of a language with a tags query: a hit, or its entry refilled (parsed later). */
static void
visit_file(struct build *b, const char *abs, const char *rel, const struct stat *st, uint64_t stamp)
{
	size_t *slot = smap_get(&cache.index, abs, 0);
	struct fentry *f = slot ? cache.v[*slot] : NULL;

	if (f && f->gen == cache.gen) /* visited twice (cannot happen in one walk) */
		return;
	if (f)
		b->seen++;
	if (f && f->mtime_ns == mtime_ns(st) && f->size == st->st_size && f->stamp == stamp) {
		if (f->skipped != 3 && f->from_disk)
			cache.st.disk++;
		else if (f->skipped != 3)
			cache.st.hits++;
		f->from_disk = 0;
	} else {
		if (!f)
			f = fentry_add(abs, strlen(rel));
		fentry_clear(f);
		f->from_disk = 0;
		f->mtime_ns = mtime_ns(st);
		f->size = st->st_size;
		cache.dirty = 1;
		if ((size_t)st->st_size > CODE_MAX_BYTES) { /* not read: kept to notice a change */
			f->skipped = 3;
			f->stamp = stamp;
		} else {
			cache.st.misses++;
			f->gen = cache.gen; /* before a helper may take f */
			if (b->pool)
				pthread_mutex_lock(&b->pool->mu);
			if (b->ntodo == b->todocap)
				b->todo = xrealloc(b->todo, (b->todocap = b->todocap ? b->todocap * 2 : 64) *
						   sizeof *b->todo);
			b->todo[b->ntodo].f = f;
			b->todo[b->ntodo++].stamp = stamp;
			if (b->pool) {
				b->pool->t = b->todo, b->pool->n = b->ntodo;
				pthread_cond_signal(&b->pool->more);
				pthread_mutex_unlock(&b->pool->mu);
			}
		}
	}
	f->gen = cache.gen;
	if (b->n == b->cap)
		b->files = xrealloc(b->files, (b->cap = b->cap ? b->cap * 2 : 64) * sizeof *b->files);
	b->files[b->n++] = f;
}

/* Walk callback: directories and ignore files noted, every regular file of a language with a tags query. */
static int
visit(const char *abs, const char *rel, const struct stat *st, void *arg)
{
	struct build *b = arg;
	const struct code_lang *lang;
	const char *base = strrchr(rel, '/');
	uint64_t stamp;

	if (work_stopping())
		return b->stopped = 1;
	base = base ? base + 1 : rel;
	if (S_ISDIR(st->st_mode) || !strcmp(base, ".gitignore"))
		dep_note(b, abs, st);
	if (!S_ISREG(st->st_mode) || !(lang = code_lang_for_path(rel)) ||
	    !repomap_extract_supported(lang, &stamp))
		return 0;
	visit_file(b, abs, rel, st, stamp);
	return 0;
}

/* No file came or went since the last full walk: stat the entries instead of walking. */
static void
restat(struct build *b)
{
	struct stat st;
	size_t i, n = cache.n;
	uint64_t stamp;

	for (i = 0; i < n && !b->stopped; i++) {
		struct fentry *f = cache.v[i];
		const char *rel = f->abs + f->rel;
		if (i % 256 == 0 && work_stopping())
			b->stopped = 1;
		else if (lstat(f->abs, &st) == 0 && S_ISREG(st.st_mode)) /* else: gone meanwhile */
			visit_file(b, f->abs, rel, &st,
				   f->stamp ? f->stamp
					    : (repomap_extract_supported(code_lang_for_path(rel), &stamp)
						       ? stamp : 0));
	}
}

/* Drop the skipped files from the build's list, counting them. */
static void
drop_skipped(struct build *b)
{
	size_t i, k;

	for (i = k = 0; i < b->n; i++) {
		struct fentry *f = b->files[i];
		b->binary += f->skipped == 1;
		b->minified += f->skipped == 2;
		b->big += f->skipped == 3;
		if (!f->skipped)
			b->files[k++] = f;
	}
	b->n = k;
}

/* Score each file: for each definition, the files other than it using the name. */
static void
rank(struct build *b)
{
	uint32_t *users = xcalloc(cache.names.n ? cache.names.n : 1, sizeof *users);
	struct repomap_blob r;
	struct repomap_def d;
	size_t i, j;

	for (i = 0; i < b->n; i++) {
		struct fentry *f = b->files[i];
		repomap_store_blob_open(&r, f->blob, f->bloblen);
		for (j = 0; j < f->ndefs; j++)
			repomap_store_blob_def(&r, &d);
		for (j = 0; j < f->nrefs; j++)
			users[repomap_store_blob_ref(&r)]++;
	}
	for (i = 0; i < b->n; i++) {
		struct fentry *f = b->files[i];
		f->score = 0;
		repomap_store_blob_open(&r, f->blob, f->bloblen);
		for (j = 0; j < f->ndefs; j++) {
			repomap_store_blob_def(&r, &d);
			f->score += users[d.name] - d.self;
		}
	}
	free(users);
}

/* Most referenced first, then by path. */
static int
cmp_file(const void *a, const void *b)
{
	const struct fentry *x = *(struct fentry *const *)a, *y = *(struct fentry *const *)b;

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return strcmp(x->abs + x->rel, y->abs + y->rel);
}

/* Render one file's block: signatures read back from the file, which must be unchanged. */
static void
put_file(struct buf *out, const struct fentry *f)
{
	struct repomap_blob r;
	struct repomap_def d;
	struct stat st;
	char sig[256];
	int fd = open(f->abs, O_RDONLY | O_CLOEXEC);
	int same = fd >= 0 && fstat(fd, &st) == 0 && mtime_ns(&st) == f->mtime_ns &&
		   st.st_size == f->size;
	size_t i;
	ssize_t got;

	fs_add_utf8(out, f->abs + f->rel, strlen(f->abs + f->rel));
	buf_adds(out, ":\n");
	repomap_store_blob_open(&r, f->blob, f->bloblen);
	for (i = 0; i < f->ndefs; i++) {
		repomap_store_blob_def(&r, &d);
		buf_addf(out, "  %5u  ", d.line);
		got = same ? pread(fd, sig, d.sig_len, d.sig_off) : -1;
		if (got >= 0)
			fs_add_utf8(out, sig, (size_t)got);
		else /* changed since the walk: the name stands in for the line */
			buf_adds(out, names_str(&cache.names, d.name));
		buf_addch(out, '\n');
	}
	if (fd >= 0)
		close(fd);
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
render(struct fentry **files, size_t nfiles, const struct build *b, size_t budget, struct buf *out)
{
	struct buf block = BUF_INIT;
	size_t i, start = out->len, left = 0, left_defs = 0, shown = 0;

	for (i = 0; i < nfiles; i++) {
		if (!files[i]->ndefs)
			continue;
		if (left) { /* the map is full: only count the rest */
			left++;
			left_defs += files[i]->ndefs;
			continue;
		}
		buf_reset(&block);
		put_file(&block, files[i]);
		if (!shown && !left && block.len > budget) {
			left_defs += put_part(out, &block, budget, files[i]->ndefs);
			shown++;
			continue;
		}
		if (left || out->len - start + block.len > budget) {
			left++;
			left_defs += files[i]->ndefs;
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

/* Drop unfilled cache entries and, with `unseen`, those this build did not see; rebuild the index. */
static void
prune(int unseen)
{
	size_t i, k;

	for (i = k = 0; i < cache.n; i++) {
		if ((!unseen || cache.v[i]->gen == cache.gen) && cache.v[i]->stamp)
			cache.v[k++] = cache.v[i];
		else
			fentry_free(cache.v[i]), cache.dirty = 1;
	}
	if (k == cache.n)
		return;
	cache.n = k;
	smap_free(&cache.index);
	for (i = 0; i < cache.n; i++)
		*smap_get(&cache.index, cache.v[i]->abs, 1) = i;
}

/*
 * Move every blob into one new arena: the parse threads' blobs, scattered
 * among the freed trees, would pin their pages; the arena has no per-blob
 * overhead and no garbage of replaced entries.
 */
static void
compact(void)
{
	unsigned char *a, *p;
	size_t i, total = 0;

	for (i = 0; i < cache.n; i++)
		total += cache.v[i]->bloblen;
	p = a = xmalloc(total ? total : 1);
	for (i = 0; i < cache.n; i++) {
		struct fentry *f = cache.v[i];
		if (f->bloblen)
			memcpy(p, f->blob, f->bloblen);
		if (f->own_blob)
			free(f->blob);
		f->blob = p, f->own_blob = 0;
		p += f->bloblen;
	}
	free(cache.arena);
	cache.arena = a;
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
		r[i].ndefs = f->ndefs, r[i].nrefs = f->nrefs;
		r[i].blob = f->blob, r[i].bloblen = f->bloblen;
	}
	/* optional: a failure costs a reparse */
	(void)repomap_store_save(root, cache.names.data, cache.names.len, cache.names.n, r, cache.n, NULL);
	free(r);
}

/* Fill the empty cache from root's disk cache: entries to confirm by a stat. */
static void
load(const char *root)
{
	struct repomap_store *c = repomap_store_load(root);
	const char *p = c->names;
	size_t i, n;
	uint32_t k;

	for (k = 0; k < c->nnames; k++) { /* distinct (checked by the load): ids kept */
		n = strlen(p);
		(void)names_intern(&cache.names, p, n);
		p += n + 1;
	}
	for (i = 0; i < c->n; i++) {
		const struct repomap_store_rec *r = &c->recs[i];
		size_t rl = strlen(root), al = strlen(r->abs);
		struct fentry *f;
		if (smap_get(&cache.index, r->abs, 0) || al <= rl + 1 || strncmp(r->abs, root, rl) ||
		    (rl > 1 && r->abs[rl] != '/'))
			continue;
		f = fentry_add(r->abs, al - rl - (rl > 1));
		f->mtime_ns = r->mtime_ns, f->size = r->size, f->stamp = r->stamp;
		f->skipped = (uint8_t)r->skipped;
		f->ndefs = r->ndefs, f->nrefs = r->nrefs;
		f->bloblen = r->bloblen;
		f->blob = (unsigned char *)r->blob; /* into c: compact() copies it */
		f->from_disk = 1;
		f->gen = cache.gen - 1;
	}
	compact();
	repomap_store_free(c);
}

/* Empty the entries, names and ranking (not the counters nor the settings). */
static void
reset(void)
{
	size_t i;

	for (i = 0; i < cache.n; i++)
		fentry_free(cache.v[i]);
	free(cache.v);
	cache.v = NULL;
	cache.n = cache.cap = 0;
	smap_free(&cache.index);
	names_free(&cache.names);
	free(cache.arena);
	cache.arena = NULL;
	free(cache.ranked);
	cache.ranked = NULL;
	cache.nranked = 0;
	cache.ranked_ok = 0;
	deps_free(cache.deps, cache.ndeps);
	cache.deps = NULL, cache.ndeps = 0, cache.deps_ok = 0;
	watch_stop();
}

/* Walk, rank, render (see repomap/repomap.h). */
int
repomap_build(const char *root, size_t tokens, struct buf *out, struct err *e)
{
	struct build b;
	struct fs_walk w = { root, visit, &b, 0, 0, 0, 0 };
	struct pool pool;
	int rc, same, fast, quiet, parsed = 0;

	memset(&b, 0, sizeof b);
	if (tokens < REPOMAP_MIN_TOKENS)
		tokens = REPOMAP_MIN_TOKENS;
	if (tokens > REPOMAP_MAX_TOKENS)
		tokens = REPOMAP_MAX_TOKENS;
	if (cache.last_root && strcmp(cache.last_root, root)) {
		repomap_flush(); /* the other root's results, before they go */
		reset();         /* the cache holds one root */
	}
	free(cache.last_root);
	cache.last_root = xstrdup(root);
	cache.gen++;
	cache.dirty = 0;
	cache.rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (!cache.n) /* the disk can only help the first build of a root in this process */
		load(root);
	quiet = cache.n && watch_quiet();
	fast = cache.n && deps_same(quiet);
	if (fast && quiet) { /* nothing changed: every entry is a hit */
		size_t i;
		for (i = 0; i < cache.n; i++) {
			struct fentry *f = cache.v[i];
			if (f->skipped != 3)
				cache.st.hits++;
			f->gen = cache.gen;
			b.seen++;
			if (b.n == b.cap)
				b.files = xrealloc(b.files, (b.cap = b.cap ? b.cap * 2 : 64) * sizeof *b.files);
			b.files[b.n++] = f;
		}
		rc = 0;
	} else if (fast) {
		restat(&b);
		rc = 0;
	} else if (nthreads(SIZE_MAX) > 1) { /* the helpers parse while this thread walks */
		deps_outside(&b, root);
		pool_start(&pool, nthreads(SIZE_MAX), NULL, 0, 0);
		b.pool = &pool;
		rc = fs_walk(&w, root, e);
		b.pool = NULL;
		if (pool_finish(&pool, rc != 0 || b.stopped))
			b.stopped = 1;
		parsed = 1;
	} else {
		deps_outside(&b, root);
		rc = fs_walk(&w, root, e);
	}
	if (rc == 0 && !b.stopped && b.ntodo && !parsed)
		b.stopped = pool_parse(b.todo, b.ntodo);
	if (rc == 0 && b.stopped) /* nothing saved; unfilled entries are dropped */
		rc = err_set(e, "build the repository map: interrupted, hearth is shutting down");
	if (rc == 0) {
		drop_skipped(&b);
		same = cache.ranked_ok && !cache.dirty && b.seen == cache.n && b.n == cache.nranked;
		if (same) { /* nothing changed: the last ranking stands */
			render(cache.ranked, cache.nranked, &b, tokens * REPOMAP_BYTES_PER_TOKEN, out);
		} else {
			rank(&b);
			if (b.n)
				qsort(b.files, b.n, sizeof *b.files, cmp_file);
			render(b.files, b.n, &b, tokens * REPOMAP_BYTES_PER_TOKEN, out);
		}
		if (w.truncated)
			buf_adds(out, "[the walk stopped early: too many files]\n");
		prune(1);
		if (cache.dirty) {
			compact();
			if (cache.defer)
				cache.pending = 1;
			else
				save(root);
		}
		if (!same) {
			free(cache.ranked);
			cache.ranked = b.files, cache.nranked = b.n;
			b.files = NULL;
			cache.ranked_ok = !w.truncated;
		}
		if (!fast) { /* this walk's dependencies stand for the next builds */
			deps_free(cache.deps, cache.ndeps);
			cache.deps = b.deps, cache.ndeps = b.ndeps;
			b.deps = NULL, b.ndeps = 0;
			cache.deps_ok = !w.truncated;
			if (cache.deps_ok)
				watch_start(cache.deps, cache.ndeps);
			else
				watch_stop();
		}
	} else {
		cache.ranked_ok = 0;
		cache.deps_ok = 0;
		watch_stop();
		prune(0);
		compact();
	}
	names_shrink(&cache.names);
	if (cache.rootfd >= 0)
		close(cache.rootfd);
	cache.rootfd = -1;
	if (b.ntodo) {
#ifdef __GLIBC__
		malloc_trim(0); /* the parse threads' arenas: give the trees' pages back */
#endif
	}
	free(b.files);
	free(b.todo);
	deps_free(b.deps, b.ndeps);
	return rc;
}

/* Copy the counters. */
void
repomap_stats(struct repomap_stats *st)
{
	size_t i;

	*st = cache.st;
	st->cached = cache.n;
	st->bytes = cache.names.cap + (size_t)cache.names.ncap * 4 + cache.names.tcap * sizeof *cache.names.tab +
		    cache.cap * sizeof *cache.v + cache.index.cap * (sizeof(char *) + sizeof(size_t)) +
		    cache.nranked * sizeof *cache.ranked;
	for (i = 0; i < cache.n; i++)
		st->bytes += sizeof *cache.v[i] + strlen(cache.v[i]->abs) + 1 + cache.v[i]->bloblen;
	/* the arena may also hold blobs of entries replaced since (until the next compact) */
}

/* See repomap/repomap.h. */
void
repomap_set_threads(unsigned n)
{
	cache.threads = n;
}

/* Free everything the cache holds. */
void
repomap_cache_free(void)
{
	unsigned threads = cache.threads;
	int defer = cache.defer;

	repomap_flush();
	reset();
	repomap_extract_free();
	free(cache.last_root);
	cache.last_root = NULL;
	memset(&cache.st, 0, sizeof cache.st);
	cache.gen = 0;
	cache.threads = threads;
	cache.defer = defer;
}

/* See repomap/repomap.h. */
void
repomap_defer_save(int on)
{
	cache.defer = on;
}

/* See repomap/repomap.h. */
void
repomap_flush(void)
{
	if (cache.pending && cache.last_root)
		save(cache.last_root);
	cache.pending = 0;
}
