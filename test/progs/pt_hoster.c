/*
 * pt_hoster.c - a hoster task as man 3 pvm_reg_hoster describes one, for
 * hosts-hoster.bats, and the C-level checks of pvm_reg_hoster,
 * pvm_getmwid and pvm_setmwid.
 *
 *   pt_hoster serve LOG [MODE]   registers, then serves SM_STHOST: runs
 *       each command as `$PVM_RSH login command` (default ssh), reads the
 *       one line the new pvmd prints (20 s at most) and answers it in
 *       SM_STHOSTACK with the request's wait id.  Writes "registered" to
 *       LOG, then per host "cmd <command>" and "answer <line>".
 *       MODE: "run" (default); "reply=NAME" answers NAME (an error name)
 *       without running anything; "exit" leaves without answering;
 *       "mute" stays and never answers; "junk" answers a malformed body
 *       (a string length past the end of the message).
 *   pt_hoster check              argument checks (prints the checks)
 *   pt_hoster reg                registers, prints "reg <cc>", waits on
 *                                stdin (EOF: exits)
 *   pt_hoster add HOST...        pvm_addhosts; prints "add HOST <info>"
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pvm3.h"
#include "pvmsdpro.h"
#include "tcommon.h"

static FILE *logf_;

static void logline(const char *what, const char *s)
{
	fprintf(logf_, "%s %s\n", what, s);
	fflush(logf_);
}

/* Runs `rsh login cmd`, returns its first line of output in line (or an
 * error name). */
