/*
 * main.c - pvmd startup, signals, halt and shutdown.
 *
 *   pvmd [-f] [-d debugmask] [hostfile]
 *
 * Without -f the pvmd detaches; the starting process exits 0 only once the
 * socket is listening, or 1 with the reason on stderr.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/rundelay.h"
#include "common/version.h"
#include "proto/shmseg.h"
#include "proto/vmdir.h"
#include "proto/wire.h"
#include "pvmd/conn.h"
#include "pvmd/flow.h"
#include "pvmd/group.h"
#include "pvmd/host/host.h"
#include "pvmd/log.h"
#include "pvmd/mbox.h"
#include "pvmd/notify.h"
#include "pvmd/output.h"
#include "pvmd/pvmd.h"
#include "pvmd/signals.h"
#include "pvmd/spawn.h"
#include "pvmd/startwait.h"
#include "pvmd/task.h"

#define TICK_MS	     1000
#define HANDSHAKE_MS 30000 /* a peer must enroll within this */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pvmd [-f] [-d debugmask] [-n hostname] [-s] [-S line...] [hostfile]\n"
		"  -f            stay in the foreground (log also to stderr)\n"
		"  -d debugmask  log debugging detail (any non-zero mask)\n"
		"  -n hostname   the name this host goes by, instead of gethostname()'s\n"
		"  -s            started by a master pvmd on another host: reads its\n"
		"                startup lines on stdin (docs/hosts.md)\n"
		"  -S line...    the same, the lines given as arguments (a start by a\n"
		"                registered hoster: a one-time ticket, no secret)\n"
		"  --version     print the version and exit\n"
		"  -h, --help    print this help and exit\n"
		"The console (pvm) and pvm_start_pvmd() start the pvmd; see pvmd(1).\n");
}

/* ---- startup failures are reported to the starting process ---- */

static int slave;     /* started by a master (-s): answers on stdout */
static int log_ready; /* pvmd.log is open */

static void startup_fail(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

static void startup_fail(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (log_ready)
		plog(PL_ERR, "%s", msg);
	if (startwait_open())
		startwait_verdict(msg);
	else
		fprintf(stderr, "pvmd: %s\n", msg);
	exit(1);
}

/* Forks; the parent waits for the child's verdict and exits with it,
 * showing the startup hostfile's progress (startwait.c). */
static void detach(void)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0) {
		perror("pvmd: pipe");
		exit(1);
	}
	pid_t pid = fork();
	if (pid < 0) {
		perror("pvmd: fork");
		exit(1);
	}
	if (pid > 0) {
		close(p[1]);
		startwait_parent(p[0], pid, slave); /* exits */
	}
	close(p[0]);
	startwait_child(p[1]);
	/* the waiting process's cancel (startwait.c), taken by the
	 * signalfd once there is one (signals.c) */
	sigset_t usr1;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	/* A process group of its own, so that the terminal's signals (^C,
	 * ^Z) do not reach it; SIGHUP is ignored (signals.c).  The master
	 * stays in the session it was started from, as the reference's pvmd
	 * does: with the kernel's autogroup scheduling (Debian's default) a
	 * session is one scheduling group, and the tasks it spawns must be in
	 * the same group as the program the user started from that shell.
	 * In a session of its own, all the spawned tasks together got as
	 * much CPU as that one program: a master in pvm_barrier with 15
	 * spawned members took 118 us a barrier instead of 75.  A slave, run
	 * by ssh, leaves the ssh session. */
	if (slave)
		setsid();
	else
		setpgid(0, 0);
}

static int started_foreground;

static void started(int foreground)
{
	startwait_verdict("ok");
	if (!foreground) {
		int null = open("/dev/null", O_RDWR);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
			if (null > 2)
				close(null);
		}
	}
}

void pvmd_started(void)
{
	started(started_foreground);
}

/* ---- the directory, lock and socket ---- */

static void remove_stale(struct pvmd *d)
{
	unlink(d->sockpath);
	unlink(d->pidpath);
	DIR *dir = opendir(d->dir);
	if (!dir)
		return;
	struct dirent *e;
	while ((e = readdir(dir))) {
		size_t n = strlen(e->d_name);
		if (e->d_name[0] == 't' && n > 6 &&
		    !strcmp(e->d_name + n - 5, ".sock"))
			unlinkat(dirfd(dir), e->d_name, 0);
	}
	closedir(dir);
}

