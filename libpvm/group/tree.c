/*
 * tree.c - the shape of the reduction tree (docs/groups.md).
 *
 * Host-local step first: the members of each host form a tree under
 * their host leader (the root on the root's host, otherwise the member
 * with the lowest instance); the leaders form a tree of the same shape
 * under the root.  A tree of fan-out k over an ordered list puts the
 * children of position i at k*i+1 .. k*i+k; "flat" hangs every position
 * under the first.
 */
#include "gs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lpvm_priv.h"

#define FANOUT_DEFAULT 4
#define FANOUT_MIN     2
#define FANOUT_MAX     64

int gs_tree_fanout(void)
{
	static int fanout = -1;
	if (fanout >= 0)
		return fanout;
	fanout = FANOUT_DEFAULT;
	const char *v = getenv("PVM_GROUP_TREE");
	if (!v || !*v)
		return fanout;
	if (strcmp(v, "flat") == 0) {
		fanout = 0;
		return fanout;
	}
	char *end;
	long k = strtol(v, &end, 10);
	if (!*end && end != v && k >= FANOUT_MIN && k <= FANOUT_MAX) {
		fanout = (int)k;
		return fanout;
	}
	char line[256];
	snprintf(line, sizeof line,
		 "libgpvm3: PVM_GROUP_TREE=\"%s\" ignored (want flat or "
		 "%d..%d); using %d\n",
		 v, FANOUT_MIN, FANOUT_MAX, FANOUT_DEFAULT);
	lpvm_priv_stderr(line);
	return fanout;
}

/* Parent position of `pos` (> 0) and the children of `pos` in a tree of
 * `n` positions; returns the number of children written to out[]. */
static int tree_parent(int pos, int fanout)
{
	return fanout ? (pos - 1) / fanout : 0;
}

static int tree_children(int pos, int n, int fanout, int *out)
{
	int first, last, k = 0;
	if (!fanout) {
		if (pos)
			return 0;
		first = 1;
		last = n - 1;
	} else {
		first = pos * fanout + 1;
		last = pos * fanout + fanout;
		if (last > n - 1)
			last = n - 1;
	}
	for (int c = first; c <= last; c++)
		out[k++] = c;
	return k;
}

static int host_of(int tid)
{
	return tid & WIRE_TID_HOST_MASK;
}

int gs_tree_place(const struct gs_members *m, int me, int root, int fanout,
		  int *parent, int *children)
{
	int n = m->n;
	/* order[] lists member indexes: each host's members leader first;
	 * leaders[] the host leaders, the root first */
	int *local = malloc((size_t)n * sizeof(int));
	int *leaders = malloc((size_t)n * sizeof(int));
	int *pos = malloc((size_t)n * sizeof(int));
	if (!local || !leaders || !pos) {
		free(local);
		free(leaders);
		free(pos);
		return PvmNoMem;
	}
	int nlead = 0;
	leaders[nlead++] = root;
	for (int i = 0; i < n; i++) {
		if (i == root)
			continue;
		int seen = 0;
		for (int j = 0; j < nlead && !seen; j++)
			seen = host_of(m->tid[leaders[j]]) ==
			       host_of(m->tid[i]);
		if (!seen)
			leaders[nlead++] = i; /* lowest instance of its host */
	}

	/* my host's members, leader first, then by instance */
	int myhost = host_of(m->tid[me]);
	int lead = -1, nlocal = 0;
	for (int j = 0; j < nlead; j++)
		if (host_of(m->tid[leaders[j]]) == myhost)
			lead = j;
	local[nlocal++] = leaders[lead];
	for (int i = 0; i < n; i++)
		if (i != leaders[lead] && host_of(m->tid[i]) == myhost)
			local[nlocal++] = i;

	int mypos = 0;
	while (local[mypos] != me)
		mypos++;
	int nc = 0;
	*parent = 0;
	int k = tree_children(mypos, nlocal, fanout, pos);
	for (int c = 0; c < k; c++)
		children[nc++] = m->tid[local[pos[c]]];
	if (mypos)
		*parent = m->tid[local[tree_parent(mypos, fanout)]];
	else {
		/* a host leader: its place among the leaders */
		k = tree_children(lead, nlead, fanout, pos);
		for (int c = 0; c < k; c++)
			children[nc++] = m->tid[leaders[pos[c]]];
		if (lead)
			*parent = m->tid[leaders[tree_parent(lead, fanout)]];
	}
	free(local);
	free(leaders);
	free(pos);
	return nc;
}
