/*
 * script.c - the console run from the command line or a file, for
 * scripts (pvm.1, "SCRIPTING"):
 *
 *   pvm --command 'conf' --command 'spawn -2 -> prog'   (each repeatable)
 *   pvm --script file        ("-": standard input)
 *   pvm --json ...           conf, ps, mstat, jobs, version in JSON
 *
 * Long options only: the console's other arguments are the pvmd's
 * single-letter options and a hostfile (rc.c), and pvmd has no long
 * options, so neither can be taken for one of these.  Commands run
 * without banner, prompt or echo; the first that fails stops the run
 * with exit status 1; the output of jobs started with "->" is waited
 * for; then the console leaves quietly, the pvmd running.
 */
#include "console.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct source {
	int is_file;
	const char *text; /* the command, or the file's name */
};

static struct source *sources;
static int nsources;

static int add_source(int is_file, const char *text)
{
	struct source *n = realloc(sources, (size_t)(nsources + 1) * sizeof *n);
	if (!n)
		return -1;
	sources = n;
	sources[nsources++] = (struct source){is_file, text};
	return 0;
}

/* The value of argv[*i] ("--opt=value" or "--opt value"), or NULL. */
static const char *value_of(int argc, char **argv, int *i, size_t len)
{
	if (argv[*i][len] == '=')
		return argv[*i] + len + 1;
	if (argv[*i][len] == '\0' && *i + 1 < argc)
		return argv[++*i];
	return NULL;
}

int script_parse_args(int *argc, char **argv)
{
	static const char *const opts[] = {"--command", "--script"};
	int k = 1;
	for (int i = 1; i < *argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--json")) {
			cons.json = 1;
			continue;
		}
		int matched = 0;
		for (int o = 0; o < 2 && !matched; o++) {
			size_t len = strlen(opts[o]);
			if (strncmp(a, opts[o], len) ||
			    (a[len] && a[len] != '='))
				continue;
			matched = 1;
			const char *v = value_of(*argc, argv, &i, len);
			if (!v) {
				fprintf(stderr, "pvm: %s needs a value\n",
					opts[o]);
				return 2;
			}
			if (add_source(o == 1, v) < 0) {
				fprintf(stderr, "pvm: out of memory\n");
				return 2;
			}
		}
		if (!matched) {
			if (!strncmp(a, "--", 2)) {
				fprintf(stderr,
					"pvm: unknown option %s (try pvm "
					"--help)\n",
					a);
				return 2;
			}
			argv[k++] = argv[i];
		}
	}
	argv[k] = NULL;
	*argc = k;
	cons.script = nsources > 0;
	return 0;
}

/* Runs one line; returns -1 when it failed. */
static int run(const char *line)
{
	int rc = cmd_execute(line);
	jobs_poll();
	return rc < 0 ? -1 : 0;
}

/* Runs the lines of `text` (one command per line). */
static int run_text(const char *text)
{
	char *copy = strdup(text);
	int rc = copy ? 0 : -1;
	for (char *save = NULL, *l = copy ? strtok_r(copy, "\n", &save) : NULL;
	     l && !rc && !cons.quitting; l = strtok_r(NULL, "\n", &save))
		rc = run(l);
	free(copy);
	return rc;
}

static int run_file(const char *name)
{
	FILE *f = strcmp(name, "-") ? fopen(name, "r") : stdin;
	if (!f) {
		perror(name);
		return -1;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int rc = 0;
	while (!rc && !cons.quitting && (n = getline(&line, &cap, f)) >= 0) {
		if (n > 0 && line[n - 1] == '\n')
			line[--n] = '\0';
		rc = run(line);
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return rc;
}

int script_run(void)
{
	int rc = 0;
	for (int i = 0; i < nsources && !rc && !cons.quitting; i++)
		rc = sources[i].is_file ? run_file(sources[i].text)
					: run_text(sources[i].text);
	/* the output of "spawn ->" jobs, to their end */
	const struct timespec step = {0, 20 * 1000000L};
	while (!cons.quitting && jobs_running()) {
		nanosleep(&step, NULL);
		jobs_poll();
	}
	free(sources);
	if (rc < 0)
		cons.failed = 1;
	cons.quitting = 1;
	return 0;
}
