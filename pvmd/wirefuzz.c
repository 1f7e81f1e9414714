/*
 * wirefuzz.c - sends malformed input to a running pvmd and checks that it
 * drops only the offending connection and keeps serving the others.
 *
 *   wirefuzz [iterations]      (uses PVM_TMP / PVM_VMID like every client)
 *
 * Prints one TAP line per check; exits 0 when all passed.  Built by
 * `make check` for the test suites (not installed).
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "proto/vmdir.h"
#include "proto/wire.h"
#include "pvm3.h"

/* The big-endian i32 at p (a reply's status word). */
static int32_t be32(const uint8_t *p)
{
	return (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
			 (uint32_t)p[2] << 8 | p[3]);
}

static int failures, checks;

static void check(int ok, const char *what)
{
	checks++;
	if (!ok)
		failures++;
	printf("%s %d - %s\n", ok ? "ok" : "not ok", checks, what);
	fflush(stdout);
}

static int dial(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (vmdir_file(sa.sun_path, sizeof sa.sun_path, VMDIR_SOCK) < 0)
		return -1;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static int put(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;
	while (n) {
		ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1; /* the pvmd may already have closed it */
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

static int frame(int fd, uint16_t flags, int dst, int src, int tag,
		 uint32_t wid, const void *p, size_t n, uint64_t total)
{
	struct wire_hdr h = {.len = (uint32_t)n,
			     .flags = flags,
			     .dst = dst,
			     .src = src,
			     .tag = tag,
			     .wid = wid,
			     .total = total};
	/* One write: the pvmd may close as soon as it has seen the header. */
	uint8_t *b = malloc(WIRE_HDR_SIZE + n);
	if (!b)
		return -1;
	wire_hdr_encode(&h, b);
	if (n)
		memcpy(b + WIRE_HDR_SIZE, p, n);
	int r = put(fd, b, WIRE_HDR_SIZE + n);
	free(b);
	return r;
}

static int ctrl(int fd, int src, int code, const struct wire_wr *w)
{
	return frame(fd, WIRE_F_FIRST | WIRE_F_LAST | WIRE_F_CTRL, 0x40000, src,
		     code, 1, w ? w->buf : NULL, w ? w->len : 0,
		     w ? w->len : 0);
}

/* Reads one frame within `ms`.  Returns 1, 0 on EOF, -1 on timeout. */
static int get(int fd, struct wire_hdr *h, uint8_t **payload, int ms)
{
	uint8_t hb[WIRE_HDR_SIZE];
	size_t got = 0, want = sizeof hb;
	uint8_t *dst = hb;
	*payload = NULL;
	for (int phase = 0; phase < 2; phase++) {
		while (got < want) {
			struct pollfd pf = {.fd = fd, .events = POLLIN};
			if (poll(&pf, 1, ms) <= 0)
				return -1;
			ssize_t r = read(fd, dst + got, want - got);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				return 0;
			got += (size_t)r;
		}
		if (phase == 0) {
			if (wire_hdr_decode(hb, h, WIRE_MAX_FRAG) < 0)
				return 0;
			*payload = malloc(h->len + 1);
			if (!*payload)
				return 0;
			dst = *payload;
			got = 0;
			want = h->len;
		}
	}
	return 1;
}

/* Waits until the pvmd closes the connection (skipping replies). */
static int closed_by_pvmd(int fd)
{
	for (;;) {
		struct wire_hdr h;
		uint8_t *p;
		int r = get(fd, &h, &p, 3000);
		free(p);
		if (r <= 0)
			return r == 0;
	}
}

static int enroll(int fd)
{
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, WIRE_VERSION);
	wire_wr_i32(&w, (int)getpid());
	wire_wr_i32(&w, 0);
	wire_wr_str(&w, "");
	int r = ctrl(fd, 0, WIRE_TM_CONNECT, &w);
	wire_wr_free(&w);
	struct wire_hdr h;
	uint8_t *p;
	if (r < 0 || get(fd, &h, &p, 3000) != 1)
		return -1;
	struct wire_rd rd;
	wire_rd_init(&rd, p, h.len);
	int st = wire_rd_i32(&rd), tid = wire_rd_i32(&rd);
	free(p);
	return rd.err || st < 0 ? -1 : tid;
}

/* One malformed input before enrollment: the pvmd must drop us. */
static void pre(const char *what, const void *bytes, size_t n)
{
	int fd = dial();
	check(fd >= 0 && put(fd, bytes, n) == 0 && closed_by_pvmd(fd), what);
	if (fd >= 0)
		close(fd);
}

static void hdr_bytes(uint8_t *out, uint32_t len, uint16_t flags, int tag,
		      uint64_t total)
{
	struct wire_hdr h = {.len = len,
			     .flags = flags,
			     .dst = 0x40000,
			     .tag = tag,
			     .wid = 1,
			     .total = total};
	wire_hdr_encode(&h, out);
}

static void pre_enroll_cases(void)
{
	uint8_t b[4096];
	for (size_t i = 0; i < sizeof b; i++)
		b[i] = (uint8_t)(i * 151 + 7);
	pre("garbage bytes", b, sizeof b);
	hdr_bytes(b, 0, 0x80, 1, 0);
	pre("unknown header flags", b, WIRE_HDR_SIZE);
	hdr_bytes(b, 0xffffffffu, 7, 1, 0xffffffffu);
	pre("length far over the limit", b, WIRE_HDR_SIZE);
	hdr_bytes(b, 4, WIRE_F_CTRL | WIRE_F_FIRST, 1, 4);
	pre("control frame without LAST", b, WIRE_HDR_SIZE + 4);
	hdr_bytes(b, 8, WIRE_F_FIRST, 1, 4);
	pre("total smaller than len", b, WIRE_HDR_SIZE + 8);
	hdr_bytes(b, 4, 7, WIRE_TM_CONNECT, 4);
	pre("TM_CONNECT too short", b, WIRE_HDR_SIZE + 4);
	hdr_bytes(b, 16, 7, WIRE_TM_CONNECT, 16);
	memset(b + WIRE_HDR_SIZE, 0, 12);
	memset(b + WIRE_HDR_SIZE + 12, 0x7f, 4);
	pre("TM_CONNECT string length past the end", b, WIRE_HDR_SIZE + 16);
	hdr_bytes(b, 4, WIRE_F_FIRST | WIRE_F_LAST, 5, 4);
	pre("data frame before TM_CONNECT", b, WIRE_HDR_SIZE + 4);
	hdr_bytes(b, 0, 7, WIRE_TM_TASKS, 0);
	pre("other request before TM_CONNECT", b, WIRE_HDR_SIZE);

	/* Bad version: a PvmBadVersion reply, then the close. */
	int fd = dial();
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, WIRE_VERSION + 100);
	wire_wr_i32(&w, (int)getpid());
	wire_wr_i32(&w, 0);
	wire_wr_str(&w, "");
	struct wire_hdr h;
	uint8_t *p = NULL;
	int ok = fd >= 0 && ctrl(fd, 0, WIRE_TM_CONNECT, &w) == 0 &&
		 get(fd, &h, &p, 3000) == 1 && h.len >= 4 &&
		 be32(p) == PvmBadVersion && closed_by_pvmd(fd);
	free(p);
	wire_wr_free(&w);
	check(ok, "wrong protocol version gets PvmBadVersion and a close");
	if (fd >= 0)
		close(fd);

	/* Peers that hang up in the middle. */
	fd = dial();
	check(fd >= 0 && put(fd, b, 17) == 0, "truncated header, then hang up");
	if (fd >= 0)
		close(fd);
	hdr_bytes(b, 100, 7, WIRE_TM_CONNECT, 100);
	fd = dial();
	check(fd >= 0 && put(fd, b, WIRE_HDR_SIZE + 10) == 0,
	      "truncated frame, then hang up");
	if (fd >= 0)
		close(fd);
}

/* One malformed input from an enrolled task: the pvmd must drop it. */
static void post(const char *what, uint16_t flags, int srcdelta, int dst,
		 int tag, const struct wire_wr *w, uint64_t total)
{
	int fd = dial(), tid = fd >= 0 ? enroll(fd) : -1;
	int ok = tid > 0 &&
		 frame(fd, flags, dst ? dst : 0x40000, tid + srcdelta, tag, 1,
		       w ? w->buf : NULL, w ? w->len : 0, total) == 0 &&
		 closed_by_pvmd(fd);
	check(ok, what);
	if (fd >= 0)
		close(fd);
}

static void enrolled_cases(void)
{
	const uint16_t C = WIRE_F_FIRST | WIRE_F_LAST | WIRE_F_CTRL;
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_str(&w, "prog");
	wire_wr_i32(&w, 0);
	wire_wr_str(&w, "");
	wire_wr_i32(&w, 1);
	wire_wr_i32(&w, 0);
	wire_wr_i32(&w, 0x7fffffff); /* argc */
	post("TM_SPAWN with an absurd argc", C, 0, 0, WIRE_TM_SPAWN, &w, w.len);
	wire_wr_free(&w);
	wire_wr_i32(&w, PvmTaskExit);
	wire_wr_i32(&w, 1);
	wire_wr_i32(&w, 0);
	wire_wr_i32(&w, -5);
	post("TM_NOTIFY with a negative count", C, 0, 0, WIRE_TM_NOTIFY, &w,
	     w.len);
	wire_wr_free(&w);
	wire_wr_i32(&w, 0);
	wire_wr_i32(&w, 0);
	post("TM_TASKS with trailing bytes", C, 0, 0, WIRE_TM_TASKS, &w, w.len);
	post("TM_CONFIG with a payload", C, 0, 0, WIRE_TM_CONFIG, &w, w.len);
	wire_wr_free(&w);
	wire_wr_str(&w, "grp");
	post("TM_GS_BARRIER without its count", C, 0, 0, WIRE_TM_GS_BARRIER, &w,
	     w.len);
	wire_wr_i32(&w, 1);
	wire_wr_i32(&w, 1);
	post("TM_GS_FREEZE with trailing bytes", C, 0, 0, WIRE_TM_GS_FREEZE, &w,
	     w.len);
	post("TM_GS_LIST with a payload", C, 0, 0, WIRE_TM_GS_LIST, &w, w.len);
	wire_wr_free(&w);
	wire_wr_i32(&w, 0x7ffffff0); /* string length */
	wire_wr_i32(&w, 0);
	post("TM_GS_JOIN with a string length past the end", C, 0, 0,
	     WIRE_TM_GS_JOIN, &w, w.len);
	wire_wr_free(&w);
	wire_wr_i32(&w, 42);
	post("data frame with another task's src", WIRE_F_FIRST | WIRE_F_LAST,
	     1, 0x40001, 1, &w, 4);
	post("continuation frame without a first one", WIRE_F_LAST, 0, 0x40001,
	     1, &w, 0);
	post("more bytes than the message's total", WIRE_F_FIRST, 0, 0x40001, 1,
	     &w, 2);
	wire_wr_free(&w);

	/* An unknown code is answered PvmNotImpl; the connection stays. */
	int fd = dial(), tid = fd >= 0 ? enroll(fd) : -1;
	struct wire_hdr h;
	uint8_t *p = NULL;
	int ok = tid > 0 && ctrl(fd, tid, 999, NULL) == 0 &&
		 get(fd, &h, &p, 3000) == 1 && h.len == 4 &&
		 be32(p) == PvmNotImpl;
	free(p);
	p = NULL;
	ok = ok && ctrl(fd, tid, WIRE_TM_CONFIG, NULL) == 0 &&
	     get(fd, &h, &p, 3000) == 1;
	free(p);
	check(ok, "unknown control code: PvmNotImpl, connection kept");
	if (fd >= 0)
		close(fd);
}

/* Random headers and payloads from enrolled tasks. */
static void random_cases(int n)
{
	unsigned seed = 12345;
	uint8_t buf[WIRE_HDR_SIZE + 256];
	for (int i = 0; i < n; i++) {
		int fd = dial(), tid = fd >= 0 ? enroll(fd) : -1;
		if (tid <= 0) {
			check(0, "enroll for a random frame");
			return;
		}
		for (size_t k = 0; k < sizeof buf; k++)
			buf[k] = (uint8_t)((seed = seed * 1103515245 + 12345) >>
					   16);
		size_t len = (seed >> 8) % 256;
		struct wire_hdr h;
		uint16_t fl = (uint16_t)((seed >> 3) % 9);
		int codes[] = {0,
			       WIRE_TM_SPAWN,
			       WIRE_TM_NOTIFY,
			       WIRE_TM_KILL,
			       WIRE_TM_TASKS,
			       WIRE_TM_CONTEXT,
			       77,
			       WIRE_TM_GS_JOIN,
			       WIRE_TM_GS_BARRIER,
			       WIRE_TM_GS_FREEZE};
		int ncodes = (int)(sizeof codes / sizeof *codes);
		h = (struct wire_hdr){
			.len = (uint32_t)len,
			.flags = fl,
			.dst = 0x40000,
			.src = (seed & 1) ? tid : tid + 1,
			.tag = codes[(seed >> 5) % ncodes],
			.wid = 1,
			.total = (seed & 2) ? len : len + (seed >> 20) % 3,
		};
		wire_hdr_encode(&h, buf);
		put(fd, buf, WIRE_HDR_SIZE + len);
		close(fd);
	}
	check(1, "random frames sent");
}

/* The virtual machine still works: two tasks exchange a message. */
static void still_works(void)
{
	int a = dial(), b = dial();
	int ta = a >= 0 ? enroll(a) : -1, tb = b >= 0 ? enroll(b) : -1;
	struct wire_hdr h;
	uint8_t *p = NULL;
	int ok = ta > 0 && tb > 0 &&
		 frame(a, WIRE_F_FIRST | WIRE_F_LAST, tb, ta, 9, 0, "ping", 4,
		       4) == 0 &&
		 get(b, &h, &p, 3000) == 1 && h.src == ta && h.tag == 9 &&
		 h.len == 4 && !memcmp(p, "ping", 4);
	free(p);
	check(ok, "after all that, tasks still enroll and exchange messages");
	if (a >= 0)
		close(a);
	if (b >= 0)
		close(b);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 200;
	int fd = dial();
	if (fd < 0) {
		fprintf(stderr,
			"wirefuzz: no pvmd answers (PVM_TMP/PVM_VMID?)\n");
		return 2;
	}
	close(fd);
	pre_enroll_cases();
	enrolled_cases();
	random_cases(n);
	still_works();
	printf("1..%d\n", checks);
	return failures ? 1 : 0;
}
