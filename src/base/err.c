/* base/err: one-line error messages and the single fatal exit path. */
#include "base/err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void (*fatal_cleanup)(void);

/* Format into e; returns -1 so callers can `return err_set(...)`. */
int
err_set(struct err *e, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return -1;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
	return -1;
}

/* Format into e and append the errno text. */
int
err_errno(struct err *e, const char *fmt, ...)
{
	int saved = errno;
	size_t n;
	va_list ap;

	if (!e)
		return -1;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
	n = strlen(e->msg);
	snprintf(e->msg + n, sizeof e->msg - n, ": %s", strerror(saved));
	e->code = saved;
	errno = saved;
	return -1;
}

/* Reset to "no error". */
void
err_clear(struct err *e)
{
	if (e) {
		e->msg[0] = '\0';
		e->code = 0;
	}
}

/* Whether a message was set. */
int
err_isset(const struct err *e)
{
	return e && e->msg[0] != '\0';
}

/* Remember the cleanup to run before a fatal exit. */
void
err_on_fatal(void (*cleanup)(void))
{
	fatal_cleanup = cleanup;
}

/* Restore the terminal (through the cleanup), say why, and exit. */
void
fatal(const char *fmt, ...)
{
	va_list ap;
	void (*cleanup)(void) = fatal_cleanup;

	fatal_cleanup = NULL; /* a fatal inside cleanup must not loop */
	if (cleanup)
		cleanup();
	fputs("hearth: fatal: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}
