/*
 * pdeath: SIGTERM a child when its parent dies (see pdeath.h).  No state.
 */
#include "pdeath.h"

#include <errno.h>
#include <signal.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

/* Arm the parent-death signal, then make sure the parent was still there. */
int
pdeath_arm(pid_t parent)
{
#ifdef __linux__
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0)
		return -1;
	/* the parent may have died between fork and prctl: then nobody would signal us */
	if (getppid() != parent) {
		errno = ESRCH;
		return -1;
	}
#else
	(void)parent;
#endif
	return 0;
}
