/*
 * test_tool_contract: what each tool answers about its own calls
 * (llm/tool.h): preview, paths, read_only, digest, describe, and the flags
 * the core asks instead of comparing names.  The previews of edit and
 * write are compared with the diff the same call reports once run: the
 * preview is what lands (replace_all, CRLF files, overwrites, new files),
 * and a preview writes nothing.  An extension (MCP-like) tool with no
 * members gets the defaults.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tools/stale.h"
#include "tool_fixture.h"

extern const struct tool tool_read, tool_write, tool_edit, tool_bash, tool_grep, tool_ls,
	tool_outline, tool_search, tool_find_files;

/* t's preview of json in f's workspace: its kind, the text in *out (malloc'd). */
static int
preview(struct fixture *f, const struct tool *t, const char *json, char **out)
{
	cJSON *args = cJSON_Parse(json);
	struct buf b = BUF_INIT;
	int kind;

	assert_non_null(args);
	kind = tool_preview(t, args, f ? &f->env : NULL, &b);
	cJSON_Delete(args);
	*out = buf_detach(&b, NULL);
	return kind;
}

/* Run t on json; the diff it reports (malloc'd, "" when none); asserts success. */
static char *
run_diff(struct fixture *f, const struct tool *t, const char *json)
{
	struct tool_job job;
	char *d;

	fixture_run(f, t, json, &job);
	if (job.is_error)
		fail_msg("%s failed: %s", t->name, job.out.data);
	d = job.diff ? job.diff : calloc(1, 1);
	job.diff = NULL;
	tool_job_release(&job);
	return d;
}

/* preview == the diff the run reports; the file is untouched until the run. */
static void
expect_preview_lands(struct fixture *f, const struct tool *t, const char *rel, const char *before,
		     const char *json, const char *after)
{
	char *p, *d, *got;

	fixture_puts(f, rel, before);
	assert_int_equal(preview(f, t, json, &p), TOOL_PREVIEW_DIFF);
	got = fixture_slurp(f, rel, NULL);
	assert_string_equal(got, before);
	free(got);
	d = run_diff(f, t, json);
	assert_string_equal(p, d);
	got = fixture_slurp(f, rel, NULL);
	assert_string_equal(got, after);
	free(got);
	free(p);
	free(d);
}

static void
test_edit_preview_replace_all(void **state)
{
	struct fixture *f = *state;
	char *p;

	fixture_puts(f, "c.txt", "red top\nmid\nred bottom\n");
	assert_int_equal(preview(f, &tool_edit, "{\"path\":\"c.txt\",\"old_text\":\"red\",\"new_text\":\"blue\","
				 "\"replace_all\":true}", &p), TOOL_PREVIEW_DIFF);
	assert_non_null(strstr(p, "\n-red top\n+blue top\n"));
	assert_non_null(strstr(p, "\n-red bottom\n+blue bottom\n"));
	free(p);
	expect_preview_lands(f, &tool_edit, "c.txt", "red top\nmid\nred bottom\n",
			     "{\"path\":\"c.txt\",\"old_text\":\"red\",\"new_text\":\"blue\",\"replace_all\":true}",
			     "blue top\nmid\nblue bottom\n");
}

static void
test_edit_preview_crlf_and_bom(void **state)
{
	struct fixture *f = *state;
	char *p;

	fixture_puts(f, "d.txt", "\xEF\xBB\xBFone\r\ntwo\r\nthree\r\nfour\r\n");
	assert_int_equal(preview(f, &tool_edit, "{\"path\":\"d.txt\",\"old_text\":\"two\\nthree\","
				 "\"new_text\":\"TWO\\nTHREE\"}", &p), TOOL_PREVIEW_DIFF);
	assert_non_null(strstr(p, "@@ -1,4 +1,4 @@\n one\n-two\n-three\n+TWO\n+THREE\n four\n"));
	assert_null(strchr(p, '\r'));
	free(p);
	expect_preview_lands(f, &tool_edit, "d.txt", "\xEF\xBB\xBFone\r\ntwo\r\nthree\r\nfour\r\n",
			     "{\"path\":\"d.txt\",\"old_text\":\"two\\nthree\",\"new_text\":\"TWO\\nTHREE\"}",
			     "\xEF\xBB\xBFone\r\nTWO\r\nTHREE\r\nfour\r\n");
}

