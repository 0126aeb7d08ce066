/*
 * test_repo_map: the repository map on a temporary tree of C and Python
 * files — the definition used from three other files ranks its file first,
 * a file's own uses do not count, the budget cut and its note, .gitignore
 * honoured, binary and over-5 MB files skipped, the cache hit on a second
 * build and refreshed when a file changes, the tool's budget argument;
 * the disk cache: a new process (memory cache freed) answers from it, a
 * changed mtime is parsed again, a corrupt or truncated cache file is
 * ignored and replaced, an unwritable state directory is harmless.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <git2.h>

#include "repomap/repomap.h"
#include "repomap/store.h"
#include "code/code.h"
#include "tool_fixture.h"

extern const struct tool tool_repo_map;

static char g_state[] = "/tmp/hearth-rmcache.XXXXXX"; /* XDG_CACHE_HOME of a test */

static int
setup(void **state)
{
	struct fixture *f = fixture_new();

	memcpy(g_state + strlen(g_state) - 6, "XXXXXX", 6);
	assert_non_null(mkdtemp(g_state));
	setenv("XDG_CACHE_HOME", g_state, 1);

	fixture_mkdir(f, "src");
	fixture_puts(f, "src/util.c", "#include \"util.h\"\n\nint\nhelper_parse(int x)\n{\n"
		     "\treturn x + 1;\n}\n\nstatic int\nlonely(void)\n{\n\treturn lonely();\n}\n");
	fixture_puts(f, "src/util.h", "int helper_parse(int x);\n");
	fixture_puts(f, "src/a.c", "#include \"util.h\"\nint\nuse_a(void)\n{\n"
		     "\treturn helper_parse(1);\n}\n");
	fixture_puts(f, "src/b.c", "int\nuse_b(void)\n{\n\treturn helper_parse(2) + use_a();\n}\n");
	fixture_puts(f, "tool.py", "from x import helper_parse\n\nclass Runner:\n"
		     "    def run(self):\n        return helper_parse(3)\n");
	fixture_puts(f, "zz_self.py", "def only_me():\n    return only_me()\n\n"
		     "def only_me2():\n    return only_me()\n");
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	fixture_free(*state);
	repomap_cache_free();
	repomap_defer_save(0); /* the repo_map tool turns it on for the process */
	fixture_rmrf(g_state);
	return 0;
}

/* Build the map of f's root with `tokens` (malloc'd text). */
static char *
map(struct fixture *f, size_t tokens)
{
	struct buf out = BUF_INIT;
	struct err e = ERR_INIT;

	assert_int_equal(repomap_build(f->root, tokens, &out, &e), 0);
	return buf_detach(&out, NULL);
}

/* Position of s in text, asserted present. */
static size_t
at(const char *text, const char *s)
{
	const char *p = strstr(text, s);

	if (!p)
		print_error("missing \"%s\" in:\n%s\n", s, text);
	assert_non_null(p);
	return (size_t)(p - text);
}

static void
test_rank(void **state)
{
	struct fixture *f = *state;
	char *m = map(f, 2000);

	/* helper_parse: used by a.c, b.c, tool.py (util.h/util.c define it) */
	assert_int_equal(at(m, "src/util.c:\n"), 0);
	at(m, "src/util.c:\n      4  helper_parse(int x)\n     10  lonely(void)\n");
	assert_true(at(m, "src/util.h:\n") < at(m, "src/a.c:\n"));
	at(m, "src/util.h:\n      1  int helper_parse(int x);\n");
	/* use_a is used by b.c: a.c ranks above files nobody uses */
	assert_true(at(m, "src/a.c:\n") < at(m, "src/b.c:\n"));
	at(m, "tool.py:\n      3  class Runner:\n      4  def run(self):\n");
	/* its own uses do not count: zz_self.py scores 0, listed last (by path) */
	assert_true(at(m, "tool.py:\n") < at(m, "zz_self.py:\n"));
	assert_null(strstr(m, "left out"));
	free(m);
}

