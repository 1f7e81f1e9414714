/*
 * handshake.h - the DM_HELLO / DM_AUTH challenge-response that opens every
 * TCP link between pvmds (docs/hosts.md, "Authentication") and every TCP
 * direct route between tasks (docs/protocol.md, "Between hosts: TCP"),
 * written once for pvmd/link.c and libpvm/tran/direct/direct_tcp.c.
 *
 * A state machine without I/O: the caller reads one frame, hands its
 * header and payload to hs_step, and sends the frame it gets back under a
 * header of its own (FIRST|LAST, its src, the peer's dst).  Nonces come
 * from a callback (auth_random unless told otherwise), so that a test can
 * fix them.
 *
 *   connector                                 acceptor
 *   hs_start: DM_HELLO i32 version, i32 id, bytes nc  ->
 *          <-  DM_HELLO reply i32 0, i32 id, bytes na, bytes mac_a
 *   checks mac_a: DM_AUTH bytes mac_c [, bytes wrapped]  ->
 *          <-  DM_AUTH reply i32 0                 (after checking mac_c)
 *
 * mac_a = auth_mac(key, "<who>-acceptor", nc, na), mac_c the same with
 * "<who>-connector".  who is "pvmd" or "task"; a link keyed with a start
 * ticket (docs/hosts.md, "Registered hoster") says "pvmd-ticket-acceptor"
 * and "pvmd-ticket-connector", and its DM_AUTH carries the VM secret too:
 * wrapped = secret ^ auth_mac(ticket, "pvmd-secret-wrap", nc, na).  An id
 * is a host number between pvmds, a tid between tasks.  An acceptor that
 * refuses a DM_HELLO answers i32 status alone (PvmBadVersion, or what its
 * key callback said) and closes.
 *
 * The two labels keep either side's MAC from being reflected as the
 * other's, and each side's fresh nonce keeps a recorded exchange from
 * being replayed.
 */
#ifndef PVM_HANDSHAKE_H
#define PVM_HANDSHAKE_H

#include <stddef.h>
#include <stdint.h>

#include "proto/auth.h"
#include "proto/wire.h"

/* Largest handshake payload: a larger frame is no handshake (the longest
 * there is, the acceptor's DM_HELLO reply, has 80 bytes). */
#define HS_PAYLOAD_MAX 128

enum hs_role { HS_CONNECTOR, HS_ACCEPTOR };

/* What hs_start and hs_step say.  Whenever out->tag is not 0, out is to
 * be sent first: a step, the acceptor's last answer, or a refusal. */
enum hs_result {
	HS_SEND,   /* send out, then wait for the peer's next frame */
	HS_DONE,   /* authenticated */
	HS_FAILED, /* hs->fail and hs->why say why: close the connection */
};

enum hs_fail {
	HS_E_NONE,
	HS_E_FRAME,   /* not the frame expected now, or malformed */
	HS_E_VERSION, /* the peer speaks another protocol version */
	HS_E_REFUSED, /* the acceptor refused us (hs->status), or the key
		       * callback refused the peer */
	HS_E_MAC,     /* the peer's MAC is wrong: it does not know the key */
	HS_E_RANDOM,  /* no random bytes for our nonce */
};

/* A frame to send; its header is the caller's. */
struct hs_msg {
	int32_t tag;	/* WIRE_DM_HELLO or WIRE_DM_AUTH; 0: nothing to send */
	uint16_t flags; /* WIRE_F_CTRL, with WIRE_F_REPLY on the acceptor's */
	uint32_t len;
	uint8_t payload[HS_PAYLOAD_MAX];
};

/* The key callback's answers; a negative PVM status refuses too, and an
 * acceptor tells the peer that status. */
#define HS_GO	0
#define HS_DROP 1 /* refused: close without a word */

struct hs;

struct hs_conf {
	enum hs_role role;
	const char *who; /* the labels' first word: "pvmd" or "task" */
	int32_t self;	 /* our id, as our DM_HELLO or its reply carries it */
	int32_t peer;	 /* connector: the id the acceptor must name */
	/* acceptor: a DM_HELLO that names an id outside is malformed (both
	 * 0: any id) */
	int32_t peer_min, peer_max;
	/* the ids are tids: every frame must come from the peer's tid and be
	 * addressed to ours (the acceptor checks its DM_HELLO's after the
	 * version) */
	int tids;
	/* Called once the peer has named itself (hs->peer) in a well-formed
	 * DM_HELLO of our version (acceptor) or in the acceptor's DM_HELLO
	 * reply (connector), before any MAC is made or checked.  It may set
	 * or change the key (hs_use_secret, hs_use_ticket) and returns HS_GO,
	 * or refuses: HS_DROP or a negative status, with hs->why set.  NULL:
	 * the key set before is used. */
	int (*key)(struct hs *hs, const struct wire_hdr *h);
	int (*random)(void *buf, size_t n); /* nonces; NULL: auth_random */
	void *arg;			    /* the caller's */
};

struct hs {
	struct hs_conf conf;
	int state; /* private to handshake.c */
	int keyed;
	int ticket;   /* keyed with a start ticket */
	int32_t peer; /* the peer's id, once known */
	enum hs_fail fail;
	int32_t status;	 /* the refusal's status, if it had one */
	const char *why; /* a failure in words */
	uint8_t key[AUTH_SECRET_LEN];
	/* a ticket's link: the VM secret the connector hands over, and
	 * (once HS_DONE) the one the acceptor received, for the caller to
	 * check and take */
	uint8_t secret[AUTH_SECRET_LEN];
	uint8_t nc[AUTH_NONCE_LEN], na[AUTH_NONCE_LEN];
};

/* A handshake in the role conf says; the acceptor waits for DM_HELLO,
 * the connector for hs_start. */
void hs_init(struct hs *hs, const struct hs_conf *conf);

/* Keys it with the VM secret (copied). */
void hs_use_secret(struct hs *hs, const uint8_t secret[AUTH_SECRET_LEN]);

/* Keys it with a start ticket (copied); the connector also names the VM
 * secret its DM_AUTH hands over, the acceptor passes NULL. */
void hs_use_ticket(struct hs *hs, const uint8_t ticket[AUTH_SECRET_LEN],
		   const uint8_t *secret);

/* The connector's DM_HELLO: HS_SEND, or HS_FAILED (no random bytes). */
enum hs_result hs_start(struct hs *hs, struct hs_msg *out);

/* Takes the peer's next frame (header h, h->len bytes at payload). */
enum hs_result hs_step(struct hs *hs, const struct wire_hdr *h,
		       const uint8_t *payload, struct hs_msg *out);

/* Wipes the key and secret it holds (also done when it fails, and the
 * key when it is done). */
void hs_wipe(struct hs *hs);

#endif /* PVM_HANDSHAKE_H */
