/*
 * handshake.c - the DM_HELLO / DM_AUTH challenge-response (handshake.h).
 */
#include "proto/handshake.h"

#include <stdio.h>
#include <string.h>

#include "pvm3.h"

enum { S_START, S_HELLO, S_AUTH, S_DONE, S_FAILED };

/* The frame each side waits for: [role][waiting for DM_AUTH's turn]. */
static const struct expect {
	int32_t tag;
	int reply;
	const char *wrong, *malformed;
} expect[2][2] = {
	[HS_CONNECTOR] =
		{
			{WIRE_DM_HELLO, 1, "not a DM_HELLO reply",
			 "malformed DM_HELLO reply"},
			{WIRE_DM_AUTH, 1, "not a DM_AUTH reply",
			 "malformed DM_AUTH reply"},
		},
	[HS_ACCEPTOR] =
		{
			{WIRE_DM_HELLO, 0, "not a DM_HELLO",
			 "malformed DM_HELLO"},
			{WIRE_DM_AUTH, 0, "not a DM_AUTH", "malformed DM_AUTH"},
		},
};

/* ---- payloads: big-endian i32 and "bytes" (u32 length, the bytes) ---- */

static void msg_init(struct hs_msg *m, int32_t tag, uint16_t flags)
{
	m->tag = tag;
	m->flags = flags;
	m->len = 0;
}

/* Every payload written here fits HS_PAYLOAD_MAX (80 bytes at most). */
static void put_i32(struct hs_msg *m, int32_t v)
{
	uint8_t *p = m->payload + m->len;
	p[0] = (uint8_t)((uint32_t)v >> 24);
	p[1] = (uint8_t)((uint32_t)v >> 16);
	p[2] = (uint8_t)((uint32_t)v >> 8);
	p[3] = (uint8_t)v;
	m->len += 4;
}

static void put_32(struct hs_msg *m, const uint8_t b[32])
{
	put_i32(m, 32);
	memcpy(m->payload + m->len, b, 32);
	m->len += 32;
}

/* Reads "bytes" of exactly 32: a nonce, a MAC or a wrapped secret. */
static int get_32(struct wire_rd *r, uint8_t out[32])
{
	size_t n;
	const uint8_t *p = wire_rd_bytes(r, &n);
	if (!p || n != 32)
		return -1;
	memcpy(out, p, 32);
	return 0;
}

/* ---- MACs ---- */

/* out = auth_mac(key, "<who>[-ticket]-<side> <c> <a>", nc, na), c and a
 * the connector's and the acceptor's ids in hex: the ids each side named
 * are proven with the key, so that no one in the middle can change the
 * host number or tid a DM_HELLO claims. */
static void mac(const struct hs *hs, const char *side,
		uint8_t out[AUTH_MAC_LEN])
{
	char label[96];
	int32_t cid = hs->conf.role == HS_CONNECTOR ? hs->conf.self : hs->peer;
	int32_t aid = hs->conf.role == HS_CONNECTOR ? hs->peer : hs->conf.self;
	snprintf(label, sizeof label, "%s%s-%s %x %x", hs->conf.who,
		 hs->ticket ? "-ticket" : "", side, (unsigned)cid,
		 (unsigned)aid);
	auth_mac(hs->key, label, hs->nc, hs->na, out);
}

/* secret ^= the ticket's keystream (one block: AUTH_SECRET_LEN is the
 * MAC's length). */
static void wrap(const struct hs *hs, uint8_t secret[AUTH_SECRET_LEN])
{
	char label[64];
	uint8_t ks[AUTH_MAC_LEN];
	snprintf(label, sizeof label, "%s-secret-wrap", hs->conf.who);
	auth_mac(hs->key, label, hs->nc, hs->na, ks);
	for (int i = 0; i < AUTH_SECRET_LEN; i++)
		secret[i] ^= ks[i];
	explicit_bzero(ks, sizeof ks);
}

static int nonce(const struct hs *hs, uint8_t out[AUTH_NONCE_LEN])
{
	return hs->conf.random ? hs->conf.random(out, AUTH_NONCE_LEN)
			       : auth_random(out, AUTH_NONCE_LEN);
}

/* ---- states ---- */

static enum hs_result fail(struct hs *hs, enum hs_fail f, const char *why)
{
	hs->state = S_FAILED;
	hs->fail = f;
	if (!hs->why) /* the key callback may have said it better */
		hs->why = why;
	hs_wipe(hs);
	return HS_FAILED;
}