static void
test_budget(void **state)
{
	struct fixture *f = *state;
	struct buf b = BUF_INIT;
	char *m, *big;
	int i;

	/* the budget is clamped to 100 tokens = 400 bytes: the small tree fits */
	m = map(f, 1);
	assert_null(strstr(m, "left out"));
	free(m);
	for (i = 0; i < 60; i++)
		buf_addf(&b, "int padding_function_number_%d(void) { return %d; }\n", i, i);
	fixture_write(f, "pad.c", b.data, b.len);
	buf_release(&b);
	m = map(f, 1);
	big = map(f, 16000);
	assert_true(strlen(m) <= 400 + 200);
	at(m, "src/util.c:\n");
	assert_null(strstr(m, "padding_function"));
	/* files go in rank order: pad.c (unused, by path before src/b.c) stops the map */
	at(m, "[65 definitions left out (4 more files); call repo_map with a larger budget "
	   "(max 16000) or use outline on a file]");
	at(big, "padding_function_number_59");
	assert_null(strstr(big, "left out"));
	free(m);
	free(big);
	/* when the first file alone is over the budget, its first lines are shown */
	fixture_puts(f, "use.c", "int u(void) { return padding_function_number_0() + "
		     "padding_function_number_1() + padding_function_number_2() + "
		     "padding_function_number_3(); }\n");
	m = map(f, 1);
	assert_int_equal(at(m, "pad.c:\n      1  int padding_function_number_0(void)"), 0);
	at(m, "  ...\n[");
	assert_true(strlen(m) <= 400 + 200);
	assert_null(strstr(m, "src/util.c"));
	free(m);
}

static void
test_gitignore_binary_big(void **state)
{
	struct fixture *f = *state;
	git_repository *repo = NULL;
	char *m, *huge;
	size_t n = CODE_MAX_BYTES + 10;

	git_libgit2_init();
	assert_int_equal(git_repository_init(&repo, f->root, 0), 0);
	git_repository_free(repo);
	git_libgit2_shutdown();
	fixture_puts(f, ".gitignore", "build/\n");
	fixture_mkdir(f, "build");
	fixture_puts(f, "build/gen.c", "int generated_ignored(void) { return helper_parse(0); }\n");
	fixture_write(f, "bin.c", "int x\0\0\0binary", 15);
	huge = malloc(n);
	assert_non_null(huge);
	memset(huge, ' ', n);
	memcpy(huge, "int huge_fn(void);", 18);
	fixture_write(f, "huge.c", huge, n);
	/* minified: 5,000 bytes on 2 lines */
	memset(huge, ' ', 5000);
	memcpy(huge, "function min_fn(){}\n", 20);
	fixture_write(f, "app.min.js", huge, 5000);
	free(huge);
	m = map(f, 2000);
	assert_null(strstr(m, "generated_ignored"));
	assert_null(strstr(m, "huge_fn"));
	assert_null(strstr(m, "min_fn"));
	at(m, "[skipped: 1 file over 5 MB, 1 binary or unparsable, 1 minified or generated]");
	free(m);
}

static void
test_cache(void **state)
{
	struct fixture *f = *state;
	struct repomap_stats st;
	struct timespec ts[2] = { { 0, UTIME_NOW }, { 1000000000, 0 } };
	char *m;

	repomap_cache_free();
	free(map(f, 2000));
	repomap_stats(&st);
	assert_int_equal(st.hits, 0);
	assert_int_equal(st.misses, 6);
	assert_int_equal(st.cached, 6);
	free(map(f, 2000));
	repomap_stats(&st);
	assert_int_equal(st.hits, 6);
	assert_int_equal(st.misses, 6);
	/* a changed file (new mtime) is read again and its new content shows */
	fixture_puts(f, "tool.py", "def renamed_runner():\n    pass\n");
	assert_int_equal(utimensat(AT_FDCWD, fixture_path(f, "tool.py"), ts, 0), 0);
	m = map(f, 2000);
	repomap_stats(&st);
	assert_int_equal(st.hits, 11);
	assert_int_equal(st.misses, 7);
	at(m, "renamed_runner");
	assert_null(strstr(m, "class Runner"));
	free(m);
	/* a deleted file leaves the cache */
	assert_int_equal(unlink(fixture_path(f, "zz_self.py")), 0);
	free(map(f, 2000));
	repomap_stats(&st);
	assert_int_equal(st.cached, 5);
}

