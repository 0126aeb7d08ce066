/* base/log: append-only debug log with key redaction. */
#include "base/log.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"

static FILE *log_fp;

/* Open (create 0600) the log file for appending. */
int
log_open(const char *path, struct err *e)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);

	if (fd < 0)
		return err_errno(e, "open log %s", path);
	log_close();
	log_fp = fdopen(fd, "a");
	if (!log_fp) {
		close(fd);
		return err_errno(e, "open log %s", path);
	}
	return 0;
}

/* Close the log. */
void
log_close(void)
{
	if (log_fp)
		fclose(log_fp);
	log_fp = NULL;
}

/* Mask "sk-ant-..." style keys and x-api-key header values in place. */
static void
log_redact(struct buf *b)
{
	static const char *const marks[] = { "sk-ant-", "x-api-key: ", "Bearer " };
	size_t i, k;

	for (k = 0; k < sizeof marks / sizeof marks[0]; k++) {
		char *p = b->data;
		size_t ml = strlen(marks[k]);

		while ((p = strstr(p, marks[k])) != NULL) {
			p += ml;
			for (i = 0; p[i] && p[i] != ' ' && p[i] != '"' && p[i] != '\n'; i++)
				p[i] = '*';
			p += i;
		}
	}
}

/* Write one line with a monotonic-free wall timestamp. */
void
log_msg(const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	struct timespec ts;
	va_list ap;

	if (!log_fp)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	buf_addf(&b, "%lld.%03ld ", (long long)ts.tv_sec, ts.tv_nsec / 1000000);
	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	log_redact(&b);
	fprintf(log_fp, "%s\n", b.data);
	fflush(log_fp);
	buf_release(&b);
}
