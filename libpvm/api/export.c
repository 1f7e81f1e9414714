/*
 * export.c - PVM_EXPORT, the colon-separated list of environment
 * variables a task passes to the tasks it spawns: pvm_export and
 * pvm_unexport edit it (man 3 pvm_export), lp_api_export_env collects
 * what pvm_spawn sends.
 */
#define _GNU_SOURCE
#include "api.h"

#include <stdlib.h>
#include <string.h>

#define EXPORT_VAR "PVM_EXPORT"

/* Whether the colon-separated `list` holds `name` (len bytes). */
static int listed(const char *list, const char *name, size_t len)
{
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ":");
		if (n == len && !strncmp(p, name, len))
			return 1;
		p += n;
		if (*p)
			p++;
	}
	return 0;
}

/* Rewrites PVM_EXPORT: the current entries (empty ones dropped) minus
 * the names in `drop`, plus those of `add` not yet present. */
static int rewrite(const char *add, const char *drop)
{
	const char *cur = getenv(EXPORT_VAR);
	if (!cur)
		cur = "";
	size_t cap = strlen(cur) + strlen(add) + 2;
	char *out = malloc(cap);
	if (!out)
		return PvmNoMem;
	size_t len = 0;
	out[0] = '\0';
	for (int pass = 0; pass < 2; pass++) {
		const char *p = pass == 0 ? cur : add;
		while (*p) {
			size_t n = strcspn(p, ":");
			if (n && !listed(drop, p, n) && !listed(out, p, n)) {
				if (len)
					out[len++] = ':';
				memcpy(out + len, p, n);
				len += n;
				out[len] = '\0';
			}
			p += n;
			if (*p)
				p++;
		}
	}
	int r = len ? setenv(EXPORT_VAR, out, 1) : unsetenv(EXPORT_VAR);
	free(out);
	return r == 0 ? 0 : PvmNoMem;
}

int pvm_export(char *name)
{
	if (!name)
		return lp_err("pvm_export", PvmBadParam);
	/* "A:B" exports both; exporting a name twice is no error */
	return lp_err("pvm_export", rewrite(name, ""));
}

int pvm_unexport(char *name)
{
	if (!name)
		return lp_err("pvm_unexport", PvmBadParam);
	return lp_err("pvm_unexport", rewrite("", name));
}

int lp_api_export_env(struct wire_wr *w)
{
	/* "NAME=value" for each listed variable that is set, PVM_EXPORT
	 * itself first when set (man 3 pvm_spawn); each name once. */
	const char *list = getenv(EXPORT_VAR);
	size_t cap = strlen(EXPORT_VAR) + 2 + (list ? strlen(list) : 0);
	char *names = malloc(cap); /* the names to send, ':'-separated */
	if (!names)
		return PvmNoMem;
	strcpy(names, list ? EXPORT_VAR : "");
	for (const char *p = list ? list : ""; *p;) {
		size_t n = strcspn(p, ":");
		if (n && !listed(names, p, n)) {
			size_t len = strlen(names);
			if (len)
				names[len++] = ':';
			memcpy(names + len, p, n);
			names[len + n] = '\0';
		}
		p += n;
		if (*p)
			p++;
	}

	/* two passes: count the set ones, then write them */
	int count = 0;
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1)
			wire_wr_i32(w, count);
		for (char *p = names; *p;) {
			size_t n = strcspn(p, ":");
			char save = p[n];
			p[n] = '\0';
			const char *val = getenv(p);
			if (val && pass == 0) {
				count++;
			} else if (val) {
				char *kv = malloc(n + strlen(val) + 2);
				if (!kv) {
					free(names);
					return PvmNoMem;
				}
				sprintf(kv, "%s=%s", p, val);
				wire_wr_str(w, kv);
				free(kv);
			}
			p[n] = save;
			p += n;
			if (*p)
				p++;
		}
	}
	free(names);
	return count;
}
