/*
 * fuzz_peer.c - the pvmd of fuzz_peer.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "api/fuzz_peer.h"
#include "proto/vmdir.h"
#include "proto/wire.h"
#include "pvm3.h"

static const uint8_t *recs;
static size_t nrecs;
static int armed, peer_fd = -1;
static pthread_t thr;
static int running;

void fzp_init(void)
{
	static int done;
	if (done++)
		return;
	static char dir[64];
	snprintf(dir, sizeof dir, "/dev/shm/pvmfuzzl.XXXXXX");
	if (!mkdtemp(dir))
		abort();
	setenv("PVM_TMP", dir, 1);
	char vmid[32], vm[600], err[600];
	snprintf(vmid, sizeof vmid, "fuzz%d", (int)getpid());
	setenv("PVM_VMID", vmid, 1);
	setenv("PVM_SHM", "0", 1);
	unsetenv("PVM_TRAN");
	if (vmdir_path(vm, sizeof vm) < 0 || vmdir_create(vm, err, sizeof err))
		abort();
}

/* Reads whole frames until a control request: its header in *h.  0, or
 * -1 on EOF or after 2 s of nothing. */
static int next_request(int fd, struct wire_hdr *h)
{
	for (;;) {
		uint8_t hb[WIRE_HDR_SIZE];
		size_t got = 0;
		while (got < sizeof hb) {
			struct pollfd p = {.fd = fd, .events = POLLIN};
			if (poll(&p, 1, 20) <= 0)
				return -1;
			ssize_t r = read(fd, hb + got, sizeof hb - got);
			if (r <= 0)
				return -1;
			got += (size_t)r;
		}
		if (wire_hdr_decode(hb, h, WIRE_MAX_FRAG) < 0)
			return -1;
		for (uint32_t left = h->len; left;) {
			uint8_t junk[4096];
			struct pollfd p = {.fd = fd, .events = POLLIN};
			if (poll(&p, 1, 20) <= 0)
				return -1;
			ssize_t r =
				read(fd, junk,
				     left < sizeof junk ? left : sizeof junk);
			if (r <= 0)
				return -1;
			left -= (uint32_t)r;
		}
		if (h->flags & WIRE_F_CTRL)
			return 0;
	}
}

static int put(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;
	while (n) {
		ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

static int frame(int fd, struct wire_hdr h, const uint8_t *p, size_t n)
{
	uint8_t hb[WIRE_HDR_SIZE];
	h.len = (uint32_t)n;
	h.total = n;
	h.flags |= WIRE_F_FIRST | WIRE_F_LAST;
	wire_hdr_encode(&h, hb);
	return put(fd, hb, sizeof hb) < 0 || put(fd, p, n) < 0 ? -1 : 0;
}

/* The answer to TM_CONNECT when the input gives none. */
static size_t connect_answer(uint8_t *buf, size_t max)
{
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, 0);	  /* status */
	wire_wr_i32(&w, 0x40001); /* tid */
	wire_wr_i32(&w, 0);	  /* parent */
	wire_wr_i32(&w, 0);	  /* flags */
	wire_wr_i32(&w, 0);	  /* context */
	wire_wr_i32(&w, 0x40000); /* the pvmd's tid */
	wire_wr_str(&w, "h1");
	wire_wr_str(&w, "LINUX64");
	wire_wr_i32(&w, 0);
	wire_wr_i32(&w, 0);
	wire_wr_i32(&w, 0);
	size_t n = w.len < max ? w.len : max;
	memcpy(buf, w.buf, n);
	wire_wr_free(&w);
	return n;
}

static void *play(void *arg)
{
	int fd = (int)(intptr_t)arg;
	const uint8_t *p = recs;
	size_t n = nrecs;
	int first = 1;
	while (n >= 3) {
		uint8_t kind = p[0];
		size_t len = (size_t)p[1] | (size_t)p[2] << 8;
		p += 3;
		n -= 3;
		if (len > n)
			len = n;
		int r = 0;
		struct wire_hdr h = {.dst = 0x40001, .src = 0x40000};
		switch (kind % 3) {
		case 0: {
			struct wire_hdr q;
			if (next_request(fd, &q) < 0)
				goto out;
			h.flags = WIRE_F_CTRL | WIRE_F_REPLY;
			h.tag = q.tag;
			h.wid = q.wid;
			if (first && !len) {
				uint8_t b[256];
				r = frame(fd, h, b,
					  connect_answer(b, sizeof b));
			} else {
				r = frame(fd, h, p, len);
			}
			first = 0;
			break;
		}
		case 1:
			r = put(fd, p, len);
			break;
		default:
			if (len < 8)
				break;
			h.tag = (int32_t)((uint32_t)p[0] << 24 | p[1] << 16 |
					  p[2] << 8 | p[3]);
			h.ctx = (int32_t)((uint32_t)p[4] << 24 | p[5] << 16 |
					  p[6] << 8 | p[7]);
			h.src = 0x40002;
			h.enc = PvmDataDefault;
			r = frame(fd, h, p + 8, len - 8);
			break;
		}
		if (r < 0)
			break;
		p += len;
		n -= len;
	}
out:
	shutdown(fd, SHUT_WR);
	/* what the library still writes, until it closes */
	uint8_t junk[4096];
	struct pollfd pf = {.fd = fd, .events = POLLIN};
	while (poll(&pf, 1, 20) > 0 && read(fd, junk, sizeof junk) > 0)
		;
	return NULL;
}

void fzp_start(const uint8_t *rec, size_t n)
{
	recs = rec;
	nrecs = n;
	armed = 1;
}

void fzp_finish(void)
{
	armed = 0;
	if (running) {
		pthread_join(thr, NULL);
		running = 0;
	}
	if (peer_fd >= 0)
		close(peer_fd);
	peer_fd = -1;
}

int __wrap_connect(int fd, const struct sockaddr *sa, socklen_t len);
int __wrap_connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	(void)len;
	int sv[2];
	if (!armed || running || sa->sa_family != AF_UNIX ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		errno = ECONNREFUSED;
		return -1;
	}
	if (dup3(sv[0], fd, O_CLOEXEC) < 0) {
		close(sv[0]);
		close(sv[1]);
		errno = ECONNREFUSED;
		return -1;
	}
	close(sv[0]);
	peer_fd = sv[1];
	if (pthread_create(&thr, NULL, play, (void *)(intptr_t)sv[1]) != 0)
		abort();
	running = 1;
	return 0;
}
