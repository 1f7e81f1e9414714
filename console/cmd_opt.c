/*
 * cmd_opt.c - getopt and setopt: the console's own PVM options
 * (pvm_getopt/pvm_setopt), by the names of pvm3.h, exactly as written
 * there ("PvmRoute"), as the reference console accepts them.
 */
#include "console.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pvm3.h"

/* In the order getopt lists them: that of their numbers.  PvmPollType and
 * PvmPollTime have no value to show and are left out, as by the
 * reference. */
static const struct {
	const char *name;
	int what;
} options[] = {
	{"PvmRoute", PvmRoute},
	{"PvmDebugMask", PvmDebugMask},
	{"PvmAutoErr", PvmAutoErr},
	{"PvmOutputTid", PvmOutputTid},
	{"PvmOutputCode", PvmOutputCode},
	{"PvmTraceTid", PvmTraceTid},
	{"PvmTraceCode", PvmTraceCode},
	{"PvmTraceBuffer", PvmTraceBuffer},
	{"PvmTraceOptions", PvmTraceOptions},
	{"PvmFragSize", PvmFragSize},
	{"PvmResvTids", PvmResvTids},
	{"PvmSelfOutputTid", PvmSelfOutputTid},
	{"PvmSelfOutputCode", PvmSelfOutputCode},
	{"PvmSelfTraceTid", PvmSelfTraceTid},
	{"PvmSelfTraceCode", PvmSelfTraceCode},
	{"PvmSelfTraceBuffer", PvmSelfTraceBuffer},
	{"PvmSelfTraceOptions", PvmSelfTraceOptions},
	{"PvmShowTids", PvmShowTids},
	{"PvmOutputContext", PvmOutputContext},
	{"PvmTraceContext", PvmTraceContext},
	{"PvmSelfOutputContext", PvmSelfOutputContext},
	{"PvmSelfTraceContext", PvmSelfTraceContext},
	{"PvmNoReset", PvmNoReset},
};

#define NOPTIONS ((int)(sizeof options / sizeof options[0]))

static int find(const char *name)
{
	for (int i = 0; i < NOPTIONS; i++)
		if (strcmp(options[i].name, name) == 0)
			return i;
	term_printf("PVM Option \"%s\" Unknown.\n", name);
	return -1;
}

static void show(int i)
{
	term_printf("%s Currently Set to %d\n", options[i].name,
		    pvm_getopt(options[i].what));
}

int cmd_getopt(int argc, char **argv)
{
	if (argc == 1) {
		for (int i = 0; i < NOPTIONS; i++)
			show(i);
		return 0;
	}
	int i = find(argv[1]);
	if (i < 0)
		return -1;
	show(i);
	return 0;
}

/* A value in decimal, or in hex after "0x"; a sign is allowed. */
static int parse_value(const char *s, int *val)
{
	const char *p = s + (*s == '-' || *s == '+');
	int base = p[0] == '0' && (p[1] == 'x' || p[1] == 'X') ? 16 : 10;
	char *end;
	errno = 0;
	long v = strtol(s, &end, base);
	if (end == s || *end || errno || v < -0x7fffffffL - 1 ||
	    v > 0x7fffffffL)
		return -1;
	*val = (int)v;
	return 0;
}

int cmd_setopt(int argc, char **argv)
{
	(void)argc;
	int i = find(argv[1]);
	if (i < 0)
		return -1;
	int val;
	if (parse_value(argv[2], &val) < 0) {
		/* The reference takes such a value as 0; we refuse it. */
		term_printf("setopt: bad value \"%s\"\n", argv[2]);
		return -1;
	}
	/* pvm_setopt returns the old value, which may be negative: whether
	 * it refused is seen from the value it keeps. */
	int what = options[i].what;
	int before = pvm_getopt(what);
	pvm_setopt(what, val);
	if (pvm_getopt(what) != val) {
		/* Refused: the library has said why, unless told not to. */
		if (pvm_getopt(PvmAutoErr) == 0)
			term_printf("setopt: %s not changed\n",
				    options[i].name);
		return -1;
	}
	term_printf("%s Changed from %d to %d\n", options[i].name, before, val);
	return 0;
}
