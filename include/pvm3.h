/*
 * pvm3.h - public interface of the PVM 3.4 compatible task library.
 *
 * Programs written for PVM 3.4 include this header and link -lpvm3
 * (and -lgpvm3 for groups).  Every constant, structure layout and
 * prototype here has the value and shape PVM 3.4.6 gives it, so that
 * binaries built against PVM 3.4.6 run unchanged with this library.
 */
#ifndef PVM3_H
#define PVM3_H

#include <stdio.h>
#include <sys/time.h>

/* Release this library is compatible with. */
#define PVM_VER "3.4.6"
#define PVM_MAJOR_VERSION 3
#define PVM_MINOR_VERSION 4
#define PVM_PATCH_VERSION 6

/* Encodings for pvm_initsend() and pvm_mkbuf(). */
#define PvmDataDefault 0  /* XDR: readable on hosts of any byte order */
#define PvmDataRaw 1      /* native bytes, copied at pack time */
#define PvmDataInPlace 2  /* native bytes, read from user memory at send time */
#define PvmDataFoo PvmDataDefault
#define PvmDataTrace 4

/* pvm_spawn() flags. */
#define PvmTaskDefault 0
#define PvmTaskHost 1
#define PvmTaskArch 2
#define PvmTaskDebug 4
#define PvmTaskTrace 8
#define PvmMppFront 16
#define PvmHostCompl 32
#define PvmNoSpawnParent 64

/* pvm_notify() events, and the flag that cancels a request. */
#define PvmTaskExit 1
#define PvmHostDelete 2
#define PvmHostAdd 3
#define PvmRouteAdd 4
#define PvmRouteDelete 5
#define PvmNotifyCancel 256

/* Options for pvm_setopt() / pvm_getopt(), with their values. */
#define PvmRoute 1
#define PvmDontRoute 1
#define PvmAllowDirect 2
#define PvmRouteDirect 3
#define PvmDebugMask 2
#define PvmAutoErr 3
#define PvmOutputTid 4
#define PvmOutputCode 5
#define PvmTraceTid 6
#define PvmTraceCode 7
#define PvmTraceBuffer 8
#define PvmTraceOptions 9
#define PvmTraceFull 1
#define PvmTraceTime 2
#define PvmTraceCount 3
#define PvmFragSize 10
#define PvmResvTids 11
#define PvmSelfOutputTid 12
#define PvmSelfOutputCode 13
#define PvmSelfTraceTid 14
#define PvmSelfTraceCode 15
#define PvmSelfTraceBuffer 16
#define PvmSelfTraceOptions 17
#define PvmShowTids 18
#define PvmPollType 19
#define PvmPollConstant 1
#define PvmPollSleep 2
#define PvmPollTime 20
#define PvmOutputContext 21
#define PvmTraceContext 22
#define PvmSelfOutputContext 23
#define PvmSelfTraceContext 24
#define PvmNoReset 25

/* pvm_gettmask() / pvm_settmask() targets. */
#define PvmTaskSelf 0
#define PvmTaskChild 1

#define PvmBaseContext 0

/* Message mailbox flags (pvm_putinfo, pvm_recvinfo). */
#define PvmMboxDefault 0
#define PvmMboxPersistent 1
#define PvmMboxMultiInstance 2
#define PvmMboxOverWritable 4
#define PvmMboxFirstAvail 8
#define PvmMboxReadAndDelete 16
#define PvmMboxWaitForInfo 32
#define PvmMboxMaxFlag 512
#define PvmMboxDirectIndexShift 10
#define PvmMboxMaxDirectIndex ((unsigned)1 << (31 - PvmMboxDirectIndexShift))
#define PvmMboxDirectIndexOf(_flags)                                           \
	(((_flags) & ((PvmMboxMaxDirectIndex - 1) << PvmMboxDirectIndexShift)) >> \
	 PvmMboxDirectIndexShift)
#define PvmMboxDirectIndex(_index)                                              \
	(((unsigned)(_index) >= PvmMboxMaxDirectIndex)                          \
		 ? (fprintf(stderr, "Mbox Direct Index Too Large: %d >= %d\n", \
			    (_index), PvmMboxMaxDirectIndex),                    \
		    0)                                                          \
		 : ((_index) << PvmMboxDirectIndexShift))

/* Mailbox classes the system itself uses. */
#define PVMNORESETCLASS "###_PVM_NO_RESET_###"
#define PVMHOSTERCLASS "###_PVM_HOSTER_###"
#define PVMTASKERCLASS "###_PVM_TASKER_###"
#define PVMTRACERCLASS "###_PVM_TRACER_###"
#define PVMRMCLASS "###_PVM_RM_###"

