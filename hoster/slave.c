/*
 * slave.c - a pvmd started by the master on another host (`pvmd -s`,
 * docs/hosts.md): the startup lines it reads on stdin and the line it
 * answers on stdout.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host.h"
#include "wire.h"

static char client_ip[64]; /* the master's address, as ssh saw it */

static void answer_error(const char *fmt, const char *arg)
    __attribute__((noreturn));

static void answer_error(const char *fmt, const char *arg)
{
	printf("error ");
	printf(fmt, arg);
	printf("\n");
	fflush(stdout);
	exit(1);
}

void slave_read_config(struct pvmd *d)
{
	char line[2048];
	int version = -1, hostno = 0, got_secret = 0, got_end = 0;
	while (fgets(line, sizeof line, stdin)) {
		size_t n = strlen(line);
		if (n && line[n - 1] == '\n')
			line[--n] = 0;
		char *val = strchr(line, ' ');
		if (val)
			*val++ = 0;
		else
			val = line + n;
		if (!strcmp(line, "end")) {
			got_end = 1;
			break;
		} else if (!strcmp(line, "version")) {
			version = atoi(val);
		} else if (!strcmp(line, "vmid")) {
			if (*val)
				setenv("PVM_VMID", val, 1);
			else
				unsetenv("PVM_VMID");
		} else if (!strcmp(line, "hostno")) {
			hostno = atoi(val);
		} else if (!strcmp(line, "name")) {
			if (!*val || strlen(val) >= sizeof d->hostname)
				answer_error("bad host name '%s'", val);
			snprintf(d->hostname, sizeof d->hostname, "%s", val);
		} else if (!strcmp(line, "secret")) {
			if (auth_unhex(val, hl.secret, AUTH_SECRET_LEN) < 0)
				answer_error("bad secret%s", "");
			got_secret = hl.have_secret = 1;
			memset(val, 0, strlen(val));
		} else if (!strcmp(line, "timeout")) {
			setenv("PVM_HOST_TIMEOUT", val, 1);
		} else if (!strcmp(line, "wd")) {
			setenv("PVMD_SLAVE_WD", val, 1);
		} else if (!strcmp(line, "ep")) {
			setenv("PVM_PATH", val, 1);
		} else if (!strcmp(line, "bx")) {
			setenv("PVM_DEBUGGER", val, 1);
		}
		/* unknown keys: from a newer master, ignored */
	}
	if (version != WIRE_VERSION) {
		char v[16];
		snprintf(v, sizeof v, "%d", version);
		answer_error("protocol version %s not spoken here", v);
	}
	if (!got_end || !got_secret || hostno < 2 || hostno > HOST_MAX ||
	    !*d->hostname)
		answer_error("incomplete startup lines%s", "");
	d->hosttid = wire_host_tid(hostno);

	/* SSH_CONNECTION: "client_ip client_port server_ip server_port" */
	const char *sc = getenv("SSH_CONNECTION");
	char cip[64], sip[64];
	if (sc && sscanf(sc, "%63s %*s %63s", cip, sip) == 2) {
		snprintf(client_ip, sizeof client_ip, "%s", cip);
		snprintf(d->ip, sizeof d->ip, "%s", sip);
	}
}

void slave_report_ok(struct pvmd *d)
{
	printf("ok %s:%d %s %d %s\n", *d->ip ? d->ip : "127.0.0.1", hl.port,
	       d->arch, PVMD_DSIG, client_ip);
	fflush(stdout);
}
