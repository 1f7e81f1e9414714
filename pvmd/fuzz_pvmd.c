/*
 * fuzz_pvmd.c - the in-process pvmd of the fuzz targets (fuzz_pvmd.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proto/vmdir.h"
#include "proto/wire.h"
#include "pvmd/flow.h"
#include "pvmd/fuzz_pvmd.h"
#include "pvmd/group.h"
#include "pvmd/host/host.h"
#include "pvmd/log.h"
#include "pvmd/spawn.h"
#include "pvmd/task.h"

jmp_buf fz_exit_jmp;
int fz_exit_armed;

/* the other ends of fz_conn's connections: what the pvmd writes to them
 * is read and dropped, and they are closed with the pvmd.  One poll of
 * all of them tells which have something (drain): a read of each per
 * turn cost more than the pvmd's work on most frames.  A peer the pvmd
 * has closed (end of file) is left out of the poll (fd -1). */
static int peers[64];
static struct pollfd pfds[64];
static size_t npeers;
/* the pvmd sent something (or tried to: a send that found no room waits
 * for a drain) since the last drain.  It writes to connections with
 * sendmsg only (conn.c), so without a send there is nothing to drain. */
static int sent;

/* ---- what would reach outside ---- */

int __wrap_kill(pid_t pid, int sig);
int __wrap_kill(pid_t pid, int sig)
{
	(void)pid;
	(void)sig;
	errno = ESRCH; /* nobody is there to signal */
	return -1;
}

int __wrap_clone(int (*fn)(void *), void *stack, int flags, void *arg, ...);
int __wrap_clone(int (*fn)(void *), void *stack, int flags, void *arg, ...)
{
	(void)fn;
	(void)stack;
	(void)flags;
	(void)arg;
	errno = EAGAIN;
	return -1;
}

pid_t __wrap_fork(void);
pid_t __wrap_fork(void)
{
	errno = EAGAIN;
	return -1;
}

int __wrap_execvp(const char *file, char *const argv[]);
int __wrap_execvp(const char *file, char *const argv[])
{
	(void)file;
	(void)argv;
	errno = ENOENT;
	return -1;
}

ssize_t __real_sendmsg(int fd, const struct msghdr *m, int flags);
ssize_t __wrap_sendmsg(int fd, const struct msghdr *m, int flags);
ssize_t __wrap_sendmsg(int fd, const struct msghdr *m, int flags)
{
	sent = 1;
	return __real_sendmsg(fd, m, flags);
}

/* The pvmd's clock (CLOCK_MONOTONIC, common/clock.h), which fz_later
 * moves on: while a pvmd made by fz_pvmd_new is there, and only then
 * (libFuzzer keeps its own time), it runs skew_ns ahead. */
static int64_t skew_ns;
static int skewing;

int __real_clock_gettime(clockid_t clk, struct timespec *ts);
int __wrap_clock_gettime(clockid_t clk, struct timespec *ts);
int __wrap_clock_gettime(clockid_t clk, struct timespec *ts)
{
	int r = __real_clock_gettime(clk, ts);
	if (r == 0 && skewing && clk == CLOCK_MONOTONIC) {
		int64_t ns = ts->tv_nsec + skew_ns % 1000000000;
		ts->tv_sec += (time_t)(skew_ns / 1000000000 + ns / 1000000000);
		ts->tv_nsec = (long)(ns % 1000000000);
	}
	return r;
}

void fz_later(struct pvmd *d, int ms, int steps)
{
	for (int i = 0; i < steps; i++) {
		skew_ns += (int64_t)ms * 1000000;
		fz_settle(d);
	}
}

void __real_exit(int status) __attribute__((noreturn));
void __wrap_exit(int status) __attribute__((noreturn));
void __wrap_exit(int status)
{
	if (fz_exit_armed) {
		fz_exit_armed = 0;
		longjmp(fz_exit_jmp, 1);
	}
	/* libFuzzer's own exit, or one the target did not expect (then
	 * the run ends, and libFuzzer reports it) */
	__real_exit(status);
}

/* main.c's: tells the process that started the pvmd it is up; this one
 * was started by nobody. */
void pvmd_started(void)
{
}

/* ---- the directory, made once per process ----
 * On tmpfs: the pvmd writes its secret and a few files for each input,
 * which on a disk's file system would cost more than the rest. */

static char topdir[64];

static void cleanup(void)
{
	if (!*topdir)
		return;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", topdir);
	if (system(cmd) != 0)
		fprintf(stderr, "fuzz: could not remove %s\n", topdir);
}

static void once(void)
{
	static int done;
	if (done++)
		return;
	snprintf(topdir, sizeof topdir, "/dev/shm/pvmfuzz.XXXXXX");
	if (!mkdtemp(topdir))
		abort();
	atexit(cleanup);
	setenv("PVM_TMP", topdir, 1);
	char vmid[32];
	snprintf(vmid, sizeof vmid, "fuzz%d", (int)getpid());
	setenv("PVM_VMID", vmid, 1);
	setenv("PVM_PATH", "/nonexistent", 1);
	unsetenv("PVM_ADDR");
	unsetenv("PVM_HOST_TIMEOUT");
	signal(SIGPIPE, SIG_IGN);
	log_set_debug(1); /* every line is formatted: so are its bugs */
	log_set_stderr(0);
	log_set_max(1 << 20);
	char path[128];
	snprintf(path, sizeof path, "%s/pvmd.log", topdir);
	if (log_open(path) < 0)
		abort();
}

static void before_sleep(struct loop *l, void *data)
{
	(void)l;
	conn_before_sleep(data);
}

