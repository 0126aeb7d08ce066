/* test_buf: strbuf invariants, str views. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include <cmocka.h>

#include "base/buf.h"
#include "base/str.h"
#include "testutil.h"

static void
test_buf_basics(void **state)
{
	struct buf b = BUF_INIT;
	char *d;
	size_t n;

	(void)state;
	assert_non_null(b.data);
	assert_string_equal(b.data, "");
	buf_adds(&b, "hello");
	buf_addch(&b, ' ');
	buf_addf(&b, "%d-%s", 42, "x");
	assert_string_equal(b.data, "hello 42-x");
	buf_insert(&b, 0, ">>", 2);
	buf_remove(&b, 2, 6);
	assert_string_equal(b.data, ">>42-x");
	buf_remove(&b, 100, 3); /* past the end: no-op */
	buf_add(&b, "a\0b", 3);
	assert_int_equal(b.len, 9);
	assert_int_equal(b.data[9], '\0');
	buf_setlen(&b, 2);
	assert_string_equal(b.data, ">>");
	buf_adds(&b, " \t\n");
	buf_rtrim(&b);
	assert_string_equal(b.data, ">>");
	d = buf_detach(&b, &n);
	assert_int_equal(n, 2);
	assert_string_equal(d, ">>");
	assert_string_equal(b.data, "");
	free(d);
	d = buf_detach(&b, NULL); /* empty buf still gives an allocation */
	assert_string_equal(d, "");
	free(d);
	buf_release(&b);
}

static void
test_buf_growth(void **state)
{
	struct buf b = BUF_INIT;
	int i;

	(void)state;
	for (i = 0; i < 100000; i++)
		buf_addch(&b, 'a' + i % 26);
	assert_int_equal(b.len, 100000);
	assert_int_equal(b.data[99999], 'a' + 99999 % 26);
	buf_reset(&b);
	assert_int_equal(b.len, 0);
	assert_string_equal(b.data, "");
	buf_release(&b);
}

static void
test_buf_read_file(void **state)
{
	char *dir = tu_tmpdir();
	struct buf b = BUF_INIT, p = BUF_INIT;
	struct err e = ERR_INIT;

	(void)state;
	tu_write(dir, "f", "0123456789");
	buf_addf(&p, "%s/f", dir);
	assert_int_equal(buf_read_file(&b, p.data, 0, &e), 0);
	assert_string_equal(b.data, "0123456789");
	buf_reset(&b);
	assert_int_equal(buf_read_file(&b, p.data, 5, &e), -1);
	assert_non_null(strstr(e.msg, "limit"));
	assert_int_equal(buf_read_file(&b, dir, 0, &e), -1);
	assert_non_null(strstr(e.msg, "directory"));
	buf_addch(&p, 'x');
	assert_int_equal(buf_read_file(&b, p.data, 0, &e), -1);
	assert_non_null(strstr(e.msg, "No such file"));
	buf_release(&b);
	buf_release(&p);
	tu_rmrf(dir);
	free(dir);
}

/*
 * buf_read_fd_sized: a size from an earlier stat that is now too small (the
 * file grew) or too large (it shrank) still reads the whole file; from an
 * offset, the rest; the limit holds; -1 (a pipe) reads to the end; the
 * result stays NUL-terminated after what was already in b.
 */
static void
test_buf_read_sized(void **state)
{
	char *dir = tu_tmpdir();
	struct buf b = BUF_INIT, p = BUF_INIT, big = BUF_INIT;
	struct err e = ERR_INIT;
	int fd, pfd[2];
	size_t i;

	(void)state;
	for (i = 0; i < 100000; i++)
		buf_addch(&big, (char)('a' + i % 26));
	tu_write(dir, "f", big.data);
	buf_addf(&p, "%s/f", dir);
	fd = open(p.data, O_RDONLY);
	assert_true(fd >= 0);
	buf_adds(&b, "x");
	assert_int_equal(buf_read_fd_sized(&b, fd, p.data, 0, 10, &e), 0); /* grew */
	assert_int_equal(b.len, big.len + 1);
	assert_memory_equal(b.data + 1, big.data, big.len);
	assert_int_equal(b.data[b.len], '\0');
	assert_int_equal(lseek(fd, 99990, SEEK_SET), 99990);
	buf_reset(&b);
	assert_int_equal(buf_read_fd_sized(&b, fd, p.data, 0, 100000, &e), 0); /* from an offset */
	assert_string_equal(b.data, big.data + 99990);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	buf_reset(&b);
	assert_int_equal(buf_read_fd_sized(&b, fd, p.data, 0, 1 << 20, &e), 0); /* shrank */
	assert_int_equal(b.len, big.len);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	buf_reset(&b);
	assert_int_equal(buf_read_fd_sized(&b, fd, p.data, 1000, 10, &e), -1);
	assert_non_null(strstr(e.msg, "limit"));
	close(fd);
	assert_int_equal(pipe(pfd), 0);
	assert_int_equal(write(pfd[1], "abc", 3), 3);
	close(pfd[1]);
	buf_reset(&b);
	assert_int_equal(buf_read_fd_sized(&b, pfd[0], "pipe", 0, -1, &e), 0);
	assert_string_equal(b.data, "abc");
	close(pfd[0]);
	buf_release(&b);
	buf_release(&p);
	buf_release(&big);
	tu_rmrf(dir);
	free(dir);
}

/* buf_end_line closes an unfinished line, and only that. */
static void
test_buf_end_line(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	buf_end_line(&b);
	assert_int_equal(b.len, 0);
	buf_adds(&b, "x");
	buf_end_line(&b);
	assert_string_equal(b.data, "x\n");
	buf_end_line(&b);
	assert_string_equal(b.data, "x\n");
	buf_release(&b);
}

static void
test_str(void **state)
{
	struct str s = str_from("  key: value \r\n");
	char *d;

	(void)state;
	s = str_trim(s);
	assert_true(str_eq(s, "key: value"));
	assert_true(str_startswith(s, "key"));
	assert_false(str_startswith(s, "value"));
	assert_int_equal(str_find(s, ": ", 2), 3);
	assert_int_equal(str_find(s, "zz", 2), -1);
	d = str_dup(str_make(s.p + 5, 5));
	assert_string_equal(d, "value");
	free(d);
	assert_true(str_eq(str_from(NULL), ""));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buf_basics),
		cmocka_unit_test(test_buf_growth),
		cmocka_unit_test(test_buf_read_file),
		cmocka_unit_test(test_buf_read_sized),
		cmocka_unit_test(test_buf_end_line),
		cmocka_unit_test(test_str),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
