/*
 * idhash.c - int-keyed hash table (see idhash.h).
 */
#include "config.h"

#include "common/idhash.h"

#include <stdint.h>
#include <stdlib.h>

void idhash_init(struct idhash *h)
{
	h->slots = NULL;
	h->cap = h->count = 0;
}

void idhash_fini(struct idhash *h)
{
	free(h->slots);
	idhash_init(h);
}

static struct idhash_slot *find(const struct idhash *h, int key)
{
	if (!h->cap || !key)
		return NULL;
	for (size_t i = idhash_home(key, h->cap);; i = (i + 1) & (h->cap - 1)) {
		struct idhash_slot *s = &h->slots[i];
		if (s->key == key)
			return s;
		if (!s->key)
			return NULL;
	}
}

static int grow(struct idhash *h)
{
	size_t cap = h->cap ? 2 * h->cap : 64;
	struct idhash_slot *ns = calloc(cap, sizeof *ns);
	if (!ns)
		return -1;
	for (size_t i = 0; i < h->cap; i++) {
		struct idhash_slot *s = &h->slots[i];
		if (!s->key)
			continue;
		size_t j = idhash_home(s->key, cap);
		while (ns[j].key)
			j = (j + 1) & (cap - 1);
		ns[j] = *s;
	}
	free(h->slots);
	h->slots = ns;
	h->cap = cap;
	return 0;
}

int idhash_put(struct idhash *h, int key, void *val)
{
	if (!key)
		return -1;
	struct idhash_slot *s = find(h, key);
	if (s) {
		s->val = val;
		return 0;
	}
	if ((h->count + 1) * 4 > h->cap * 3 && grow(h) < 0)
		return -1;
	size_t i = idhash_home(key, h->cap);
	while (h->slots[i].key)
		i = (i + 1) & (h->cap - 1);
	h->slots[i].key = key;
	h->slots[i].val = val;
	h->count++;
	return 0;
}

void idhash_count_add(struct idhash *h, int key, long delta)
{
	long n = idhash_count(h, key) + delta;
	if (n <= 0)
		idhash_del(h, key);
	else
		idhash_put(h, key, (void *)(intptr_t)n);
}

void *idhash_del(struct idhash *h, int key)
{
	struct idhash_slot *s = find(h, key);
	if (!s)
		return NULL;
	void *val = s->val;
	size_t mask = h->cap - 1;
	size_t i = (size_t)(s - h->slots);
	/* Backward-shift: pull later entries of the probe run into the hole. */
	for (size_t j = (i + 1) & mask; h->slots[j].key; j = (j + 1) & mask) {
		size_t home = idhash_home(h->slots[j].key, h->cap);
		/* Move j to i if its home is not cyclically in (i, j]. */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			h->slots[i] = h->slots[j];
			i = j;
		}
	}
	h->slots[i].key = 0;
	h->slots[i].val = NULL;
	h->count--;
	return val;
}
