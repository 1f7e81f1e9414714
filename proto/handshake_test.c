/*
 * handshake_test.c - the DM_HELLO / DM_AUTH state machine (handshake.h)
 * with fixed nonces and keys: whole exchanges between tasks, between
 * pvmds and under a start ticket, checked byte for byte against payloads
 * whose MACs were computed apart from this code (python3's hmac module,
 * see below); then wrong keys, tampered, reflected and replayed MACs,
 * truncated, oversized and out-of-order frames, refusals.  Prints TAP.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "proto/auth.h"
#include "proto/handshake.h"
#include "pvm3.h"
#include "test/unit/tap.h"

/*
 * The vectors, from python3:
 *   S  = bytes(0x5a ^ i for i in range(32))                 the VM secret
 *   T  = bytes((0xc3 + 7 * i) & 0xff for i in range(32))    a start ticket
 *   NC = bytes(range(0x20, 0x40)); NA = bytes(range(0x80, 0xa0))
 *   mac(k, label) = hmac.new(k, label + NC + NA, hashlib.sha256).digest()
 *   labels: b"task-acceptor 80007 40005" (connector tid, acceptor tid in
 *   hex), b"pvmd-connector 1 2" (host numbers), b"pvmd-ticket-acceptor 1 2"
 *   wrapped = S ^ mac(T, b"pvmd-secret-wrap")
 */
#define NC_HEX                                                                 \
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
#define NA_HEX                                                                 \
	"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
#define TASK_ACC                                                               \
	"b7232fb98c7e9e8217cdb400172235a1be1d9146fd2a4ddfac7cdbef22351b01"
#define TASK_CON                                                               \
	"0961a0e47e534406c392461ef532696d4e12dc0a1df6be5156816f8576afa91b"
#define PVMD_ACC                                                               \
	"271f29de2a417f5aec0607c740c3fd52d338ec4acc8ff8b6bfac35e36c2c3100"
#define PVMD_CON                                                               \
	"dc21a1ca718e1c6306e52df57ce8001593b281c468ff8bcf283214381be7448e"
#define TICKET_ACC                                                             \
	"70bab31188ac24af0af4d5bea8ae4fc6988d78e7e6a6516930332ad7e94c1bda"
#define TICKET_CON                                                             \
	"fd23e96d2db8ce00d896bd6fd20f349a3512edfdda1801fa3306bccda49eab5a"
#define WRAPPED                                                                \
	"4984dd6d0b0ec5bbd9cf6b353f59b25581657acc40ce6a626d850687e099561e"
#define LEN32 "00000020"

/* the tasks' tids: the connector on host 2, the acceptor on host 1 */
#define TID_C ((2 << 18) | 7)
#define TID_A ((1 << 18) | 5)

static uint8_t S[AUTH_SECRET_LEN], T[AUTH_SECRET_LEN];
static uint8_t NC[AUTH_NONCE_LEN], NA[AUTH_NONCE_LEN];
static uint8_t next_na[AUTH_NONCE_LEN]; /* what the acceptor draws next */
static int no_random;

static int rand_nc(void *buf, size_t n)
{
	if (no_random)
		return -1;
	memcpy(buf, NC, n);
	return 0;
}

static int rand_na(void *buf, size_t n)
{
	if (no_random)
		return -1;
	memcpy(buf, next_na, n);
	return 0;
}

static void setup(void)
{
	for (int i = 0; i < 32; i++) {
		S[i] = (uint8_t)(0x5a ^ i);
		T[i] = (uint8_t)(0xc3 + 7 * i);
		NC[i] = (uint8_t)(0x20 + i);
		NA[i] = (uint8_t)(0x80 + i);
	}
	memcpy(next_na, NA, sizeof NA);
}

/* Does m carry exactly this payload (hex)? */
static int payload_is(const struct hs_msg *m, const char *hex)
{
	char got[2 * HS_PAYLOAD_MAX + 1];
	auth_hex(m->payload, m->len, got);
	if (strcmp(got, hex) != 0) {
		diag("got  %s", got);
		diag("want %s", hex);
		return 0;
	}
	return 1;
}