static enum hs_result done(struct hs *hs)
{
	hs->state = S_DONE;
	explicit_bzero(hs->key, sizeof hs->key);
	if (hs->conf.role == HS_CONNECTOR)
		explicit_bzero(hs->secret, sizeof hs->secret);
	return HS_DONE;
}

/* The DM_HELLO reply that refuses the connector (status alone). */
static void refuse(struct hs *hs, int32_t status, struct hs_msg *out)
{
	hs->status = status;
	msg_init(out, WIRE_DM_HELLO, WIRE_F_CTRL | WIRE_F_REPLY);
	put_i32(out, status);
}

static int tids_ok(const struct hs *hs, const struct wire_hdr *h)
{
	return h->src == hs->peer && h->dst == hs->conf.self;
}

/* The peer has named itself: the caller's say on it and on the key.
 * 0, or -1 when it has failed. */
static int ask_key(struct hs *hs, const struct wire_hdr *h, struct hs_msg *out)
{
	int k = hs->conf.key ? hs->conf.key(hs, h) : HS_GO;
	if (k != HS_GO) {
		if (k < 0 && hs->conf.role == HS_ACCEPTOR)
			refuse(hs, k, out);
		fail(hs, HS_E_REFUSED, "refused");
		return -1;
	}
	if (!hs->keyed) {
		fail(hs, HS_E_REFUSED, "no key");
		return -1;
	}
	return 0;
}

static enum hs_result accept_hello(struct hs *hs, const struct wire_hdr *h,
				   struct wire_rd *r, struct hs_msg *out)
{
	int32_t version = wire_rd_i32(r);
	int32_t id = wire_rd_i32(r);
	if (get_32(r, hs->nc) < 0 || r->left ||
	    ((hs->conf.peer_min || hs->conf.peer_max) &&
	     (id < hs->conf.peer_min || id > hs->conf.peer_max)))
		return fail(hs, HS_E_FRAME, "malformed DM_HELLO");
	hs->peer = id;
	if (version != WIRE_VERSION) {
		refuse(hs, PvmBadVersion, out);
		return fail(hs, HS_E_VERSION, "protocol version mismatch");
	}
	if (hs->conf.tids && !tids_ok(hs, h))
		return fail(hs, HS_E_FRAME, "bad tid");
	if (ask_key(hs, h, out) < 0)
		return HS_FAILED;
	if (nonce(hs, hs->na) < 0)
		return fail(hs, HS_E_RANDOM, "no random bytes");
	uint8_t mac_a[AUTH_MAC_LEN];
	mac(hs, "acceptor", mac_a);
	msg_init(out, WIRE_DM_HELLO, WIRE_F_CTRL | WIRE_F_REPLY);
	put_i32(out, 0);
	put_i32(out, hs->conf.self);
	put_32(out, hs->na);
	put_32(out, mac_a);
	hs->state = S_AUTH;
	return HS_SEND;
}

static enum hs_result accept_auth(struct hs *hs, struct wire_rd *r,
				  struct hs_msg *out)
{
	uint8_t got[AUTH_MAC_LEN], want[AUTH_MAC_LEN];
	if (get_32(r, got) < 0 || (hs->ticket && get_32(r, hs->secret) < 0) ||
	    r->left)
		return fail(hs, HS_E_FRAME, "malformed DM_AUTH");
	mac(hs, "connector", want);
	if (!auth_mac_equal(got, want))
		return fail(hs, HS_E_MAC,
			    hs->ticket ? "wrong ticket" : "wrong secret");
	if (hs->ticket)
		wrap(hs, hs->secret); /* unwraps: the same XOR */
	msg_init(out, WIRE_DM_AUTH, WIRE_F_CTRL | WIRE_F_REPLY);
	put_i32(out, 0);
	return done(hs);
}

/* The acceptor's reply said no (its i32 status, not 0). */
static enum hs_result refused(struct hs *hs, int32_t status)
{
	hs->status = status;
	if (status == PvmBadVersion)
		return fail(hs, HS_E_VERSION, "protocol version mismatch");
	return fail(hs, HS_E_REFUSED, "refused");
}

