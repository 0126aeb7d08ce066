/*
 * base/log: a debug log written to a file, never to stderr (stderr belongs to
 * the user in -p mode and to curses in the TUI).  Off unless log_open() was
 * called (HEARTH_LOG=path or --log).  Secrets: callers never pass API keys;
 * log_redact() masks anything that looks like one as a second guard.
 */
#ifndef HEARTH_BASE_LOG_H
#define HEARTH_BASE_LOG_H

#include "base/err.h"

/* Start appending to path (0600).  0 / -1 + e. */
int log_open(const char *path, struct err *e);
/* Flush and close; safe when never opened. */
void log_close(void);
/* One timestamped line; secrets matching known key shapes are masked. */
void log_msg(const char *fmt, ...) ERR_PRINTF(1, 2);

#endif
