/* basic.c - a PVM program built against an installed tree by
 * test/install.bats: enrolls, asks the pvmd about the machine, and says
 * which libraries it runs on. */
#include <pvm3.h>

#include "maps.h"

int main(void)
{
	int tid = pvm_mytid();
	if (tid < 0)
		return 1;
	int nhost, narch;
	struct pvmhostinfo *hosts;
	if (pvm_config(&nhost, &narch, &hosts) < 0)
		return 1;
	printf("tid t%x hosts %d version %s\n", tid, nhost, pvm_version());
	print_pvm_libs();
	pvm_exit();
	return 0;
}
