/*
 * pkmesg.c - messages inside messages: pvm_pkmesg, pvm_pkmesgbody,
 * pvm_upkmesg.
 *
 * pvm_pkmesg packs, in the outer buffer's encoding, the same items as
 * PVM 3.4.6: the ints len, ctx, tag, wid, enc (as pvm_getminfo shows it),
 * crc, src, dst, then the body as an int n and n bytes.  pvm_upkmesg
 * accepts the body split in several such pieces (PVM 3.4.6 writes one
 * per fragment) up to len bytes.
 */
#include "pack.h"

#include <stdlib.h>
#include <string.h>

enum { H_LEN, H_CTX, H_TAG, H_WID, H_ENC, H_CRC, H_SRC, H_DST, H_N };

/* Packs the body of `in` into `out` as n bytes (no count). */
static int pack_body(struct lp_buf *out, const struct lp_buf *in, size_t n)
{
	if (n == 0)
		return 0;
	if (in->enc != PvmDataInPlace || in->received)
		return lp_pack(out, LP_BYTE, in->data, (int)n, 1, LP_COPY);
	uint8_t *tmp = malloc(n);
	if (!tmp)
		return PvmNoMem;
	lp_buf_copybody(in, tmp);
	int cc = lp_pack(out, LP_BYTE, tmp, (int)n, 1, LP_COPY);
	free(tmp);
	return cc;
}

int pvm_pkmesg(int bufid)
{
	int cc = 0;
	if (bufid <= 0 || bufid == lp_sbuf)
		return lp_err("pvm_pkmesg", PvmBadParam);
	struct lp_buf *in = lp_buf_user(bufid);
	if (!in)
		return lp_err("pvm_pkmesg", PvmNoSuchBuf);
	struct lp_buf *out = lp_cur_sbuf(&cc);
	if (!out)
		return lp_err("pvm_pkmesg", cc);
	size_t n = lp_buf_bodylen(in);
	if (n > INT32_MAX)
		return lp_err("pvm_pkmesg", PvmNoMem);
	int h[H_N + 1];
	h[H_LEN] = (int)n;
	h[H_CTX] = in->ctx;
	h[H_TAG] = in->tag;
	h[H_WID] = in->wid;
	h[H_ENC] = lp_buf_encsig(in);
	h[H_CRC] = in->crc;
	h[H_SRC] = in->src;
	h[H_DST] = in->dst;
	h[H_N] = (int)n;
	if ((cc = lp_pack(out, LP_INT, h, H_N + 1, 1, LP_COPY)) < 0 ||
	    (cc = pack_body(out, in, n)) < 0)
		return lp_err("pvm_pkmesg", cc);
	return 0;
}

int pvm_pkmesgbody(int bufid)
{
	int cc = 0;
	if (bufid <= 0 || bufid == lp_sbuf)
		return lp_err("pvm_pkmesgbody", PvmBadParam);
	struct lp_buf *in = lp_buf_user(bufid);
	if (!in)
		return lp_err("pvm_pkmesgbody", PvmNoSuchBuf);
	struct lp_buf *out = lp_cur_sbuf(&cc);
	if (!out)
		return lp_err("pvm_pkmesgbody", cc);
	if (lp_buf_encsig(in) != lp_buf_encsig(out))
		return lp_err("pvm_pkmesgbody", PvmMismatch);
	size_t n = lp_buf_bodylen(in);
	if (n > INT32_MAX)
		return lp_err("pvm_pkmesgbody", PvmNoMem);
	if (out->enc == PvmDataDefault) {
		/* splice the XDR bytes as they are (n is a multiple of 4
		 * for a well-formed message) */
		if ((cc = lp_buf_reserve(out, n)) < 0)
			return lp_err("pvm_pkmesgbody", cc);
		lp_buf_copybody(in, out->data + out->len);
		out->len += n;
		return 0;
	}
	return lp_err("pvm_pkmesgbody", pack_body(out, in, n));
}

/* Encoding of a packed message from its enc field, and the data format
 * of a Raw one (a host's data signature: ours, or another host's that
 * unpacking converts from). */
static int enc_of(int sig, int *fmt)
{
	*fmt = DSIG_FMT_NATIVE;
	switch (sig) {
	case LP_SIG_XDR:
		return PvmDataDefault;
	case LP_SIG_INPLACE:
		return PvmDataInPlace;
	default:
		*fmt = dsig_fmt(sig);
		return *fmt < 0 ? -1 : PvmDataRaw; /* -1: a format we
						    * cannot convert */
	}
}

int pvm_upkmesg(void)
{
	int cc = 0;
	struct lp_buf *rb = lp_cur_rbuf(&cc);
	if (!rb)
		return lp_err("pvm_upkmesg", cc);
	size_t pos = rb->rpos;
	int h[H_N];
	if ((cc = lp_unpack(rb, LP_INT, h, H_N, 1)) < 0)
		return lp_err("pvm_upkmesg", cc);
	int fmt, enc = enc_of(h[H_ENC], &fmt);
	if (h[H_LEN] < 0 || enc < 0) {
		rb->rpos = pos;
		return lp_err("pvm_upkmesg", PvmBadMsg);
	}
	/* a body longer than what is left cannot be there: do not reserve
	 * what a hostile length asks for (unpacking would end the same way) */
	if ((size_t)h[H_LEN] > rb->len - rb->rpos) {
		rb->rpos = pos;
		return lp_err("pvm_upkmesg", PvmNoData);
	}
	struct lp_buf *nb = lp_buf_new(enc);
	if (!nb || lp_buf_reserve(nb, (size_t)h[H_LEN]) < 0) {
		lp_buf_free(nb);
		rb->rpos = pos;
		return lp_err("pvm_upkmesg", PvmNoMem);
	}
	while (cc == 0 && nb->len < (size_t)h[H_LEN]) {
		int n;
		if ((cc = lp_unpack(rb, LP_INT, &n, 1, 1)) < 0)
			break;
		if (n < 0 || (size_t)n > (size_t)h[H_LEN] - nb->len) {
			cc = PvmBadMsg;
			break;
		}
		if ((cc = lp_unpack(rb, LP_BYTE, nb->data + nb->len, n, 1)) ==
		    0)
			nb->len += (size_t)n;
	}
	if (cc < 0) {
		lp_buf_free(nb);
		rb->rpos = pos;
		return lp_err("pvm_upkmesg", cc);
	}
	nb->received = 1; /* unpackable, its body in data */
	nb->fmt = fmt;
	nb->ctx = h[H_CTX];
	nb->tag = h[H_TAG];
	nb->wid = h[H_WID];
	nb->crc = h[H_CRC];
	nb->src = h[H_SRC];
	nb->dst = h[H_DST];
	return nb->id;
}
