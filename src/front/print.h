/*
 * printrun: `hearth -p` — route the task, discover the server, run one
 * agent turn, print text / json / stream-json, exit with a code a script
 * can act on (0 done, 1 failed, 2 usage, 3 no server, 130 interrupted).
 * A task that is a slash command (a prompt template, /undo, /diff, /help)
 * runs as such.
 */
#ifndef HEARTH_PRINTRUN_H
#define HEARTH_PRINTRUN_H

#include "cli.h"

/* Run print mode; returns the exit code. */
int printrun_main(struct cli *o);

#endif
