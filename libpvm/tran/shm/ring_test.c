/*
 * ring_test.c - one shared-memory ring (ring.h) without processes or an
 * inbox: its arithmetic and the publish/take protocol checked by hand on
 * a malloc'd ring, then a sender thread and an owner thread passing
 * 1000000 records of 0 bytes up to the largest a ring takes through a
 * 16 KiB ring and through a 4 KiB one, each checked in order and byte for
 * byte.
 *
 * The payload bytes are chosen to trap a missing step of the protocol:
 * the 8-byte word at stream position q holds q + ringsize + 1, which is
 * exactly the pos word a record starting at that place one lap later would
 * carry.  A sender that did not clear the next record's pos word before
 * publishing (shm_ring_publish) would let the owner take such stale bytes
 * for a record.  Prints TAP.
 */
#include "config.h"

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "libpvm/tran/shm/ring.h"
#include "test/unit/tap.h"

#define REC sizeof(struct shmseg_rec)

static uint8_t *ring_new(uint64_t size)
{
	uint8_t *r = aligned_alloc(SHMSEG_LINE, size);
	if (!r)
		abort();
	memset(r, 0, size);
	return r;
}

/* ---- by hand ---- */

static void test_arithmetic(void)
{
	const uint64_t size = 4096, mask = size - 1;
	ok(shm_ring_max_len(mask) == size - SHMSEG_LINE - REC &&
		   shmseg_span(shm_ring_max_len(mask)) ==
			   size - SHMSEG_RESERVE &&
		   shmseg_span(shm_ring_max_len(mask) + 1) >
			   size - SHMSEG_RESERVE,
	   "the largest record (%llu bytes) fills the ring but the reserved line; one byte more would not fit",
	   (unsigned long long)shm_ring_max_len(mask));
	ok(shmseg_span(0) == 64 && shmseg_span(24) == 64 &&
		   shmseg_span(25) == 128,
	   "records take whole lines: up to 24 payload bytes one line, 25 two");
	ok(shm_ring_free(mask, 0, 0) == size - SHMSEG_RESERVE &&
		   shm_ring_free(mask, 1000 * size + 640, 1000 * size) ==
			   size - SHMSEG_RESERVE - 640 &&
		   shm_ring_free(mask, size - SHMSEG_RESERVE, 0) == 0,
	   "free room: all but the reserved line when empty, less what is in use, 0 when full");
	ok(shm_ring_free(mask, 64, UINT64_MAX - 63) ==
		   size - SHMSEG_RESERVE - 128,
	   "free room is right across the wrap of the 64-bit counters");

	uint8_t *ring = ring_new(size);
	uint8_t src[200], back[200];
	for (int i = 0; i < 200; i++)
		src[i] = (uint8_t)(i + 1);
	uint64_t pos = 7 * size + size - 64; /* 64 bytes before the end */
	shm_ring_put(ring, mask, pos, src, 200);
	int placed = memcmp(ring + size - 64, src, 64) == 0 &&
		     memcmp(ring, src + 64, 136) == 0 && ring[136] == 0 &&
		     ring[size - 65] == 0;
	shm_ring_get(ring, mask, pos, back, 200);
	ok(placed && memcmp(back, src, 200) == 0,
	   "200 bytes put 64 before the ring's end: 64 at the end, 136 from the start, read back whole");
	shm_ring_put(ring, mask, pos, NULL, 0);
	shm_ring_get(ring, mask, pos, NULL, 0);
	ok(1, "empty puts and gets take NULL");

	/* a record header: all but its pos word, which publish stores */
	memset(ring, 0, size);
	uint64_t at = 3 * size + size - 64; /* the last line */
	*shm_ring_pos_word(ring, mask, at) = 0xdead;
	struct shmseg_rec r = {.kind = SHMSEG_WHOLE,
			       .len = 100,
			       .tag = -5,
			       .ctx = 9,
			       .seq = 77,
			       .enc = 1,
			       .total = 100};
	uint64_t p = shm_ring_put_rec(ring, mask, at, &r);
	struct shmseg_rec got;
	memcpy(&got, ring + size - 64, REC);
	ok(p == at + REC && got.pos == 0xdead && got.kind == r.kind &&
		   got.len == r.len && got.tag == r.tag && got.ctx == r.ctx &&
		   got.seq == r.seq && got.enc == r.enc && got.total == r.total,
	   "put_rec writes the header but its pos word and returns where the payload goes");
	ok(!shm_ring_ready(ring, mask, at),
	   "a record not published yet is not ready");

	/* the next record's place holds what would pass for a record there */
	uint64_t next = at + shmseg_span(r.len);
	*shm_ring_pos_word(ring, mask, next) = next + 1;
	shm_ring_publish(ring, mask, at, next);
	ok(shm_ring_ready(ring, mask, at) &&
		   *shm_ring_pos_word(ring, mask, at) == at + 1,
	   "published: its pos word is its position + 1, and it is ready");
	ok(!shm_ring_ready(ring, mask, next) &&
		   *shm_ring_pos_word(ring, mask, next) == 0,
	   "publishing clears the next record's pos word: stale bytes there are not taken");
	ok(!shm_ring_ready(ring, mask, at + size) &&
		   !shm_ring_ready(ring, mask, at - size),
	   "the same place a lap later or earlier is not ready");
	free(ring);
}