/* A call that would fail previews nothing but the tool's own error line; ambiguity too. */
/*
 * Issue 20: the syntax check in the preview.  In reject mode a change that
 * adds a parse error previews nothing but the run's refusal; a clean change
 * previews its diff, which lands; in warn mode the broken change previews
 * its diff too (the run writes it with a note).
 */
static void
test_edit_preview_syntax(void **state)
{
	struct fixture *f = *state;
	const char *src = "int\nmain(void)\n{\n\treturn 0;\n}\n";
	const char *bad = "{\"path\":\"m.c\",\"old_text\":\"return 0;\",\"new_text\":\"return 0\"}";
	char *p;

	fixture_puts(f, "m.c", src);
	f->env.syntax_reject = 1;
	assert_int_equal(preview(f, &tool_edit, bad, &p), TOOL_PREVIEW_NONE);
	assert_non_null(strstr(p, "syntax check: 1 new error in m.c: line 4: missing \";\""));
	assert_non_null(strstr(p, "\nm.c not changed: the edit would add syntax errors; fix new_text "
				  "and try again"));
	free(p);
	expect_preview_lands(f, &tool_edit, "m.c", src,
			     "{\"path\":\"m.c\",\"old_text\":\"return 0;\",\"new_text\":\"return 1;\"}",
			     "int\nmain(void)\n{\n\treturn 1;\n}\n");
	f->env.syntax_reject = 0;
	assert_int_equal(preview(f, &tool_edit, "{\"path\":\"m.c\",\"old_text\":\"return 1;\","
				 "\"new_text\":\"return 1\"}", &p), TOOL_PREVIEW_DIFF);
	assert_non_null(strstr(p, "\n-\treturn 1;\n+\treturn 1\n"));
	free(p);
}

static void
test_edit_preview_refusals(void **state)
{
	struct fixture *f = *state;
	char *p;

	fixture_puts(f, "c.txt", "red\nred\n");
	assert_int_equal(preview(f, &tool_edit, "{\"path\":\"c.txt\",\"old_text\":\"green\",\"new_text\":\"x\"}",
				 &p), TOOL_PREVIEW_NONE);
	assert_non_null(strstr(p, "old_text not found in c.txt"));
	free(p);
	assert_int_equal(preview(f, &tool_edit, "{\"path\":\"c.txt\",\"old_text\":\"red\",\"new_text\":\"x\"}",
				 &p), TOOL_PREVIEW_NONE);
	assert_non_null(strstr(p, "old_text matches 2 times in c.txt"));
	free(p);
	assert_int_equal(preview(f, &tool_edit, "{\"path\":\"nope.txt\",\"old_text\":\"a\",\"new_text\":\"b\"}",
				 &p), TOOL_PREVIEW_NONE);
	assert_non_null(strstr(p, "nope.txt does not exist"));
	free(p);
	/* the stale-write guard refuses an unread file: so does the preview */
	f->env.stale = tool_stale_new();
	assert_int_equal(preview(f, &tool_edit, "{\"path\":\"c.txt\",\"old_text\":\"red\",\"new_text\":\"x\","
				 "\"replace_all\":true}", &p), TOOL_PREVIEW_NONE);
	assert_true(*p);
	free(p);
	tool_stale_free(f->env.stale);
	f->env.stale = NULL;
	/* without a workspace there is nothing to compare with */
	assert_int_equal(preview(NULL, &tool_edit, "{\"path\":\"c.txt\",\"old_text\":\"red\",\"new_text\":\"x\"}",
				 &p), TOOL_PREVIEW_NONE);
	free(p);
}

