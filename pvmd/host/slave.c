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

#include "proto/wire.h"
#include "pvmd/host/hostlayer.h"

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

/* What the startup lines said so far. */
struct cfg {
	int version, hostno, got_secret, got_ticket, got_end;
};

/* One "key value" line (val: after the first space, may be modified). */
static void config_line(struct pvmd *d, struct cfg *k, char *line, char *val)
{
	if (!strcmp(line, "end")) {
		k->got_end = 1;
	} else if (!strcmp(line, "version")) {
		k->version = atoi(val);
	} else if (!strcmp(line, "vmid")) {
		if (*val)
			setenv("PVM_VMID", val, 1);
		else
			unsetenv("PVM_VMID");
	} else if (!strcmp(line, "hostno")) {
		k->hostno = atoi(val);
	} else if (!strcmp(line, "name")) {
		if (!*val || strlen(val) >= sizeof d->hostname)
			answer_error("bad host name '%s'", val);
		snprintf(d->hostname, sizeof d->hostname, "%s", val);
	} else if (!strcmp(line, "secret")) {
		if (auth_unhex(val, d->hosts->secret, AUTH_SECRET_LEN) < 0)
			answer_error("bad secret%s", "");
		k->got_secret = d->hosts->have_secret = 1;
		explicit_bzero(val, strlen(val));
	} else if (!strcmp(line, "ticket")) {
		if (auth_unhex(val, d->hosts->ticket, AUTH_SECRET_LEN) < 0)
			answer_error("bad ticket%s", "");
		k->got_ticket = d->hosts->have_ticket = 1;
		explicit_bzero(val, strlen(val));
	} else if (!strcmp(line, "commit")) {
		if (auth_unhex(val, d->hosts->commit, AUTH_MAC_LEN) < 0)
			answer_error("bad commit%s", "");
		d->hosts->have_commit = 1;
	} else if (!strcmp(line, "ticketlife")) {
		long v = atol(val);
		d->hosts->ticket_life_ms =
			v > 0 && v <= 3600000 ? (unsigned)v : 0;
	} else if (!strcmp(line, "masterwait")) {
		long v = atol(val);
		d->hosts->master_wait_ms =
			v > 0 && v <= 3600000 ? (unsigned)v : 0;
	} else if (!strcmp(line, "timeout")) {
		setenv("PVM_HOST_TIMEOUT", val, 1);
	} else if (!strcmp(line, "wd")) {
		setenv("PVMD_SLAVE_WD", val, 1);
	} else if (!strcmp(line, "ep")) {
		setenv("PVM_PATH", val, 1);
	} else if (!strcmp(line, "bx")) {
		setenv("PVM_DEBUGGER", val, 1);
	} else if (!strcmp(line, "transient")) {
		d->transient = atoi(val) != 0;
	}
	/* unknown keys: from a newer master, ignored */
}

/* Splits "key value" at the first space. */
static char *split(char *line)
{
	char *val = strchr(line, ' ');
	if (val)
		*val++ = 0;
	else
		val = line + strlen(line);
	return val;
}

static void config_done(struct pvmd *d, const struct cfg *k)
{
	if (k->version != WIRE_VERSION) {
		char v[16];
		snprintf(v, sizeof v, "%d", k->version);
		answer_error("protocol version %s not spoken here", v);
	}
	/* the secret (ssh start) or a ticket (a hoster's), not both */
	if (!k->got_end || k->got_secret == k->got_ticket ||
	    (k->got_ticket && !d->hosts->have_commit) || k->hostno < 2 ||
	    k->hostno > HOST_MAX || !*d->hostname)
		answer_error("incomplete startup lines%s", "");
	d->hosttid = wire_host_tid(k->hostno);

	/* SSH_CONNECTION: "client_ip client_port server_ip server_port" */
	const char *sc = getenv("SSH_CONNECTION");
	char cip[64], sip[64];
	if (sc && sscanf(sc, "%63s %*s %63s", cip, sip) == 2) {
		snprintf(d->hosts->client_ip, sizeof d->hosts->client_ip, "%s",
			 cip);
		snprintf(d->ip, sizeof d->ip, "%s", sip);
	}
}

void host_read_startup(struct pvmd *d)
{
	char line[2048];
	struct cfg k = {.version = -1};
	while (!k.got_end && fgets(line, sizeof line, stdin)) {
		size_t n = strlen(line);
		if (n && line[n - 1] == '\n')
			line[--n] = 0;
		config_line(d, &k, line, split(line));
	}
	explicit_bzero(line, sizeof line);
	if (k.got_ticket)
		answer_error("a ticket is for the command line%s", "");
	config_done(d, &k);
}

void host_read_startup_args(struct pvmd *d, int argc, char **argv)
{
	struct cfg k = {.version = -1};
	char line[2048];
	/* the ticket leaves the argument list (/proc/<pid>/cmdline) first */
	for (int i = 0; i < argc; i++)
		if (!strncmp(argv[i], "ticket ", 7)) {
			snprintf(line, sizeof line, "%s", argv[i]);
			explicit_bzero(argv[i], strlen(argv[i]));
			config_line(d, &k, line, split(line));
			explicit_bzero(line, sizeof line);
		}
	for (int i = 0; i < argc && !k.got_end; i++) {
		if (!*argv[i])
			continue; /* the ticket, wiped */
		if (strlen(argv[i]) >= sizeof line)
			answer_error("startup argument too long%s", "");
		snprintf(line, sizeof line, "%s", argv[i]);
		if (!strncmp(line, "secret", 6))
			answer_error("the secret is never on a command line%s",
				     "");
		config_line(d, &k, line, split(line));
	}
	config_done(d, &k);
}

void slave_report_ok(struct pvmd *d)
{
	printf("ok %s:%d %s %d %s\n", *d->ip ? d->ip : "127.0.0.1",
	       d->hosts->port, d->arch, DSIG_NATIVE, d->hosts->client_ip);
	fflush(stdout);
}
