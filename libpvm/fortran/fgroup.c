/* fgroup.c - Fortran wrappers of the dynamic groups (libgpvm3), and the
 * predefined reduce operations under their Fortran names. */
#include "fpvm.h"

#include <pvm3.h>

/* A group name longer than 31 characters is PvmBadParam, as in the
 * reference's wrappers. */
#define GNAME(g, group, len, out)                                              \
	char g[FPVM_GROUP_MAX];                                                \
	if (fpvm_cstr(g, sizeof g, group, len)) {                              \
		*(out) = PvmBadParam;                                          \
		return;                                                        \
	}

void pvmfjoingroup_(char *group, int *inum, fpvm_len len)
{
	GNAME(g, group, len, inum);
	*inum = pvm_joingroup(g);
}

void pvmflvgroup_(char *group, int *info, fpvm_len len)
{
	GNAME(g, group, len, info);
	*info = pvm_lvgroup(g);
}

void pvmfgsize_(char *group, int *size, fpvm_len len)
{
	GNAME(g, group, len, size);
	*size = pvm_gsize(g);
}

void pvmfgettid_(char *group, int *inum, int *tid, fpvm_len len)
{
	GNAME(g, group, len, tid);
	*tid = pvm_gettid(g, *inum);
}

void pvmfgetinst_(char *group, int *tid, int *inum, fpvm_len len)
{
	GNAME(g, group, len, inum);
	*inum = pvm_getinst(g, *tid);
}

void pvmfbarrier_(char *group, int *count, int *info, fpvm_len len)
{
	GNAME(g, group, len, info);
	*info = pvm_barrier(g, *count);
}

void pvmfbcast_(char *group, int *msgtag, int *info, fpvm_len len)
{
	GNAME(g, group, len, info);
	*info = pvm_bcast(g, *msgtag);
}

void pvmffreezegroup_(char *group, int *size, int *info, fpvm_len len)
{
	GNAME(g, group, len, info);
	*info = pvm_freezegroup(g, *size);
}

/* func: pvmsum and the others below, or the user's subroutine
 * func(datatype, x, y, num, info), which has the C calling convention of
 * pvm_reduce's function already (all by reference). */
void pvmfreduce_(void (*func)(int *, void *, void *, int *, int *), void *data,
		 int *count, int *datatype, int *msgtag, char *group,
		 int *rootginst, int *info, fpvm_len len)
{
	GNAME(g, group, len, info);
	*info = pvm_reduce(func, data, *count, *datatype, *msgtag, g,
			   *rootginst);
}

void pvmfscatter_(void *result, void *data, int *count, int *datatype,
		  int *msgtag, char *group, int *rootginst, int *info,
		  fpvm_len len)
{
	GNAME(g, group, len, info);
	*info = pvm_scatter(result, data, *count, *datatype, *msgtag, g,
			    *rootginst);
}

void pvmfgather_(void *result, void *data, int *count, int *datatype,
		 int *msgtag, char *group, int *rootginst, int *info,
		 fpvm_len len)
{
	GNAME(g, group, len, info);
	*info = pvm_gather(result, data, *count, *datatype, *msgtag, g,
			   *rootginst);
}

/* `external PvmSum` in a Fortran program names pvmsum_. */
void pvmmax_(int *datatype, void *x, void *y, int *num, int *info)
{
	PvmMax(datatype, x, y, num, info);
}

void pvmmin_(int *datatype, void *x, void *y, int *num, int *info)
{
	PvmMin(datatype, x, y, num, info);
}

void pvmsum_(int *datatype, void *x, void *y, int *num, int *info)
{
	PvmSum(datatype, x, y, num, info);
}

void pvmproduct_(int *datatype, void *x, void *y, int *num, int *info)
{
	PvmProduct(datatype, x, y, num, info);
}
