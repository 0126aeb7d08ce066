/*
 * front/print: `hearth -p` — route the task, discover the server, run one
 * agent turn, print text / json / stream-json, exit with a code a script
 * can act on (0 done, 1 failed, 2 usage, 3 no server, 130 interrupted).
 * A task that is a slash command (a prompt template, /undo, /diff, /help)
 * runs as such.
 */
#ifndef HEARTH_FRONT_PRINT_H
#define HEARTH_FRONT_PRINT_H

#include "front/cli.h"

/* Run print mode; returns the exit code. */
int front_print_main(struct front_cli *o);

#endif