static int is_msg(const struct hs_msg *m, int32_t tag, uint16_t flags,
		  const char *hex)
{
	return m->tag == tag && m->flags == flags && payload_is(m, hex);
}

/* Hands m to `to` as the frame src sent to dst. */
static enum hs_result pass(struct hs *to, const struct hs_msg *m, int32_t src,
			   int32_t dst, struct hs_msg *out)
{
	struct wire_hdr h = {.len = m->len,
			     .flags = WIRE_F_FIRST | WIRE_F_LAST | m->flags,
			     .src = src,
			     .dst = dst,
			     .tag = m->tag,
			     .total = m->len};
	return hs_step(to, &h, m->payload, out);
}

static int zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* ---- configurations ---- */

static void task_pair(struct hs *con, struct hs *acc)
{
	struct hs_conf c = {.role = HS_CONNECTOR,
			    .who = "task",
			    .self = TID_C,
			    .peer = TID_A,
			    .tids = 1,
			    .random = rand_nc};
	struct hs_conf a = {.role = HS_ACCEPTOR,
			    .who = "task",
			    .self = TID_A,
			    .tids = 1,
			    .random = rand_na};
	hs_init(con, &c);
	hs_use_secret(con, S);
	hs_init(acc, &a);
	hs_use_secret(acc, S);
}

static int acc_ticket(struct hs *hs, const struct wire_hdr *h)
{
	(void)h;
	hs_use_ticket(hs, T, NULL);
	return HS_GO;
}

static int con_ticket(struct hs *hs, const struct wire_hdr *h)
{
	(void)h;
	hs_use_ticket(hs, T, S);
	return HS_GO;
}

static int refuse_syserr(struct hs *hs, const struct wire_hdr *h)
{
	(void)h;
	hs->why = "not now";
	return PvmSysErr;
}

static int refuse_drop(struct hs *hs, const struct wire_hdr *h)
{
	(void)h;
	hs->why = "not you";
	return HS_DROP;
}

/* pvmds: host 1 connects to host 2; keys from the callbacks if given. */
static void pvmd_pair(struct hs *con, struct hs *acc,
		      int (*ckey)(struct hs *, const struct wire_hdr *),
		      int (*akey)(struct hs *, const struct wire_hdr *))
{
	struct hs_conf c = {.role = HS_CONNECTOR,
			    .who = "pvmd",
			    .self = 1,
			    .peer = 2,
			    .key = ckey,
			    .random = rand_nc};
	struct hs_conf a = {.role = HS_ACCEPTOR,
			    .who = "pvmd",
			    .self = 2,
			    .peer_min = 1,
			    .peer_max = 4095,
			    .key = akey,
			    .random = rand_na};
	hs_init(con, &c);
	hs_init(acc, &a);
	if (!ckey)
		hs_use_secret(con, S);
	if (!akey)
		hs_use_secret(acc, S);
}

/* Runs a fresh pair until n frames are out: m[0] the connector's
 * DM_HELLO, m[1] the acceptor's reply, m[2] the DM_AUTH, m[3] its reply;
 * each handed on but the last, which its receiver waits for. */
static void run(struct hs *con, struct hs *acc, int n, struct hs_msg m[4])
{
	if (n > 0)
		hs_start(con, &m[0]);
	if (n > 1)
		pass(acc, &m[0], TID_C, TID_A, &m[1]);
	if (n > 2)
		pass(con, &m[1], TID_A, TID_C, &m[2]);
	if (n > 3)
		pass(acc, &m[2], TID_C, TID_A, &m[3]);
}

static void task_run(struct hs *con, struct hs *acc, int n, struct hs_msg m[4])
{
	task_pair(con, acc);
	run(con, acc, n, m);
}

