/* test_llama_slotmap: the slot records across runs and the slot choice made from them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "llama/slotmap.h"

/* Three slots: 0 and 1 used, 2 never. */
static void
three(struct llama_slot *s)
{
	memset(s, 0, 3 * sizeof *s);
	s[0].id = 0;
	s[0].id_task = 40;
	s[0].n_prompt_tokens = 1300;
	s[1].id = 1;
	s[1].id_task = 52;
	s[1].n_prompt_tokens = 1400;
	s[2].id = 2;
	s[2].id_task = -1;
}

static void
test_choose(void **state)
{
	struct llama_slotmap_entry v[2] = {
		{ .slot = 0, .session = "A", .task = 40, .tokens = 1300, .t = 100 },
		{ .slot = 1, .session = "B", .task = 52, .tokens = 1400, .t = 50 },
	};
	struct llama_slotmap m = { .v = v, .n = 2 };
	struct llama_slot s[3];
	enum llama_slotmap_why why;

	(void)state;
	three(s);
	/* the session's own slot, untouched since it left: stay there */
	assert_int_equal(llama_slotmap_choose(&m, "A", 0, s, 3, &why), 0);
	assert_int_equal(why, LLAMA_SLOTMAP_LIVE);
	assert_int_equal(llama_slotmap_choose(&m, "A", 1, s, 3, &why), 0); /* no restore needed */
	assert_int_equal(why, LLAMA_SLOTMAP_LIVE);
	/* a new session: the shared prefix beats the empty slot, least recently left first */
	assert_int_equal(llama_slotmap_choose(&m, "", 0, s, 3, &why), 1);
	assert_int_equal(why, LLAMA_SLOTMAP_SHARED);
	/* a restore fills any slot: the empty one evicts nobody */
	assert_int_equal(llama_slotmap_choose(&m, "C", 1, s, 3, &why), 2);
	assert_int_equal(why, LLAMA_SLOTMAP_EMPTY);
	/* another client used slot 0 since A left: not A's any more, and not hearth's */
	s[0].id_task = 77;
	assert_int_equal(llama_slotmap_choose(&m, "A", 0, s, 3, &why), 1);
	assert_int_equal(why, LLAMA_SLOTMAP_SHARED);
	/* the same task id with another size (a restarted server counts tasks again) */
	three(s);
	s[0].n_prompt_tokens = 12;
	assert_int_equal(llama_slotmap_choose(&m, "A", 0, s, 3, &why), 1);
	/* busy slots are skipped; then empty, then the least cached other */
	three(s);
	s[1].is_processing = 1;
	assert_int_equal(llama_slotmap_choose(&m, "B", 0, s, 3, &why), 0);
	assert_int_equal(why, LLAMA_SLOTMAP_SHARED);
	assert_int_equal(llama_slotmap_choose(NULL, "B", 0, s, 3, &why), 2);
	assert_int_equal(why, LLAMA_SLOTMAP_EMPTY);
	s[2].id_task = 9;
	s[2].n_prompt_tokens = 5000;
	assert_int_equal(llama_slotmap_choose(NULL, "B", 0, s, 3, &why), 0);
	assert_int_equal(why, LLAMA_SLOTMAP_OTHER);
	s[0].is_processing = s[2].is_processing = 1;
	assert_int_equal(llama_slotmap_choose(&m, "B", 0, s, 3, &why), -1);
	assert_int_equal(why, LLAMA_SLOTMAP_NONE);
}

static void
test_file(void **state)
{
	char dir[] = "/tmp/test_slotmap.XXXXXX", path[600];
	struct llama_slotmap m;
	struct err e = ERR_INIT;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/slotmap.json", dir);
	llama_slotmap_load(path, "http://a", &m); /* missing: empty */
	assert_int_equal(m.n, 0);
	llama_slotmap_release(&m);
	assert_int_equal(llama_slotmap_note(path, "http://a", 1, "S1", 40, 1300, 100, 0, -1, &e), 0);
	assert_int_equal(llama_slotmap_note(path, "http://a", 0, "S2", 41, 1200, 101, -1, -1, &e), 0);
	assert_int_equal(llama_slotmap_note(path, "http://a", 1, "S3", 45, 1250, 102, 0, -1, &e), 0);
	assert_int_equal(llama_slotmap_note(path, "http://b", 1, "S9", 3, 10, 103, 1, -1, &e), 0);
	llama_slotmap_load(path, "http://a", &m);
	assert_int_equal(m.n, 2); /* slot 1 was taken over by S3 */
	assert_int_equal(m.restore_misses, 1);
	assert_int_equal(m.restore_hits, 0);
	assert_false(llama_slotmap_restores_useless(&m));
	{
		size_t i;
		int seen = 0;

		for (i = 0; i < m.n; i++)
			if (m.v[i].slot == 1) {
				assert_string_equal(m.v[i].session, "S3");
				assert_int_equal(m.v[i].task, 45);
				assert_int_equal(m.v[i].tokens, 1250);
				seen = 1;
			}
		assert_true(seen);
	}
	llama_slotmap_release(&m);
	/* a second miss without a hit: restores do not pay here; a hit elsewhere does not count */
	assert_int_equal(llama_slotmap_note(path, "http://a", -1, "", 0, 0, 104, -1, -1, &e), 0);
	llama_slotmap_load(path, "http://a", &m);
	assert_int_equal(m.n, 2);
	assert_true(llama_slotmap_restores_useless(&m));
	llama_slotmap_release(&m);
	assert_int_equal(llama_slotmap_note(path, "http://b", -1, "", 0, 0, 104, 0, 0, &e), 0);
	llama_slotmap_load(path, "http://b", &m);
	assert_int_equal(m.restore_hits, 1);
	assert_true(m.no_slot_files);
	assert_false(llama_slotmap_restores_useless(&m));
	llama_slotmap_release(&m);
	/* a broken file is an empty map, and is rewritten whole */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"http://a\": [1, 2", f);
	fclose(f);
	llama_slotmap_load(path, "http://a", &m);
	assert_int_equal(m.n, 0);
	llama_slotmap_release(&m);
	assert_int_equal(llama_slotmap_note(path, "http://a", 0, "S4", 1, 2, 105, 0, -1, &e), 0);
	llama_slotmap_load(path, "http://a", &m);
	assert_int_equal(m.n, 1);
	llama_slotmap_release(&m);
	unlink(path);
	rmdir(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_choose),
		cmocka_unit_test(test_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