/* Error codes: every call returns one of these (< 0) on failure. */
#define PvmOk 0
#define PvmBadParam -2
#define PvmMismatch -3
#define PvmOverflow -4
#define PvmNoData -5
#define PvmNoHost -6
#define PvmNoFile -7
#define PvmDenied -8
#define PvmNoMem -10
#define PvmBadMsg -12
#define PvmSysErr -14
#define PvmNoBuf -15
#define PvmNoSuchBuf -16
#define PvmNullGroup -17
#define PvmDupGroup -18
#define PvmNoGroup -19
#define PvmNotInGroup -20
#define PvmNoInst -21
#define PvmHostFail -22
#define PvmNoParent -23
#define PvmNotImpl -24
#define PvmDSysErr -25
#define PvmBadVersion -26
#define PvmOutOfRes -27
#define PvmDupHost -28
#define PvmCantStart -29
#define PvmAlready -30
#define PvmNoTask -31
#define PvmNotFound -32
#define PvmExists -33
#define PvmHostrNMstr -34
#define PvmParentNotSet -35
#define PvmIPLoopback -36
/* Names kept from PVM 3.3. */
#define PvmNoEntry PvmNotFound
#define PvmDupEntry PvmDenied

/* Data types for pvm_psend(), pvm_precv() and pvm_reduce(). */
#define PVM_STR 0
#define PVM_BYTE 1
#define PVM_SHORT 2
#define PVM_INT 3
#define PVM_FLOAT 4
#define PVM_CPLX 5
#define PVM_DOUBLE 6
#define PVM_DCPLX 7
#define PVM_LONG 8
#define PVM_USHORT 9
#define PVM_UINT 10
#define PVM_ULONG 11

/* One host of the virtual machine, as pvm_config() returns it. */
struct pvmhostinfo {
	int hi_tid;     /* tid of the host's pvmd */
	char *hi_name;  /* host name */
	char *hi_arch;  /* architecture name, e.g. LINUX64 */
	int hi_speed;   /* relative speed (default 1000) */
	int hi_dsig;    /* data signature (byte order and word sizes) */
};

/* One task, as pvm_tasks() returns it. */
struct pvmtaskinfo {
	int ti_tid;     /* task id */
	int ti_ptid;    /* parent's tid */
	int ti_host;    /* tid of the pvmd of its host */
	int ti_flag;    /* status flags */
	char *ti_a_out; /* program name as spawned */
	int ti_pid;     /* process id */
};

/* Message header fields, for pvm_getminfo() / pvm_setminfo(). */
struct pvmminfo {
	int len;
	int ctx;
	int tag;
	int wid;
	int enc;
	int crc;
	int src;
	int dst;
};

/* One mailbox class, as pvm_getmboxinfo() returns it. */
struct pvmmboxinfo {
	char *mi_name;
	int mi_nentries;
	int *mi_indices;
	int *mi_owners;
	int *mi_flags;
};

#define PVMTMPNAMFUN(x) tmpnam(x)
#ifdef L_tmpnam
#define PVMTMPNAMLEN L_tmpnam
#else
#define PVMTMPNAMLEN 128
#endif

