/*
 * ctl.h - the control dispatch: one handler per TM_ and DM_ request (ctl.c,
 * ctl_spawn.c, ctl_route.c).
 */
#ifndef PVMD_CTL_H
#define PVMD_CTL_H

#include <stddef.h>
#include <stdint.h>

#include "pvmd/pvmd.h"

/* Replies to request `h` with a status word alone. */
void ctl_reply_status(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		      int status);
/* Handles one control frame from connection `c` (payload complete).
 * Returns 0, or -1 when the frame is malformed (the caller closes `c`). */
int ctl_dispatch(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		 const uint8_t *payload);

#endif /* PVMD_CTL_H */
