/*
 * idhash.h - a hash table from non-zero int keys (tids, pids) to pointers.
 *
 * Open addressing with linear probing and backward-shift deletion, so
 * lookups stay O(1) without tombstones.
 */
#ifndef PVM_COMMON_IDHASH_H
#define PVM_COMMON_IDHASH_H

#include <stddef.h>

struct idhash_slot {
	int key; /* 0 = empty */
	void *val;
};

struct idhash {
	struct idhash_slot *slots;
	size_t cap; /* power of two, or 0 */
	size_t count;
};

void idhash_init(struct idhash *h);
void idhash_fini(struct idhash *h);
void *idhash_get(const struct idhash *h, int key);
/* Inserts or replaces.  Returns 0, or -1 on allocation failure. */
int idhash_put(struct idhash *h, int key, void *val);
/* Removes `key` if present; returns its value or NULL. */
void *idhash_del(struct idhash *h, int key);

/* Iteration: for i in [0, h->cap) use h->slots[i] when its key is not 0.
 * Do not insert or delete while iterating; collect the keys first. */

#endif /* PVM_COMMON_IDHASH_H */
