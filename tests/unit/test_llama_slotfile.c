/* test_slotsave: file names from session ids and the reading of save/restore answers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "llama/slotfile.h"

static void
test_filename(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	llama_slotfile_filename("20261122-024134-926-db0be8ae", &b);
	assert_string_equal(b.data, "hearth-20261122-024134-926-db0be8ae.bin");
	b.len = 0;
	llama_slotfile_filename("../../etc/passwd x\xc3\xa9", &b);
	assert_string_equal(b.data, "hearth-etcpasswdx.bin");
	buf_release(&b);
}

static void
test_parse_ok(void **state)
{
	struct llama_slotfile_result r;
	const char *save = "{\"id_slot\":0,\"filename\":\"a.bin\",\"n_saved\":1745,\"n_written\":14309796,"
			   "\"timings\":{\"save_ms\":49.865}}";
	const char *restore = "{\"id_slot\":1,\"filename\":\"a.bin\",\"n_restored\":20123,\"n_read\":9,"
			      "\"timings\":{\"restore_ms\":850.5}}";

	(void)state;
	llama_slotfile_parse(0, 200, save, strlen(save), &r);
	assert_true(r.ok);
	assert_false(r.unsupported);
	assert_int_equal(r.n_tokens, 1745);
	assert_true(r.ms > 49.8 && r.ms < 49.9);
	llama_slotfile_parse(1, 200, restore, strlen(restore), &r);
	assert_true(r.ok);
	assert_int_equal(r.n_tokens, 20123);
	llama_slotfile_parse(1, 200, "", 0, &r); /* an odd but successful answer */
	assert_true(r.ok);
	assert_int_equal(r.n_tokens, 0);
}

static void
test_parse_failures(void **state)
{
	struct llama_slotfile_result r;
	const char *e501 = "{\"error\":{\"code\":501,\"message\":\"This server does not support slots action. "
			   "Start it with `--slot-save-path`\",\"type\":\"not_supported_error\"}}";
	const char *e400 = "{\"error\":{\"code\":400,\"message\":\"failed to restore slot\"}}";

	(void)state;
	llama_slotfile_parse(0, 501, e501, strlen(e501), &r);
	assert_false(r.ok);
	assert_true(r.unsupported);
	assert_non_null(strstr(r.msg, "--slot-save-path DIR"));
	llama_slotfile_parse(1, 501, e501, strlen(e501), &r);
	assert_true(r.unsupported);
	/* a 400 to a restore is a missing or foreign file, not a lack of support */
	llama_slotfile_parse(1, 400, e400, strlen(e400), &r);
	assert_false(r.ok);
	assert_false(r.unsupported);
	assert_non_null(strstr(r.msg, "slot restore failed (HTTP 400: failed to restore slot)"));
	/* a 400 to a save means this server cannot save (bad slot, names refused) */
	llama_slotfile_parse(0, 400, e400, strlen(e400), &r);
	assert_true(r.unsupported);
	llama_slotfile_parse(0, 404, "not json", 8, &r);
	assert_true(r.unsupported);
	assert_non_null(strstr(r.msg, "no message"));
	llama_slotfile_parse(1, 0, NULL, 0, &r);
	assert_false(r.ok);
	assert_false(r.unsupported);
	assert_string_equal(r.msg, "no answer from llama-server");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filename),
		cmocka_unit_test(test_parse_ok),
		cmocka_unit_test(test_parse_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
