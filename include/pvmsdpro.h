/*
 * pvmsdpro.h - the header man 3 pvm_reg_hoster names: the message codes
 * of pvmproto.h (where Debian's PVM keeps them).
 */
#ifndef PVM_PVMSDPRO_H
#define PVM_PVMSDPRO_H

#include "pvmproto.h"

#endif /* PVM_PVMSDPRO_H */
