/* fmsg.c - Fortran wrappers of the message calls: buffers, packing with
 * the Fortran type codes, send and receive, psend/precv, handlers. */
#include "fpvm.h"
#include "libpvm/lpvm_priv.h"

#include <pvm3.h>
#include <stddef.h>

void pvmfinitsend_(int *encoding, int *bufid)
{
	*bufid = pvm_initsend(*encoding);
}

void pvmfmkbuf_(int *encoding, int *bufid)
{
	*bufid = pvm_mkbuf(*encoding);
}

void pvmffreebuf_(int *bufid, int *info)
{
	*info = pvm_freebuf(*bufid);
}

void pvmfgetsbuf_(int *bufid)
{
	*bufid = pvm_getsbuf();
}

void pvmfgetrbuf_(int *bufid)
{
	*bufid = pvm_getrbuf();
}

void pvmfsetsbuf_(int *bufid, int *oldbuf)
{
	*oldbuf = pvm_setsbuf(*bufid);
}

void pvmfsetrbuf_(int *bufid, int *oldbuf)
{
	*oldbuf = pvm_setrbuf(*bufid);
}

void pvmfbufinfo_(int *bufid, int *bytes, int *msgtag, int *tid, int *info)
{
	*info = pvm_bufinfo(*bufid, bytes, msgtag, tid);
}

/* fpvm3.h's type codes are pvm3.h's PVM_STR .. PVM_LONG (STRING is 0,
 * INTEGER4 PVM_INT, INTEGER8 PVM_LONG...).  A STRING is nitem characters
 * packed as bytes, the same as BYTE1 (the reference ignores the string's
 * own length).  Another code is PvmBadParam. */
static int fpack(int what, void *xp, int nitem, int stride, int unpack)
{
	if (what < PVM_STR || what > PVM_LONG)
		return PvmBadParam;
	return lpvm_priv_pack(what, xp, nitem, stride, unpack);
}

void pvmfpack_(int *what, void *xp, int *nitem, int *stride, int *info)
{
	*info = fpack(*what, xp, *nitem, *stride, 0);
}

void pvmfunpack_(int *what, void *xp, int *nitem, int *stride, int *info)
{
	*info = fpack(*what, xp, *nitem, *stride, 1);
}

void pvmfsend_(int *tid, int *msgtag, int *info)
{
	*info = pvm_send(*tid, *msgtag);
}

void pvmfmcast_(int *ntask, int *tids, int *msgtag, int *info)
{
	*info = pvm_mcast(tids, *ntask, *msgtag);
}

void pvmfrecv_(int *tid, int *msgtag, int *bufid)
{
	*bufid = pvm_recv(*tid, *msgtag);
}

void pvmfnrecv_(int *tid, int *msgtag, int *bufid)
{
	*bufid = pvm_nrecv(*tid, *msgtag);
}

/* sec = -1 waits for ever, as pvm_trecv with no timeout. */
void pvmftrecv_(int *tid, int *msgtag, int *sec, int *usec, int *bufid)
{
	struct timeval tv = {*sec, *usec};

	*bufid = pvm_trecv(*tid, *msgtag, *sec == -1 ? NULL : &tv);
}

void pvmfprobe_(int *tid, int *msgtag, int *bufid)
{
	*bufid = pvm_probe(*tid, *msgtag);
}

/* datatype: fpvm3.h's type codes, which are pvm3.h's PVM_* codes
 * (INTEGER4 is PVM_INT, REAL8 PVM_DOUBLE...). */
void pvmfpsend_(int *tid, int *msgtag, void *buf, int *len, int *datatype,
		int *info)
{
	*info = pvm_psend(*tid, *msgtag, buf, *len, *datatype);
}

void pvmfprecv_(int *tid, int *msgtag, void *buf, int *len, int *datatype,
		int *atid, int *atag, int *alen, int *info)
{
	*info = pvm_precv(*tid, *msgtag, buf, *len, *datatype, atid, atag,
			  alen);
}

/* The reference's takes six arguments, the fourth unused and the fifth the
 * handler (a C function of one int by value), and returns the id in the
 * sixth; its man page says there is no Fortran form.  Ours takes the same
 * arguments so that programs written for it work unchanged. */
void pvmfaddmhf_(int *src, int *tag, int *ctx, void *unused, int (*func)(int),
		 int *mhid)
{
	(void)unused;
	*mhid = pvm_addmhf(*src, *tag, *ctx, func);
}

void pvmfdelmhf_(int *mhid, int *info)
{
	*info = pvm_delmhf(*mhid);
}
