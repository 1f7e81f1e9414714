/*
 * idhash.h - a hash table from non-zero int keys (tids, pids) to pointers.
 *
 * Open addressing with linear probing and backward-shift deletion, so
 * lookups stay O(1) without tombstones.
 */
#ifndef PVM_COMMON_IDHASH_H
#define PVM_COMMON_IDHASH_H

#include <stddef.h>
#include <stdint.h>

struct idhash_slot {
	int key; /* 0 = empty */
	void *val;
};

struct idhash {
	struct idhash_slot *slots;
	size_t cap; /* power of two, or 0 */
	size_t count;
};

/* The slot a key hashes to (inline: lookups sit on the send and receive
 * paths of every message). */
static inline size_t idhash_home(int key, size_t cap)
{
	uint32_t x = (uint32_t)key;
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x & (cap - 1);
}

void idhash_init(struct idhash *h);
void idhash_fini(struct idhash *h);
/* The value of `key`, or NULL. */
static inline void *idhash_get(const struct idhash *h, int key)
{
	if (!h->cap || !key)
		return NULL;
	for (size_t i = idhash_home(key, h->cap);; i = (i + 1) & (h->cap - 1)) {
		const struct idhash_slot *s = &h->slots[i];
		if (s->key == key)
			return s->val;
		if (!s->key)
			return NULL;
	}
}
/* Inserts or replaces.  Returns 0, or -1 on allocation failure. */
int idhash_put(struct idhash *h, int key, void *val);
/* Removes `key` if present; returns its value or NULL. */
void *idhash_del(struct idhash *h, int key);

/* A table used as counters (the value is the count, 0 when absent):
 * the count of `key`, and adds `delta` to it (removing the key when it
 * falls to 0 or below).  An insertion that fails for memory leaves the
 * key uncounted. */
static inline long idhash_count(const struct idhash *h, int key)
{
	return (long)(intptr_t)idhash_get(h, key);
}
void idhash_count_add(struct idhash *h, int key, long delta);

/* Iteration: for i in [0, h->cap), the value of slot i, NULL when the
 * slot is empty.  Do not insert or delete while iterating; collect the
 * keys first. */
static inline void *idhash_at(const struct idhash *h, size_t i)
{
	return h->slots[i].key ? h->slots[i].val : NULL;
}

#endif /* PVM_COMMON_IDHASH_H */
