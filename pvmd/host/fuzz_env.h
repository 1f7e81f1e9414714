/*
 * fuzz_env.h - setenv and unsetenv of the code under test, wrapped
 * (-Wl,--wrap) into a table of the fuzz harness's: the startup lines set
 * variables from what a master sent, and the harness reads them back
 * without letting millions of values pile up in the real environment.
 */
#ifndef PVMD_HOST_FUZZ_ENV_H
#define PVMD_HOST_FUZZ_ENV_H

void fz_env_clear(void);
/* The value the code under test set, or NULL. */
const char *fz_env_get(const char *name);

#endif /* PVMD_HOST_FUZZ_ENV_H */