/* Does `to` fail this way on frame f from its peer, sending nothing? */
static int refuses(struct hs *to, const struct hs_msg *f, enum hs_fail want)
{
	struct hs_msg out;
	enum hs_result r = to->conf.role == HS_ACCEPTOR
				   ? pass(to, f, TID_C, TID_A, &out)
				   : pass(to, f, TID_A, TID_C, &out);
	return r == HS_FAILED && to->fail == want && out.tag == 0;
}

/* ---- whole exchanges ---- */

static void test_task_exchange(void)
{
	struct hs con, acc;
	struct hs_msg m1, m2, m3, m4, m5;

	task_pair(&con, &acc);
	ok(hs_start(&con, &m1) == HS_SEND &&
		   is_msg(&m1, WIRE_DM_HELLO, WIRE_F_CTRL,
			  "00000003"
			  "00080007" LEN32 NC_HEX),
	   "task connector: DM_HELLO with version 3, its tid and nc");
	ok(pass(&acc, &m1, TID_C, TID_A, &m2) == HS_SEND && acc.peer == TID_C &&
		   is_msg(&m2, WIRE_DM_HELLO, WIRE_F_CTRL | WIRE_F_REPLY,
			  "00000000"
			  "00040005" LEN32 NA_HEX LEN32 TASK_ACC),
	   "task acceptor: DM_HELLO reply 0, its tid, na, HMAC(S, task-acceptor|nc|na)");
	ok(pass(&con, &m2, TID_A, TID_C, &m3) == HS_SEND &&
		   is_msg(&m3, WIRE_DM_AUTH, WIRE_F_CTRL, LEN32 TASK_CON),
	   "task connector: DM_AUTH with HMAC(S, task-connector|nc|na)");
	ok(pass(&acc, &m3, TID_C, TID_A, &m4) == HS_DONE &&
		   is_msg(&m4, WIRE_DM_AUTH, WIRE_F_CTRL | WIRE_F_REPLY,
			  "00000000"),
	   "task acceptor: done, DM_AUTH reply 0");
	ok(pass(&con, &m4, TID_A, TID_C, &m5) == HS_DONE && m5.tag == 0,
	   "task connector: done, nothing more to send");
	ok(zero(con.key, sizeof con.key) && zero(acc.key, sizeof acc.key),
	   "the keys are wiped once done");
	ok(pass(&acc, &m3, TID_C, TID_A, &m4) == HS_FAILED &&
		   acc.fail == HS_E_FRAME && m4.tag == 0,
	   "a frame after the handshake is refused");
}

static void test_pvmd_exchange(void)
{
	struct hs con, acc;
	struct hs_msg m1, m2, m3, m4, m5;

	pvmd_pair(&con, &acc, NULL, NULL);
	ok(hs_start(&con, &m1) == HS_SEND &&
		   is_msg(&m1, WIRE_DM_HELLO, WIRE_F_CTRL,
			  "00000003"
			  "00000001" LEN32 NC_HEX),
	   "pvmd connector: DM_HELLO with its host number");
	/* pvmds do not check the header's tids */
	ok(pass(&acc, &m1, 0x40000, 0, &m2) == HS_SEND && acc.peer == 1 &&
		   is_msg(&m2, WIRE_DM_HELLO, WIRE_F_CTRL | WIRE_F_REPLY,
			  "00000000"
			  "00000002" LEN32 NA_HEX LEN32 PVMD_ACC),
	   "pvmd acceptor: HMAC(S, pvmd-acceptor|nc|na)");
	ok(pass(&con, &m2, 0, 0, &m3) == HS_SEND &&
		   is_msg(&m3, WIRE_DM_AUTH, WIRE_F_CTRL, LEN32 PVMD_CON),
	   "pvmd connector: HMAC(S, pvmd-connector|nc|na)");
	ok(pass(&acc, &m3, 0, 0, &m4) == HS_DONE && !acc.ticket &&
		   is_msg(&m4, WIRE_DM_AUTH, WIRE_F_CTRL | WIRE_F_REPLY,
			  "00000000"),
	   "pvmd acceptor: done");
	ok(pass(&con, &m4, 0, 0, &m5) == HS_DONE && m5.tag == 0,
	   "pvmd connector: done");
}

