/*
 * alias.c - command aliases: alias, unalias, and their expansion.
 *
 * An alias maps a name to words; a command line whose first word is an
 * alias has that word replaced by the alias's words, and the result is
 * looked at again (an alias may name another alias).  An alias whose
 * words start with its own name ends the expansion there ("alias ls ls
 * -l" is not a loop); a chain that keeps going is reported as the
 * reference console does: "alias loop".
 */
#include "console.h"

#include <stdlib.h>
#include <string.h>

/* Longest chain of aliases followed before calling it a loop. */
#define ALIAS_DEPTH 32

struct alias {
	char *name;
	char *text;   /* the words joined by blanks, for listing */
	char **words; /* NULL-terminated */
	int nwords;
};

/* Kept sorted by name: alias lists them in that order. */
static struct alias *aliases;
static int naliases, cap;

static struct alias *find(const char *name, int *pos)
{
	int lo = 0, hi = naliases;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		int c = strcmp(aliases[mid].name, name);
		if (c == 0) {
			if (pos)
				*pos = mid;
			return &aliases[mid];
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (pos)
		*pos = lo;
	return NULL;
}

static void alias_free(struct alias *a)
{
	for (int i = 0; i < a->nwords; i++)
		free(a->words[i]);
	free(a->words);
	free(a->text);
	free(a->name);
}

void alias_clear(void)
{
	for (int i = 0; i < naliases; i++)
		alias_free(&aliases[i]);
	free(aliases);
	aliases = NULL;
	naliases = cap = 0;
}

/* Joins words with single blanks, in a new string. */
static char *join(char **words, int n)
{
	size_t len = 1;
	for (int i = 0; i < n; i++)
		len += strlen(words[i]) + 1;
	char *s = malloc(len), *p = s;
	if (!s)
		return NULL;
	*p = '\0';
	for (int i = 0; i < n; i++)
		p += sprintf(p, "%s%s", i ? " " : "", words[i]);
	return s;
}

static int define(const char *name, char **words, int n)
{
	struct alias a = {0};
	a.name = strdup(name);
	a.text = join(words, n);
	a.words = calloc((size_t)n + 1, sizeof *a.words);
	a.nwords = 0;
	int ok = a.name && a.text && a.words;
	for (int i = 0; ok && i < n; i++) {
		a.words[i] = strdup(words[i]);
		ok = a.words[i] != NULL;
		a.nwords += ok;
	}
	if (!ok) {
		alias_free(&a);
		return -1;
	}
	int pos;
	struct alias *old = find(name, &pos);
	if (old) {
		alias_free(old);
		*old = a;
		return 0;
	}
	if (naliases == cap) {
		int ncap = cap ? 2 * cap : 8;
		struct alias *na = realloc(aliases, (size_t)ncap * sizeof *na);
		if (!na) {
			alias_free(&a);
			return -1;
		}
		aliases = na;
		cap = ncap;
	}
	memmove(&aliases[pos + 1], &aliases[pos],
		(size_t)(naliases - pos) * sizeof *aliases);
	aliases[pos] = a;
	naliases++;
	return 0;
}

int cmd_alias(int argc, char **argv)
{
	if (argc < 3) {
		/* "alias" and "alias name" both list every alias (the
		 * reference does the same). */
		for (int i = 0; i < naliases; i++)
			term_printf("%s\t%s\n", aliases[i].name,
				    aliases[i].text);
		return 0;
	}
	if (define(argv[1], &argv[2], argc - 2) < 0) {
		term_printf("alias: out of memory\n");
		return -1;
	}
	return 0;
}

int cmd_unalias(int argc, char **argv)
{
	/* Unknown names are passed over in silence, as in the reference. */
	for (int i = 1; i < argc; i++) {
		int pos;
		struct alias *a = find(argv[i], &pos);
		if (!a)
			continue;
		alias_free(a);
		memmove(&aliases[pos], &aliases[pos + 1],
			(size_t)(naliases - pos - 1) * sizeof *aliases);
		naliases--;
	}
	return 0;
}

const char *alias_name_at(int i)
{
	return i >= 0 && i < naliases ? aliases[i].name : NULL;
}

/* A new argument vector in one block (as split_words makes them): the
 * alias's words, then argv[1..argc-1]. */
static char **substitute(const struct alias *a, int argc, char **argv,
			 int *nargc)
{
	int n = a->nwords + argc - 1;
	size_t len = 0;
	for (int i = 0; i < a->nwords; i++)
		len += strlen(a->words[i]) + 1;
	for (int i = 1; i < argc; i++)
		len += strlen(argv[i]) + 1;
	char **v = malloc(((size_t)n + 1) * sizeof *v + len);
	if (!v)
		return NULL;
	char *p = (char *)(v + n + 1);
	for (int i = 0; i < n; i++) {
		const char *w =
			i < a->nwords ? a->words[i] : argv[i - a->nwords + 1];
		v[i] = p;
		p = stpcpy(p, w) + 1;
	}
	v[n] = NULL;
	*nargc = n;
	return v;
}

int alias_expand(int *argcp, char ***argvp)
{
	for (int depth = 0; *argcp > 0; depth++) {
		const struct alias *a = find((*argvp)[0], NULL);
		if (!a)
			return 0;
		if (depth == ALIAS_DEPTH) {
			term_printf("alias loop\n");
			return -1;
		}
		int n;
		char **v = substitute(a, *argcp, *argvp, &n);
		if (!v) {
			term_printf("out of memory\n");
			return -1;
		}
		free(*argvp);
		*argvp = v;
		*argcp = n;
		/* "alias ls ls -l": the command is the name itself. */
		if (n > 0 && strcmp(v[0], a->name) == 0)
			return 0;
	}
	return 0;
}