static void take_lock(struct pvmd *d)
{
	d->lock_fd = open(d->lockpath,
			  O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (d->lock_fd < 0)
		startup_fail("cannot open %s: %s", d->lockpath,
			     strerror(errno));
	/* A pvmd started by a master waits a little: the one it replaces
	 * (the host was just deleted and added again) may still be
	 * stopping its tasks.  Any other tries a few times over 50 ms: a
	 * look at whether a pvmd runs (vmdir_pvmd_alive) holds the lock
	 * for an instant. */
	for (int tries = slave ? 30 : 5;
	     flock(d->lock_fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK &&
	     tries > 0;
	     tries--)
		usleep(slave ? 100000 : 10000);
	if (flock(d->lock_fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EWOULDBLOCK)
			startup_fail("pvmd already running");
		startup_fail("cannot lock %s: %s", d->lockpath,
			     strerror(errno));
	}
}

static void open_socket(struct pvmd *d)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(d->sockpath) >= sizeof sa.sun_path)
		startup_fail("socket path too long: %s", d->sockpath);
	strcpy(sa.sun_path, d->sockpath);

	d->listen_fd =
		socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (d->listen_fd < 0)
		startup_fail("socket: %s", strerror(errno));
	mode_t old = umask(077);
	int r = bind(d->listen_fd, (struct sockaddr *)&sa, sizeof sa);
	umask(old);
	if (r < 0)
		startup_fail("cannot bind %s: %s", d->sockpath,
			     strerror(errno));
	chmod(d->sockpath, 0600);
	/* A long backlog: many tasks may start at once (the kernel caps it
	 * at net.core.somaxconn). */
	if (listen(d->listen_fd, 4096) < 0)
		startup_fail("listen: %s", strerror(errno));
}

static void write_pidfile(struct pvmd *d)
{
	char line[32];
	snprintf(line, sizeof line, "%d\n", (int)getpid());
	if (vmdir_write_file(d->pidpath, line) < 0)
		startup_fail("cannot write %s: %s", d->pidpath,
			     strerror(errno));
}

static void remove_files(struct pvmd *d)
{
	remove_stale(d); /* socket, pid file, task sockets */
	/* The lock file and the log stay (unlinking a lock file others may
	 * have open invites races); the directory goes only if empty.  A
	 * transient machine's name is its own (pvmrun's): no other pvmd
	 * will take that lock, and nobody reads the log after it, so
	 * everything goes. */
	if (d->transient)
		vmdir_remove(d->dir);
	else
		rmdir(d->dir);
}

/* Housekeeping: drops peers that never enroll, and gives memory freed
 * after a burst of traffic back to the system now and then. */
static void tick_cb(struct loop *l, struct loop_timer *tm)
{
	struct pvmd *d = tm->data;
	conn_expire_handshakes(d, HANDSHAKE_MS);
	log_tick();
	output_resume(d);
	flow_resume(d);
	if (d->accept_paused && !d->halting) {
		d->accept_paused = 0;
		loop_io_set(l, &d->listen_io, LOOP_IN);
	}
	if (++d->ticks % 10 == 0)
		malloc_trim(0);
	loop_timer_start(l, tm, TICK_MS);
}

/* How long the loop polls after a turn with work before it sleeps:
 * a message it forwarded is often answered within microseconds, and a
 * pvmd that sleeps wakes 15-25 us late on a virtual machine (its idle
 * vCPU must wake).  Two namespace hosts, pingpong through the pvmds,
 * 8 bytes: 40.9 us a hop sleeping, 17.4 polling.  PVMD_SPIN_US sets it
 * (0: never). */
#define SPIN_US_DEFAULT 100
#define SPIN_US_MAX	10000
static int64_t spin_ns(void)
{
	const char *s = getenv("PVMD_SPIN_US");
	char *end;
	long us = s && *s ? strtol(s, &end, 10) : SPIN_US_DEFAULT;
	if (s && *s && (*end || us < 0))
		us = SPIN_US_DEFAULT;
	if (us > SPIN_US_MAX)
		us = SPIN_US_MAX;
	return (int64_t)us * 1000;
}