static void test_ticket_exchange(void)
{
	struct hs con, acc;
	struct hs_msg m1, m2, m3, m4, m5, m[4];

	pvmd_pair(&con, &acc, con_ticket, acc_ticket);
	hs_start(&con, &m1);
	ok(pass(&acc, &m1, 0, 0, &m2) == HS_SEND && acc.ticket &&
		   is_msg(&m2, WIRE_DM_HELLO, WIRE_F_CTRL | WIRE_F_REPLY,
			  "00000000"
			  "00000002" LEN32 NA_HEX LEN32 TICKET_ACC),
	   "ticket acceptor: HMAC(T, pvmd-ticket-acceptor|nc|na)");
	ok(pass(&con, &m2, 0, 0, &m3) == HS_SEND &&
		   is_msg(&m3, WIRE_DM_AUTH, WIRE_F_CTRL,
			  LEN32 TICKET_CON LEN32 WRAPPED),
	   "ticket connector: DM_AUTH carries its MAC and S ^ HMAC(T, pvmd-secret-wrap|nc|na)");
	ok(pass(&acc, &m3, 0, 0, &m4) == HS_DONE &&
		   memcmp(acc.secret, S, sizeof S) == 0 &&
		   is_msg(&m4, WIRE_DM_AUTH, WIRE_F_CTRL | WIRE_F_REPLY,
			  "00000000"),
	   "ticket acceptor: done, with the secret unwrapped");
	ok(pass(&con, &m4, 0, 0, &m5) == HS_DONE &&
		   zero(con.secret, sizeof con.secret),
	   "ticket connector: done, its copy of the secret wiped");
	hs_wipe(&acc);
	ok(zero(acc.secret, sizeof acc.secret),
	   "hs_wipe wipes the secret received");

	/* the wrapped secret is covered by nothing but the ticket: a DM_AUTH
	 * with the MAC but without it is malformed */
	pvmd_pair(&con, &acc, con_ticket, acc_ticket);
	run(&con, &acc, 3, m);
	m[2].len -= 36;
	ok(refuses(&acc, &m[2], HS_E_FRAME),
	   "ticket acceptor: a DM_AUTH without the wrapped secret is refused");
	/* a connector keyed with the secret at a ticket acceptor */
	pvmd_pair(&con, &acc, NULL, acc_ticket);
	run(&con, &acc, 2, m);
	ok(refuses(&con, &m[1], HS_E_MAC),
	   "a connector with the secret refuses a ticket acceptor's MAC");
}

/* ---- wrong keys, tampering, reflection, replay ---- */

static void test_wrong_key(void)
{
	struct hs con, acc;
	struct hs_msg m[4];
	uint8_t other[AUTH_SECRET_LEN], mc[AUTH_MAC_LEN];

	memcpy(other, S, sizeof other);
	other[31] ^= 1;
	task_pair(&con, &acc);
	hs_use_secret(&acc, other);
	run(&con, &acc, 2, m);
	ok(refuses(&con, &m[1], HS_E_MAC) &&
		   strcmp(con.why, "wrong secret") == 0,
	   "connector: an acceptor with another secret is refused: \"wrong secret\"");
	ok(zero(con.key, sizeof con.key), "the key is wiped on failure");

	/* the acceptor, facing a connector that has another secret */
	task_run(&con, &acc, 3, m);
	auth_mac(other, "task-connector 80007 40005", NC, NA, mc);
	memcpy(m[2].payload + 4, mc, sizeof mc);
	ok(refuses(&acc, &m[2], HS_E_MAC),
	   "acceptor: a connector with another secret is refused, unanswered");
}

