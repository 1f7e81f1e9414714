/*
 * startup.c - what a new pvmd on another host is told (docs/hosts.md,
 * "Starting a pvmd on another host"): the command that starts it there
 * and the startup values, as lines on its stdin (our own ssh start) or
 * as words on its command line (a registered hoster, hoster_task.c).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/wire.h"
#include "pvmd/host/hostlayer.h"
#include "pvmd/host/hostfile.h"

#define START_TIMEOUT_MS 30000

/* `p` in double quotes for a remote shell: a $VARIABLE in it is expanded
 * there (man 1 pvmd3: "expanded by the pvmd that uses the value"),
 * nothing else is. */
static void shell_quote(char *out, size_t n, const char *p)
{
	size_t k = 0;
	if (k + 1 < n)
		out[k++] = '"';
	for (; *p && k + 4 < n; p++) {
		if (*p == '"' || *p == '\\' || *p == '`')
			out[k++] = '\\';
		out[k++] = *p;
	}
	if (k + 1 < n)
		out[k++] = '"';
	out[k] = 0;
}

unsigned hoster_start_timeout(void)
{
	const char *t = getenv("PVM_HOST_START_TIMEOUT");
	long v = t && *t ? strtol(t, NULL, 10) : 0;
	return v >= 100 && v <= 3600000 ? (unsigned)v : START_TIMEOUT_MS;
}

int hoster_remote_command(const struct hostopt *o, char *cmd, size_t n)
{
	char dx[1100], self[600];
	if (*o->dx) {
		snprintf(dx, sizeof dx, "%s", o->dx);
	} else {
		ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
		if (k <= 0)
			return -1;
		self[k] = 0;
		snprintf(dx, sizeof dx, "%s", self);
	}
	shell_quote(cmd, n - 4, dx);
	strcat(cmd, " -s");
	return 0;
}

void hoster_startup_values(
	const struct pvmd *d, const struct host *h, const struct hostopt *o,
	void (*put)(void *ctx, const char *key, const char *val), void *ctx)
{
	char v[32];
	snprintf(v, sizeof v, "%d", WIRE_VERSION);
	put(ctx, "version", v);
	/* id=: the virtual machine id to use there */
	const char *vmid = *o->id ? o->id : getenv("PVM_VMID");
	put(ctx, "vmid", vmid ? vmid : "");
	snprintf(v, sizeof v, "%d", h->no);
	put(ctx, "hostno", v);
	put(ctx, "name", o->name);
	snprintf(v, sizeof v, "%u", d->hosts->timeout_ms);
	put(ctx, "timeout", v);
	if (*o->wd)
		put(ctx, "wd", o->wd);
	if (*o->ep)
		put(ctx, "ep", o->ep);
	if (*o->bx)
		put(ctx, "bx", o->bx);
	/* a transient machine's pvmds all remove their directories */
	if (d->transient)
		put(ctx, "transient", "1");
}

struct lines {
	char *buf;
	size_t size, n;
};

/* Appends "key value" (or "key" when val is NULL) and a newline;
 * what does not fit is cut. */
static void put_line(void *ctx, const char *key, const char *val)
{
	struct lines *l = ctx;
	size_t room = l->size - l->n;
	int k = val ? snprintf(l->buf + l->n, room, "%s %s\n", key, val)
		    : snprintf(l->buf + l->n, room, "%s\n", key);
	l->n = k < 0 || (size_t)k >= room ? l->size - 1 : l->n + (size_t)k;
}

int hoster_startup_lines(const struct pvmd *d, const struct host *h,
			 const struct hostopt *o, unsigned masterwait_ms,
			 char *buf, size_t size)
{
	struct lines l = {buf, size, 0};
	buf[0] = 0;
	hoster_startup_values(d, h, o, put_line, &l);
	if (masterwait_ms) {
		char v[16];
		snprintf(v, sizeof v, "%u", masterwait_ms);
		put_line(&l, "masterwait", v);
	}
	char hex[2 * AUTH_SECRET_LEN + 1];
	auth_hex(d->hosts->secret, AUTH_SECRET_LEN, hex);
	put_line(&l, "secret", hex);
	explicit_bzero(hex, sizeof hex);
	put_line(&l, "end", NULL);
	return (int)l.n;
}