/* ---- two threads ---- */

#define NREC 1000000
#define RMAX (16u << 10) /* the largest ring tried */

static struct {
	uint8_t *ring;
	uint64_t size, mask;
	_Alignas(64) _Atomic uint64_t head; /* the sender's, as slot->head */
	_Alignas(64) _Atomic uint64_t tail; /* the owner's, as slot->tail */
	_Alignas(64) _Atomic int stop;
	int64_t deadline;
	/* results */
	long taken, wrapped, largest, empty;
	long first_bad;
	char why[160];
	int timed_out;
} T;

/* Payload length of record i: mostly short, some up to a few lines,
 * some near and at the largest. */
static uint32_t rec_len(uint32_t i)
{
	uint32_t h = i * 2654435761u;
	h ^= h >> 15;
	h *= 2246822519u;
	h ^= h >> 13;
	uint32_t r = h % 1000, x = h >> 10;
	uint32_t max = (uint32_t)shm_ring_max_len(T.mask);
	if (r < 450)
		return x % 25;
	if (r < 800)
		return 25 + x % 400;
	if (r < 995)
		return x % 2000;
	return max - x % 64 * (x % 3 == 0 ? 0 : 1);
}

/* The payload's bytes: the 8-byte word at stream position q holds
 * q + ringsize + 1 (see the top). */
static void payload(uint8_t *out, uint64_t p, uint32_t n)
{
	uint64_t words[(RMAX + 8) / 8];
	uint32_t nw = (n + 7) / 8;
	for (uint32_t k = 0; k < nw; k++)
		words[k] = p + 8 * k + T.size + 1;
	memcpy(out, words, n);
}

/* Waiting: spin a little, then let the other thread have the core (two
 * cores may be busy with other work). */
static int wait_step(unsigned *spins)
{
	if (++*spins % 64 == 0) {
		sched_yield();
		if (*spins % 4096 == 0 && mono_ns() > T.deadline) {
			T.timed_out = 1;
			atomic_store(&T.stop, 1);
		}
	}
	return !atomic_load_explicit(&T.stop, memory_order_relaxed);
}

