/* tests/tap.h: a tiny test runner.  Each test runs in its own process (a crash fails
 * that test only) and prints "ok N - name" or "not ok N - name". */
#ifndef TAP_H
#define TAP_H
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

struct tap_case {
	const char *name;
	void (*fn)(void);
};

#define CHECK(c) do { \
	if (!(c)) { \
		fprintf(stderr, "# %s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
		exit(1); \
	} \
} while (0)

static int
tap_run(const struct tap_case *cases, int n)
{
	int i, failed = 0;

	printf("1..%d\n", n);
	fflush(stdout);
	for (i = 0; i < n; i++) {
		int st = 0;
		pid_t pid = fork();

		if (pid == 0) {
			alarm(5);
			cases[i].fn();
			exit(0);
		}
		if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			printf("not ok %d - %s\n", i + 1, cases[i].name);
			failed++;
		} else {
			printf("ok %d - %s\n", i + 1, cases[i].name);
		}
		fflush(stdout);
	}
	return failed != 0;
}
#endif
