/*
 * buf.h - message buffers of libpvm (owned by libpvm/buf.c and pack/).
 *
 * A buffer holds one message body plus, for a received message, its
 * header.  The body of a PvmDataDefault or PvmDataRaw buffer is the byte
 * array data[0..len); the body of a PvmDataInPlace send buffer is the
 * concatenation of the user memory ranges seg[0..nseg), read only when
 * the message is sent.  A received message always has its body in data,
 * whatever its encoding, and unpacking reads from rpos on.
 */
#ifndef LPVM_BUF_H
#define LPVM_BUF_H

#include <stddef.h>
#include <stdint.h>

#include "proto/dsig.h"

struct lp_seg {
	const void *p;
	size_t len;
};
/* Copies the segments one after the other to out (room for all). */
void lp_segs_copy(void *out, const struct lp_seg *seg, int nseg);

struct lp_buf {
	int id;	 /* buffer id (> 0) */
	int enc; /* PvmDataDefault, PvmDataRaw or PvmDataInPlace */
	int fmt; /* data format of a Raw or InPlace body (DSIG_FMT_*): this
		  * host's when packed here, the sender's when received */

	uint8_t *data; /* body bytes */
	size_t len, cap;
	size_t rpos; /* unpack position in data */

	struct lp_seg *seg; /* InPlace send buffer: body is these ranges */
	int nseg, segcap;
	/* InPlace: private copies some segments point to (values packed by
	 * packf or pkmesg), freed with the buffer */
	void **own;
	int nown, owncap;

	/* header: of a received message, or as set by pvm_setminfo */
	int src, dst, tag, ctx, wid, crc;
	uint32_t seq;
	int received; /* 1 for a message that arrived */
	int sock;     /* it arrived on a socket (receive statistics) */
	int inqueue;  /* 1 while msg/ keeps it in the receive queue: the
		       * program's pvm_* buffer calls then see no such id */

	struct lp_buf *qnext, *qprev; /* link while in the receive queue */
	struct lp_lend *lend; /* the body is lent (see below), or NULL */
};

/*
 * A large body lent to queued output (tran/shm/shm_tx.c) instead of
 * copied for it: the buffer and every queue entry that holds the body
 * count one reference each.  While others hold it, the buffer never
 * writes below its len (packing only appends) and never frees or moves
 * the body: it lets go of it instead (growing copies what it had to a new
 * body), and the last holder gives the memory back.
 */
struct lp_lend {
	uint8_t *p;
	size_t cap;
	int refs;
};
/* Lends b's body (one more reference); NULL when memory runs out. */
struct lp_lend *lp_buf_lend(struct lp_buf *b);
/* A holder lets go of a lent body. */
void lp_lend_put(struct lp_lend *l);

/* Current send and receive buffer ids (0 = none). */
extern int lp_sbuf, lp_rbuf;

/* Looks a buffer up by id; NULL if there is none. */
struct lp_buf *lp_buf_get(int bufid);
/* Creates an empty buffer with a fresh id; NULL when memory runs out. */
struct lp_buf *lp_buf_new(int enc);
/* Frees a buffer and its id (the caller has unlinked it from any queue);
 * clears lp_sbuf / lp_rbuf if they named it. */
void lp_buf_free(struct lp_buf *b);
/* Body length in bytes (the sum of the segments for InPlace). */
size_t lp_buf_bodylen(const struct lp_buf *b);
/* Makes sure data has room for `more` bytes past len (geometric growth);
 * 0 or PvmNoMem. */
int lp_buf_reserve(struct lp_buf *b, size_t more);
/* Memory for large bodies: lp_mem_get returns a block of at least `need`
 * bytes (its real size in *cap), preferably one kept from an earlier
 * lp_mem_put, else from malloc; NULL when memory runs out.  lp_mem_put
 * takes back a block of `cap` bytes from lp_mem_get or malloc (or NULL):
 * it keeps a few large ones for reuse and frees the rest. */
void *lp_mem_get(size_t need, size_t *cap);
void lp_mem_put(void *p, size_t cap);
/* Frees what the two caches above keep for reuse (the freed buffers and
 * the large bodies): pvm_exit leaves no memory behind. */
void lp_buf_caches_free(void);
/* Looks up a buffer id given by the program: NULL for ids that do not
 * exist or that sit in the receive queue (inqueue). */
struct lp_buf *lp_buf_user(int bufid);
/* Copies the body (data, or the seg ranges of an InPlace send buffer) to
 * out, which holds lp_buf_bodylen(b) bytes. */
void lp_buf_copybody(const struct lp_buf *b, void *out);
/* The enc value pvm_getminfo and pvm_pkmesg show: 0x10000000 for XDR,
 * 0x20000000 for an InPlace send buffer, else the data signature of the
 * body's format (a Raw buffer, a received InPlace message). */
int lp_buf_encsig(const struct lp_buf *b);
/* The enc of a message header for b's body (WIRE_ENC_*, with the data
 * format), and the other way: b's enc and fmt from a header's. */
uint16_t lp_buf_wire_enc(const struct lp_buf *b);
void lp_buf_set_wire_enc(struct lp_buf *b, uint16_t enc);
#define LP_SIG_XDR     0x10000000
#define LP_SIG_INPLACE 0x20000000

#endif /* LPVM_BUF_H */