/* The path of the fixture's disk cache file (malloc'd). */
static char *
disk_path(struct fixture *f)
{
	struct buf p = BUF_INIT;

	assert_int_equal(repomap_store_path(f->root, &p), 0);
	/* a cache: under XDG_CACHE_HOME, never the state dir */
	assert_int_equal(strncmp(p.data, g_state, strlen(g_state)), 0);
	assert_non_null(strstr(p.data, "/hearth/repomap/"));
	return buf_detach(&p, NULL);
}

static void
test_disk_hit(void **state)
{
	struct fixture *f = *state;
	struct repomap_stats st;
	char *m1, *m2, *p = disk_path(f);
	struct stat sb;

	repomap_cache_free();
	m1 = map(f, 2000);
	assert_int_equal(stat(p, &sb), 0);
	repomap_cache_free(); /* a new process */
	m2 = map(f, 2000);
	repomap_stats(&st);
	assert_int_equal(st.disk, 6);
	assert_int_equal(st.misses, 0);
	assert_string_equal(m1, m2);
	free(m2);
	/* an unchanged build does not rewrite the file */
	assert_int_equal(unlink(p), 0);
	free(map(f, 2000));
	assert_int_equal(stat(p, &sb), -1);
	free(m1), free(p);
}

static void
test_disk_stale(void **state)
{
	struct fixture *f = *state;
	struct repomap_stats st;
	struct timespec ts[2] = { { 0, UTIME_NOW }, { 1000000000, 0 } };
	char *m;

	free(map(f, 2000));
	repomap_cache_free();
	/* same size, other content, other mtime: parsed again */
	fixture_puts(f, "zz_self.py", "def only_mx():\n    return only_me()\n\n"
		     "def only_me2():\n    return only_me()\n");
	assert_int_equal(utimensat(AT_FDCWD, fixture_path(f, "zz_self.py"), ts, 0), 0);
	m = map(f, 2000);
	repomap_stats(&st);
	assert_int_equal(st.disk, 5);
	assert_int_equal(st.misses, 1);
	at(m, "def only_mx");
	free(m);
}

/*
 * Replace b by a cache file with the right magic, version and checksum but
 * bad records: how 3, a huge record count; 4, a string running past the end;
 * 5, a string without its NUL.
 */
static void
forge(struct buf *b, int how)
{
	uint32_t v = REPOMAP_STORE_VERSION, n = how == 3 ? 100000 : 1, zero = 0;
	uint16_t len = how == 4 ? 60000 : 5;
	uint64_t h = UINT64_C(0xcbf29ce484222325);
	size_t i;

	buf_reset(b);
	buf_add(b, "HRMC", 4);
	buf_add(b, &v, 4);
	buf_add(b, &zero, 4); /* names */
	buf_add(b, &n, 4);    /* records */
	buf_add(b, &zero, 4); /* bytes of names */
	buf_add(b, &len, 2);
	buf_add(b, "/abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz", 60);
	for (i = 0; i < b->len; i++)
		h = (h ^ (unsigned char)b->data[i]) * UINT64_C(0x100000001b3);
	buf_add(b, &h, 8);
}

/*
 * Rewrite the cache file through repomap_store_save (a good checksum) with
 * one inconsistency: how 6, a name twice; 7, a definition's name id past
 * the names; 8, a signature past the file's end; 9, used names out of
 * order; 10, a blob longer than its counts.
 */
