/*
 * hostfile.c - parsing the hostfile of man 1 pvmd3 (see hostfile.h).
 */
#include "pvmd/host/hostfile.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' ||
	       c == '\f';
}

/* The next blank-separated field of *p: its start and length (0 at the
 * end of the line); *p moves past it. */
static size_t field(const char **p, const char **start)
{
	const char *s = *p;
	while (blank(*s))
		s++;
	*start = s;
	while (*s && !blank(*s))
		s++;
	*p = s;
	return (size_t)(s - *start);
}

/* Copies a value of n bytes into a field of `size` bytes, or says why not. */
static int set_str(char *dst, size_t size, const char *v, size_t n,
		   const char *what, char *err, size_t errlen)
{
	if (n >= size) {
		snprintf(err, errlen, "%s too long (at most %zu characters)",
			 what, size - 1);
		return -1;
	}
	memcpy(dst, v, n);
	dst[n] = '\0';
	return 0;
}

static int set_sp(int *sp, const char *v, size_t n, char *err, size_t errlen)
{
	char buf[16], *end;
	long x;

	if (n == 0) {
		*sp = 1000;
		return 0;
	}
	if (n < sizeof buf) {
		memcpy(buf, v, n);
		buf[n] = '\0';
		errno = 0;
		x = strtol(buf, &end, 10);
		if (buf[0] >= '0' && buf[0] <= '9' && *end == '\0' &&
		    errno == 0 && x >= 1 && x <= 1000000) {
			*sp = (int)x;
			return 0;
		}
	}
	snprintf(err, errlen,
		 "bad sp= value '%.*s' (an integer from 1 to 1000000)",
		 (int)(n > 32 ? 32 : n), v);
	return -1;
}

/* Applies one "opt=value" field to *o. */
static int set_option(struct hostopt *o, const char *f, size_t n, char *err,
		      size_t errlen)
{
	const char *eq = memchr(f, '=', n);
	const char *v;
	size_t vn;

	if (!eq && n == 2 &&
	    strstr("lo so dx ep wd sp bx ip id", (char[3]){f[0], f[1], 0})) {
		snprintf(err, errlen, "option '%.2s' needs a value (%.2s=...)",
			 f, f);
		return -1;
	}
	if (!eq || eq - f != 2) {
		snprintf(err, errlen, "unknown option '%.*s'",
			 (int)(n > 32 ? 32 : n), f);
		return -1;
	}
	v = eq + 1;
	vn = n - 3;
#define IS(name) (f[0] == name[0] && f[1] == name[1])
	if (IS("lo") || IS("ip")) {
		/* Both reach ssh's command line: no "-o..." smuggled in. */
		if (vn > 0 && v[0] == '-') {
			snprintf(err, errlen,
				 "%.3s value may not begin with '-'", f);
			return -1;
		}
		return IS("lo") ? set_str(o->lo, sizeof o->lo, v, vn,
					  "lo= value", err, errlen)
				: set_str(o->ip, sizeof o->ip, v, vn,
					  "ip= value", err, errlen);
	}
	if (IS("so")) {
		if (!(vn == 0 || (vn == 2 && (!memcmp(v, "ms", 2) ||
					      !memcmp(v, "pw", 2))))) {
			snprintf(err, errlen, "bad so= value '%.*s' (ms or pw)",
				 (int)(vn > 32 ? 32 : vn), v);
			return -1;
		}
		return set_str(o->so, sizeof o->so, v, vn, "so= value", err,
			       errlen);
	}
	if (IS("dx"))
		return set_str(o->dx, sizeof o->dx, v, vn, "dx= value", err,
			       errlen);
	if (IS("ep"))
		return set_str(o->ep, sizeof o->ep, v, vn, "ep= value", err,
			       errlen);
	if (IS("wd"))
		return set_str(o->wd, sizeof o->wd, v, vn, "wd= value", err,
			       errlen);
	if (IS("bx"))
		return set_str(o->bx, sizeof o->bx, v, vn, "bx= value", err,
			       errlen);
	if (IS("id"))
		return set_str(o->id, sizeof o->id, v, vn, "id= value", err,
			       errlen);
	if (IS("sp"))
		return set_sp(&o->sp, v, vn, err, errlen);
#undef IS
	snprintf(err, errlen, "unknown option '%.3s'", f);
	return -1;
}

