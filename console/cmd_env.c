/*
 * cmd_env.c - the console's environment: setenv, export, unexport.
 *
 * Tasks the console spawns get the variables PVM_EXPORT lists (man 3
 * pvm_export); export and unexport edit that list through the library,
 * setenv sets the values.
 */
#include "console.h"

#include <stdlib.h>
#include <string.h>

#include "pvm3.h"

extern char **environ;

int cmd_setenv(int argc, char **argv)
{
	if (argc == 1) {
		for (char **e = environ; e && *e; e++)
			term_printf("%s\n", *e);
		return 0;
	}
	if (argc == 2) {
		/* An unset variable prints nothing, as in the reference. */
		const char *v = getenv(argv[1]);
		if (v)
			term_printf("%s\n", v);
		return 0;
	}
	if (!argv[1][0] || strchr(argv[1], '=')) {
		term_printf("setenv: bad variable name \"%s\"\n", argv[1]);
		return -1;
	}
	/* The value is the rest of the words, joined by blanks. */
	size_t len = 1;
	for (int i = 2; i < argc; i++)
		len += strlen(argv[i]) + 1;
	char *value = malloc(len), *p = value;
	if (!value) {
		term_printf("setenv: out of memory\n");
		return -1;
	}
	for (int i = 2; i < argc; i++)
		p = stpcpy(stpcpy(p, i > 2 ? " " : ""), argv[i]);
	int cc = setenv(argv[1], value, 1);
	free(value);
	if (cc < 0) {
		term_printf("setenv: out of memory\n");
		return -1;
	}
	return 0;
}

int cmd_export(int argc, char **argv)
{
	if (argc == 1) {
		const char *v = getenv("PVM_EXPORT");
		term_printf("PVM_EXPORT=%s\n", v ? v : "");
		return 0;
	}
	int rc = 0;
	for (int i = 1; i < argc; i++)
		if (pvm_export(argv[i]) < 0)
			rc = -1; /* the library has said why */
	return rc;
}

int cmd_unexport(int argc, char **argv)
{
	int rc = 0;
	for (int i = 1; i < argc; i++)
		if (pvm_unexport(argv[i]) < 0)
			rc = -1;
	return rc;
}