/* Not while others keep us waiting for a CPU: the poll would take it
 * from them (two CPU-bound programs beside an 8-byte pingpong through
 * the pvmd: it made 749 round trips in 3 s polling without this test,
 * 67498 sleeping).  A quarter, not libpvm's 5%: the tasks a pvmd wakes
 * delay it a little on every message, and at 5% a pingpong between two
 * hosts of one 2-CPU machine never polled. */
static int may_spin(int64_t now)
{
	return rundelay_loaded(now, 25) <= 0;
}

static void before_sleep(struct loop *l, void *data)
{
	(void)l;
	conn_before_sleep(data);
	output_links_drained(data);
}

/* ---- main ---- */

static void shutdown_pvmd(struct pvmd *d)
{
	pvmd_state_free(d);
	shmseg_remove_all(); /* inboxes of tasks (docs/shm.md) */
	remove_files(d);
	plog(PL_INFO, "pvmd exiting");
}

/* Takes the lock, opens the log and the socket, and tells the starting
 * process that the daemon is ready. */
static void start_daemon(struct pvmd *d, int foreground, const char *hostfile,
			 const char *name)
{
	take_lock(d);
	if (log_open(d->logpath) < 0)
		startup_fail("cannot open %s: %s", d->logpath, strerror(errno));
	log_ready = 1;
	flow_init(d);
	remove_stale(d);
	/* inboxes left by a crashed virtual machine of this uid and vmid:
	 * the lock says no other pvmd of ours runs */
	shmseg_remove_all();
	if (name)
		snprintf(d->hostname, sizeof d->hostname, "%s", name);
	else if (slave)
		; /* the name the master added us as */
	else if (gethostname(d->hostname, sizeof d->hostname - 1) < 0)
		strcpy(d->hostname, "localhost");
	/* One descriptor per task and per output pipe: allow as many as
	 * the hard limit does. */
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		d->child_nofile = rl.rlim_cur; /* children get the usual one */
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	d->loop = loop_new();
	if (!d->loop)
		startup_fail("epoll: %s", strerror(errno));
	if (pvmd_signals_init(d) < 0)
		startup_fail("signalfd: %s", strerror(errno));
	if (spawn_init(d) < 0)
		startup_fail("out of memory");
	open_socket(d);
	gshm_open(d);
	char herr[300];
	if (host_init(d, !slave, herr, sizeof herr) < 0)
		startup_fail("%s", herr);
	write_pidfile(d);
	if (loop_io_start(d->loop, &d->listen_io, d->listen_fd, LOOP_IN,
			  conn_accept_cb, d) < 0)
		startup_fail("epoll: %s", strerror(errno));
	loop_set_before_sleep(d->loop, before_sleep, d);
	loop_set_spin(d->loop, spin_ns(), may_spin);
	loop_timer_init(&d->tick, tick_cb, d);
	loop_timer_start(d->loop, &d->tick, TICK_MS);

	/* Children start in the home directory, as with the reference
	 * (or in the hostfile's wd= for this host). */
	const char *home = getenv("PVMD_SLAVE_WD");
	if (!home || !*home)
		home = getenv("HOME");
	if (!home || !*home || chdir(home) < 0) {
		plog(PL_ERR, "cannot chdir to $HOME (%s): working in /",
		     home ? home : "unset");
		if (chdir("/") < 0)
			startup_fail("cannot chdir to /: %s", strerror(errno));
	}

	plog(PL_INFO, "pvmd started: pid %d, host %s, arch %s, socket %s",
	     (int)getpid(), d->hostname, d->arch, d->sockpath);
	char primary[512];
	if (vmdir_primary(primary, sizeof primary) == 0 &&
	    strcmp(primary, d->dir))
		plog(PL_ERR,
		     "%s belongs to another user: this machine lives in %s "
		     "(docs/security.md)",
		     primary, d->dir);
	if (slave)
		plog(PL_INFO, "started by the master as host %d (%s)",
		     d->hosttid >> WIRE_TID_HOST_SHIFT, d->ip);
	/* With a hostfile, the starting process returns once its hosts are
	 * in the machine (or have failed, in the log): pvmd_started(). */
	started_foreground = foreground;
	char herr2[700];
	int pending =
		host_started(d, foreground, hostfile, herr2, sizeof herr2);
	if (pending < 0)
		startup_fail("%s", herr2);
	if (!pending)
		started(foreground);
}

