/*
 * pvmgroups.c - prints the dynamic groups of the virtual machine: each
 * group's size, whether it is frozen, its members (instance, tid) and how
 * they spread over the hosts, in a layout close to the reference's
 * pvmgroups (whose group server prints a "DUMP" of its table).
 *
 * It enrolls as a task, asks its pvmd with the control request TM_GS_LIST
 * through libpvm3's private interface (lpvm_priv.h), and exits.
 *
 *   pvmgroups [group...]    only the groups named, when any are given
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/version.h"
#include "lpvm_priv.h"
#include "proto/wire.h"
#include "pvm3.h"

#define PER_LINE 6 /* members printed on one line */

struct member {
	int inst, tid;
};

/* "host 40000 - 3 procs, 4002c coord": per host, its member count and
 * its member of lowest instance (the host's leader in the group trees). */
static void print_hosts(const struct member *m, int n)
{
	int done = 0;
	char *seen = calloc((size_t)n + 1, 1);
	if (!seen)
		return;
	while (done < n) {
		int first = -1, count = 0, host = 0;
		for (int i = 0; i < n; i++) {
			if (seen[i])
				continue;
			if (first < 0) {
				first = i;
				host = m[i].tid & WIRE_TID_HOST_MASK;
			}
			if ((m[i].tid & WIRE_TID_HOST_MASK) == host) {
				seen[i] = 1;
				count++;
			}
		}
		printf("host %x - %d procs, %x coord\n", host, count,
		       m[first].tid);
		done += count;
	}
	free(seen);
}

/* Prints one group from the reply when it is wanted (found[i] marks the
 * named ones seen); returns -1 if the reply is short. */
static int print_group(struct wire_rd *r, int argc, char **argv, char *found)
{
	char *name = wire_rd_strdup(r);
	int frozen = wire_rd_i32(r);
	int n = wire_rd_count(r, 8);
	struct member *m = calloc((size_t)n + 1, sizeof *m);
	if (!m || r->err) {
		free(name);
		free(m);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		m[i].inst = wire_rd_i32(r);
		m[i].tid = wire_rd_i32(r);
	}
	int show = argc < 2;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], name))
			show = found[i] = 1;
	if (!r->err && show) {
		printf("group: %s  size: %d  frozen: %s\n", name, n,
		       frozen ? "yes" : "no");
		printf("  Tids:\n");
		for (int i = 0; i < n; i++)
			printf("(%d,  0x%x)%s", m[i].inst, m[i].tid,
			       i % PER_LINE == PER_LINE - 1 || i == n - 1
				       ? "\n"
				       : " ");
		if (n) {
			printf("Host characterization:\n");
			print_hosts(m, n);
		}
	}
	free(name);
	free(m);
	return r->err ? -1 : 0;
}

/* TM_GS_LIST: i32 status, i32 ngroups, ngroups x {str name, i32 frozen,
 * i32 n, n x {i32 instance, i32 tid}}.  Returns 0 or a PVM error. */
static int list(int argc, char **argv, char *found)
{
	uint8_t *reply;
	struct wire_rd r;
	int st = lpvm_priv_ctl(WIRE_TM_GS_LIST, NULL, &r, &reply);
	if (st < 0) {
		free(reply);
		return st;
	}
	int ng = wire_rd_count(&r, 12);
	if (r.err)
		st = PvmSysErr;
	if (!st && argc < 2)
		printf("%d group%s%s\n", ng, ng == 1 ? "" : "s", ng ? ":" : "");
	for (int i = 0; !st && i < ng; i++)
		if (print_group(&r, argc, argv, found) < 0)
			st = PvmSysErr;
	free(reply);
	return st;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--version")) {
		fputs(PVM_VERSION_TEXT("pvmgroups"), stdout);
		return 0;
	}
	if (argc > 1 && argv[1][0] == '-') {
		int help = !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h");
		fprintf(help ? stdout : stderr,
			"usage: pvmgroups [group...]\n"
			"Prints the dynamic groups of the virtual machine, or "
			"those named,\nwith their members (see pvmgroups(1)).\n"
			"  --version  print the version and exit\n"
			"  --help     print this help and exit\n");
		return help ? 0 : 2;
	}
	if (pvm_mytid() < 0)
		return 1; /* libpvm3 has said why */
	char *found = calloc((size_t)argc, 1);
	int st = found ? list(argc, argv, found) : PvmNoMem;
	pvm_exit();
	if (st < 0) {
		fprintf(stderr,
			"pvmgroups: cannot list the groups (error %d)\n", st);
		free(found);
		return 1;
	}
	int missing = 0;
	for (int i = 1; i < argc; i++) {
		if (!found[i]) {
			fprintf(stderr, "pvmgroups: no group %s\n", argv[i]);
			missing = 1;
		}
	}
	free(found);
	return missing;
}
