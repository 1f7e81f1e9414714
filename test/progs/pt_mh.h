/*
 * pt_mh.h - what the files of pt_mh share (test/multihost.bats): pt_mh.c
 * (children, messaging, notify, group, mbox, output, main) and
 * pt_mh_hosts.c (spawn placement and the host calls).
 */
#ifndef PT_MH_H
#define PT_MH_H

#include "pvm3.h"

#define ME	 "pt_mh"
#define TAG_NEXT 10 /* pingall: {kind, route, enc, size} */
#define TAG_DATA 11 /* pingall: the message, both ways */
#define TAG_QUIT 12
#define TAG_TX	 20 /* notifies */
#define TAG_HD	 21
#define TAG_HA	 22
#define TAG_RES	 30 /* a child's findings */
#define TAG_GO	 31
#define WAIT	 60.0 /* seconds any one message may take */

/* pvm_spawn of n copies of this program as "child ROLE ARG". */
int spawn_on(const char *role, int flags, const char *where, int n, int *tids,
	     char *arg);

/* The host table, as pvm_config gave it (get_hosts); myhost is ours. */
extern struct pvmhostinfo *hosts;
extern int nhost, myhost;
void get_hosts(void);
const char *host_name_of(int htid);
int host_tid_of(const char *name);

/* The modes of pt_mh_hosts.c. */
int spawn_main(int n);
int hostinfo_main(void);
int addhosts_main(int argc, char **argv);
int grow_main(const char *hname);
/* The child of grow_main ("child grow FIRST"). */
void child_grow(int par, int first);

#endif