static void test_tampered(void)
{
	struct hs con, acc;
	struct hs_msg m[4];

	for (int at = 0; at < AUTH_MAC_LEN; at += 31) {
		task_run(&con, &acc, 2, m);
		m[1].payload[m[1].len - AUTH_MAC_LEN + at] ^= 0x10;
		ok(refuses(&con, &m[1], HS_E_MAC),
		   "connector: mac_a with byte %d changed is refused", at);
		task_run(&con, &acc, 3, m);
		m[2].payload[4 + at] ^= 0x10;
		ok(refuses(&acc, &m[2], HS_E_MAC),
		   "acceptor: mac_c with byte %d changed is refused, unanswered",
		   at);
	}
	/* the nonce the MAC covers, changed on the way */
	task_run(&con, &acc, 2, m);
	m[1].payload[12] ^= 1;
	ok(refuses(&con, &m[1], HS_E_MAC),
	   "connector: na changed on the way is refused");
	/* the host number a DM_HELLO claims, changed on the way (2 for
	 * 1): the acceptor takes it, but the MACs prove the numbers each
	 * side named, so the connector refuses the acceptor's reply
	 * (found by proto/handshake_fuzz) */
	struct hs_msg out;
	pvmd_pair(&con, &acc, NULL, NULL);
	hs_start(&con, &m[0]);
	m[0].payload[7] ^= 3;
	struct wire_hdr h = {.len = m[0].len,
			     .flags = WIRE_F_FIRST | WIRE_F_LAST | m[0].flags,
			     .tag = m[0].tag,
			     .total = m[0].len};
	ok(hs_step(&acc, &h, m[0].payload, &m[1]) == HS_SEND && acc.peer == 2,
	   "acceptor: a DM_HELLO whose host number was changed is answered");
	h.len = h.total = m[1].len;
	h.flags = WIRE_F_FIRST | WIRE_F_LAST | m[1].flags;
	ok(hs_step(&con, &h, m[1].payload, &out) == HS_FAILED &&
		   con.fail == HS_E_MAC,
	   "connector: the answer to a changed host number is refused");
}

static void test_reflect_replay(void)
{
	struct hs con, acc;
	struct hs_msg m[4], old[4];

	/* mac_a sent back as mac_c: the labels differ */
	task_run(&con, &acc, 3, m);
	memcpy(m[2].payload, m[1].payload + m[1].len - 36, 36);
	ok(refuses(&acc, &m[2], HS_E_MAC),
	   "acceptor: its own MAC reflected as DM_AUTH is refused");

	/* a DM_AUTH recorded from one exchange, replayed in the next: the
	 * acceptor's fresh nonce makes it worthless */
	task_run(&con, &acc, 3, old);
	next_na[0] ^= 0xff;
	task_run(&con, &acc, 2, m);
	next_na[0] ^= 0xff;
	ok(refuses(&acc, &old[2], HS_E_MAC),
	   "acceptor: a DM_AUTH replayed from an earlier exchange is refused");

	/* a DM_HELLO reply recorded earlier, played to a connector that
	 * sent another nonce */
	NC[0] ^= 0xff;
	task_run(&con, &acc, 1, m);
	NC[0] ^= 0xff;
	ok(refuses(&con, &old[1], HS_E_MAC),
	   "connector: a DM_HELLO reply replayed from an earlier exchange is refused");
}

/* ---- malformed and out-of-order frames ---- */