static void
test_write_preview(void **state)
{
	struct fixture *f = *state;
	char *p;

	expect_preview_lands(f, &tool_write, "w.txt", "a\nb\nc\n", "{\"path\":\"w.txt\",\"content\":\"a\\nB\\nc\\n\"}",
			     "a\nB\nc\n");
	assert_int_equal(preview(f, &tool_write, "{\"path\":\"new/n.txt\",\"content\":\"x\\n\"}", &p),
			 TOOL_PREVIEW_DIFF);
	assert_non_null(strstr(p, "+x\n"));
	free(p);
	assert_int_equal(access(fixture_path(f, "new"), F_OK), -1); /* no parent made by a preview */
	assert_int_equal(preview(f, &tool_write, "{\"path\":\"w.txt\",\"content\":\"a\\nB\\nc\\n\"}", &p),
			 TOOL_PREVIEW_TEXT);
	assert_non_null(strstr(p, "already has this content"));
	free(p);
	fixture_mkdir(f, "dir");
	assert_int_equal(preview(f, &tool_write, "{\"path\":\"dir\",\"content\":\"x\"}", &p), TOOL_PREVIEW_NONE);
	assert_non_null(strstr(p, "dir is a directory"));
	free(p);
	/* no workspace (a reloaded session): the content as a new file */
	assert_int_equal(preview(NULL, &tool_write, "{\"path\":\"z.txt\",\"content\":\"q\\n\"}", &p),
			 TOOL_PREVIEW_DIFF);
	assert_non_null(strstr(p, "+++ b/z.txt\n@@ -0,0 +1,1 @@\n+q\n"));
	free(p);
}

static void
test_bash_members(void **state)
{
	cJSON *ro = cJSON_Parse("{\"command\":\"ls -la | grep x\"}");
	cJSON *rw = cJSON_Parse("{\"command\":\"rm -rf build\"}");
	const char *v[2];
	struct buf b = BUF_INIT;

	(void)state;
	assert_int_equal(tool_preview(&tool_bash, rw, NULL, &b), TOOL_PREVIEW_TEXT);
	assert_string_equal(b.data, "rm -rf build");
	buf_reset(&b);
	assert_true(tool_is_read_only(&tool_bash, ro));
	assert_false(tool_is_read_only(&tool_bash, rw));
	assert_int_equal(tool_paths(&tool_bash, rw, v, 2), 0);
	assert_string_equal(tool_command(&tool_bash, rw), "rm -rf build");
	assert_null(tool_command(&tool_read, rw));
	tool_describe(&tool_bash, rw, &b);
	assert_string_equal(b.data, "rm -rf build");
	buf_reset(&b);
	tool_digest(&tool_bash, rw, "a\nb\nc\nd\nexit code 0\n", &b);
	assert_string_equal(b.data, "bash `rm -rf build`, 5 lines of output, the last ones:\nb\nc\nd\nexit code 0]");
	buf_release(&b);
	cJSON_Delete(ro);
	cJSON_Delete(rw);
}

static void
test_read_grep_members(void **state)
{
	cJSON *ra = cJSON_Parse("{\"path\":\"src/a.c\",\"offset\":2}");
	cJSON *ga = cJSON_Parse("{\"pattern\":\"foo\",\"path\":\"src\"}");
	const char *v[2];
	struct buf b = BUF_INIT;

	(void)state;
	assert_true(tool_is_read_only(&tool_read, ra));
	assert_int_equal(tool_paths(&tool_read, ra, v, 2), 1);
	assert_string_equal(v[0], "src/a.c");
	assert_int_equal(tool_preview(&tool_read, ra, NULL, &b), TOOL_PREVIEW_NONE);
	tool_describe(&tool_read, ra, &b);
	assert_string_equal(b.data, "src/a.c:2");
	buf_reset(&b);
	tool_digest(&tool_read, ra, "     2\tb\n     3\tc\n[showing lines 2-3 of 9]\n", &b);
	assert_string_equal(b.data, "read src/a.c lines 2-3 of 9; read it again if needed]");
	buf_reset(&b);
	assert_true(tool_is_read_only(&tool_grep, ga));
	tool_digest(&tool_grep, ga, "src/a.c:1:foo\nsrc/b.c:7:foo()\n", &b);
	assert_string_equal(b.data, "grep \"foo\" in src: 2 matching lines; search again if needed]");
	buf_reset(&b);
	tool_describe(&tool_grep, ga, &b);
	assert_string_equal(b.data, "\"foo\" in src");
	buf_release(&b);
	cJSON_Delete(ra);
	cJSON_Delete(ga);
}