static void
resave(struct fixture *f, int how)
{
	struct repomap_store *c = repomap_store_load(f->root);
	struct repomap_store_rec *r;
	struct buf names = BUF_INIT, *blobs;
	uint32_t nnames = c->nnames;
	size_t i, j, hit = 0;

	assert_true(c->n >= 6);
	r = calloc(c->n, sizeof *r);
	blobs = calloc(c->n, sizeof *blobs);
	assert_non_null(r);
	assert_non_null(blobs);
	buf_add(&names, c->names, c->names_len);
	if (how == 6) { /* the first name again at the end */
		buf_adds(&names, c->names);
		buf_addch(&names, '\0');
		nnames++;
	}
	for (i = 0; i < c->n; i++) {
		struct repomap_blob rd;
		struct repomap_def d;
		uint32_t *ids = calloc(c->recs[i].nrefs + 1, sizeof *ids);
		r[i] = c->recs[i];
		repomap_store_blob_open(&rd, r[i].blob, r[i].bloblen);
		for (j = 0; j < r[i].ndefs; j++) {
			repomap_store_blob_def(&rd, &d);
			if (how == 7 && !hit++)
				d.name = nnames;
			if (how == 8 && !hit++)
				d.sig_off = (uint32_t)r[i].size;
			repomap_store_put_def(&blobs[i], &d);
		}
		for (j = 0; j < r[i].nrefs; j++)
			ids[j] = repomap_store_blob_ref(&rd);
		assert_false(rd.bad);
		if (how == 9 && r[i].nrefs > 1 && !hit++) {
			uint32_t t = ids[0];
			ids[0] = ids[1], ids[1] = t;
		}
		repomap_store_put_refs(&blobs[i], ids, r[i].nrefs);
		if (how == 10 && !hit++)
			buf_addch(&blobs[i], 0);
		r[i].blob = (const unsigned char *)blobs[i].data;
		r[i].bloblen = (uint32_t)blobs[i].len;
		free(ids);
	}
	assert_true(hit > 0 || how == 6 || how == 0);
	assert_int_equal(repomap_store_save(f->root, names.data, names.len, nnames, r, c->n, NULL), 0);
	for (i = 0; i < c->n; i++)
		buf_release(&blobs[i]);
	free(blobs), free(r);
	buf_release(&names);
	repomap_store_free(c);
}

/* Build, damage the cache file with `how`, then build as a new process: all parsed. */
static void
disk_damaged(struct fixture *f, int how)
{
	struct repomap_stats st;
	char *m1, *m2, *p = disk_path(f);
	struct buf b = BUF_INIT;
	int fd;

	repomap_cache_free();
	m1 = map(f, 2000);
	assert_int_equal(buf_read_file(&b, p, 1 << 20, NULL), 0);
	if (how == 0)
		b.data[b.len / 2] ^= 0x5a;      /* a flipped byte */
	else if (how == 1)
		b.len = b.len / 2;              /* truncated */
	else if (how == 2)
		memset(b.data, 0xff, b.len);    /* garbage */
	else if (how <= 5)
		forge(&b, how);                 /* a good checksum over bad records */
	if (how <= 5) {
		fd = open(p, O_WRONLY | O_TRUNC);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, b.data, b.len), (ssize_t)b.len);
		close(fd);
	} else {
		repomap_cache_free();
		resave(f, how);                 /* consistent but for one thing */
	}
	repomap_cache_free();
	m2 = map(f, 2000);
	repomap_stats(&st);
	assert_int_equal(st.disk, 0);
	assert_int_equal(st.misses, 6);
	assert_string_equal(m1, m2);
	/* and it was replaced by a good one */
	repomap_cache_free();
	free(map(f, 2000));
	repomap_stats(&st);
	assert_int_equal(st.disk, 6);
	buf_release(&b);
	free(m1), free(m2), free(p);
}

