/*
 * appcmd: the commands of the full-screen session — the shared session
 * commands (sesscmd.h) plus those only the full screen has (/slots).
 */
#ifndef HEARTH_APPCMD_H
#define HEARTH_APPCMD_H

#include "appstate.h"

/* Fill a->cmds (a->agent must exist); warnings about templates become a notice. */
void appcmd_init(struct app *a);

#endif
