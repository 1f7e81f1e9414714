/*
 * pvmproto.h - message codes between the pvmds and the tasks that
 * register as their helpers (man 3 pvm_reg_hoster).
 *
 * These are the values PVM 3.4 uses on the wire, so that a hoster built
 * for the reference works unchanged.  Only the hoster's two codes are
 * spoken here (docs/hosts.md, "Registered hoster"); pvmsdpro.h, the name
 * the man page uses, includes this file.  Sending or receiving them needs
 * pvm_setopt(PvmResvTids, 1).
 */
#ifndef PVM_PVMPROTO_H
#define PVM_PVMPROTO_H

/* First code of the messages between a pvmd and a registered helper. */
#define SM_FIRST ((int)0x80040001)

/* pvmd -> hoster: start these pvmds.  int nhosts, then per host: int
 * tid, string so= options, string "[user@]host", string command. */
#define SM_STHOST (SM_FIRST + 14)
/* hoster -> pvmd (same wait id): {int tid, string status} until the end
 * of the message; status is the new pvmd's line or an error name. */
#define SM_STHOSTACK (SM_FIRST + 15)

#endif /* PVM_PVMPROTO_H */
