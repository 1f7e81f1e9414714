/*
 * hello_other.c - the partner of hello: sends its parent a greeting.
 */
#include <stdio.h>
#include <unistd.h>

#include <pvm3.h>

#define TAG_GREETING 1

int main(void)
{
	char host[128], greeting[256];
	int parent;

	if (pvm_mytid() < 0)
		return 1;
	parent = pvm_parent();
	if (parent < 0) {
		/* Started from a shell instead of by hello. */
		fprintf(stderr,
			"hello_other: no parent to greet (run hello instead)\n");
		pvm_exit();
		return 1;
	}
	if (gethostname(host, sizeof host) < 0)
		snprintf(host, sizeof host, "an unknown host");
	host[sizeof host - 1] = '\0';
	snprintf(greeting, sizeof greeting, "hello, world from %s", host);

	if (pvm_initsend(PvmDataDefault) < 0 || pvm_pkstr(greeting) < 0 ||
	    pvm_send(parent, TAG_GREETING) < 0) {
		pvm_perror("hello_other: sending the greeting");
		pvm_exit();
		return 1;
	}
	pvm_exit();
	return 0;
}