static void
test_disk_corrupt(void **state)
{
	disk_damaged(*state, 0);
	disk_damaged(*state, 1);
	disk_damaged(*state, 2);
	disk_damaged(*state, 3);
	disk_damaged(*state, 4);
	disk_damaged(*state, 5);
	/* the resave itself is sound: unchanged, it is used */
	repomap_cache_free();
	free(map(*state, 2000));
	resave(*state, 0);
	repomap_cache_free();
	free(map(*state, 2000));
	{
		struct repomap_stats st;
		repomap_stats(&st);
		assert_int_equal(st.disk, 6);
	}
	disk_damaged(*state, 6);
	disk_damaged(*state, 7);
	disk_damaged(*state, 8);
	disk_damaged(*state, 9);
	disk_damaged(*state, 10);
}

static void
test_disk_unwritable(void **state)
{
	struct fixture *f = *state;
	struct repomap_stats st;
	char *m1, *m2, file[64];

	/* XDG_CACHE_HOME is a regular file: no directory can be made under it */
	snprintf(file, sizeof file, "%s/plain", g_state);
	fixture_rmrf(file);
	assert_int_equal(close(open(file, O_WRONLY | O_CREAT, 0644)), 0);
	setenv("XDG_CACHE_HOME", file, 1);
	repomap_cache_free();
	m1 = map(f, 2000);
	repomap_cache_free();
	m2 = map(f, 2000);
	repomap_stats(&st);
	assert_int_equal(st.disk, 0);
	assert_int_equal(st.misses, 6);
	assert_string_equal(m1, m2);
	free(m1), free(m2);
	/* neither XDG_CACHE_HOME nor HOME: no disk cache, still a map */
	{
		char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
		struct buf p = BUF_INIT;

		unsetenv("XDG_CACHE_HOME");
		setenv("HOME", "/nonexistent-home", 1);
		assert_int_equal(repomap_store_path("/r", &p), 0);
		assert_int_equal(strncmp(p.data, "/nonexistent-home/.cache/hearth/repomap/", 40), 0);
		buf_release(&p);
		unsetenv("HOME");
		m1 = map(f, 2000);
		at(m1, "src/util.c:\n");
		free(m1);
		if (home)
			setenv("HOME", home, 1);
		free(home);
	}
}

/* Top-level function bodies are not searched; exported, decorated and class members are. */
static void
test_bodies(void **state)
{
	struct fixture *f = *state;
	char *m;

	fixture_puts(f, "deco.py", "@cache\ndef outer_py(x):\n    def inner_py():\n"
		     "        return x\n    return inner_py\n\nclass K:\n    def meth_py(self):\n"
		     "        pass\n");
	fixture_puts(f, "mod.js", "export function outer_js() {\n  function inner_js() {}\n"
		     "  return inner_js;\n}\nclass C { meth_js() {} }\n");
	m = map(f, 4000);
	at(m, "def outer_py(x):");
	at(m, "def meth_py(self):");
	at(m, "export function outer_js() {");
	at(m, "meth_js() {}");
	assert_null(strstr(m, "inner_py"));
	assert_null(strstr(m, "inner_js"));
	free(m);
}

static void
test_tool(void **state)
{
	struct fixture *f = *state;
	int err = -1;
	char *p = disk_path(f), *o;
	struct stat sb;

	repomap_cache_free();
	(void)unlink(p);
	o = fixture_out(f, &tool_repo_map, "{}", &err);
	/* the tool defers the disk cache and queues its writing right after the answer */
	assert_int_equal(stat(p, &sb), 0);
	free(p);
	assert_int_equal(err, 0);
	at(o, "Repository map:");
	at(o, "src/util.c:\n");
	free(o);
	o = fixture_out(f, &tool_repo_map, "{\"budget\":null}", &err);
	assert_int_equal(err, 0);
	free(o);
	o = fixture_out(f, &tool_repo_map, "{\"budget\":-5}", &err);
	assert_int_equal(err, 0);
	free(o);
	o = fixture_out(f, &tool_repo_map, "{\"budget\":1e300}", &err);
	assert_int_equal(err, 0);
	free(o);
	f->env.root = "/nonexistent/hearth-root";
	o = fixture_out(f, &tool_repo_map, "{}", &err);
	assert_int_equal(err, 1);
	at(o, "repo_map: ");
	free(o);
	f->env.root = f->root;
}