#ifdef __cplusplus
extern "C" {
#endif

char *pvmgetrsh(void);
char *pvmgettmp(void);
char *pvm_strerror(void);
int pvm_addhosts(char **hosts, int nhost, int *infos);
int pvm_addmhf(int src, int tag, int ctx, int (*f)(int));
int pvm_archcode(char *arch);
int pvm_barrier(char *group, int count);
int pvm_bcast(char *group, int msgtag);
int pvm_bufinfo(int bufid, int *bytes, int *msgtag, int *tid);
int pvm_catchout(FILE *ff);
int pvm_config(int *nhost, int *narch, struct pvmhostinfo **hostp);
int pvm_delhosts(char **hosts, int nhost, int *infos);
int pvm_delinfo(char *name, int index, int flags);
int pvm_delmhf(int mhid);
int pvm_exit(void);
int pvm_export(char *name);
int pvm_freebuf(int bufid);
int pvm_freecontext(int ctx);
int pvm_freezegroup(char *group, int size);
int pvm_gather(void *result, void *data, int count, int datatype, int msgtag,
	       char *group, int rootinst);
int pvm_getcontext(void);
int pvm_getfds(int **fds);
int pvm_getinst(char *group, int tid);
int pvm_getminfo(int bufid, struct pvmminfo *info);
int pvm_getmwid(int bufid);
int pvm_getnoresets(int **tids, int *ntids);
int pvm_getopt(int what);
int pvm_getrbuf(void);
int pvm_getsbuf(void);
int pvm_gettid(char *group, int inum);
int pvm_gsize(char *group);
int pvm_halt(void);
int pvm_hostsync(int host, struct timeval *clk, struct timeval *delta);
int pvm_initsend(int encoding);
int pvm_joingroup(char *group);
int pvm_kill(int tid);
int pvm_lvgroup(char *group);
int pvm_getmboxinfo(char *pattern, int *nclasses, struct pvmmboxinfo **classes);
int pvm_mcast(int *tids, int ntask, int msgtag);
int pvm_mkbuf(int encoding);
int pvm_mstat(char *host);
int pvm_mytid(void);
int pvm_newcontext(void);
int pvm_notify(int what, int msgtag, int cnt, int *tids);
int pvm_nrecv(int tid, int msgtag);
int pvm_packf(const char *fmt, ...);
int pvm_parent(void);
int pvm_perror(char *msg);
int pvm_pkbyte(char *xp, int nitem, int stride);
int pvm_pkcplx(float *cp, int nitem, int stride);
int pvm_pkdcplx(double *zp, int nitem, int stride);
int pvm_pkdouble(double *dp, int nitem, int stride);
int pvm_pkfloat(float *fp, int nitem, int stride);
int pvm_pkint(int *ip, int nitem, int stride);
int pvm_pklong(long *ip, int nitem, int stride);
int pvm_pkshort(short *ip, int nitem, int stride);
int pvm_pkstr(char *sp);
int pvm_pkuint(unsigned int *ip, int nitem, int stride);
int pvm_pkulong(unsigned long *ip, int nitem, int stride);
int pvm_pkushort(unsigned short *ip, int nitem, int stride);
int pvm_pkmesg(int bufid);
int pvm_pkmesgbody(int bufid);
int pvm_precv(int tid, int msgtag, void *buf, int len, int datatype,
	      int *atid, int *atag, int *alen);
int pvm_probe(int tid, int msgtag);
int pvm_psend(int tid, int msgtag, void *buf, int len, int datatype);
int pvm_pstat(int tid);
int pvm_putinfo(char *name, int bufid, int flags);
int pvm_recv(int tid, int msgtag);
int (*pvm_recvf(int (*newf)(int, int, int)))(int, int, int);
int pvm_recvinfo(char *name, int index, int flags);
int pvm_reduce(void (*func)(int *, void *, void *, int *, int *), void *data,
	       int count, int datatype, int msgtag, char *group, int rootinst);

/* Predefined reduction functions for pvm_reduce(). */
void PvmMax(int *datatype, void *x, void *y, int *num, int *info);
void PvmMin(int *datatype, void *x, void *y, int *num, int *info);
void PvmSum(int *datatype, void *x, void *y, int *num, int *info);
void PvmProduct(int *datatype, void *x, void *y, int *num, int *info);

int pvm_reg_hoster(void);
int pvm_reg_rm(struct pvmhostinfo **hip);
int pvm_reg_tasker(void);
int pvm_reg_tracer(int tctx, int ttag, int octx, int otag, char *tmask,
		   int tbuf, int topt);
int pvm_scatter(void *result, void *data, int count, int datatype, int msgtag,
		char *group, int rootinst);
int pvm_send(int tid, int msgtag);
int pvm_sendsig(int tid, int signum);
int pvm_setcontext(int ctx);
int pvm_setminfo(int bufid, struct pvmminfo *info);
int pvm_setmwid(int bufid, int waitid);
int pvm_setopt(int what, int val);
int pvm_setrbuf(int bufid);
int pvm_setsbuf(int bufid);
int pvm_siblings(int **tids);
int pvm_spawn(char *task, char **argv, int flag, char *where, int ntask,
	      int *tids);
int pvm_start_pvmd(int argc, char **argv, int block);
int pvm_tasks(int where, int *ntask, struct pvmtaskinfo **taskp);
int pvm_tickle(int narg, int *argp, int *nres, int *resp);
int pvm_tidtohost(int tid);
int pvm_trecv(int tid, int msgtag, struct timeval *tmout);
int pvm_unexport(char *name);
int pvm_unpackf(const char *fmt, ...);
int pvm_upkbyte(char *xp, int nitem, int stride);
int pvm_upkcplx(float *cp, int nitem, int stride);
int pvm_upkdcplx(double *zp, int nitem, int stride);
int pvm_upkdouble(double *dp, int nitem, int stride);
int pvm_upkfloat(float *fp, int nitem, int stride);
int pvm_upkint(int *ip, int nitem, int stride);
int pvm_upklong(long *ip, int nitem, int stride);
int pvm_upkshort(short *ip, int nitem, int stride);
int pvm_upkstr(char *sp);
int pvm_upkuint(unsigned int *ip, int nitem, int stride);
int pvm_upkulong(unsigned long *ip, int nitem, int stride);
int pvm_upkushort(unsigned short *ip, int nitem, int stride);
int pvm_upkmesg(void);
char *pvm_version(void);

/* PVM 3.3 names, kept working on top of the message mailbox. */
int pvm_delete(char *name, int req);
int pvm_insert(char *name, int req, int data);
int pvm_lookup(char *name, int req, int *datap);

#ifdef __cplusplus
}
#endif

#endif /* PVM3_H */
