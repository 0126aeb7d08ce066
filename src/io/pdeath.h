/*
 * pdeath: a child that must not outlive hearth (the managed llama-server).
 *
 * On Linux, PR_SET_PDEATHSIG makes the kernel send SIGTERM to the child
 * when hearth dies, even by SIGKILL, when no exit handler can run.  The
 * setting survives exec.  Elsewhere there is no such mechanism and
 * pdeath_arm does nothing (the normal exit path still stops the child).
 *
 * Async-signal-safe: called in the child between fork and exec.
 */
#ifndef HEARTH_PDEATH_H
#define HEARTH_PDEATH_H

#include <sys/types.h>

/*
 * In a freshly forked child of parent: ask for SIGTERM when parent dies.
 * Returns -1 (errno set) when that cannot be set up or parent already died
 * before it was armed (the race prctl alone leaves open), 0 otherwise.
 */
int pdeath_arm(pid_t parent);

#endif
