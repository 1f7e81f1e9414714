/*
 * rc.c - start-up: the console's arguments and the .pvmrc files.
 *
 *   pvm [ -dMASK ] [ -nNAME ] [ other pvmd options ] [ hostfile ]
 *
 * As in PVM 3.4 the arguments are the pvmd's (man 1 pvm, man 8 pvmd):
 * they are handed to the pvmd the console starts, and ignored when one
 * is running already.  The pvmd reads the hostfile and adds the hosts it
 * names (errors go to its log, as with the reference).
 *
 * Then $PVM_ROOT/.pvmrc (a site's defaults, if there is one) and
 * ~/.pvmrc run, each line echoed and executed as if typed.
 */
#include "console.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lpvm_priv.h"
#include "pvm3.h"

#define RC_NAME ".pvmrc"

/* The hostfile argument: the last word that is not an option. */
static int find_hostfile(int argc, char **argv)
{
	int hf = -1;
	for (int i = 0; i < argc; i++)
		if (argv[i][0] != '-')
			hf = i;
	return hf;
}

void rc_attach(int argc, char **argv)
{
	/* pvmd options take their value in the same word ("-d0x10"); a bare
	 * "-d" is a mask of 0 for PVM 3.4's pvmd: say so to ours. */
	static char dzero[] = "-d0";
	for (int i = 0; i < argc; i++)
		if (!strcmp(argv[i], "-d"))
			argv[i] = dzero;

	/* The pvmd reads the hostfile and adds its hosts (man 1 pvmd3); it
	 * works in another directory, so it gets the file's full path. */
	int hf = find_hostfile(argc, argv);
	char *hfpath = hf >= 0 ? realpath(argv[hf], NULL) : NULL;
	if (hfpath)
		argv[hf] = hfpath;

	/* pvm_start_pvmd starts the pvmd installed with this console (not
	 * one $PVM_ROOT may name) and says PvmDupHost when one is running:
	 * then, as with the reference, the arguments (the hostfile too) are
	 * not used. */
	int cc = CONS_QUIET(pvm_start_pvmd(argc, argv, 1));
	if (cc == PvmDupHost) {
		if (!cons.script)
			printf("pvmd already running.\n");
	} else if (cc < 0) {
		fprintf(stderr, "pvm: cannot start pvmd: %s\n",
			cons_errstr(cc));
		const char *why = lpvm_priv_start_why();
		if (why)
			fprintf(stderr, "pvm: %s\n", why);
		exit(1);
	} else {
		cons.started = 1;
	}
	cons.mytid = pvm_mytid();
	if (cons.mytid < 0) {
		/* The library has printed why. */
		exit(1);
	}
	/* Like the reference's console, a reset spares us. */
	CONS_QUIET(pvm_setopt(PvmNoReset, 1));
	hostwatch_start();
}

/* Runs one rc file; returns 1 if it existed. */
static int run_file(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while (!cons.quitting && (n = getline(&line, &cap, f)) >= 0) {
		if (n > 0 && line[n - 1] == '\n')
			line[--n] = '\0';
		/* Echoed as the reference does, without a prompt. */
		printf("%s\n", line);
		fflush(stdout);
		cmd_execute(line);
		jobs_poll();
	}
	free(line);
	fclose(f);
	return 1;
}

static char *path_in(const char *dir)
{
	size_t n = strlen(dir) + sizeof RC_NAME + 1;
	char *p = malloc(n);
	if (p)
		snprintf(p, n, "%s/%s", dir, RC_NAME);
	return p;
}

static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

void rc_run(void)
{
	const char *home = getenv("HOME");
	const char *root = getenv("PVM_ROOT");
	if (!home || !*home) {
		struct passwd *pw = getpwuid(getuid());
		home = pw ? pw->pw_dir : NULL;
	}
	char *user = home ? path_in(home) : NULL;
	char *site = root && *root ? path_in(root) : NULL;
	if (site && !(user && same_file(site, user)))
		run_file(site);
	if (user)
		run_file(user);
	free(site);
	free(user);
}
