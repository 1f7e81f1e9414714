/*
 * ring.h - one ring of an inbox as both ends see it (proto/shmseg.h;
 * docs/shm.md, "Records" and "Publishing a record"): the index arithmetic
 * and the publish/take protocol of records, shared by the sender
 * (shm_tx.c) and the owner (shm_rx.c), and tested alone by ring_test.c.
 *
 * A ring is mask + 1 bytes, a power of two and a multiple of
 * SHMSEG_LINE.  Positions are 64-bit byte counters that only grow; a
 * record starts on a line (so its header never wraps, its payload may),
 * and the next one starts shmseg_span(len) bytes later.  The sender keeps
 * SHMSEG_RESERVE bytes free: the line of the next record, whose pos word
 * it clears before it publishes a record by storing that record's pos.
 */
#ifndef LPVM_TRAN_SHM_RING_H
#define LPVM_TRAN_SHM_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "proto/shmseg.h"

/* The largest payload of one record: a record that size fills the ring
 * but the reserved line. */
static inline uint64_t shm_ring_max_len(uint64_t mask)
{
	return mask + 1 - SHMSEG_RESERVE - sizeof(struct shmseg_rec);
}

/* Bytes the sender at `head` may still fill while the owner is at
 * `tail` (the reserved line left out). */
static inline uint64_t shm_ring_free(uint64_t mask, uint64_t head,
				     uint64_t tail)
{
	uint64_t size = mask + 1 - SHMSEG_RESERVE;
	uint64_t used = head - tail;
	return used < size ? size - used : 0;
}

/* Copies n bytes to the ring at position pos, wrapping at its end. */
static inline void shm_ring_put(uint8_t *ring, uint64_t mask, uint64_t pos,
				const void *src, size_t n)
{
	size_t off = (size_t)(pos & mask);
	size_t first = (size_t)(mask + 1) - off;
	if (n == 0)
		return; /* an empty body may have no memory (src NULL) */
	if (first >= n) {
		memcpy(ring + off, src, n);
		return;
	}
	memcpy(ring + off, src, first);
	memcpy(ring, (const uint8_t *)src + first, n - first);
}

/* Copies n bytes from the ring at position pos, wrapping at its end. */
static inline void shm_ring_get(const uint8_t *ring, uint64_t mask,
				uint64_t pos, void *dst, size_t n)
{
	size_t off = (size_t)(pos & mask);
	size_t first = (size_t)(mask + 1) - off;
	if (n == 0)
		return; /* an empty body may have no buffer (dst NULL) */
	if (first >= n) {
		memcpy(dst, ring + off, n);
		return;
	}
	memcpy(dst, ring + off, first);
	memcpy((uint8_t *)dst + first, ring, n - first);
}

/* The pos word of the record at position p (on a line: never wraps). */
static inline _Atomic uint64_t *shm_ring_pos_word(const uint8_t *ring,
						  uint64_t mask, uint64_t p)
{
	return (_Atomic uint64_t *)(void *)(ring + (p & mask));
}

/* Writes record r at position `at`, all but its pos word (which
 * shm_ring_publish stores last).  Returns the position of its payload;
 * the next record goes at at + shmseg_span(r->len). */
static inline uint64_t shm_ring_put_rec(uint8_t *ring, uint64_t mask,
					uint64_t at, const struct shmseg_rec *r)
{
	const size_t w = sizeof r->pos;
	shm_ring_put(ring, mask, at + w, (const uint8_t *)r + w, sizeof *r - w);
	return at + sizeof *r;
}

/* Publishes the record written at `pub` whose successor goes at `next`:
 * clears next's pos word (stale bytes there never pass for a record),
 * then stores pub's with release. */
static inline void shm_ring_publish(uint8_t *ring, uint64_t mask, uint64_t pub,
				    uint64_t next)
{
	atomic_store_explicit(shm_ring_pos_word(ring, mask, next), 0,
			      memory_order_relaxed);
	atomic_store_explicit(shm_ring_pos_word(ring, mask, pub), pub + 1,
			      memory_order_release);
}

/* Whether the sender has published a record at position tail (its pos
 * word says tail + 1; acquire: the record's bytes are visible then). */
static inline int shm_ring_ready(const uint8_t *ring, uint64_t mask,
				 uint64_t tail)
{
	return atomic_load_explicit(shm_ring_pos_word(ring, mask, tail),
				    memory_order_acquire) == tail + 1;
}

#endif /* LPVM_TRAN_SHM_RING_H */