static void *sender(void *arg)
{
	(void)arg;
	static uint8_t buf[RMAX];
	uint64_t head = 0, tail = 0;
	for (uint32_t i = 0; i < NREC; i++) {
		uint32_t len = rec_len(i);
		uint64_t need = shmseg_span(len);
		unsigned spins = 0;
		while (shm_ring_free(T.mask, head, tail) < need) {
			tail = atomic_load_explicit(&T.tail,
						    memory_order_acquire);
			if (shm_ring_free(T.mask, head, tail) >= need)
				break;
			if (!wait_step(&spins))
				return NULL;
		}
		struct shmseg_rec r = {.kind = SHMSEG_WHOLE,
				       .len = len,
				       .tag = (int32_t)(i * 7),
				       .ctx = (int32_t)i,
				       .seq = i,
				       .enc = (int32_t)(i % 3),
				       .total = len};
		uint64_t p = shm_ring_put_rec(T.ring, T.mask, head, &r);
		payload(buf, p, len);
		shm_ring_put(T.ring, T.mask, p, buf, len);
		T.wrapped += (p & T.mask) + len > T.mask + 1;
		T.largest += len == shm_ring_max_len(T.mask);
		T.empty += len == 0;
		shm_ring_publish(T.ring, T.mask, head, head + need);
		head += need;
		atomic_store_explicit(&T.head, head, memory_order_release);
	}
	return NULL;
}

static void fail(long i, const char *why)
{
	T.first_bad = i;
	snprintf(T.why, sizeof T.why, "%s", why);
	atomic_store(&T.stop, 1);
}

static void *owner(void *arg)
{
	(void)arg;
	static uint8_t got[RMAX], want[RMAX];
	uint64_t tail = 0;
	for (uint32_t i = 0; i < NREC; i++) {
		unsigned spins = 0;
		while (!shm_ring_ready(T.ring, T.mask, tail))
			if (!wait_step(&spins))
				return NULL;
		struct shmseg_rec r;
		shm_ring_get(T.ring, T.mask, tail, &r, REC);
		if (r.kind != SHMSEG_WHOLE ||
		    r.len > shm_ring_max_len(T.mask) || r.len != rec_len(i)) {
			fail(i, "kind or length wrong");
			return NULL;
		}
		if (r.seq != i || r.tag != (int32_t)(i * 7) ||
		    r.ctx != (int32_t)i || r.enc != (int32_t)(i % 3) ||
		    r.total != r.len) {
			fail(i, "header fields of another record");
			return NULL;
		}
		shm_ring_get(T.ring, T.mask, tail + REC, got, r.len);
		payload(want, tail + REC, r.len);
		if (memcmp(got, want, r.len) != 0) {
			fail(i, "payload differs");
			return NULL;
		}
		tail += shmseg_span(r.len);
		atomic_store_explicit(&T.tail, tail, memory_order_release);
		T.taken++;
	}
	/* nothing after the last record */
	if (shm_ring_ready(T.ring, T.mask, tail))
		fail(NREC, "a record after the last one");
	return NULL;
}

static void test_threads(uint64_t size)
{
	memset(&T, 0, sizeof T);
	T.size = size;
	T.mask = size - 1;
	T.ring = ring_new(size);
	T.first_bad = -1;
	T.deadline = mono_ns() + 10 * (int64_t)1000000000;
	int64_t t0 = mono_ns();
	pthread_t a, b;
	if (pthread_create(&b, NULL, owner, NULL) ||
	    pthread_create(&a, NULL, sender, NULL))
		abort();
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	double s = (double)(mono_ns() - t0) / 1e9;
	if (T.first_bad >= 0)
		diag("record %ld: %s", T.first_bad, T.why);
	ok(T.taken == NREC && T.first_bad < 0 && !T.timed_out,
	   "a sender and an owner thread pass %d records through a %llu-byte ring, each taken in order and intact (%ld taken, %.2f s)",
	   NREC, (unsigned long long)size, T.taken, s);
	ok(T.wrapped > 1000 && T.largest > 100 && T.empty > 1000,
	   "... %ld of them wrapped around the ring's end, %ld were the largest a ring takes, %ld empty",
	   T.wrapped, T.largest, T.empty);
	free(T.ring);
}

int main(void)
{
	alarm(60);
	test_arithmetic();
	test_threads(RMAX);
	test_threads(4096);
	return tap_done();
}
