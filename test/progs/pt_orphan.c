/*
 * pt_orphan.c - what a spawned task gets when its pvmd dies (test/
 * reliability.bats).  A spawned task's stdout and stderr are pipes to its
 * pvmd: the library's own messages must not kill it with SIGPIPE once
 * the pvmd is gone.
 *
 *   pt_orphan FILE
 *
 * Spawns a copy of itself on this host, exchanges one message with it
 * each way (on whatever route PVM_TRAN allows), prints "ready" and waits.
 * The copy then waits in pvm_recv for a message that never comes; when
 * the pvmd dies (the test kills it) the copy writes to FILE, one line:
 * "recv R send S exit E" (the codes of that pvm_recv, of a pvm_send to
 * its parent after it and of pvm_exit), and exits 0.  The first task
 * prints the same line for its own calls.  A copy killed by SIGPIPE writes
 * nothing.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <pvm3.h>

#define TAG_PING  1
#define TAG_PONG  2
#define TAG_NEVER 3

static void report(FILE *f, int r, int s, int e)
{
	fprintf(f, "recv %d send %d exit %d\n", r, s, e);
	fflush(f);
}

static int copy(const char *file)
{
	int parent = pvm_parent();
	if (pvm_recv(parent, TAG_PING) < 0)
		return 1;
	pvm_initsend(PvmDataDefault);
	pvm_send(parent, TAG_PONG);
	int r = pvm_recv(parent, TAG_NEVER);
	pvm_initsend(PvmDataDefault);
	int s = pvm_send(parent, TAG_PONG);
	int e = pvm_exit();
	FILE *f = fopen(file, "w");
	if (!f)
		return 1;
	report(f, r, s, e);
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "-copy"))
		return copy(argv[2]);
	if (argc != 2) {
		fprintf(stderr, "usage: pt_orphan FILE\n");
		return 2;
	}
	if (pvm_mytid() < 0)
		return 1;
	char *args[] = {"-copy", argv[1], NULL};
	int tid;
	if (pvm_spawn("pt_orphan", args, PvmTaskHost, ".", 1, &tid) != 1) {
		printf("spawn failed (%d)\n", tid);
		return 1;
	}
	pvm_initsend(PvmDataDefault);
	pvm_send(tid, TAG_PING);
	if (pvm_recv(tid, TAG_PONG) < 0)
		return 1;
	printf("ready\n");
	fflush(stdout);
	int r = pvm_recv(tid, TAG_NEVER);
	pvm_initsend(PvmDataDefault);
	int s = pvm_send(tid, TAG_PING);
	int e = pvm_exit();
	report(stdout, r, s, e);
	return 0;
}