void hostopt_default(struct hostopt *o)
{
	memset(o, 0, sizeof *o);
	o->sp = 1000;
}

int hostopt_parse(const char *line, struct hostopt *dflt, struct hostopt *out,
		  char *err, size_t errlen)
{
	struct hostopt o;
	const char *p = line, *f;
	size_t n;
	int defaults = 0, deferred = 0;

	n = field(&p, &f);
	if (n == 0 || f[0] == '#')
		return 0;

	o = *dflt;
	if (n == 1 && f[0] == '*') {
		defaults = 1;
	} else {
		if (f[0] == '&') {
			deferred = 1;
			if (n == 1) /* "& name": the name is the next field */
				n = field(&p, &f);
			else
				f++, n--;
		}
		if (n == 0) {
			snprintf(err, errlen, "host name missing after '&'");
			return -1;
		}
		if (f[0] == '$') {
			snprintf(
				err, errlen,
				"'$%.*s': overloading a host ('$' before its name) is not supported",
				(int)(n > 64 ? 64 : n - 1), f + 1);
			return -1;
		}
		if (f[0] == '-' || f[0] == '*' || f[0] == '&' || f[0] == '#' ||
		    memchr(f, '=', n)) {
			snprintf(err, errlen, "bad host name '%.*s'",
				 (int)(n > 64 ? 64 : n), f);
			return -1;
		}
		if (set_str(o.name, sizeof o.name, f, n, "host name", err,
			    errlen) < 0)
			return -1;
		o.deferred = deferred;
	}

	while ((n = field(&p, &f)) > 0)
		if (set_option(&o, f, n, err, errlen) < 0)
			return -1;

	if (defaults) {
		/* The defaults carry options only. */
		o.name[0] = '\0';
		o.deferred = 0;
		*dflt = o;
		return 0;
	}
	*out = o;
	return 1;
}

const struct hostopt *hostfile_find(const struct hostfile *hf, const char *name)
{
	for (int i = 0; i < hf->n; i++)
		if (strcmp(hf->hosts[i].name, name) == 0)
			return &hf->hosts[i];
	return NULL;
}

void hostfile_free(struct hostfile *hf)
{
	free(hf->hosts);
	hf->hosts = NULL;
	hf->n = 0;
	hostopt_default(&hf->dflt);
}

int hostfile_load(const char *path, struct hostfile *hf, char *err,
		  size_t errlen)
{
	struct hostfile h;
	struct hostopt one;
	char *line = NULL, msg[512];
	size_t cap = 0, lineno = 0;
	int nalloc = 0, r = -1;
	FILE *fp;

	hf->hosts = NULL;
	hf->n = 0;
	hostopt_default(&hf->dflt);
	h.hosts = NULL;
	h.n = 0;
	hostopt_default(&h.dflt);

	if (!(fp = fopen(path, "re"))) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	for (;;) {
		errno = 0;
		if (getline(&line, &cap, fp) < 0) {
			if (errno != 0 || ferror(fp)) {
				snprintf(err, errlen, "%s: %s", path,
					 strerror(errno ? errno : EIO));
				goto out;
			}
			break;
		}
		lineno++;
		int k = hostopt_parse(line, &h.dflt, &one, msg, sizeof msg);
		if (k < 0) {
			snprintf(err, errlen, "%s:%zu: %s", path, lineno, msg);
			goto out;
		}
		if (k == 0)
			continue;
		if (hostfile_find(&h, one.name)) {
			snprintf(err, errlen, "%s:%zu: host %s is listed twice",
				 path, lineno, one.name);
			goto out;
		}
		if (h.n == nalloc) {
			int nn = nalloc ? 2 * nalloc : 16;
			struct hostopt *p;
			if (nn > INT_MAX / 2 ||
			    !(p = realloc(h.hosts, (size_t)nn * sizeof *p))) {
				snprintf(err, errlen, "%s:%zu: out of memory",
					 path, lineno);
				goto out;
			}
			h.hosts = p;
			nalloc = nn;
		}
		h.hosts[h.n++] = one;
	}
	*hf = h;
	h.hosts = NULL;
	r = 0;
out:
	free(h.hosts);
	free(line);
	fclose(fp);
	return r;
}
