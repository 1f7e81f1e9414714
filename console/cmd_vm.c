/*
 * cmd_vm.c - console commands about the virtual machine as a whole:
 * conf, mstat, add, delete, id, version, echo, halt, quit, and the
 * commands whose feature a later issue brings (trace).
 *
 * Column layouts follow the reference console's, so scripts that read its
 * output read ours.
 */
#include "config.h"

#include "console.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lpvm_priv.h"
#include "pvm3.h"

int cmd_conf(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	int nhost, narch;
	struct pvmhostinfo *hosts;

	if (cons.json)
		return json_conf();
	if (pvm_config(&nhost, &narch, &hosts) < 0)
		return -1;
	term_printf("%d host%s, %d data format%s\n", nhost,
		    nhost == 1 ? "" : "s", narch, narch == 1 ? "" : "s");
	term_printf("%24s %8s %8s %7s %10s\n", "HOST", "DTID", "ARCH", "SPEED",
		    "DSIG");
	for (int i = 0; i < nhost; i++)
		term_printf("%24s %8x %8s %7d 0x%08x\n", hosts[i].hi_name,
			    (unsigned)hosts[i].hi_tid, hosts[i].hi_arch,
			    hosts[i].hi_speed, (unsigned)hosts[i].hi_dsig);
	return 0;
}

int cmd_mstat(int argc, char **argv)
{
	if (cons.json)
		return json_mstat(argc, argv);
	for (int i = 1; i < argc; i++) {
		int cc = CONS_QUIET(pvm_mstat(argv[i]));
		term_printf("%24s  %s\n", argv[i],
			    cc == PvmOk ? "ok" : cons_errstr(cc));
	}
	return 0;
}

/*
 * add and delete: one call for all the hosts, then as the reference's
 * console prints them: "N successful", a header, and a line per host
 * with the new pvmd's tid ("deleted") or the error text.  When the call
 * fails as a whole the library's own error message says why (PvmAutoErr,
 * as with the reference) and there is no table.  add shows its wait and
 * Ctrl-C cancels it (addwait.c): the table then says "cancelled" under
 * the hosts that were still starting, and the command has failed.
 */
static int hosts_change(int argc, char **argv, int add)
{
	int n = argc - 1;
	int *infos = calloc((size_t)n, sizeof *infos);
	if (!infos) {
		term_printf("%s: out of memory\n", argv[0]);
		return -1;
	}
	int cancelled = 0;
	int cc = add ? addwait_addhosts(&argv[1], n, infos, &cancelled)
		     : pvm_delhosts(&argv[1], n, infos);
	if (cc < 0) {
		free(infos);
		return -1;
	}
	term_printf("%d successful\n", cc);
	term_printf(add ? "%24s %8s\n" : "%24s  %s\n", "HOST",
		    add ? "DTID" : "STATUS");
	for (int i = 0; i < n; i++) {
		if (add && infos[i] >= 0)
			hostwatch_own(infos[i]);
		if (add && infos[i] >= 0) {
			term_printf("%24s %8x\n", argv[i + 1],
				    (unsigned)infos[i]);
		} else if (add) {
			term_printf("%24s %s\n", argv[i + 1],
				    cons_errstr(infos[i]));
			/* and why, in the words of the remote shell where it
			 * said something (ssh: connect to host ... refused) */
			const char *why = lpvm_priv_addhost_why(i);
			if (why)
				term_printf("%24s   %s\n", "", why);
		} else {
			term_printf("%24s  %s\n", argv[i + 1],
				    infos[i] >= 0 ? "deleted"
						  : cons_errstr(infos[i]));
		}
	}
	free(infos);
	return cancelled ? -1 : 0;
}

int cmd_add(int argc, char **argv)
{
	return hosts_change(argc, argv, 1);
}

int cmd_delete(int argc, char **argv)
{
	return hosts_change(argc, argv, 0);
}

int cmd_id(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	term_printf("t%x\n", (unsigned)cons.mytid);
	return 0;
}

int cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	if (cons.json)
		return json_version();
	/* the API level first, as PVM 3.4's console prints it; then which
	 * implementation of it this is */
	term_printf("%s (%s %s)\n", pvm_version(), PACKAGE_NAME,
		    PACKAGE_VERSION);
	return 0;
}

int cmd_echo(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		term_printf("%s%s", i > 1 ? " " : "", argv[i]);
	term_printf("\n");
	return 0;
}

/* The pvmd ends every task with SIGTERM when it halts, this console
 * included: that is our cue to leave, quietly and with status 0 (the
 * reference console dies of the signal, or hangs on piped input). */
static void halted(int sig)
{
	(void)sig;
	_exit(0);
}

int cmd_halt(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fflush(stdout);
	signal(SIGTERM, halted);
	int cc = pvm_halt();
	/* Still here: the pvmd let us go first. */
	cons.quitting = 1;
	cons.detached = 1;
	cons.exit_code = cc < 0 ? 1 : 0;
	return cc < 0 ? -1 : 0;
}

int cmd_quit(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	term_printf("\nConsole: exit handler called\npvmd still running.\n");
	cons.quitting = 1;
	cons.exit_code = 0;
	return 0;
}

/* trace (and spawn -@): tracing is not there yet. */
int cmd_later(int argc, char **argv)
{
	(void)argc;
	term_printf("%s: not available yet (tracing comes with a later "
		    "release)\n",
		    argv[0]);
	return -1;
}
