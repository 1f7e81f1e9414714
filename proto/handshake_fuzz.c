/*
 * handshake_fuzz.c - libFuzzer target: the link and direct-route
 * handshake (proto/handshake.c), the only code an unauthenticated peer
 * reaches.
 *
 * Input byte 0 picks the side under test (connector or acceptor), the
 * key (VM secret or start ticket), whether the ids are tids, and the
 * mode:
 *   - raw: the rest is the peer's frames, each a 40-byte header and its
 *     payload, fed to hs_step as they come;
 *   - in the middle: an honest peer of the other role talks to the side
 *     under test, and the rest is a list of (offset, xor) changes, one per
 *     frame, made to the frames on their way to the side under test.
 * Besides what the sanitizers catch, it checks that the side under test
 * never accepts a peer whose frames were changed in any byte the MACs
 * cover unless the honest peer accepted it too (a forged frame would be
 * an authentication bypass).
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "proto/handshake.h"
#include "proto/wire.h"

#define TID_C 0x80000
#define TID_A 0x40000

static uint8_t secret[AUTH_SECRET_LEN], ticket[AUTH_SECRET_LEN];
static uint8_t key_byte;
static unsigned nonce_ctr;

static int det_random(void *buf, size_t n)
{
	uint8_t *p = buf;
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(++nonce_ctr * 131u);
	return 0;
}

/* The acceptor's key callback: the key byte of the input decides. */
static int acc_key(struct hs *hs, const struct wire_hdr *h)
{
	(void)h;
	switch (key_byte & 3) {
	case 0:
		hs_use_secret(hs, secret);
		return HS_GO;
	case 1:
		hs_use_ticket(hs, ticket, NULL);
		return HS_GO;
	case 2:
		hs->why = "refused";
		return HS_DROP;
	default:
		hs->why = "refused";
		return -2;
	}
}

static void setup(struct hs *con, struct hs *acc, int tids)
{
	struct hs_conf c = {.role = HS_CONNECTOR,
			    .who = "pvmd",
			    .self = TID_C,
			    .peer = TID_A,
			    .tids = tids,
			    .random = det_random};
	struct hs_conf a = {.role = HS_ACCEPTOR,
			    .who = "pvmd",
			    .self = TID_A,
			    .peer_min = tids ? 0 : 1,
			    .peer_max = tids ? 0 : 4095,
			    .tids = tids,
			    .key = acc_key,
			    .random = det_random};
	if (!tids) {
		c.self = 2;
		c.peer = 1;
		a.self = 1;
	}
	hs_init(con, &c);
	hs_init(acc, &a);
	if (key_byte & 1)
		hs_use_ticket(con, ticket, secret);
	else
		hs_use_secret(con, secret);
}

static void raw(struct hs *hs, const uint8_t *d, size_t n)
{
	struct hs_msg out;
	if (hs->conf.role == HS_CONNECTOR && hs_start(hs, &out) != HS_SEND)
		return;
	while (n >= WIRE_HDR_SIZE) {
		struct wire_hdr h;
		if (wire_hdr_decode(d, &h, HS_PAYLOAD_MAX * 2) < 0)
			return;
		d += WIRE_HDR_SIZE;
		n -= WIRE_HDR_SIZE;
		if (h.len > n)
			return;
		enum hs_result r = hs_step(hs, &h, d, &out);
		if (r != HS_SEND)
			return;
		d += h.len;
		n -= h.len;
	}
}

/* m, sent by src to dst, changed at (off, x) when x is not 0; returns
 * -1 when the changed header no longer decodes, 1 if the payload
 * changed. */
static int frame_of(const struct hs_msg *m, int32_t src, int32_t dst,
		    uint8_t off, uint8_t x, struct wire_hdr *h, uint8_t *pl)
{
	struct wire_hdr t = {.len = m->len,
			     .flags = WIRE_F_FIRST | WIRE_F_LAST | m->flags,
			     .src = src,
			     .dst = dst,
			     .tag = m->tag,
			     .total = m->len};
	uint8_t b[WIRE_HDR_SIZE + HS_PAYLOAD_MAX];
	wire_hdr_encode(&t, b);
	memcpy(b + WIRE_HDR_SIZE, m->payload, m->len);
	size_t n = WIRE_HDR_SIZE + m->len;
	if (x && off < n)
		b[off] ^= x;
	if (wire_hdr_decode(b, h, HS_PAYLOAD_MAX) < 0 || h->len != m->len)
		return -1;
	memcpy(pl, b + WIRE_HDR_SIZE, m->len);
	/* the header's other fields are not the handshake's to check */
	return x && off >= WIRE_HDR_SIZE && off < n;
}

static void middle(struct hs *con, struct hs *acc, int test_acc,
		   const uint8_t *d, size_t n)
{
	struct hs_msg m, out;
	if (hs_start(con, &m) != HS_SEND)
		return;
	struct hs *to = acc, *from = con;
	int32_t src = con->conf.self, dst = acc->conf.self;
	int changed = 0;
	for (int turn = 0; turn < 8; turn++) {
		uint8_t off = 0, x = 0;
		/* only frames to the side under test are changed */
		if ((to == acc) == test_acc && n >= 2) {
			off = d[0];
			x = d[1];
			d += 2;
			n -= 2;
		}
		struct wire_hdr h;
		uint8_t pl[HS_PAYLOAD_MAX];
		int c = frame_of(&m, src, dst, off, x, &h, pl);
		if (c < 0)
			return;
		changed |= c;
		enum hs_result r = hs_step(to, &h, pl, &out);
		/* a changed frame taken is a bypass, unless it is the
		 * wrapped VM secret of a ticket's DM_AUTH: no MAC covers that,
		 * and the acceptor's caller checks what it unwraps against
		 * the commit of its startup lines (link.c) */
		if (r == HS_DONE && changed && to == (test_acc ? acc : con) &&
		    !(to == acc && acc->ticket &&
		      memcmp(acc->secret, secret, sizeof secret)))
			__builtin_trap();
		if (r != HS_SEND)
			return;
		m = out;
		struct hs *t = to;
		to = from;
		from = t;
		int32_t s = src;
		src = dst;
		dst = s;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	if (n < 1)
		return 0;
	for (int i = 0; i < AUTH_SECRET_LEN; i++) {
		secret[i] = (uint8_t)(0x5a ^ i);
		ticket[i] = (uint8_t)(0xc3 + 7 * i);
	}
	nonce_ctr = 0;
	uint8_t mode = d[0];
	key_byte = (uint8_t)(mode >> 4);
	int tids = mode & 2, test_acc = mode & 1;
	struct hs con, acc;
	setup(&con, &acc, tids);
	if (mode & 4)
		raw(test_acc ? &acc : &con, d + 1, n - 1);
	else
		middle(&con, &acc, test_acc, d + 1, n - 1);
	hs_wipe(&con);
	hs_wipe(&acc);
	return 0;
}
