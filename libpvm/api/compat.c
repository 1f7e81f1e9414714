/*
 * compat.c - names outside the pvm_ prefix that PVM 3.4.6 exported and
 * programs import (example programs, resource managers): clocks, sleep,
 * tag names, the remote shell and the temporary directory.
 */
#include "api.h"

#include <stdlib.h>
#include <sys/time.h>
#include <unistd.h>

int pvmgetclock(struct timeval *tm)
{
	if (!tm)
		return PvmBadParam;
	return gettimeofday(tm, NULL) == 0 ? 0 : PvmSysErr;
}

int pvmsleep(int secs)
{
	if (secs > 0)
		sleep((unsigned)secs);
	return 0;
}

/*
 * The name of a system message tag.  Here the pvmd speaks to tasks in
 * control frames apart from all message tags, so no tag a program sees
 * is a system tag: every tag is shown as its number, *found = 0.
 */
char *pvmnametag(int tag, int *found)
{
	static char buf[16];
	snprintf(buf, sizeof buf, "%d", tag);
	if (found)
		*found = 0;
	return buf;
}

char *pvmgetrsh(void)
{
	/* the command that reaches other hosts (PVM_RSH, as in PVM) */
	char *s = getenv("PVM_RSH");
	static char dflt[] = "ssh";
	return s && *s ? s : dflt;
}

char *pvmgettmp(void)
{
	/* where virtual machines keep their directories (proto/vmdir.h) */
	char *s = getenv("PVM_TMP");
	static char dflt[] = "/tmp";
	return s && *s ? s : dflt;
}
