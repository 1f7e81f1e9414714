/*
 * pt_run - jobs for pvmrun and the console's task-end lines (run.bats).
 *
 *   pt_run master WHAT...  spawns one "pt_run WHAT" worker per argument,
 *                          waits for each to send "done" or exit, then
 *                          exits 0 (the master itself never fails)
 *   pt_run ok              prints "ok from tX" and exits 0
 *   pt_run exit N          prints "exiting N" and exits with status N
 *   pt_run segv            prints "crashing" and dies of SIGSEGV
 *   pt_run leave N         pvm_exit() first, then exits with status N
 *   pt_run wait            prints "waiting" and sleeps until a signal
 *   pt_run trap            the same, but catches SIGINT and SIGTERM,
 *                          prints "caught SIGxxx" and exits 7
 *   pt_run where           prints "tX on HOST" (its host's name) and
 *                          exits 0: where it ran, to check the tags
 *   pt_run on HOST WHAT... on host HOST (its name) does WHAT, on the
 *                          others "ok" (run-hosts.bats)
 *   pt_run detach HOST     spawns "pt_run deaf" on HOST with its output
 *                          not sent to ours (pvmrun does not follow
 *                          it), waits until it ignores SIGTERM, prints
 *                          "detached tX on HOST" and exits 0
 *   pt_run deaf            ignores SIGTERM, tells its parent, sleeps
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pvm3.h"

#define TAG_EXIT  77
#define TAG_READY 78

static volatile sig_atomic_t caught;

static void on_signal(int sig)
{
	caught = sig;
}

static int master(int argc, char **argv)
{
	int n = argc - 2;
	int *tids = calloc((size_t)n + 1, sizeof *tids);
	if (!tids)
		return 1;
	for (int i = 0; i < n; i++) {
		char *args[3] = {argv[2 + i], NULL, NULL};
		char *sp = strchr(argv[2 + i], ' ');
		if (sp) {
			*sp = '\0';
			args[1] = sp + 1;
		}
		if (pvm_spawn("pt_run", args, PvmTaskDefault, "", 1,
			      &tids[i]) != 1) {
			printf("master: cannot spawn %s\n", args[0]);
			return 1;
		}
	}
	printf("master: %d workers\n", n);
	fflush(stdout);
	pvm_notify(PvmTaskExit, TAG_EXIT, n, tids);
	for (int i = 0; i < n; i++)
		pvm_recv(-1, TAG_EXIT);
	printf("master: all workers ended\n");
	pvm_exit();
	return 0;
}

/* A task pvmrun does not know: its output goes to its pvmd's log. */
static int detach(const char *host)
{
	int tid;
	char *args[2] = {"deaf", NULL};
	pvm_setopt(PvmOutputTid, 0);
	if (pvm_spawn("pt_run", args, PvmTaskHost, (char *)host, 1, &tid) !=
	    1) {
		printf("detach: cannot spawn on %s\n", host);
		return 1;
	}
	pvm_recv(tid, TAG_READY);
	printf("detached t%x on %s\n", (unsigned)tid, host);
	pvm_exit();
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		return 2;
	const char *what = argv[1];
	char host[256] = "?";
	gethostname(host, sizeof host - 1);
	if (!strcmp(what, "on") && argc > 3) {
		if (strcmp(host, argv[2]))
			argv[3] = "ok";
		argc -= 2;
		argv += 2;
		what = argv[1];
	}
	int mytid = pvm_mytid();
	if (!strcmp(what, "master"))
		return master(argc, argv);
	if (!strcmp(what, "ok")) {
		printf("ok from t%x\n", (unsigned)mytid);
		pvm_exit();
		return 0;
	}
	if (!strcmp(what, "detach") && argc > 2)
		return detach(argv[2]);
	if (!strcmp(what, "deaf")) {
		signal(SIGTERM, SIG_IGN);
		pvm_initsend(PvmDataDefault);
		pvm_send(pvm_parent(), TAG_READY);
		for (;;)
			pause();
	}
	if (!strcmp(what, "where")) {
		printf("t%x on %s\n", (unsigned)mytid, host);
		pvm_exit();
		return 0;
	}
	if (!strcmp(what, "exit") && argc > 2) {
		printf("exiting %s\n", argv[2]);
		pvm_exit();
		return atoi(argv[2]);
	}
	if (!strcmp(what, "leave") && argc > 2) {
		pvm_exit();
		usleep(300000); /* after its pvm_exit, its end comes later */
		return atoi(argv[2]);
	}
	if (!strcmp(what, "segv")) {
		printf("crashing\n");
		pvm_exit();
		raise(SIGSEGV);
		return 1;
	}
	if (!strcmp(what, "wait") || !strcmp(what, "trap")) {
		if (!strcmp(what, "trap")) {
			struct sigaction sa;
			memset(&sa, 0, sizeof sa);
			sa.sa_handler = on_signal;
			sigaction(SIGINT, &sa, NULL);
			sigaction(SIGTERM, &sa, NULL);
		}
		printf("waiting\n");
		while (!caught)
			pause();
		printf("caught SIG%s\n", caught == SIGINT ? "INT" : "TERM");
		pvm_exit();
		return 7;
	}
	return 2;
}
