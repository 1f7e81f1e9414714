/*
 * output.h - children's stdout and stderr, as output messages (output.c).
 */
#ifndef PVMD_OUTPUT_H
#define PVMD_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

#include "proto/wire.h"
#include "pvmd/pvmd.h"

struct outpipe;
/* Watches the read end of a child's stdout/stderr pipe. */
struct outpipe *output_watch(struct pvmd *d, int fd, int tid, int outtid,
			     int outctx, int outtag, int ptid);
void output_close_all(struct pvmd *d);
/* Task `tid` moves its own output (TM_SETOPT PvmSelfOutput*): `which`
 * is one of OUTPUT_DEST_*.  Output already in its pipe goes to the old
 * destination first; the old one gets EOF, the new one the start
 * messages.  Nothing happens for a task whose output we do not read. */
enum { OUTPUT_DEST_TID, OUTPUT_DEST_CTX, OUTPUT_DEST_TAG };
void output_set_dest(struct pvmd *d, int tid, int which, int val);

/* Pipes whose destination did not read (output.c): read again those
 * whose destination has taken its queue down (called each tick). */
void output_resume(struct pvmd *d);
/* Before each sleep, once the links have been written: reads again the
 * pipes held for a full link (output.c, LINK_HOLD_MAX). */
void output_links_drained(struct pvmd *d);
/* Output (a message of a pvmd, h and its payload) arrived from host
 * `hostno` for a task of ours: past the hold, that writer's pvmd is asked
 * to stop reading its pipe (and, in output_resume, to go on). */
void output_remote_arrived(struct pvmd *d, int hostno, const struct wire_hdr *h,
			   const uint8_t *payload);
/* DM_OUTPAUSE (on = 1) / DM_OUTRESUME from the destination's pvmd. */
void output_remote_pause(struct pvmd *d, int wtid, int dst, int on);

#endif /* PVMD_OUTPUT_H */
