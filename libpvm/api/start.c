/*
 * start.c - pvm_start_pvmd: starts the pvmd installed with this library
 * ($PVM_PVMD if set, else the compiled-in PVM_PVMD_PATH; never one found
 * through PVM_ROOT, which may name an old PVM installation).
 */
#define _GNU_SOURCE
#include "api.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proto/vmdir.h"

#ifndef PVM_PVMD_PATH
#define PVM_PVMD_PATH "pvmd"
#endif

#define START_TIMEOUT_MS 30000
#define START_POLL_MS	 10

/* Whether a pvmd of this user and PVM_VMID accepts connections now. */
static int pvmd_answers(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (vmdir_check() < 0 ||
	    vmdir_file(sa.sun_path, sizeof sa.sun_path, VMDIR_SOCK) < 0)
		return 0;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	int ok = connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
	close(fd);
	return ok;
}

static void no_op(int sig)
{
	(void)sig;
}

static void nap(int ms)
{
	struct timespec ts = {0, ms * 1000000L};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int wait_pvmd(pid_t pid, int foreground)
{
	for (int waited = 0; waited < START_TIMEOUT_MS;
	     waited += START_POLL_MS) {
		int st;
		pid_t w = waitpid(pid, &st, WNOHANG);
		if (w == pid)
			return WIFEXITED(st) && WEXITSTATUS(st) == 0 &&
					       pvmd_answers()
				       ? 0
				       : PvmCantStart;
		if (w < 0 && errno != EINTR)
			/* reaped elsewhere (SIGCHLD ignored...): just look */
			return pvmd_answers() ? 0 : PvmCantStart;
		if (foreground && pvmd_answers())
			return 0;
		nap(START_POLL_MS);
	}
	/* hosts still starting after all this time: the pvmd runs */
	return pvmd_answers() ? 0 : PvmCantStart;
}

static int wait_started(pid_t pid, int argc, char **argv);

/* why the last pvm_start_pvmd could not run the pvmd ("": nothing more
 * to say than its error code) */
static char start_why[600];

const char *lpvm_priv_start_why(void)
{
	return start_why[0] ? start_why : NULL;
}

/* Runs the pvmd with our arguments.  By default it detaches and its
 * first process exits 0 once the daemon is ready (1 if it cannot start);
 * a pvmd told to stay in the foreground (-f) is ready when it answers. */
static int run_pvmd(int argc, char **argv)
{
	start_why[0] = '\0';
	const char *path = getenv("PVM_PVMD");
	int from_env = path && *path;
	if (!from_env)
		path = PVM_PVMD_PATH;
	char **av = calloc((size_t)argc + 2, sizeof *av);
	if (!av)
		return PvmNoMem;
	av[0] = (char *)path;
	for (int i = 0; i < argc; i++)
		av[i + 1] = argv[i];

	/* the child's errno when it cannot run the pvmd comes back on a
	 * pipe that a successful exec closes */
	int ep[2];
	if (pipe2(ep, O_CLOEXEC) < 0) {
		free(av);
		return PvmCantStart;
	}
	pid_t pid = fork();
	if (pid < 0) {
		free(av);
		close(ep[0]);
		close(ep[1]);
		return PvmCantStart;
	}
	if (pid == 0) {
		close(ep[0]);
		int null = open("/dev/null", O_RDONLY);
		if (null > 0) {
			dup2(null, 0);
			close(null);
		}
		execv(path, av);
		int e = errno;
		if (write(ep[1], &e, sizeof e) < 0) {
			/* the parent then sees status 127 alone */
		}
		_exit(127);
	}
	free(av);
	close(ep[1]);
	int e = 0;
	ssize_t k;
	while ((k = read(ep[0], &e, sizeof e)) < 0 && errno == EINTR)
		;
	close(ep[0]);
	if (k == (ssize_t)sizeof e) {
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		snprintf(start_why, sizeof start_why,
			 "cannot run the pvmd %s%s: %s%s", path,
			 from_env ? " (PVM_PVMD)" : "", strerror(e),
			 from_env ? ""
				  : " (not installed? PVM_PVMD names another)");
		if (lp_autoerr)
			lp_stderr("libpvm [pid%d]: pvm_start_pvmd(): %s\n",
				  (int)getpid(), start_why);
		return PvmCantStart;
	}
	return wait_started(pid, argc, argv);
}

/* A pvmd that detaches exits once it is ready, its hostfile's hosts
 * added or reported (on the stderr we share): wait for that, so that the
 * caller goes on after the report.  One in the foreground (-f) stays our
 * child: its socket answering is the sign. */
static int wait_started(pid_t pid, int argc, char **argv)
{
	int foreground = 0;
	for (int i = 0; i < argc; i++) {
		/* the pvmd's options as its getopt reads them ("fd:n:hsS"):
		 * -d and -n take the rest of the word, or the next one */
		if (argv[i][0] != '-' || !strcmp(argv[i], "--"))
			continue;
		for (const char *o = argv[i] + 1; *o; o++) {
			if (*o == 'f')
				foreground = 1;
			if (*o == 'd' || *o == 'n') {
				i += !o[1];
				break;
			}
		}
	}
	/* Ctrl-C while the hostfile's hosts start is for the pvmd's first
	 * process, in our process group: it cancels the starts still
	 * pending, and the caller (the console) goes on with the hosts
	 * that did start, not killed by the same ^C.  Only if SIGINT would
	 * kill us: a caller's own handler or SIG_IGN stays. */
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = no_op;
	sigemptyset(&sa.sa_mask);
	int caught = !foreground && sigaction(SIGINT, NULL, &old) == 0 &&
		     old.sa_handler == SIG_DFL && !(old.sa_flags & SA_SIGINFO);
	if (caught)
		sigaction(SIGINT, &sa, NULL);
	int r = wait_pvmd(pid, foreground);
	if (caught)
		sigaction(SIGINT, &old, NULL);
	return r;
}

int pvm_start_pvmd(int argc, char **argv, int block)
{
	if (lp.enrolled || pvmd_answers())
		return lp_err("pvm_start_pvmd", PvmDupHost);
	if (argc < 0 || (argc > 0 && !argv))
		return lp_err("pvm_start_pvmd", PvmBadParam);
	for (int i = 0; i < argc; i++)
		if (!argv[i])
			return lp_err("pvm_start_pvmd", PvmBadParam);
	int r = run_pvmd(argc, argv);
	if (r < 0)
		return lp_err("pvm_start_pvmd", r);
	/* With block, return enrolled in the new machine (a one-host
	 * machine has no hosts to wait for). */
	if (block)
		return lp_api_enroll("pvm_start_pvmd");
	return 0;
}
