/*
 * context.h - message contexts (context.c).
 */
#ifndef PVMD_CONTEXT_H
#define PVMD_CONTEXT_H

#include <stddef.h>
#include <stdint.h>

#include "pvmd/pvmd.h"

int context_new(struct pvmd *d, int owner);
int context_free(struct pvmd *d, int owner, int ctx);
void context_task_exit(struct pvmd *d, int owner);

#endif /* PVMD_CONTEXT_H */