int main(int argc, char **argv)
{
	int foreground = 0, debug = 0, opt;
	const char *name = NULL;

	/* run by ssh as the askpass program of a so=pw start (host.h) */
	pw_askpass_main(argc, argv);

	int from_args = 0;
	static const struct option longopts[] = {
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	while ((opt = getopt_long(argc, argv, "fd:n:hsS", longopts, NULL)) !=
	       -1) {
		switch (opt) {
		case 'V':
			fputs(PVM_VERSION_TEXT("pvmd"), stdout);
			return 0;
		case 's':
			slave = 1;
			break;
		case 'S':
			/* started through a registered hoster: the startup
			 * lines are the arguments (docs/hosts.md) */
			slave = from_args = 1;
			break;
		case 'n':
			/* man 1 pvmd3: a host name to use instead of
			 * gethostname()'s */
			if (!*optarg ||
			    strlen(optarg) >=
				    sizeof((struct pvmd *)0)->hostname) {
				fprintf(stderr, "pvmd: bad host name '%s'\n",
					optarg);
				return 2;
			}
			name = optarg;
			break;
		case 'f':
			foreground = 1;
			break;
		case 'd': {
			char *end;
			errno = 0;
			long v = strtol(optarg, &end, 0);
			if (errno || *end || v < 0 || v > 0x7fffffff) {
				fprintf(stderr, "pvmd: bad debug mask '%s'\n",
					optarg);
				return 2;
			}
			debug = (int)v;
			break;
		}
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind > 1 && !from_args) {
		usage(stderr);
		return 2;
	}
	const char *hostfile =
		optind < argc && !from_args ? argv[optind] : NULL;

	static struct pvmd pvmd;
	struct pvmd *d = &pvmd;
	pvmd_state_init(d);
	/* the master's; a slave learns it from its startup lines.  Not for
	 * the tasks: a pvmd one of them starts is another machine's. */
	const char *tr = getenv("PVMD_TRANSIENT");
	d->transient = !slave && tr && *tr && strcmp(tr, "0");
	unsetenv("PVMD_TRANSIENT");
	log_set_debug(debug);
	log_set_stderr(foreground);
	if (host_layer_new(d) < 0) {
		fprintf(stderr, "pvmd: out of memory\n");
		return 1;
	}
	if (slave) {
		if (hostfile) {
			printf("error a hostfile is for the master\n");
			return 1;
		}
		/* before the paths: it sets PVM_VMID */
		if (from_args) /* wipes the ticket from argv first */
			host_read_startup_args(d, argc - optind, argv + optind);
		else
			host_read_startup(d);
	}

	char err[600];
	if (vmdir_path(d->dir, sizeof d->dir) < 0 ||
	    vmdir_in(d->sockpath, sizeof d->sockpath, d->dir, VMDIR_SOCK) < 0 ||
	    vmdir_in(d->pidpath, sizeof d->pidpath, d->dir, VMDIR_PID) < 0 ||
	    vmdir_in(d->lockpath, sizeof d->lockpath, d->dir, VMDIR_LOCK) < 0 ||
	    vmdir_in(d->logpath, sizeof d->logpath, d->dir, VMDIR_LOG) < 0) {
		fprintf(stderr,
			"pvmd: bad PVM_VMID or PVM_TMP (VMID may hold letters, digits, '.', '_', '-')\n");
		return 1;
	}
	if (vmdir_create(d->dir, err, sizeof err) < 0) {
		fprintf(stderr, "pvmd: %s\n", err);
		return 1;
	}
	if (!foreground)
		detach();

	start_daemon(d, foreground, hostfile, name);

	if (loop_run(d->loop) < 0)
		plog(PL_ERR, "epoll_wait: %s", strerror(errno));
	shutdown_pvmd(d);
	return 0;
}