static void test_malformed(void)
{
	static const char *const name[4] = {"DM_HELLO", "DM_HELLO reply",
					    "DM_AUTH", "DM_AUTH reply"};
	struct hs con, acc;
	struct hs_msg m[4];

	for (int i = 0; i < 4; i++) {
		struct hs *to = i % 2 ? &con : &acc;
		task_run(&con, &acc, i + 1, m);
		m[i].len--;
		ok(refuses(to, &m[i], HS_E_FRAME), "a truncated %s is refused",
		   name[i]);
		task_run(&con, &acc, i + 1, m);
		m[i].payload[m[i].len++] = 0;
		ok(refuses(to, &m[i], HS_E_FRAME),
		   "a %s with a byte too many is refused", name[i]);
	}
	task_run(&con, &acc, 1, m);
	m[0].payload[11] =
		31; /* a nonce of 31 bytes, then one byte left over */
	ok(refuses(&acc, &m[0], HS_E_FRAME), "a nonce of 31 bytes is refused");
	task_run(&con, &acc, 1, m);
	m[0].len = HS_PAYLOAD_MAX + 1;
	ok(refuses(&acc, &m[0], HS_E_FRAME),
	   "a DM_HELLO over %d bytes is refused", HS_PAYLOAD_MAX);
	task_run(&con, &acc, 1, m);
	m[0].len = 0;
	ok(refuses(&acc, &m[0], HS_E_FRAME), "an empty DM_HELLO is refused");

	/* pvmds: host numbers out of range are malformed */
	pvmd_pair(&con, &acc, NULL, NULL);
	run(&con, &acc, 1, m);
	memcpy(m[0].payload + 4, "\0\0\0\0", 4);
	ok(refuses(&acc, &m[0], HS_E_FRAME),
	   "pvmd acceptor: host number 0 is refused");
	pvmd_pair(&con, &acc, NULL, NULL);
	memcpy(m[0].payload + 4, "\0\0\x10\0", 4);
	ok(refuses(&acc, &m[0], HS_E_FRAME),
	   "pvmd acceptor: host number 4096 is refused");
}

static void test_order(void)
{
	struct hs con, acc;
	struct hs_msg m[4], f[4];

	task_run(&con, &acc, 4, f); /* one frame of each kind */
	task_pair(&con, &acc);
	ok(refuses(&acc, &f[2], HS_E_FRAME),
	   "acceptor: DM_AUTH before DM_HELLO is refused");
	task_pair(&con, &acc);
	ok(refuses(&acc, &f[1], HS_E_FRAME),
	   "acceptor: a DM_HELLO reply instead of DM_HELLO is refused");
	task_pair(&con, &acc);
	ok(refuses(&con, &f[1], HS_E_FRAME),
	   "connector: a frame before its DM_HELLO is refused");
	task_run(&con, &acc, 1, m);
	ok(refuses(&con, &f[3], HS_E_FRAME),
	   "connector: the DM_AUTH reply before the DM_HELLO reply is refused");
	task_run(&con, &acc, 1, m);
	ok(refuses(&con, &m[0], HS_E_FRAME),
	   "connector: its own DM_HELLO reflected back is refused");
	task_run(&con, &acc, 2, m);
	ok(refuses(&acc, &m[0], HS_E_FRAME),
	   "acceptor: a second DM_HELLO is refused");
	task_run(&con, &acc, 1, m);
	m[0].flags = 0;
	ok(refuses(&acc, &m[0], HS_E_FRAME),
	   "acceptor: a data frame instead of DM_HELLO is refused");
	task_pair(&con, &acc);
	ok(hs_start(&acc, &m[0]) == HS_FAILED && m[0].tag == 0,
	   "an acceptor cannot start");
	task_run(&con, &acc, 1, m);
	ok(hs_start(&con, &m[0]) == HS_FAILED, "a connector starts once");
}

/* ---- refusals ---- */