/* A deferred save waits for repomap_flush, another root's build, or repomap_cache_free. */
static void
test_deferred_save(void **state)
{
	struct fixture *f = *state;
	struct fixture *g = fixture_new();
	char *p = disk_path(f), *q = NULL;
	struct stat sb;
	struct buf out = BUF_INIT;
	struct err e = ERR_INIT;

	repomap_cache_free();
	(void)unlink(p);
	repomap_defer_save(1);
	free(map(f, 2000));
	assert_int_equal(stat(p, &sb), -1); /* not before the answer */
	repomap_flush();
	assert_int_equal(stat(p, &sb), 0);
	assert_int_equal(unlink(p), 0);
	repomap_flush(); /* written once: nothing pending */
	assert_int_equal(stat(p, &sb), -1);

	/* a changed file: pending again, written when the cache is freed */
	fixture_puts(f, "src/b.c", "int\nuse_b(void)\n{\n\treturn 3;\n}\n");
	free(map(f, 2000));
	assert_int_equal(stat(p, &sb), -1);
	repomap_cache_free();
	assert_int_equal(stat(p, &sb), 0);

	/* and when a build of another root replaces the cache */
	assert_int_equal(unlink(p), 0);
	fixture_puts(f, "src/b.c", "int\nuse_b(void)\n{\n\treturn 4;\n}\n");
	free(map(f, 2000));
	assert_int_equal(stat(p, &sb), -1);
	fixture_puts(g, "other.c", "int\nother(void)\n{\n\treturn 0;\n}\n");
	assert_int_equal(repomap_build(g->root, 2000, &out, &e), 0);
	assert_int_equal(stat(p, &sb), 0);
	{
		struct buf gp = BUF_INIT;
		assert_int_equal(repomap_store_path(g->root, &gp), 0);
		q = buf_detach(&gp, NULL);
	}
	assert_int_equal(stat(q, &sb), -1); /* the new root's own: still pending */
	repomap_defer_save(0);
	repomap_cache_free();
	assert_int_equal(stat(q, &sb), 0);
	buf_release(&out);
	free(p), free(q);
	fixture_free(g);
}

/* A tree of n files in four languages using each other's definitions. */
static void
many_files(struct fixture *f, int n)
{
	char path[64], text[512];
	struct buf b = BUF_INIT;
	int i, k;

	fixture_mkdir(f, "many");
	for (i = 0; i < n; i++) {
		int u = (i * 7 + 3) % n, w = (i * 13 + 5) % n;
		switch (i % 4) {
		case 0:
			snprintf(path, sizeof path, "many/m%03d.c", i);
			snprintf(text, sizeof text, "int\nfn_%d(int x)\n{\n\treturn fn_%d(x) + fn_%d(x);\n}\n"
				 "struct st_%d { int v; };\n", i, u, w, i);
			break;
		case 1:
			snprintf(path, sizeof path, "many/m%03d.py", i);
			snprintf(text, sizeof text, "def fn_%d(x):\n    return fn_%d(x) + fn_%d(x)\n\n"
				 "class Cls_%d:\n    def meth_%d(self):\n        return st_%d\n", i, u, w, i, i, u);
			break;
		case 2:
			snprintf(path, sizeof path, "many/m%03d.js", i);
			snprintf(text, sizeof text, "export function fn_%d(x) {\n  return fn_%d(x) + fn_%d(x);\n}\n"
				 "// \u00e9t\u00e9 Cls_%d\n", i, u, w, w);
			break;
		default:
			snprintf(path, sizeof path, "many/m%03d.go", i);
			snprintf(text, sizeof text, "package many\n\nfunc fn_%d(x int) int {\n\treturn fn_%d(x) + "
				 "fn_%d(x)\n}\n\ntype T%d struct{}\n", i, u, w, i);
		}
		/* names of its own in a comment: the name table grows while the threads intern */
		buf_reset(&b);
		buf_addf(&b, "%s%s", text, i % 4 == 1 ? "#" : "//");
		for (k = 0; k < 60; k++)
			buf_addf(&b, " uniq_%d_%d", i, k);
		buf_addch(&b, '\n');
		fixture_puts(f, path, b.data);
	}
	buf_release(&b);
}