static void run_one(const char *login, const char *cmd, char *line, size_t n)
{
	const char *rsh = getenv("PVM_RSH");
	int out[2];
	snprintf(line, n, "PvmCantStart");
	if (pipe(out) < 0)
		return;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(out[1], 1);
		close(out[0]);
		close(out[1]);
		int nul = open("/dev/null", 0);
		if (nul >= 0)
			dup2(nul, 0);
		execlp(rsh && *rsh ? rsh : "ssh", rsh && *rsh ? rsh : "ssh",
		       login, cmd, (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	if (pid < 0) {
		close(out[0]);
		return;
	}
	size_t k = 0;
	char buf[1024];
	time_t end = time(NULL) + 20;
	while (k < sizeof buf - 1 && time(NULL) < end) {
		struct pollfd p = {.fd = out[0], .events = POLLIN};
		if (poll(&p, 1, 500) <= 0)
			continue;
		ssize_t r = read(out[0], buf + k, 1);
		if (r <= 0)
			break;
		if (buf[k] == '\n')
			break;
		k++;
	}
	buf[k] = 0;
	close(out[0]);
	if (k)
		snprintf(line, n, "%s", buf);
	/* the pvmd detaches and the session ends; never wait long */
	for (int i = 0; i < 50 && waitpid(pid, NULL, WNOHANG) == 0; i++)
		usleep(100000);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, WNOHANG);
}

static int serve(const char *logpath, const char *mode)
{
	logf_ = fopen(logpath, "a");
	if (!logf_)
		return 2;
	if (pvm_mytid() < 0)
		return 2;
	pvm_setopt(PvmResvTids, 1);
	int cc = pvm_reg_hoster();
	if (cc < 0) {
		fprintf(logf_, "reg %d\n", cc);
		return 1;
	}
	logline("registered", "");
	for (;;) {
		int bufid = pvm_recv(-1, SM_STHOST);
		if (bufid < 0)
			return 1;
		int wid = pvm_getmwid(bufid), src = 0, nhosts = 0;
		pvm_bufinfo(bufid, NULL, NULL, &src);
		pvm_upkint(&nhosts, 1, 1);
		if (nhosts < 1 || nhosts > 100)
			return 1;
		int tids[100];
		static char opts[100][64], login[100][256], cmd[100][8192],
			answer[100][1100];
		for (int i = 0; i < nhosts; i++) {
			pvm_upkint(&tids[i], 1, 1);
			pvm_upkstr(opts[i]);
			pvm_upkstr(login[i]);
			pvm_upkstr(cmd[i]);
			char w[400];
			snprintf(w, sizeof w,
				 "t%x wid %d src t%x login %.255s so '%.63s'",
				 tids[i], wid, src, login[i], opts[i]);
			logline("host", w);
			logline("cmd", cmd[i]);
		}
		if (!strcmp(mode, "mute"))
			continue;
		if (!strcmp(mode, "junk")) {
			int huge = 1 << 30;
			pvm_initsend(PvmDataDefault);
			pvm_pkint(&tids[0], 1, 1);
			pvm_pkint(&huge, 1, 1);
			pvm_setmwid(pvm_getsbuf(), wid);
			logline("answer", "junk");
			pvm_send(src, SM_STHOSTACK);
			continue;
		}
		if (!strcmp(mode, "exit")) {
			logline("exiting", "");
			pvm_exit();
			return 0;
		}
		for (int i = 0; i < nhosts; i++) {
			if (!strncmp(mode, "reply=", 6))
				snprintf(answer[i], sizeof answer[i], "%s",
					 mode + 6);
			else
				run_one(login[i], cmd[i], answer[i],
					sizeof answer[i]);
			logline("answer", answer[i]);
		}
		pvm_initsend(PvmDataDefault);
		for (int i = nhosts - 1; i >= 0; i--) { /* any order */
			pvm_pkint(&tids[i], 1, 1);
			pvm_pkstr(answer[i]);
		}
		pvm_setmwid(pvm_getsbuf(), wid);
		cc = pvm_send(src, SM_STHOSTACK);
		if (cc < 0) {
			fprintf(logf_, "send %d\n", cc);
			fflush(logf_);
		}
	}
}

static int check(void)
{
	if (pvm_mytid() < 0)
		return 2;
	pvm_setopt(PvmAutoErr, 0);
	/* man 3 pvm_setmwid */
	EQ(pvm_getmwid(-1), PvmBadParam);
	EQ(pvm_getmwid(0), PvmBadParam);
	EQ(pvm_getmwid(12345), PvmNoSuchBuf);
	EQ(pvm_setmwid(-1, 5), PvmBadParam);
	EQ(pvm_setmwid(12345, 5), PvmNoSuchBuf);
	int b = pvm_initsend(PvmDataDefault);
	EQ(pvm_getmwid(b), 0);
	EQ(pvm_setmwid(b, 77), 0);
	EQ(pvm_getmwid(b), 77);
	struct pvmminfo mi;
	CHECK(pvm_getminfo(b, &mi) == 0 && mi.wid == 77,
	      "pvm_getminfo(b, &mi) == 0 && mi.wid == 77");
	/* the wait id travels with the message */
	int me = pvm_mytid();
	pvm_pkint(&me, 1, 1);
	EQ(pvm_send(me, 5), 0);
	int r = pvm_recv(me, 5);
	CHECK(r > 0 && pvm_getmwid(r) == 77, "r > 0 && pvm_getmwid(r) == 77");
	/* a pvmd's address and reserved tags only with PvmResvTids */
	int pvmd = (int)(0x80000000u | (unsigned)pvm_tidtohost(me));
	pvm_initsend(PvmDataDefault);
	EQ(pvm_send(pvmd, 5), PvmBadParam);
	EQ(pvm_send(me, SM_STHOSTACK), PvmBadParam);
	EQ(pvm_recv(-1, SM_STHOST), PvmBadParam);
	pvm_setopt(PvmResvTids, 1);
	EQ(pvm_nrecv(-1, SM_STHOST), 0);
	/* registration: a second call withdraws it, as the reference */
	EQ(pvm_reg_hoster(), 0);
	EQ(pvm_reg_hoster(), 0);
	EQ(pvm_reg_hoster(), 0);
	EQ(pvm_reg_hoster(), 0);
	pvm_exit();
	return t_done("pt_hoster check");
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 3 && !strcmp(argv[1], "serve"))
		return serve(argv[2], argc > 3 ? argv[3] : "run");
	if (argc == 2 && !strcmp(argv[1], "check"))
		return check();
	if (argc == 2 && !strcmp(argv[1], "reg")) {
		if (pvm_mytid() < 0)
			return 2;
		pvm_setopt(PvmAutoErr, 0);
		printf("reg %d\n", pvm_reg_hoster());
		char c;
		while (read(0, &c, 1) > 0)
			;
		pvm_exit();
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "add")) {
		if (pvm_mytid() < 0)
			return 2;
		pvm_setopt(PvmAutoErr, 0);
		int n = argc - 2, infos[64];
		if (n > 64)
			return 2;
		int cc = pvm_addhosts(argv + 2, n, infos);
		printf("addhosts %d\n", cc);
		for (int i = 0; i < n; i++)
			printf("add %s %d\n", argv[2 + i], infos[i]);
		pvm_exit();
		return 0;
	}
	fprintf(stderr,
		"usage: pt_hoster serve LOG [run|reply=NAME|exit|mute|junk] | check | reg | add HOST...\n");
	return 2;
}