static void test_refusals(void)
{
	struct hs con, acc;
	struct hs_msg m[4], out;

	task_run(&con, &acc, 1, m);
	m[0].payload[3] = 1; /* version 1 */
	ok(pass(&acc, &m[0], TID_C, TID_A, &out) == HS_FAILED &&
		   acc.fail == HS_E_VERSION &&
		   is_msg(&out, WIRE_DM_HELLO, WIRE_F_CTRL | WIRE_F_REPLY,
			  "ffffffe6"),
	   "acceptor: another version is answered PvmBadVersion and refused");
	ok(refuses(&con, &out, HS_E_VERSION) && con.status == PvmBadVersion,
	   "connector: PvmBadVersion is a version mismatch");

	/* tids: each frame from the tid DM_HELLO names, to the other */
	task_run(&con, &acc, 1, m);
	ok(pass(&acc, &m[0], TID_C, TID_A + 1, &out) == HS_FAILED &&
		   acc.fail == HS_E_FRAME && out.tag == 0 &&
		   strcmp(acc.why, "bad tid") == 0,
	   "acceptor: a DM_HELLO for another tid is refused unanswered");
	task_run(&con, &acc, 1, m);
	ok(pass(&acc, &m[0], TID_C + 1, TID_A, &out) == HS_FAILED &&
		   acc.fail == HS_E_FRAME,
	   "acceptor: a DM_HELLO whose src is not the tid it names is refused");
	task_run(&con, &acc, 2, m);
	ok(pass(&con, &m[1], TID_A + 1, TID_C, &out) == HS_FAILED &&
		   con.fail == HS_E_FRAME,
	   "connector: a DM_HELLO reply from another tid is refused");
	task_run(&con, &acc, 3, m);
	ok(pass(&acc, &m[2], TID_C, TID_A + 1, &out) == HS_FAILED &&
		   acc.fail == HS_E_FRAME,
	   "acceptor: a DM_AUTH for another tid is refused");
	task_run(&con, &acc, 2, m);
	m[1].payload[7] ^= 1;
	ok(refuses(&con, &m[1], HS_E_FRAME),
	   "connector: a DM_HELLO reply naming another tid is refused");

	/* the key callback's refusals */
	pvmd_pair(&con, &acc, NULL, refuse_syserr);
	run(&con, &acc, 2, m);
	ok(acc.fail == HS_E_REFUSED && strcmp(acc.why, "not now") == 0 &&
		   is_msg(&m[1], WIRE_DM_HELLO, WIRE_F_CTRL | WIRE_F_REPLY,
			  "fffffff2"),
	   "acceptor: a refusal with a status is answered with it");
	ok(refuses(&con, &m[1], HS_E_REFUSED) && con.status == PvmSysErr,
	   "connector: the acceptor's refusal ends it");
	pvmd_pair(&con, &acc, NULL, refuse_drop);
	run(&con, &acc, 1, m);
	ok(refuses(&acc, &m[0], HS_E_REFUSED) &&
		   strcmp(acc.why, "not you") == 0,
	   "acceptor: HS_DROP refuses without a word");
	pvmd_pair(&con, &acc, refuse_drop, NULL);
	run(&con, &acc, 2, m);
	ok(refuses(&con, &m[1], HS_E_REFUSED),
	   "connector: its key callback may refuse the acceptor");

	/* no key at all */
	struct hs_conf a = {.role = HS_ACCEPTOR,
			    .who = "task",
			    .self = TID_A,
			    .random = rand_na};
	task_run(&con, &acc, 1, m);
	hs_init(&acc, &a);
	ok(refuses(&acc, &m[0], HS_E_REFUSED),
	   "an acceptor without a key refuses");

	/* no random bytes */
	task_pair(&con, &acc);
	no_random = 1;
	ok(hs_start(&con, &m[0]) == HS_FAILED && con.fail == HS_E_RANDOM &&
		   m[0].tag == 0,
	   "connector: no random bytes, no DM_HELLO");
	no_random = 0;
	task_run(&con, &acc, 1, m);
	no_random = 1;
	ok(refuses(&acc, &m[0], HS_E_RANDOM),
	   "acceptor: no random bytes, no answer");
	no_random = 0;
}

int main(void)
{
	setup();
	test_task_exchange();
	test_pvmd_exchange();
	test_ticket_exchange();
	test_wrong_key();
	test_tampered();
	test_reflect_replay();
	test_malformed();
	test_order();
	test_refusals();
	return tap_done();
}
