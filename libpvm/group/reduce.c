/*
 * reduce.c - pvm_reduce along a tree of the members (tree.c): each node
 * combines its children's data into its own with the user's function,
 * then passes the result to its parent; the root ends with the result.
 * A node without children sends and returns without waiting.
 */
#include "gs.h"
#include "lpvm_priv.h"

#include <stdlib.h>

typedef void (*gs_func)(int *, void *, void *, int *, int *);

/*
 * Receives and combines the children's data, then sends to the parent.
 * After a failure (a child gone, a mismatch, the function's info < 0, a
 * child's own failure) it still takes the other children's messages, so
 * that none is left behind to be taken by a later reduce with the same
 * tag, and tells the parent the failure instead of sending data, so that
 * the parent does not wait for nothing.  Returns the first failure.
 */
static int run(const char *group, gs_func func, void *data, int count,
	       int datatype, int msgtag, int parent, const int *children,
	       int nchildren)
{
	size_t sz = gs_type_size(datatype) * (size_t)count;
	void *in = nchildren ? malloc(sz) : NULL;
	int r = nchildren && !in ? PvmNoMem : 0;
	for (int c = 0; c < nchildren && in; c++) {
		int rc = gs_recv(group, children[c], msgtag, GS_REDUCE, in,
				 count, datatype);
		if (rc < 0 || r < 0) {
			if (r >= 0)
				r = rc;
			continue;
		}
		/* x is ours (and accumulates), y the received values */
		int dt = datatype, num = count, info = 0;
		func(&dt, data, in, &num, &info);
		if (info < 0)
			r = info;
	}
	free(in);
	if (parent) {
		int rs = gs_send(parent, msgtag, GS_REDUCE, data, count,
				 datatype, r);
		if (r >= 0)
			r = rs;
	}
	return r;
}

int pvm_reduce(void (*func)(int *, void *, void *, int *, int *), void *data,
	       int count, int datatype, int msgtag, char *group, int rootginst)
{
	static const char fn[] = "pvm_reduce";
	if (!func || !data || count <= 0 || !gs_type_size(datatype) ||
	    msgtag < 0)
		return lpvm_priv_err(fn, PvmBadParam);
	int r = gs_name_check(group);
	if (r < 0)
		return lpvm_priv_err(fn, r);
	struct gs_members m;
	r = gs_members_get(group, 0, &m);
	if (r < 0)
		return lpvm_priv_err(fn, r);
	int me = gs_members_find_tid(&m, pvm_mytid());
	int root = gs_members_find_inst(&m, rootginst);
	if (me < 0 || root < 0) {
		gs_members_free(&m);
		return lpvm_priv_err(fn, me < 0 ? PvmNotInGroup : PvmNoInst);
	}
	int parent = 0;
	int *children = malloc((size_t)m.n * sizeof(int));
	int nc = children ? gs_tree_place(&m, me, root, gs_tree_fanout(),
					  &parent, children)
			  : PvmNoMem;
	gs_members_free(&m);
	if (nc < 0) {
		free(children);
		return lpvm_priv_err(fn, nc);
	}
	struct gs_saved s;
	gs_save(&s);
	r = run(group, func, data, count, datatype, msgtag, parent, children,
		nc);
	gs_restore(&s);
	free(children);
	return lpvm_priv_err(fn, r);
}
