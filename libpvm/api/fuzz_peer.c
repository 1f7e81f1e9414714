/*
 * fuzz_peer.c - the pvmd of fuzz_peer.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <linux/sockios.h>

#include "api/fuzz_peer.h"
#include "msg/msg.h"
#include "proto/vmdir.h"
#include "proto/wire.h"
#include "pvm3.h"
#include "tran/conn.h"

static const uint8_t *recs;
static size_t nrecs;
static int armed, peer_fd = -1;
static int running;

/* The thread that plays the pvmd: made once and given one connection per
 * input (job), as a new thread for each cost more than most inputs (under
 * ASan: its stack mapped and its shadow cleared).  play() keeps nothing
 * from one connection to the next. */
static pthread_t thr;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int job = -1; /* the descriptor to play on, until taken */
static int busy;     /* a job given and not done */

/* The library asleep in ppoll with no timeout and nothing to write: it
 * waits for the pvmd (or a peer) and will send nothing more until then.
 * Set by the wrapper of ppoll (-Wl,--wrap=ppoll), which writes a byte to
 * the pipe wake so that the thread, waiting for a request, looks at once
 * instead of when its 20 ms are up. */
static atomic_int lib_asleep;
static int wake[2] = {-1, -1};

int __real_ppoll(struct pollfd *fds, nfds_t n, const struct timespec *tmo,
		 const sigset_t *sig);
int __wrap_ppoll(struct pollfd *fds, nfds_t n, const struct timespec *tmo,
		 const sigset_t *sig);
int __wrap_ppoll(struct pollfd *fds, nfds_t n, const struct timespec *tmo,
		 const sigset_t *sig)
{
	int watch = !tmo && wake[1] >= 0;
	for (nfds_t i = 0; watch && i < n; i++)
		if (fds[i].events & POLLOUT)
			watch = 0;
	if (watch) {
		atomic_store(&lib_asleep, 1);
		char b = 0;
		if (write(wake[1], &b, 1) < 0) {
			/* full: a byte is there already */
		}
	}
	int r = __real_ppoll(fds, n, tmo, sig);
	if (watch)
		atomic_store(&lib_asleep, 0);
	return r;
}

/* Waits until fd has something to read: 1, or 0 after 20 ms of nothing
 * or once nothing can come: the library has read all the thread wrote
 * (SIOCOUTQ 0), then is asleep, and fd is still empty (it writes what it
 * has before it sleeps).  That is when the 20 ms would end in any case,
 * only sooner.  In that order: a sleep seen after the library has read
 * everything began after that read, not before the thread's last write. */
static int wait_in(int fd)
{
	struct pollfd p[2] = {{.fd = fd, .events = POLLIN},
			      {.fd = wake[0], .events = POLLIN}};
	for (;;) {
		if (poll(p, 2, 20) <= 0)
			return 0;
		if (p[0].revents)
			return 1;
		char junk[64];
		while (read(wake[0], junk, sizeof junk) > 0)
			;
		int outq = 1;
		if (ioctl(fd, SIOCOUTQ, &outq) < 0 || outq > 0 ||
		    !atomic_load(&lib_asleep))
			continue;
		struct pollfd q = {.fd = fd, .events = POLLIN};
		return poll(&q, 1, 0) > 0;
	}
}

/* The fuzz run's PVM_TMP and its VM directory, removed at its exit
 * (libFuzzer ends with exit()); whatever the library left in the VM
 * directory goes with it. */
static char tmp_dir[64], vm_dir[600];

static void remove_dirs(void)
{
	vmdir_remove(vm_dir);
	rmdir(tmp_dir);
}

void fzp_init(void)
{
	static int done;
	if (done++)
		return;
	if (pipe2(wake, O_NONBLOCK | O_CLOEXEC) < 0)
		abort();
	snprintf(tmp_dir, sizeof tmp_dir, "/dev/shm/pvmfuzzl.XXXXXX");
	if (!mkdtemp(tmp_dir))
		abort();
	setenv("PVM_TMP", tmp_dir, 1);
	char vmid[32], vm[600], err[600];
	snprintf(vmid, sizeof vmid, "fuzz%d", (int)getpid());
	setenv("PVM_VMID", vmid, 1);
	setenv("PVM_SHM", "0", 1);
	unsetenv("PVM_TRAN");
	if (vmdir_path(vm, sizeof vm) < 0 || vmdir_create(vm, err, sizeof err))
		abort();
	snprintf(vm_dir, sizeof vm_dir, "%s", vm);
	atexit(remove_dirs);
}

/* Reads whole frames until a control request: its header in *h.  0, or
 * -1 on EOF or when nothing more comes (wait_in). */
static int next_request(int fd, struct wire_hdr *h)
{
	for (;;) {
		uint8_t hb[WIRE_HDR_SIZE];
		size_t got = 0;
		while (got < sizeof hb) {
			if (!wait_in(fd))
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
			if (!wait_in(fd))
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

static void *play(void *arg);

static void *worker(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_mutex_lock(&mu);
		while (job < 0)
			pthread_cond_wait(&cv, &mu);
		int fd = job;
		job = -1;
		pthread_mutex_unlock(&mu);
		play((void *)(intptr_t)fd);
		pthread_mutex_lock(&mu);
		busy = 0;
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&mu);
	}
	return NULL;
}

static void give(int fd)
{
	static int made;
	if (!made++ && pthread_create(&thr, NULL, worker, NULL) != 0)
		abort();
	pthread_mutex_lock(&mu);
	job = fd;
	busy = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
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
		pthread_mutex_lock(&mu);
		while (busy)
			pthread_cond_wait(&cv, &mu);
		pthread_mutex_unlock(&mu);
		running = 0;
	}
	if (peer_fd >= 0)
		close(peer_fd);
	peer_fd = -1;
	/* the connection pvm_exit closed is freed now, not by the next
	 * input: libFuzzer checks for a leak after each input */
	lp_conn_reap();
	/* Out of the machine, the library holds no message: pvm_exit drops
	 * what was queued, and so does an enrollment the pvmd refused
	 * (what came ahead of the refusal was for no task). */
	if (lp_rxq_head())
		__builtin_trap();
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
	give(sv[1]);
	running = 1;
	return 0;
}
