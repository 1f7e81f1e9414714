/*
 * fuzz_env.c - the table behind fuzz_env.h.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pvmd/host/fuzz_env.h"

#define NVARS 16

static struct {
	char *name, *val;
} vars[NVARS];

void fz_env_clear(void)
{
	for (int i = 0; i < NVARS; i++) {
		free(vars[i].name);
		free(vars[i].val);
		vars[i].name = vars[i].val = NULL;
	}
}

const char *fz_env_get(const char *name)
{
	for (int i = 0; i < NVARS; i++)
		if (vars[i].name && !strcmp(vars[i].name, name))
			return vars[i].val;
	return NULL;
}

int __wrap_unsetenv(const char *name);
int __wrap_unsetenv(const char *name)
{
	for (int i = 0; i < NVARS; i++)
		if (vars[i].name && !strcmp(vars[i].name, name)) {
			free(vars[i].name);
			free(vars[i].val);
			vars[i].name = vars[i].val = NULL;
		}
	return 0;
}

int __wrap_setenv(const char *name, const char *val, int overwrite);
int __wrap_setenv(const char *name, const char *val, int overwrite)
{
	if (!name || !*name || strchr(name, '=')) {
		errno = EINVAL;
		return -1;
	}
	if (fz_env_get(name) && !overwrite)
		return 0;
	__wrap_unsetenv(name);
	for (int i = 0; i < NVARS; i++)
		if (!vars[i].name) {
			vars[i].name = strdup(name);
			vars[i].val = strdup(val);
			return 0;
		}
	errno = ENOMEM;
	return -1;
}
