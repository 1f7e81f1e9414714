/*
 * pvmtev.h - tracing interface of PVM 3.4 (trace masks).
 *
 * Tracing itself arrives with a later issue; this header gives programs the
 * types and prototypes they compile against today.
 */
#ifndef PVMTEV_H
#define PVMTEV_H

#define TEV_MASK_LENGTH 36
typedef char Pvmtmask[TEV_MASK_LENGTH];

/* Where a task sends its trace events and output (layout as in PVM 3.4.6). */
struct Pvmtracer {
	int trctid;
	int trcctx;
	int trctag;
	int outtid;
	int outctx;
	int outtag;
	int trcbuf;
	int trcopt;
	Pvmtmask tmask;
};

#ifdef __cplusplus
extern "C" {
#endif
int pvm_gettmask(int who, Pvmtmask mask);
int pvm_settmask(int who, Pvmtmask mask);
#ifdef __cplusplus
}
#endif

#endif /* PVMTEV_H */
