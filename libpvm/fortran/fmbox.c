/* fmbox.c - Fortran wrappers of the message mailbox. */
#include "fpvm.h"

#include <pvm3.h>

void pvmfputinfo_(char *name, int *bufid, int *flags, int *index, fpvm_len len)
{
	char n[FPVM_NAME_MAX];

	*index = fpvm_cstr(n, sizeof n, name, len)
			 ? PvmBadParam
			 : pvm_putinfo(n, *bufid, *flags);
}

void pvmfrecvinfo_(char *name, int *index, int *flags, int *bufid, fpvm_len len)
{
	char n[FPVM_NAME_MAX];

	*bufid = fpvm_cstr(n, sizeof n, name, len)
			 ? PvmBadParam
			 : pvm_recvinfo(n, *index, *flags);
}

void pvmfdelinfo_(char *name, int *index, int *flags, int *info, fpvm_len len)
{
	char n[FPVM_NAME_MAX];

	*info = fpvm_cstr(n, sizeof n, name, len)
			? PvmBadParam
			: pvm_delinfo(n, *index, *flags);
}

/* One class per call: the first call (or one with nclasses = -1) asks the
 * pvmd with the pattern, the following ones step through its answer.
 * Each returns the class's name, the number of classes, and the class's
 * entries in index, owner and flags (arrays of nentries).  info is 0, or
 * PvmNotFound when no class matches.  The reference's returns the first
 * class at every call and never sets nclasses (docs/compat.md). */
static struct {
	int n, next;
	struct pvmmboxinfo *ci;
} mbox;

void pvmfgetmboxinfo_(char *pattern, char *name, int *nclasses, int *nentries,
		      int *index, int *owner, int *flags, int *info,
		      fpvm_len patlen, fpvm_len namelen)
{
	if (mbox.n == 0 || *nclasses == -1) {
		char p[FPVM_NAME_MAX];
		int n = 0, cc;

		mbox.n = 0;
		if (fpvm_cstr(p, sizeof p, pattern, patlen)) {
			*info = PvmBadParam;
			return;
		}
		cc = pvm_getmboxinfo(p, &n, &mbox.ci);
		if (cc < 0) {
			*info = cc;
			return;
		}
		if (n == 0) {
			*nclasses = 0;
			*info = PvmNotFound;
			return;
		}
		mbox.n = n;
		mbox.next = 0;
	}
	const struct pvmmboxinfo *c = &mbox.ci[mbox.next++];

	fpvm_fstr(name, namelen, c->mi_name);
	*nclasses = mbox.n;
	*nentries = c->mi_nentries;
	for (int i = 0; i < c->mi_nentries; i++) {
		index[i] = c->mi_indices[i];
		owner[i] = c->mi_owners[i];
		flags[i] = c->mi_flags[i];
	}
	*info = 0;
	if (mbox.next >= mbox.n)
		mbox.n = 0;
}