/* The flags the core asks instead of names. */
static void
test_flags(void **state)
{
	size_t n, i, ncore = 0;
	const struct tool *const *all = tool_all(&n);

	(void)state;
	assert_true(tool_bash.flags & TOOL_SHELL);
	assert_true(tool_search.flags & TOOL_DISCOVERY);
	assert_true(tool_edit.flags & TOOL_EDITS);
	assert_true(tool_write.flags & TOOL_EDITS);
	assert_false(tool_bash.flags & TOOL_EDITS);
	assert_true(tool_read.flags & TOOL_SHOWS_FILE);
	assert_true(tool_outline.flags & TOOL_SHOWS_FILE);
	assert_true(tool_grep.flags & TOOL_SHOWS_MATCHES);
	for (i = 0; i < n; i++) {
		ncore += (all[i]->flags & TOOL_CORE) != 0;
		if (all[i]->flags & (TOOL_EDITS | TOOL_SHOWS_FILE))
			assert_non_null(all[i]->paths); /* they name their file */
		if (all[i]->flags & TOOL_EDITS)
			assert_non_null(all[i]->preview); /* approval shows their change */
	}
	assert_int_equal(ncore, 5); /* read write edit bash grep; the rest behind tool_search */
	assert_false(tool_search.flags & TOOL_CORE);
	assert_false(tool_ls.flags & TOOL_CORE);
	assert_false(tool_find_files.flags & TOOL_CORE);
}

/* An extension tool without members: the defaults. */
static void
test_defaults(void **state)
{
	static const struct tool ext = { .name = "mcp__s__do", .description = "d", .schema_json = "{}",
					 .flags = TOOL_MUTATES | TOOL_NEEDS_APPROVAL };
	static const struct tool ext_ro = { .name = "mcp__s__look", .description = "d", .schema_json = "{}",
					    .flags = TOOL_READ_ONLY };
	cJSON *a = cJSON_Parse("{\"n\":1,\"url\":\"http://x\"}"), *nokey = cJSON_Parse("{\"n\":12345}");
	const char *v[2];
	struct buf b = BUF_INIT;

	(void)state;
	assert_int_equal(tool_preview(&ext, a, NULL, &b), TOOL_PREVIEW_NONE);
	assert_int_equal(b.len, 0);
	assert_int_equal(tool_paths(&ext, a, v, 2), 0);
	assert_false(tool_is_read_only(&ext, a));
	assert_true(tool_is_read_only(&ext_ro, a));
	tool_describe(&ext, a, &b);
	assert_string_equal(b.data, "http://x");
	buf_reset(&b);
	tool_describe(NULL, nokey, &b);
	assert_string_equal(b.data, "{\"n\":12345}");
	buf_reset(&b);
	tool_digest(&ext, a, "x\ny\n", &b);
	assert_string_equal(b.data, "mcp__s__do, 2 lines, 4 bytes; run it again if needed]");
	buf_release(&b);
	cJSON_Delete(a);
	cJSON_Delete(nokey);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_edit_preview_replace_all, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_edit_preview_crlf_and_bom, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_edit_preview_refusals, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_edit_preview_syntax, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_write_preview, fixture_setup, fixture_teardown),
		cmocka_unit_test(test_bash_members),
		cmocka_unit_test(test_read_grep_members),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_defaults),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
