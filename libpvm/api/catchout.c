/*
 * catchout.c - pvm_catchout.  The man page promises it "always returns
 * 0"; programs call it and go on.  It records the stream; the output of
 * children still goes to the pvmd log until the task-control issue
 * (issue 3) routes it to the parent, where this stream is used.
 */
#include "api.h"

FILE *lp_catchout_fp;

int pvm_catchout(FILE *ff)
{
	lp_catchout_fp = ff;
	return 0;
}
