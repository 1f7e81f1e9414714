/* ftasks.c - Fortran wrappers of the task calls: enrolment, spawn, kill,
 * signals, task lists, output, errors, options, notify, contexts. */
#include "fpvm.h"

#include <pvm3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pvmfmytid_(int *tid)
{
	*tid = pvm_mytid();
}

void pvmfparent_(int *tid)
{
	*tid = pvm_parent();
}

void pvmfexit_(int *info)
{
	*info = pvm_exit();
}

void pvmfhalt_(int *info)
{
	*info = pvm_halt();
}

/* where "*" (or anything starting with '*') means anywhere, as in the
 * reference; the task gets no arguments. */
void pvmfspawn_(char *task, int *flag, char *where, int *ntask, int *tids,
		int *numt, fpvm_len tasklen, fpvm_len wherelen)
{
	char t[FPVM_NAME_MAX], w[FPVM_NAME_MAX];

	if (fpvm_cstr(t, sizeof t, task, tasklen)) {
		*numt = PvmBadParam;
		return;
	}
	if (wherelen > 0 && where[0] == '*')
		w[0] = '\0';
	else if (fpvm_cstr(w, sizeof w, where, wherelen)) {
		*numt = PvmBadParam;
		return;
	}
	*numt = pvm_spawn(t, NULL, *flag, w, *ntask, tids);
}

void pvmfkill_(int *tid, int *info)
{
	*info = pvm_kill(*tid);
}

void pvmfsendsig_(int *tid, int *signum, int *info)
{
	*info = pvm_sendsig(*tid, *signum);
}

void pvmfpstat_(int *tid, int *status)
{
	*status = pvm_pstat(*tid);
}

void pvmftidtohost_(int *tid, int *dtid)
{
	*dtid = pvm_tidtohost(*tid);
}

/* One task per call: the first call (or one with ntask = -1) asks the
 * pvmd, the following ones step through that answer; info is 1 for each
 * task returned.  After the last one the next call asks again. */
static struct {
	int n, next;
	struct pvmtaskinfo *ti;
} tasks;

void pvmftasks_(int *where, int *ntask, int *tid, int *ptid, int *dtid,
		int *flag, char *aout, int *info, fpvm_len aoutlen)
{
	if (tasks.n == 0 || *ntask == -1) {
		int n = 0, cc = pvm_tasks(*where, &n, &tasks.ti);

		tasks.n = 0;
		if (cc < 0) {
			*info = cc;
			return;
		}
		tasks.n = n;
		tasks.next = 0;
	}
	if (tasks.next < tasks.n) {
		const struct pvmtaskinfo *p = &tasks.ti[tasks.next++];

		*ntask = tasks.n;
		*tid = p->ti_tid;
		*ptid = p->ti_ptid;
		*dtid = p->ti_host;
		*flag = p->ti_flag;
		fpvm_fstr(aout, aoutlen, p->ti_a_out);
		*info = 1;
	}
	if (tasks.next >= tasks.n)
		tasks.n = 0;
}

/* The first call asks for the siblings; every call returns their count in
 * ntids and, for 0 <= index < ntids, that sibling's tid (else PvmNoTask). */
static int sib_n = -1;
static int *sib_tids;

void pvmfsiblings_(int *ntids, int *index, int *sibling)
{
	if (sib_n == -1)
		sib_n = pvm_siblings(&sib_tids);
	*ntids = sib_n;
	if (*index >= 0 && *index < sib_n)
		*sibling = sib_tids[*index];
	else
		*sibling = PvmNoTask;
}

void pvmfcatchout_(int *onoff, int *info)
{
	*info = pvm_catchout(*onoff ? stdout : NULL);
}

/* The message is used as given, trailing blanks included (as the
 * reference does). */
void pvmfperror_(char *msg, int *info, fpvm_len len)
{
	char *s = malloc(len + 1);

	if (!s) {
		fputs("pvmfperror PvmNoMem\n", stderr);
		*info = PvmNoMem;
		return;
	}
	memcpy(s, msg, len);
	s[len] = '\0';
	*info = pvm_perror(s);
	free(s);
}

void pvmfgetopt_(int *what, int *val)
{
	*val = pvm_getopt(*what);
}

void pvmfsetopt_(int *what, int *val, int *oldval)
{
	*oldval = pvm_setopt(*what, *val);
}

void pvmfnotify_(int *what, int *msgtag, int *cnt, int *tids, int *info)
{
	*info = pvm_notify(*what, *msgtag, *cnt, tids);
}

void pvmfnewcontext_(int *ctx)
{
	*ctx = pvm_newcontext();
}

void pvmfsetcontext_(int *newctx, int *oldctx)
{
	*oldctx = pvm_setcontext(*newctx);
}

void pvmffreecontext_(int *ctx, int *info)
{
	*info = pvm_freecontext(*ctx);
}

void pvmfgetcontext_(int *ctx)
{
	*ctx = pvm_getcontext();
}

void pvmfsleep_(int *secs)
{
	pvmsleep(*secs);
}

/* args: the pvmd's command-line arguments in one string, separated by
 * blanks or tabs. */
void pvmfstartpvmd_(char *args, int *block, int *info, fpvm_len len)
{
	char *s = malloc(len + 1),
	     **argv = malloc((len / 2 + 2) * sizeof *argv);
	int argc = 0;

	if (!s || !argv) {
		free(s);
		free(argv);
		*info = PvmNoMem;
		return;
	}
	memcpy(s, args, len);
	s[len] = '\0';
	for (char *p = strtok(s, " \t"); p; p = strtok(NULL, " \t"))
		argv[argc++] = p;
	argv[argc] = NULL;
	*info = pvm_start_pvmd(argc, argv, *block);
	free(argv);
	free(s);
}
