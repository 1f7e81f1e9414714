/* group.c - a group program built against an installed tree by
 * test/install.bats (-lgpvm3): joins a group, reduces over it, leaves. */
#include <pvm3.h>

#include "maps.h"

int main(void)
{
	if (pvm_mytid() < 0)
		return 1;
	int inst = pvm_joingroup("install");
	int size = pvm_gsize("install");
	int v = 21;
	int cc = pvm_reduce(PvmSum, &v, 1, PVM_INT, 7, "install", inst);
	printf("inst %d size %d reduce %d sum %d\n", inst, size, cc, v);
	print_pvm_libs();
	pvm_lvgroup("install");
	pvm_exit();
	return 0;
}
