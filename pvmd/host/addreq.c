/*
 * addreq.c - the answer to a request to add hosts (addreq.h), once every
 * host it names has started or failed.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pvm3.h"
#include "pvmd/ctl.h"
#include "pvmd/host/addreq.h"
#include "pvmd/host/host.h"
#include "pvmd/host/hostlayer.h"
#include "pvmd/startwait.h"

struct addreq *addreq_new(int n)
{
	struct addreq *ar = calloc(1, sizeof *ar);
	if (!ar)
		return NULL;
	size_t k = (size_t)n + 1;
	ar->results = calloc(k, sizeof *ar->results);
	ar->names = calloc(k, sizeof *ar->names);
	ar->why = calloc(k, sizeof *ar->why);
	if (!ar->results || !ar->names || !ar->why) {
		free(ar->results);
		free(ar->names);
		free(ar->why);
		free(ar);
		return NULL;
	}
	ar->n = n;
	ar->left = n + 1;
	return ar;
}

static void addreq_free(struct addreq *ar)
{
	for (int i = 0; i < ar->n; i++) {
		free(ar->names[i]);
		free(ar->why[i]);
	}
	free(ar->names);
	free(ar->why);
	free(ar->results);
	free(ar);
}

void addreq_name(struct addreq *ar, int idx, const char *name)
{
	free(ar->names[idx]);
	ar->names[idx] = strdup(name); /* NULL (no memory): none reported */
}

void addreq_why(struct addreq *ar, int idx, const char *why, const char *detail)
{
	/* a line: the remote shell's message is cut at 300 bytes by the
	 * hoster already */
	char buf[512];
	snprintf(buf, sizeof buf, "%s%s%s", why, *detail ? ": " : "", detail);
	free(ar->why[idx]);
	ar->why[idx] = strdup(buf);
}

static int tid_descending(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x < y) - (x > y);
}

/* The hosts a finished request brought in that are still up, highest host
 * number first (the reference's order), to `tids`; returns how many. */
static int addreq_joined(const struct pvmd *d, const struct addreq *ar,
			 int *tids)
{
	int k = 0;
	for (int i = 0; i < ar->n; i++)
		if (ar->results[i] > 0 && host_tid_present(d, ar->results[i]))
			tids[k++] = ar->results[i];
	qsort(tids, (size_t)k, sizeof *tids, tid_descending);
	return k;
}

/* The few codes a start can end in, for the hostfile's report (the
 * library has the full table; the pvmd prints this one line). */
static const char *code_text(int code)
{
	switch (code) {
	case PvmBadParam:
		return "bad host line";
	case PvmNoHost:
		return "no such host";
	case PvmDupHost:
		return "already in the machine";
	case PvmCantStart:
		return "Can't start pvmd";
	case PvmBadVersion:
		return "another protocol version";
	case PvmOutOfRes:
		return "out of resources";
	default:
		return "not added";
	}
}

/* The startup hostfile is done: the hosts that failed, on the stderr of
 * whoever started us (the console, pvm_start_pvmd's caller, a shell),
 * which is still ours until pvmd_started. */
static void hostfile_report(const struct addreq *ar)
{
	for (int i = 0; i < ar->n; i++) {
		if (ar->results[i] >= 0)
			continue;
		const char *why = ar->why[i];
		char line[700];
		snprintf(line, sizeof line, "pvmd: host %s not added: %s%s%s",
			 ar->names[i] ? ar->names[i] : "?",
			 code_text(ar->results[i]), why ? ": " : "",
			 why ? why : "");
		startwait_say(line); /* after the wait's status line */
	}
}

/* The startup hostfile's hosts still starting, for the process waiting
 * for them (startwait.c): it shows them, and can have them cancelled. */
static void hostfile_pending(const struct pvmd *d, const struct addreq *ar)
{
	char names[400];
	size_t k = 0;
	int n = 0;
	names[0] = 0;
	for (int i = 0; i < ar->n; i++) {
		if (ar->results[i] || !ar->names[i])
			continue;
		n++;
		if (k + strlen(ar->names[i]) + 2 < sizeof names)
			k += (size_t)snprintf(names + k, sizeof names - k,
					      "%s%s", k ? " " : "",
					      ar->names[i]);
	}
	startwait_pending(n, names, d->hosts->manual_now != NULL);
}

void addreq_done(struct pvmd *d, struct addreq *ar, int idx, int result)
{
	ar->results[idx] = result;
	if (idx == ar->n)
		ar->begun = 1; /* every start is under way */
	if (--ar->left > 0) {
		if (!ar->req_tid && ar->begun && startwait_open())
			hostfile_pending(d, ar);
		return;
	}
	int joined[HOST_MAX];
	int nj = addreq_joined(d, ar, joined);
	if (nj)
		host_added(d, joined, nj);
	if (ar->req_tid) {
		int ok = 0;
		struct wire_wr w;
		wire_wr_init(&w);
		for (int i = 0; i < ar->n; i++)
			ok += ar->results[i] > 0;
		wire_wr_i32(&w, ok);
		wire_wr_i32(&w, ar->n);
		for (int i = 0; i < ar->n; i++)
			wire_wr_i32(&w, ar->results[i]);
		/* then why each failed, for the console's add (a library
		 * that does not know reads no further) */
		for (int i = 0; i < ar->n; i++)
			wire_wr_str(&w, ar->why[i] ? ar->why[i] : "");
		ctl_reply_tid(d, ar->req_tid, &ar->req, &w);
		wire_wr_free(&w);
	} else {
		hostfile_report(ar);
		pvmd_started(); /* the startup hostfile is done */
	}
	addreq_free(ar);
}
