/* test_slotsave: file names from session ids and the reading of save/restore answers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <cmocka.h>

#include "llama/serve.h"
#include "llama/slotfile.h"

/* dir/name with size bytes, modified age seconds ago. */
static void
mkfile(const char *dir, const char *name, long size, int age)
{
	char path[512];
	struct timeval tv[2];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(ftruncate(fileno(f), size), 0);
	fclose(f);
	gettimeofday(&tv[0], NULL);
	tv[0].tv_sec -= age;
	tv[1] = tv[0];
	assert_int_equal(utimes(path, tv), 0);
}

static int
exists(const char *dir, const char *name)
{
	char path[512];

	snprintf(path, sizeof path, "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

/* Slot files beyond the budget: the oldest hearth-*.bin go, nothing else. */
static void
test_prune_budget(void **state)
{
	char dir[] = "/tmp/test_prune.XXXXXX";
	long long freed = -1;

	(void)state;
	assert_non_null(mkdtemp(dir));
	mkfile(dir, "hearth-old.bin", 600000, 300);
	mkfile(dir, "hearth-mid.bin", 600000, 200);
	mkfile(dir, "hearth-new.bin", 600000, 100);
	mkfile(dir, "other.bin", 5000000, 400);     /* not ours */
	mkfile(dir, "hearth-notes.txt", 5000000, 500);
	assert_int_equal(llama_serve_prune_slots(dir, 1300000, &freed), 1);
	assert_int_equal(freed, 600000);
	assert_false(exists(dir, "hearth-old.bin"));
	assert_true(exists(dir, "hearth-mid.bin") && exists(dir, "hearth-new.bin"));
	assert_true(exists(dir, "other.bin") && exists(dir, "hearth-notes.txt"));
	assert_int_equal(llama_serve_prune_slots(dir, 1300000, NULL), 0); /* within it now */
	assert_int_equal(llama_serve_prune_slots(dir, 0, &freed), 2);
	assert_false(exists(dir, "hearth-new.bin"));
	assert_int_equal(llama_serve_prune_slots("/nonexistent/dir", 0, NULL), 0);
	{
		char path[512];

		snprintf(path, sizeof path, "%s/other.bin", dir);
		unlink(path);
		snprintf(path, sizeof path, "%s/hearth-notes.txt", dir);
		unlink(path);
	}
	assert_int_equal(rmdir(dir), 0);
}

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

/* The record of a primed slot: the saved text must be a byte prefix of the next prompt. */
static void
test_record_prefix(void **state)
{
	static const char saved[] = "<|im_start|>system\nYou help.<|im_end|>\n<|im_start|>user";
	struct llama_slotfile_rec rec, back;
	struct err e = ERR_INIT;
	char dir[] = "/tmp/test_slotrec.XXXXXX", next[256], sub[64];
	struct buf path = BUF_INIT;

	(void)state;
	llama_slotfile_rec_of(saved, strlen(saved), 17, &rec);
	snprintf(next, sizeof next, "%s\nNext question<|im_end|>\n", saved);
	assert_int_equal(llama_slotfile_rec_prefix(&rec, next, strlen(next)), 1);
	assert_int_equal(llama_slotfile_rec_prefix(&rec, saved, strlen(saved)), 1);
	next[30] ^= 1; /* a changed system prompt */
	assert_int_equal(llama_slotfile_rec_prefix(&rec, next, strlen(next)), 0);
	assert_int_equal(llama_slotfile_rec_prefix(&rec, saved, strlen(saved) - 1), 0); /* shorter */
	assert_int_equal(llama_slotfile_rec_prefix(&rec, NULL, 0), 0);
	/* the file round trip; an unprimed save is "not known" */
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof sub, "%s/sub", dir);
	llama_slotfile_rec_path(sub, "ab/c.d-1", &path);
	assert_true(strcmp(path.data + strlen(sub), "/hearth-abcd-1.json") == 0);
	assert_int_equal(llama_slotfile_rec_read(path.data, &back), -1); /* none yet */
	assert_int_equal(llama_slotfile_rec_write(path.data, &rec, &e), 0); /* sub is created */
	assert_int_equal(llama_slotfile_rec_read(path.data, &back), 0);
	assert_int_equal(back.tokens, 17);
	assert_int_equal(back.bytes, (long)strlen(saved));
	assert_true(back.hash == rec.hash);
	assert_int_equal(llama_slotfile_rec_prefix(&back, saved, strlen(saved)), 1);
	llama_slotfile_rec_of(NULL, 0, 40, &rec);
	assert_int_equal(llama_slotfile_rec_write(path.data, &rec, &e), 0);
	assert_int_equal(llama_slotfile_rec_read(path.data, &back), 0);
	assert_int_equal(back.tokens, 40);
	assert_int_equal(back.bytes, -1);
	assert_int_equal(llama_slotfile_rec_prefix(&back, next, strlen(next)), -1);
	assert_int_equal(unlink(path.data), 0);
	assert_int_equal(rmdir(sub), 0);
	buf_release(&path);
	assert_int_equal(rmdir(dir), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filename),
		cmocka_unit_test(test_prune_budget),
		cmocka_unit_test(test_parse_ok),
		cmocka_unit_test(test_parse_failures),
		cmocka_unit_test(test_record_prefix),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
