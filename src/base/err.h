/*
 * base/err: how fallible functions report failure (design.md §6).
 *
 * A fallible function returns 0 / -1 (or NULL) and fills the caller's
 * struct err with one line in git's style: lowercase, what failed, then why
 * ("open src/x.c: permission denied").  The caller decides whether that line
 * becomes a transcript event, a retry or an exit; nothing here prints.
 * Only OOM and a lost tty are fatal: fatal() runs the registered cleanup
 * (which restores the terminal) and exits with status 1.
 */
#ifndef HEARTH_BASE_ERR_H
#define HEARTH_BASE_ERR_H

#include <stddef.h>

#define ERR_MSG_MAX 512

struct err {
	char msg[ERR_MSG_MAX]; /* empty when no error was set */
	int code;              /* optional detail: errno, HTTP status, exit code */
};

#define ERR_INIT { { 0 }, 0 }

#if defined(__GNUC__)
#define ERR_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define ERR_NORETURN __attribute__((noreturn))
#else
#define ERR_PRINTF(a, b)
#define ERR_NORETURN
#endif

/* Set e's message (e may be NULL); always returns -1 for `return err_set(...)`. */
int err_set(struct err *e, const char *fmt, ...) ERR_PRINTF(2, 3);
/* Like err_set, appending ": strerror(errno)" and storing errno in code. */
int err_errno(struct err *e, const char *fmt, ...) ERR_PRINTF(2, 3);
/* Clear e. */
void err_clear(struct err *e);
/* True when a message is set. */
int err_isset(const struct err *e);

/* Register the function fatal() calls before exiting (terminal restore). */
void err_on_fatal(void (*cleanup)(void));
/* Print "hearth: fatal: ..." on stderr after cleanup, exit(1). */
void fatal(const char *fmt, ...) ERR_PRINTF(1, 2) ERR_NORETURN;

#endif
