/*
 * pack.h - internal interface of the packing layer (libpvm/pack/).
 *
 * lp_pack()/lp_unpack() move `nitem` items of one type between user
 * memory (every `stride`-th item; stride may be 0 or negative, as the
 * reference allows) and a buffer, in the buffer's encoding:
 *   PvmDataDefault  XDR (RFC 4506): big-endian 4-byte units; short,
 *                   ushort, long, ulong travel as 4-byte ints; a byte
 *                   array is opaque data padded with zeros to 4 bytes.
 *   PvmDataRaw      native bytes, no padding; a received body of
 *                   another host's data format is converted as it is
 *                   unpacked (convert.c).
 *   PvmDataInPlace  a segment {pointer, length} of user memory (stride 1
 *                   only); with LP_COPY a private copy is kept instead.
 * Strings travel as an int (strlen + 1) and then the bytes with the NUL,
 * as PVM 3.4.6 sends them.
 */
#ifndef LPVM_PACK_H
#define LPVM_PACK_H

#include "error.h"
#include "pack/buf.h"
#include "pvm3.h"

enum lp_type {
	LP_BYTE,
	LP_SHORT,
	LP_USHORT,
	LP_INT,
	LP_UINT,
	LP_LONG,
	LP_ULONG,
	LP_FLOAT,
	LP_DOUBLE,
	LP_CPLX,
	LP_DCPLX,
	LP_NTYPES
};

/* Native size of one item of each type. */
extern const size_t lp_type_size[LP_NTYPES];

/* A datatype of pvm_psend/pvm_precv/pvm_reduce (PVM_STR, PVM_BYTE, ...):
 * its packing type (strings are bytes), or -1 when there is no such
 * datatype; and the size of one item, 0 for none. */
int lp_dtype_type(int datatype);
size_t lp_dtype_size(int datatype);
/* pvm_pk<type> or pvm_upk<type> of a datatype into or out of the current
 * buffer (PvmBadParam, unreported, for no datatype). */
int lp_pack_dtype(int datatype, void *p, int nitem, int stride, int unpack);

#define LP_COPY 1 /* InPlace: keep a copy (the value lives on the stack) */

/* Packs into b (a send buffer).  0 or a PVM error code; nothing is packed
 * on error.  Arguments are checked by the caller. */
int lp_pack(struct lp_buf *b, enum lp_type t, const void *p, int nitem,
	    int stride, int flags);
/* Unpacks from b at rpos.  PvmNoData (and nothing consumed) when the
 * message holds too few bytes. */
int lp_unpack(struct lp_buf *b, enum lp_type t, void *p, int nitem, int stride);
int lp_pack_str(struct lp_buf *b, const char *s);
int lp_unpack_str(struct lp_buf *b, char *s);

/* The current send / receive buffer for API function fn, or NULL after
 * setting *err to PvmNoBuf. */
struct lp_buf *lp_cur_sbuf(int *err);
struct lp_buf *lp_cur_rbuf(int *err);

/* Encoders (xdr.c, raw.c): write nitem items to out / read them from in.
 * The XDR size of an array is lp_xdr_size(); the raw size nitem*size. */
size_t lp_xdr_size(enum lp_type t, size_t nitem);
int lp_xdr_check(enum lp_type t, const void *p, int nitem, int stride);
void lp_xdr_enc(enum lp_type t, uint8_t *out, const void *p, int nitem,
		int stride);
void lp_xdr_dec(enum lp_type t, const uint8_t *in, void *p, int nitem,
		int stride);

/* Receiver makes right (convert.c): the size of one item of type t in
 * data format fmt (DSIG_FMT_*), and nitem such items read from in into
 * this host's types at p (every stride-th).  0, or PvmOverflow (nothing
 * stored) when a long does not fit this host's. */
size_t lp_fmt_size(enum lp_type t, int fmt);
int lp_convert(enum lp_type t, int fmt, const uint8_t *in, void *p, int nitem,
	       int stride);

#endif /* LPVM_PACK_H */