void fz_pvmd_new(struct pvmd *d, int hostno)
{
	once();
	skewing = 1;
	pvmd_state_init(d);
	d->hosttid = wire_host_tid(hostno);
	snprintf(d->hostname, sizeof d->hostname, "h%d", hostno);
	snprintf(d->ip, sizeof d->ip, "127.0.0.1");
	char err[600];
	if (vmdir_path(d->dir, sizeof d->dir) < 0 ||
	    vmdir_create(d->dir, err, sizeof err) < 0)
		abort();
	d->loop = loop_new();
	if (!d->loop || host_layer_new(d) < 0 || spawn_init(d) < 0)
		abort();
	flow_init(d);
	/* as main.c: output is written, paused readers resumed and closed
	 * connections freed before the loop sleeps */
	loop_set_before_sleep(d->loop, before_sleep, d);
	if (hostno == 1) {
		if (host_init(d, 1, err, sizeof err) < 0)
			abort();
	} else {
		/* a slave: what its startup lines would have given */
		if (host_init(d, 0, err, sizeof err) < 0) {
			fprintf(stderr, "fuzz: %s\n", err);
			abort();
		}
	}
	gshm_open(d);
}

void fz_pvmd_free(struct pvmd *d)
{
	for (size_t i = 0; i < npeers; i++)
		close(peers[i]);
	npeers = 0;
	pvmd_state_free(d);
	loop_free(d->loop);
	d->loop = NULL;
	skewing = 0;
}

int fz_socket(int *peer)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
		       sv) < 0 ||
	    npeers == sizeof peers / sizeof *peers)
		abort();
	*peer = sv[1];
	pfds[npeers] = (struct pollfd){.fd = sv[1], .events = POLLIN};
	peers[npeers++] = sv[1];
	return sv[0];
}

struct conn *fz_conn(struct pvmd *d, enum conn_kind kind, int *peer)
{
	int fd = fz_socket(peer);
	struct conn *c =
		conn_new(d, fd, kind == CONN_TASK ? getpid() : 0, kind);
	if (!c)
		abort();
	return c;
}

/* 1 if it read anything */
static int drain(void)
{
	static char buf[65536]; /* not on the stack: ASan would poison it */
	int got = 0;
	sent = 0;
	if (poll(pfds, npeers, 0) <= 0)
		return 0;
	for (size_t i = 0; i < npeers; i++) {
		if (!pfds[i].revents)
			continue;
		ssize_t r;
		/* a short read took all there was (what came since waits
		 * for the next drain) */
		while ((r = read(peers[i], buf, sizeof buf)) == sizeof buf)
			got = 1;
		if (r > 0)
			got = 1;
		if (r == 0)
			pfds[i].fd = -1; /* the pvmd closed it */
	}
	return got;
}

void fz_settle(struct pvmd *d)
{
	/* bounded: a pvmd that keeps itself busy forever is a finding */
	for (int turns = 0; turns < 10000; turns++) {
		if (sent)
			drain();
		if (loop_run_once(d->loop, 0) <= 0) {
			/* idle: once more only if draining made room for what
			 * it could not write (else that turn would be this
			 * one again) */
			if (!sent || !drain() || loop_run_once(d->loop, 0) <= 0)
				return;
		}
	}
	fprintf(stderr, "fuzz: the pvmd never went idle\n");
	abort();
}

void fz_feed(struct pvmd *d, int peer, const void *p, size_t n)
{
	const uint8_t *b = p;
	int stuck = 0;
	while (n) {
		ssize_t w = write(peer, b, n);
		if (w < 0) {
			/* closed, or not read any more (flow control): the
			 * rest would wait in a real sender.  A settle runs
			 * the pvmd until it is idle, its other peers drained:
			 * if it has not read by then, more turns would not
			 * make it (a timer aside), so two are tried, not a
			 * hundred per frame. */
			if (errno != EAGAIN || ++stuck > 2)
				break;
			fz_settle(d);
			continue;
		}
		stuck = 0;
		b += w;
		n -= (size_t)w;
	}
	fz_settle(d);
}

void fz_frame(struct pvmd *d, int peer, struct wire_hdr h, const void *p,
	      size_t n)
{
	uint8_t hb[WIRE_HDR_SIZE];
	h.len = (uint32_t)n;
	if (h.flags & WIRE_F_FIRST)
		h.total = n;
	wire_hdr_encode(&h, hb);
	uint8_t *f = malloc(sizeof hb + n);
	if (!f)
		abort();
	memcpy(f, hb, sizeof hb);
	if (n)
		memcpy(f + sizeof hb, p, n);
	fz_feed(d, peer, f, sizeof hb + n);
	free(f);
}

int fz_task(struct pvmd *d, int *peer)
{
	struct conn *c = fz_conn(d, CONN_TASK, peer);
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, WIRE_VERSION);
	wire_wr_i32(&w, (int32_t)getpid());
	wire_wr_i32(&w, 0);
	wire_wr_str(&w, "fuzz");
	wire_wr_i32(&w, 0);
	struct wire_hdr h = {.flags = WIRE_F_CTRL | WIRE_F_FIRST | WIRE_F_LAST,
			     .dst = d->hosttid,
			     .tag = WIRE_TM_CONNECT,
			     .wid = 1};
	(void)c; /* the pvmd may have freed it: look the task up */
	int tid = d->hosttid | d->next_tid;
	fz_frame(d, *peer, h, w.buf, w.len);
	wire_wr_free(&w);
	return task_find(d, tid) ? tid : 0;
}