/* The map of f's root on `threads` threads, from an empty memory and disk cache. */
static char *
map_threads(struct fixture *f, unsigned threads, size_t tokens)
{
	struct repomap_stats st;
	char *m, *p = disk_path(f);

	repomap_cache_free();
	(void)unlink(p);
	free(p);
	repomap_set_threads(threads);
	m = map(f, tokens);
	repomap_stats(&st);
	assert_int_equal(st.disk, 0);
	assert_int_equal(st.threads, threads);
	return m;
}

/* One thread or several: the same map, byte for byte, cold, from the disk cache and warm. */
static void
test_threads(void **state)
{
	struct fixture *f = *state;
	char *one, *two, *four, *m;
	struct repomap_stats st;

	many_files(f, 400);
	one = map_threads(f, 1, 16000);
	two = map_threads(f, 2, 16000);
	four = map_threads(f, 4, 16000);
	at(one, "fn_0(int x)");
	at(one, "class Cls_1:");
	assert_string_equal(one, two);
	assert_string_equal(one, four);
	repomap_stats(&st);
	assert_int_equal(st.misses, 406);
	repomap_cache_free(); /* a new process: every file from the disk cache */
	m = map(f, 16000);
	repomap_stats(&st);
	assert_int_equal(st.disk, 406);
	assert_int_equal(st.misses, 0);
	assert_string_equal(one, m);
	free(m);
	m = map(f, 16000); /* warm: the ranking kept */
	assert_string_equal(one, m);
	free(m);
	free(one), free(two), free(four);
	repomap_set_threads(0);
}

/*
 * A file changed between builds is parsed again and the ranking redone, in
 * the same process (where an unchanged build reuses the last ranking) and
 * in a new one (from the disk cache); its signatures are read back from
 * the new text.
 */
static void
test_changed(void **state)
{
	struct fixture *f = *state;
	struct timespec ts[2] = { { 0, UTIME_NOW }, { 2000000000, 0 } };
	struct repomap_stats st;
	char *m;

	repomap_set_threads(2);
	m = map(f, 2000);
	/* a.c is used by b.c: above the files nobody uses */
	assert_true(at(m, "src/a.c:\n") < at(m, "tool.py:\n"));
	free(m);
	m = map(f, 2000);
	assert_true(at(m, "src/a.c:\n") < at(m, "tool.py:\n"));
	free(m);
	/* b.c now uses Runner, not use_a: tool.py goes above a.c */
	fixture_puts(f, "src/b.c", "int\nuse_b(void)\n{\n\treturn helper_parse(2) + Runner();\n}\n");
	assert_int_equal(utimensat(AT_FDCWD, fixture_path(f, "src/b.c"), ts, 0), 0);
	m = map(f, 2000);
	repomap_stats(&st);
	assert_int_equal(st.misses, 7);
	assert_true(at(m, "tool.py:\n") < at(m, "src/a.c:\n"));
	free(m);
	/* a new process: the disk cache has b.c's new record */
	repomap_cache_free();
	m = map(f, 2000);
	repomap_stats(&st);
	assert_int_equal(st.disk, 6);
	assert_true(at(m, "tool.py:\n") < at(m, "src/a.c:\n"));
	free(m);
	/* changed again, other size, while the disk cache is in memory: the new signature shows */
	fixture_puts(f, "src/b.c", "int\nuse_b_renamed(long y)\n{\n\treturn helper_parse(2) + use_a();\n}\n");
	m = map(f, 2000);
	repomap_stats(&st);
	assert_int_equal(st.misses, 1);
	at(m, "src/b.c:\n      2  use_b_renamed(long y)\n");
	assert_true(at(m, "src/a.c:\n") < at(m, "tool.py:\n"));
	free(m);
	repomap_set_threads(0);
}

