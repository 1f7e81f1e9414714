/*
 * scatter.c - pvm_scatter and pvm_gather: straight between the root and
 * each member, in instance order; the root's own part is copied locally.
 * Member i (its position in instance order) gets or gives the count
 * elements at offset i*count of the root's array.
 */
#include "gs.h"
#include "lpvm_priv.h"

#include <string.h>

/* The checks both share; on success *m holds the members, *me and *root
 * their positions.  Returns 0 or the error (not yet reported). */
static int prepare(int count, int datatype, int msgtag, const char *group,
		   int rootginst, struct gs_members *m, int *me, int *root)
{
	if (count <= 0 || !gs_type_size(datatype) || msgtag < 0)
		return PvmBadParam;
	int r = gs_name_check(group);
	if (r < 0)
		return r;
	r = gs_members_get(group, 0, m);
	if (r < 0)
		return r;
	*me = gs_members_find_tid(m, pvm_mytid());
	*root = gs_members_find_inst(m, rootginst);
	if (*me < 0 || *root < 0) {
		gs_members_free(m);
		return *me < 0 ? PvmNotInGroup : PvmNoInst;
	}
	return 0;
}

int pvm_scatter(void *result, void *data, int count, int datatype, int msgtag,
		char *group, int rootginst)
{
	static const char fn[] = "pvm_scatter";
	struct gs_members m;
	int me, root;
	if (!result)
		return lpvm_priv_err(fn, PvmBadParam);
	int r = prepare(count, datatype, msgtag, group, rootginst, &m, &me,
			&root);
	if (r < 0)
		return lpvm_priv_err(fn, r);
	size_t part = gs_type_size(datatype) * (size_t)count;
	if (me == root && !data) {
		gs_members_free(&m);
		return lpvm_priv_err(fn, PvmBadParam);
	}
	struct gs_saved s;
	gs_save(&s);
	if (me == root) {
		/* a failure with one member does not stop the others */
		for (int i = 0; i < m.n; i++) {
			const char *src = (const char *)data + part * (size_t)i;
			int ri = 0;
			if (i == me)
				memcpy(result, src, part);
			else
				ri = gs_send(m.tid[i], msgtag, GS_SCATTER, src,
					     count, datatype, 0);
			if (r >= 0)
				r = ri;
		}
	} else {
		r = gs_recv(group, m.tid[root], msgtag, GS_SCATTER, result,
			    count, datatype);
	}
	gs_restore(&s);
	gs_members_free(&m);
	return lpvm_priv_err(fn, r);
}

int pvm_gather(void *result, void *data, int count, int datatype, int msgtag,
	       char *group, int rootginst)
{
	static const char fn[] = "pvm_gather";
	struct gs_members m;
	int me, root;
	if (!data)
		return lpvm_priv_err(fn, PvmBadParam);
	int r = prepare(count, datatype, msgtag, group, rootginst, &m, &me,
			&root);
	if (r < 0)
		return lpvm_priv_err(fn, r);
	size_t part = gs_type_size(datatype) * (size_t)count;
	if (me == root && !result) {
		gs_members_free(&m);
		return lpvm_priv_err(fn, PvmBadParam);
	}
	struct gs_saved s;
	gs_save(&s);
	if (me == root) {
		/* after a failure the others' messages are still taken,
		 * so that a later gather does not find them */
		for (int i = 0; i < m.n; i++) {
			char *dst = (char *)result + part * (size_t)i;
			int ri = 0;
			if (i == me)
				memcpy(dst, data, part);
			else
				ri = gs_recv(group, m.tid[i], msgtag, GS_GATHER,
					     dst, count, datatype);
			if (r >= 0)
				r = ri;
		}
	} else {
		r = gs_send(m.tid[root], msgtag, GS_GATHER, data, count,
			    datatype, 0);
	}
	gs_restore(&s);
	gs_members_free(&m);
	return lpvm_priv_err(fn, r);
}
