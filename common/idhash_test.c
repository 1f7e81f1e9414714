/*
 * idhash_test.c - the int-keyed hash table against a plain array model:
 * random puts, replaces, gets and deletes (many of them keys that collide,
 * so that deletion has to shift probe runs back), with the table checked
 * whole after each step; growth from empty; key 0 refused.  Prints TAP.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "common/idhash.h"
#include "test/unit/tap.h"

#define NKEYS 600

/* The model: for each key in keys[], the value it maps to (NULL: absent). */
static int keys[NKEYS];
static void *model[NKEYS];

static uint32_t rnd_state = 12345;
static uint32_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

/* Does the table hold exactly the model (every key, and nothing else)? */
static int same_as_model(const struct idhash *h)
{
	size_t present = 0;
	for (int i = 0; i < NKEYS; i++) {
		if (idhash_get(h, keys[i]) != model[i])
			return 0;
		present += model[i] != NULL;
	}
	size_t seen = 0;
	for (size_t i = 0; i < h->cap; i++)
		seen += h->slots[i].key != 0;
	return h->count == present && seen == present;
}

int main(void)
{
	struct idhash h;
	idhash_init(&h);
	ok(idhash_get(&h, 7) == NULL && idhash_del(&h, 7) == NULL,
	   "an empty table finds nothing and deletes nothing");
	ok(idhash_put(&h, 0, &h) == -1 && h.count == 0, "key 0 is refused");

	/* tids of a few hosts and plain numbers: the hash must spread both;
	 * multiples of 64 and 128 land on few home slots of a small table */
	for (int i = 0; i < NKEYS; i++) {
		switch (i % 3) {
		case 0:
			keys[i] = (1 + i % 5) << 18 | (i + 1);
			break;
		case 1:
			keys[i] = (i + 1) * 64;
			break;
		default:
			keys[i] = -(i + 1) * 128;
			break;
		}
	}

	int steps = 0, bad = 0, first_bad = -1;
	for (int round = 0; round < 20000; round++) {
		int k = (int)(rnd() % NKEYS);
		void *v = (void *)(uintptr_t)(rnd() | 1);
		switch (rnd() % 4) {
		case 0:
		case 1: /* put or replace */
			if (idhash_put(&h, keys[k], v) == 0)
				model[k] = v;
			else
				bad++;
			break;
		case 2: /* delete */
			if (idhash_del(&h, keys[k]) != model[k])
				bad++;
			model[k] = NULL;
			break;
		default: /* get */
			if (idhash_get(&h, keys[k]) != model[k])
				bad++;
			break;
		}
		steps++;
		if (!bad && round % 50 == 0 && !same_as_model(&h))
			bad++;
		if (bad && first_bad < 0)
			first_bad = round;
	}
	ok(!bad && same_as_model(&h),
	   "%d random puts, replaces, gets and deletes agree with the model (first disagreement: step %d)",
	   steps, first_bad);
	ok(h.cap && (h.cap & (h.cap - 1)) == 0 && h.count * 4 <= h.cap * 3,
	   "the capacity is a power of two at most 3/4 full (%zu of %zu)",
	   h.count, h.cap);

	/* delete everything: every probe run must shift back cleanly */
	int left = 0;
	for (int i = 0; i < NKEYS; i++) {
		if (idhash_del(&h, keys[i]) != model[i])
			left++;
		model[i] = NULL;
		if (idhash_get(&h, keys[i]))
			left++;
	}
	ok(!left && h.count == 0 && same_as_model(&h),
	   "deleting every key leaves an empty table");

	idhash_fini(&h);
	ok(h.slots == NULL && h.cap == 0 && h.count == 0,
	   "fini leaves an empty table");
	return tap_done();
}
