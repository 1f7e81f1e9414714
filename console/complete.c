/*
 * complete.c - tab completion on the console's readline line.
 *
 * The first word completes to command and alias names; the word after
 * "help" to command names, after "unalias" to alias names; the program
 * word of "spawn" (the first one after its options) to the programs in
 * the spawn path: $PVM_PATH, or $HOME/pvm3/bin/$PVM_ARCH and
 * $PVM_ROOT/bin/$PVM_ARCH (man 8 pvmd), with $PVM_ARCH in an element
 * replaced by this host's architecture.  A program word holding a '/',
 * and every other word, completes to file names.
 */
#include "console.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <readline/readline.h>

/* Candidates of one completion: collected once, handed out one by one. */
static char **cands;
static int ncands, next_cand;

static void cands_clear(void)
{
	for (int i = 0; i < ncands; i++)
		free(cands[i]);
	free(cands);
	cands = NULL;
	ncands = next_cand = 0;
}

static void cand_add(const char *s, const char *prefix)
{
	if (strncmp(s, prefix, strlen(prefix)))
		return;
	for (int i = 0; i < ncands; i++)
		if (!strcmp(cands[i], s))
			return;
	char **n = realloc(cands, ((size_t)ncands + 1) * sizeof *n);
	if (!n)
		return;
	cands = n;
	if ((cands[ncands] = strdup(s)))
		ncands++;
}

static char *generator(const char *text, int state)
{
	(void)text;
	(void)state;
	return next_cand < ncands ? strdup(cands[next_cand++]) : NULL;
}

static void add_commands(const char *prefix, int with_aliases)
{
	const struct cmd *c;
	for (int i = 0; (c = cmd_at(i)); i++)
		cand_add(c->name, prefix);
	const char *a;
	for (int i = 0; with_aliases && (a = alias_name_at(i)); i++)
		cand_add(a, prefix);
}

static const char *this_arch(void)
{
	static char arch[32];
	int nhost, narch;
	struct pvmhostinfo *hosts;
	if (arch[0])
		return arch;
	if (CONS_QUIET(pvm_config(&nhost, &narch, &hosts)) < 0)
		return "LINUX64";
	int me = pvm_tidtohost(cons.mytid);
	for (int i = 0; i < nhost; i++)
		if (hosts[i].hi_tid == me)
			snprintf(arch, sizeof arch, "%s", hosts[i].hi_arch);
	return arch[0] ? arch : "LINUX64";
}

/* The executable files of one directory of the spawn path. */
static void add_programs_in(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' ||
		    strncmp(e->d_name, prefix, strlen(prefix)))
			continue;
		size_t n = strlen(dir) + strlen(e->d_name) + 2;
		char *path = malloc(n);
		if (!path)
			break;
		snprintf(path, n, "%s/%s", dir, e->d_name);
		struct stat st;
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(path, X_OK) == 0)
			cand_add(e->d_name, prefix);
		free(path);
	}
	closedir(d);
}

/* One element of the path, $PVM_ARCH replaced. */
static void add_programs_elem(const char *elem, size_t len, const char *prefix)
{
	const char *arch = this_arch();
	char dir[4096];
	size_t k = 0;
	for (size_t i = 0; i < len && k + 1 < sizeof dir;) {
		if (!strncmp(elem + i, "$PVM_ARCH", 9) && i + 9 <= len) {
			k += (size_t)snprintf(dir + k, sizeof dir - k, "%s",
					      arch);
			if (k >= sizeof dir)
				return;
			i += 9;
		} else {
			dir[k++] = elem[i++];
		}
	}
	dir[k] = '\0';
	if (k)
		add_programs_in(dir, prefix);
}

static void add_programs(const char *prefix)
{
	const char *pp = getenv("PVM_PATH");
	if (pp && *pp) {
		while (*pp) {
			size_t n = strcspn(pp, ":");
			add_programs_elem(pp, n, prefix);
			pp += n + (pp[n] == ':');
		}
		return;
	}
	const char *home = getenv("HOME"), *root = getenv("PVM_ROOT");
	char buf[4096];
	if (home && *home) {
		snprintf(buf, sizeof buf, "%s/pvm3/bin/$PVM_ARCH", home);
		add_programs_elem(buf, strlen(buf), prefix);
	}
	if (root && *root) {
		snprintf(buf, sizeof buf, "%s/bin/$PVM_ARCH", root);
		add_programs_elem(buf, strlen(buf), prefix);
	}
}

/* The words of the line before the one being completed. */
static int words_before(int end, char words[][64], int max)
{
	int n = 0, i = 0;
	while (i < end && n < max) {
		while (i < end &&
		       (rl_line_buffer[i] == ' ' || rl_line_buffer[i] == '\t'))
			i++;
		int s = i;
		while (i < end && rl_line_buffer[i] != ' ' &&
		       rl_line_buffer[i] != '\t')
			i++;
		if (i > s) {
			int len = i - s < 63 ? i - s : 63;
			memcpy(words[n], rl_line_buffer + s, (size_t)len);
			words[n++][len] = '\0';
		}
	}
	return n;
}

static char **complete(const char *text, int start, int end)
{
	(void)end;
	char words[64][64];
	int n = words_before(start, words, 64);

	cands_clear();
	if (n == 0) {
		add_commands(text, 1);
	} else if (n == 1 && !strcmp(words[0], "help")) {
		add_commands(text, 0);
	} else if (!strcmp(words[0], "unalias")) {
		const char *a;
		for (int i = 0; (a = alias_name_at(i)); i++)
			cand_add(a, text);
	} else if (!strcmp(words[0], "spawn") && text[0] != '-' &&
		   !strchr(text, '/')) {
		/* The program is the first word after the options. */
		int opts_only = 1;
		for (int i = 1; i < n; i++)
			if (words[i][0] != '-')
				opts_only = 0;
		if (!opts_only)
			return NULL; /* an argument: file names */
		add_programs(text);
	} else {
		return NULL; /* readline's file name completion */
	}
	rl_attempted_completion_over = 1; /* no file names if none match */
	if (ncands == 0)
		return NULL;
	return rl_completion_matches(text, generator);
}

void complete_init(void)
{
	rl_attempted_completion_function = complete;
}