static enum hs_result connect_hello(struct hs *hs, const struct wire_hdr *h,
				    struct wire_rd *r, struct hs_msg *out)
{
	int32_t status = wire_rd_i32(r);
	if (r->err)
		return fail(hs, HS_E_FRAME, "malformed DM_HELLO reply");
	if (status != 0)
		return refused(hs, status);
	uint8_t got[AUTH_MAC_LEN], want[AUTH_MAC_LEN];
	int32_t id = wire_rd_i32(r);
	if (get_32(r, hs->na) < 0 || get_32(r, got) < 0 || r->left ||
	    id != hs->peer)
		return fail(hs, HS_E_FRAME, "malformed DM_HELLO reply");
	if (ask_key(hs, h, out) < 0)
		return HS_FAILED;
	mac(hs, "acceptor", want);
	if (!auth_mac_equal(got, want))
		return fail(hs, HS_E_MAC,
			    hs->ticket ? "wrong ticket" : "wrong secret");
	mac(hs, "connector", want);
	msg_init(out, WIRE_DM_AUTH, WIRE_F_CTRL);
	put_32(out, want);
	if (hs->ticket) {
		uint8_t w[AUTH_SECRET_LEN];
		memcpy(w, hs->secret, sizeof w);
		wrap(hs, w);
		put_32(out, w);
		explicit_bzero(w, sizeof w);
	}
	hs->state = S_AUTH;
	return HS_SEND;
}

static enum hs_result connect_auth(struct hs *hs, struct wire_rd *r)
{
	int32_t status = wire_rd_i32(r);
	if (r->err || r->left)
		return fail(hs, HS_E_FRAME, "malformed DM_AUTH reply");
	if (status != 0)
		return refused(hs, status);
	return done(hs);
}

/* ---- the interface ---- */

void hs_init(struct hs *hs, const struct hs_conf *conf)
{
	memset(hs, 0, sizeof *hs);
	hs->conf = *conf;
	if (conf->role == HS_CONNECTOR) {
		hs->state = S_START;
		hs->peer = conf->peer;
	} else {
		hs->state = S_HELLO;
	}
}

void hs_use_secret(struct hs *hs, const uint8_t secret[AUTH_SECRET_LEN])
{
	memcpy(hs->key, secret, AUTH_SECRET_LEN);
	hs->ticket = 0;
	hs->keyed = 1;
}

void hs_use_ticket(struct hs *hs, const uint8_t ticket[AUTH_SECRET_LEN],
		   const uint8_t *secret)
{
	memcpy(hs->key, ticket, AUTH_SECRET_LEN);
	if (secret)
		memcpy(hs->secret, secret, AUTH_SECRET_LEN);
	hs->ticket = 1;
	hs->keyed = 1;
}

enum hs_result hs_start(struct hs *hs, struct hs_msg *out)
{
	out->tag = 0;
	if (hs->conf.role != HS_CONNECTOR || hs->state != S_START)
		return fail(hs, HS_E_FRAME, "started twice");
	if (nonce(hs, hs->nc) < 0)
		return fail(hs, HS_E_RANDOM, "no random bytes");
	msg_init(out, WIRE_DM_HELLO, WIRE_F_CTRL);
	put_i32(out, WIRE_VERSION);
	put_i32(out, hs->conf.self);
	put_32(out, hs->nc);
	hs->state = S_HELLO;
	return HS_SEND;
}

enum hs_result hs_step(struct hs *hs, const struct wire_hdr *h,
		       const uint8_t *payload, struct hs_msg *out)
{
	out->tag = 0;
	if (hs->state != S_HELLO && hs->state != S_AUTH)
		return fail(hs, HS_E_FRAME,
			    hs->state == S_START
				    ? "a frame before DM_HELLO"
				    : "a frame after the handshake");
	int auth = hs->state == S_AUTH;
	const struct expect *e = &expect[hs->conf.role][auth];
	if (!(h->flags & WIRE_F_CTRL) || h->tag != e->tag ||
	    !(h->flags & WIRE_F_REPLY) != !e->reply)
		return fail(hs, HS_E_FRAME, e->wrong);
	if (h->len > HS_PAYLOAD_MAX)
		return fail(hs, HS_E_FRAME, e->malformed);
	/* the acceptor learns the peer's tid from DM_HELLO itself */
	if (hs->conf.tids && (auth || hs->conf.role == HS_CONNECTOR) &&
	    !tids_ok(hs, h))
		return fail(hs, HS_E_FRAME, "bad tid");
	struct wire_rd r;
	wire_rd_init(&r, payload, h->len);
	if (hs->conf.role == HS_ACCEPTOR)
		return auth ? accept_auth(hs, &r, out)
			    : accept_hello(hs, h, &r, out);
	return auth ? connect_auth(hs, &r) : connect_hello(hs, h, &r, out);
}

void hs_wipe(struct hs *hs)
{
	explicit_bzero(hs->key, sizeof hs->key);
	explicit_bzero(hs->secret, sizeof hs->secret);
}