/*
 * Between builds of one process nothing is walked while the watches are
 * quiet: still, a file added in a subdirectory, a file changed in place, a
 * .gitignore edited in place and a removed directory all show in the next
 * build.
 */
static void
test_watch(void **state)
{
	struct fixture *f = *state;
	git_repository *repo = NULL;
	struct repomap_stats st;
	char *m;
	int fd;

	git_libgit2_init();
	assert_int_equal(git_repository_init(&repo, f->root, 0), 0);
	git_repository_free(repo);
	git_libgit2_shutdown();
	fixture_puts(f, ".gitignore", "*.o\n");
	fixture_mkdir(f, "src/deep");
	free(map(f, 2000));
	free(map(f, 2000));
	free(map(f, 2000)); /* quiet: nothing stated */
	repomap_stats(&st);
	assert_int_equal(st.misses, 6);
	fixture_puts(f, "src/deep/new.c", "int brand_new_fn(void) { return helper_parse(9); }\n");
	m = map(f, 2000);
	at(m, "src/deep/new.c:\n      1  int brand_new_fn(void)");
	free(m);
	free(map(f, 2000));
	/* written in place (same inode, the directory unchanged) */
	fd = open(fixture_path(f, "src/deep/new.c"), O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "int renamed_fn(int);\n", 21), 21);
	close(fd);
	m = map(f, 2000);
	at(m, "src/deep/new.c:\n      1  int renamed_fn(int);");
	assert_null(strstr(m, "brand_new_fn"));
	free(m);
	free(map(f, 2000));
	fd = open(fixture_path(f, ".gitignore"), O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "deep/\n", 6), 6);
	close(fd);
	m = map(f, 2000);
	assert_null(strstr(m, "renamed_fn"));
	at(m, "src/util.c:\n");
	free(m);
	free(map(f, 2000));
	fixture_rmrf(fixture_path(f, "src"));
	m = map(f, 2000);
	assert_null(strstr(m, "src/util.c"));
	at(m, "tool.py:\n");
	free(m);
}

/* A signature is the trimmed line cut at 100 bytes, never inside a UTF-8 character. */
static void
test_signature(void **state)
{
	struct fixture *f = *state;
	char line[256], *m;

	/* "int sig_fn(int a" and 83 digits are 99 bytes: the next "é" (2 bytes) straddles byte 100 */
	snprintf(line, sizeof line, "\t int sig_fn(int a%s%s, int b);\n",
		 "01234567890123456789012345678901234567890123456789012345678901234567890123456789012",
		 "\xc3\xa9\xc3\xa9");
	fixture_puts(f, "sig.h", line);
	m = map(f, 4000);
	at(m, "sig.h:\n      1  int sig_fn(int a0123456789012345678901234567890123456789012345678901234567890"
	   "1234567890123456789012\n");
	free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rank, setup, teardown),
		cmocka_unit_test_setup_teardown(test_budget, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gitignore_binary_big, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cache, setup, teardown),
		cmocka_unit_test_setup_teardown(test_disk_hit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_disk_stale, setup, teardown),
		cmocka_unit_test_setup_teardown(test_disk_corrupt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_disk_unwritable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bodies, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tool, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deferred_save, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_changed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_watch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_signature, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
