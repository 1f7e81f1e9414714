/*
 * hello.c - the smallest PVM program: spawn a partner, get a greeting back.
 *
 * Run it with a pvmd running; it spawns "hello_other", which the pvmd finds
 * on its spawn path (PVM_PATH, or $HOME/pvm3/bin/$PVM_ARCH).
 */
#include <stdio.h>

#include <pvm3.h>

#define TAG_GREETING 1

int main(void)
{
	char greeting[256];
	int mytid, child = 0, bufid, len, tag, from, n;

	mytid = pvm_mytid();
	if (mytid < 0) {
		pvm_perror("hello: pvm_mytid (is a pvmd running?)");
		return 1;
	}
	printf("i'm t%x\n", mytid);
	fflush(stdout);

	n = pvm_spawn("hello_other", NULL, PvmTaskDefault, "", 1, &child);
	if (n != 1) {
		/* Either the call failed, or the tids array holds the error
		 * code. */
		fprintf(stderr, "hello: cannot spawn hello_other (error %d)\n",
			n < 0 ? n : child);
		pvm_exit();
		return 1;
	}

	bufid = pvm_recv(child, TAG_GREETING);
	if (bufid < 0 || pvm_bufinfo(bufid, &len, &tag, &from) < 0 ||
	    pvm_upkstr(greeting) < 0) {
		pvm_perror("hello: receiving the greeting");
		pvm_exit();
		return 1;
	}
	printf("from t%x: %s\n", from, greeting);

	pvm_exit();
	return 0;
}
