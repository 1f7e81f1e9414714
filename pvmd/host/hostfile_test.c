/*
 * hostfile_test.c - unit test of pvmd/hostfile.c: every option, '*'
 * defaults, '&', comments, errors (with line numbers), too-long values and
 * duplicates.  Prints TAP.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pvmd/host/hostfile.h"
#include "test/unit/tap.h"

static char err[512];

/* Parses one line with fresh defaults. */
static int parse1(const char *line, struct hostopt *out)
{
	struct hostopt d;
	hostopt_default(&d);
	err[0] = '\0';
	return hostopt_parse(line, &d, out, err, sizeof err);
}

static int is_default(const struct hostopt *o)
{
	return !o->lo[0] && !o->so[0] && !o->dx[0] && !o->ep[0] && !o->wd[0] &&
	       !o->bx[0] && !o->ip[0] && !o->id[0] && o->sp == 1000 &&
	       !o->deferred;
}

/* Expects line to be refused with a message containing want. */
static void refused(const char *line, const char *want)
{
	struct hostopt o;
	int r = parse1(line, &o);
	ok(r == -1 && strstr(err, want) != NULL, "refused: \"%s\" -> \"%s\"",
	   line, err);
}

static void test_line(void)
{
	struct hostopt d, o, saved;
	int r;

	hostopt_default(&o);
	ok(is_default(&o) && o.name[0] == '\0',
	   "hostopt_default: empty strings, sp 1000");

	ok(parse1("", &o) == 0, "an empty line is nothing");
	ok(parse1(" \t \r\n", &o) == 0, "a blank line is nothing");
	ok(parse1("# comment lo=x", &o) == 0, "a comment is nothing");
	ok(parse1("   \t#indented comment", &o) == 0,
	   "an indented comment is nothing");
	ok(parse1("#", &o) == 0, "a lone '#' is a comment");

	r = parse1("thud", &o);
	ok(r == 1 && strcmp(o.name, "thud") == 0 && is_default(&o),
	   "a bare host name");
	r = parse1("  thud.cs.example.org  \r\n", &o);
	ok(r == 1 && strcmp(o.name, "thud.cs.example.org") == 0,
	   "blanks around the name and CRLF are dropped");

	r = parse1(
		"sigi lo=guest so=pw dx=/usr/local/pvm3/lib/pvmd ep=bin/$PVM_ARCH:/opt/bin "
		"wd=/scratch sp=2500 bx=/usr/bin/gdbx ip=sigi-eth1 id=vm7",
		&o);
	ok(r == 1, "every option on one line");
	ok(strcmp(o.name, "sigi") == 0, "  name");
	ok(strcmp(o.lo, "guest") == 0, "  lo=");
	ok(strcmp(o.so, "pw") == 0, "  so=pw");
	ok(strcmp(o.dx, "/usr/local/pvm3/lib/pvmd") == 0, "  dx=");
	ok(strcmp(o.ep, "bin/$PVM_ARCH:/opt/bin") == 0,
	   "  ep= (colons, '$' kept as written)");
	ok(strcmp(o.wd, "/scratch") == 0, "  wd=");
	ok(o.sp == 2500, "  sp=");
	ok(strcmp(o.bx, "/usr/bin/gdbx") == 0, "  bx=");
	ok(strcmp(o.ip, "sigi-eth1") == 0, "  ip=");
	ok(strcmp(o.id, "vm7") == 0, "  id=");
	ok(!o.deferred, "  not deferred");

	ok(parse1("h so=ms", &o) == 1 && strcmp(o.so, "ms") == 0, "so=ms");
	ok(parse1("h\tlo=a\t\tlo=b", &o) == 1 && strcmp(o.lo, "b") == 0,
	   "tabs separate; an option given twice: the last wins");
	ok(parse1("h sp=1", &o) == 1 && o.sp == 1, "sp=1 (lowest)");
	ok(parse1("h sp=1000000", &o) == 1 && o.sp == 1000000,
	   "sp=1000000 (highest)");

	r = parse1(
		"& igor.firewall.com lo=guest2 so=ms ep=bob/pvm3/bin/$PVM_ARCH",
		&o);
	ok(r == 1 && o.deferred && strcmp(o.name, "igor.firewall.com") == 0 &&
		   strcmp(o.lo, "guest2") == 0 && strcmp(o.so, "ms") == 0,
	   "'& name' is a deferred host with its options");
	r = parse1("&igor", &o);
	ok(r == 1 && o.deferred && strcmp(o.name, "igor") == 0, "'&name' too");
	r = parse1("  &\tigor", &o);
	ok(r == 1 && o.deferred && strcmp(o.name, "igor") == 0,
	   "'&', a tab, the name");

	/* '*' lines. */
	hostopt_default(&d);
	ok(hostopt_parse("* lo=afriend so=pw", &d, &o, err, sizeof err) == 0 &&
		   strcmp(d.lo, "afriend") == 0 && strcmp(d.so, "pw") == 0 &&
		   d.name[0] == '\0',
	   "a '*' line sets the defaults");
	r = hostopt_parse("fred", &d, &o, err, sizeof err);
	ok(r == 1 && strcmp(o.lo, "afriend") == 0 && strcmp(o.so, "pw") == 0 &&
		   o.sp == 1000,
	   "a host takes the defaults");
	r = hostopt_parse("fred lo=me sp=5", &d, &o, err, sizeof err);
	ok(r == 1 && strcmp(o.lo, "me") == 0 && strcmp(o.so, "pw") == 0 &&
		   o.sp == 5,
	   "a host's own options override them");
	r = hostopt_parse("fred lo= so=", &d, &o, err, sizeof err);
	ok(r == 1 && o.lo[0] == '\0' && o.so[0] == '\0',
	   "'opt=' with no value puts an option back to its default");
	ok(strcmp(d.lo, "afriend") == 0,
	   "a host line leaves the defaults alone");
	ok(hostopt_parse("*\tsp=20 wd=/w", &d, &o, err, sizeof err) == 0 &&
		   d.sp == 20 && strcmp(d.wd, "/w") == 0 &&
		   strcmp(d.lo, "afriend") == 0,
	   "a later '*' line changes only the options it names");
	ok(hostopt_parse("*", &d, &o, err, sizeof err) == 0 && d.sp == 20,
	   "a '*' alone changes nothing");

	/* Errors: the defaults and the output are untouched. */
	saved = d;
	memset(&o, 0x5a, sizeof o);
	ok(hostopt_parse("* lo=x xx=1", &d, &o, err, sizeof err) == -1 &&
		   memcmp(&d, &saved, sizeof d) == 0,
	   "a bad '*' line changes no default");
	ok(hostopt_parse("h lo=x sp=0", &d, &o, err, sizeof err) == -1 &&
		   ((unsigned char *)&o)[0] == 0x5a,
	   "a bad host line writes no host");

	refused("h xx=1", "unknown option 'xx='");
	refused("h LO=bob", "unknown option 'LO='");
	refused("h lo", "option 'lo' needs a value");
	refused("h sp", "option 'sp' needs a value");
	refused("h foo", "unknown option 'foo'");
	refused("h loo=x", "unknown option 'loo=x'");
	refused("h =x", "unknown option '=x'");
	refused("h # trailing comment", "unknown option '#'");
	refused("h sp=0", "bad sp= value '0'");
	refused("h sp=1000001", "bad sp= value");
	refused("h sp=-5", "bad sp= value");
	refused("h sp=+5", "bad sp= value");
	refused("h sp=abc", "bad sp= value 'abc'");
	refused("h sp=12x", "bad sp= value");
	refused("h sp=99999999999999999999", "bad sp= value");
	refused("h so=zz", "bad so= value 'zz'");
	refused("h so=pw=", "bad so= value");
	refused("h so=PW", "bad so= value");
	refused("&", "host name missing after '&'");
	refused("  & ", "host name missing after '&'");
	refused("$thud", "overloading a host");
	refused("& $thud", "overloading a host");
	refused("-oProxyCommand=x", "bad host name");
	refused("h lo=-oProxyCommand=x", "lo= value may not begin with '-'");
	refused("h ip=-x", "ip= value may not begin with '-'");
	refused("lo=guest", "bad host name 'lo=guest'");
	refused("*x lo=a", "bad host name");
	refused("& * lo=a", "bad host name");
	refused("&&h", "bad host name");
	refused("& #h", "bad host name");
}

/* A value of n 'x' after prefix, as a line. */
static char *long_line(const char *prefix, size_t n)
{
	size_t k = strlen(prefix);
	char *s = malloc(k + n + 1);
	memcpy(s, prefix, k);
	memset(s + k, 'x', n);
	s[k + n] = '\0';
	return s;
}

static void test_lengths(void)
{
	static const struct {
		const char *prefix;
		size_t max;
	} f[] = {
		{"h lo=", 63},	{"h dx=", 511}, {"h ep=", 1023},
		{"h wd=", 511}, {"h bx=", 511}, {"h ip=", 255},
		{"h id=", 255}, {"", 255},	{"& ", 255},
	};
	struct hostopt o;

	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
		char *s = long_line(f[i].prefix, f[i].max);
		ok(parse1(s, &o) == 1, "'%s' + %zu characters fits",
		   f[i].prefix, f[i].max);
		free(s);
		s = long_line(f[i].prefix, f[i].max + 1);
		ok(parse1(s, &o) == -1 && strstr(err, "too long") != NULL,
		   "'%s' + %zu characters is too long: %s", f[i].prefix,
		   f[i].max + 1, err);
		free(s);
	}
}

static char dir[] = "/tmp/pvm-hostfile-test.XXXXXX";

/* Writes text to a file of the test directory and loads it. */
static int load(const char *text, struct hostfile *hf, char *path,
		size_t pathlen)
{
	static int seq;
	FILE *fp;

	snprintf(path, pathlen, "%s/hf%d", dir, ++seq);
	fp = fopen(path, "w");
	if (!fp)
		return -2;
	fputs(text, fp);
	fclose(fp);
	err[0] = '\0';
	return hostfile_load(path, hf, err, sizeof err);
}

static void test_file(void)
{
	struct hostfile hf;
	const struct hostopt *h;
	char path[128], want[256];

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}

	/* The example of man 1 pvmd3, and a later '*' line. */
	ok(load("# host file for testing on various platforms\n"
		"fonebone\n"
		"refuge\n"
		"# installed in /usr/local here\n"
		"sigi.cs             dx=/usr/local/pvm3/lib/pvmd\n"
		"# borrowed accts, \"guest\", don't trust fonebone\n"
		"*                   lo=guest  so=pw\n"
		"sn666.jrandom.com\n"
		"cubie.misc.edu\n"
		"# really painful one, must start it by hand and share a homedir\n"
		"& igor.firewall.com  lo=guest2  so=ms  ep=bob/pvm3/bin/$PVM_ARCH\n"
		"\n"
		"* sp=300 so=\n"
		"last\n",
		&hf, path, sizeof path) == 0,
	   "the man page's example loads: %s", err);
	ok(hf.n == 7, "7 hosts (got %d)", hf.n);
	ok(hf.n == 7 && !strcmp(hf.hosts[0].name, "fonebone") &&
		   !strcmp(hf.hosts[1].name, "refuge") &&
		   !strcmp(hf.hosts[2].name, "sigi.cs") &&
		   !strcmp(hf.hosts[3].name, "sn666.jrandom.com") &&
		   !strcmp(hf.hosts[4].name, "cubie.misc.edu") &&
		   !strcmp(hf.hosts[5].name, "igor.firewall.com") &&
		   !strcmp(hf.hosts[6].name, "last"),
	   "in file order");
	h = hostfile_find(&hf, "fonebone");
	ok(h && is_default(h), "fonebone: all defaults (before the '*' line)");
	h = hostfile_find(&hf, "sigi.cs");
	ok(h && !strcmp(h->dx, "/usr/local/pvm3/lib/pvmd") && !h->lo[0],
	   "sigi.cs: its dx=, no lo=");
	h = hostfile_find(&hf, "sn666.jrandom.com");
	ok(h && !strcmp(h->lo, "guest") && !strcmp(h->so, "pw") && !h->deferred,
	   "sn666: lo=guest so=pw from the '*' line");
	h = hostfile_find(&hf, "cubie.misc.edu");
	ok(h && !strcmp(h->lo, "guest") && !strcmp(h->so, "pw"),
	   "cubie: the same");
	h = hostfile_find(&hf, "igor.firewall.com");
	ok(h && h->deferred && !strcmp(h->lo, "guest2") &&
		   !strcmp(h->so, "ms") &&
		   !strcmp(h->ep, "bob/pvm3/bin/$PVM_ARCH"),
	   "igor: deferred, its own lo=, so=, ep=");
	h = hostfile_find(&hf, "last");
	ok(h && h->sp == 300 && !h->so[0] && !strcmp(h->lo, "guest"),
	   "last: the second '*' line changed sp= and so=, kept lo=");
	ok(hf.dflt.sp == 300 && !strcmp(hf.dflt.lo, "guest") &&
		   !hf.dflt.so[0] && !hf.dflt.name[0],
	   "the file's final defaults are kept (for later pvm_addhosts)");
	ok(hostfile_find(&hf, "nosuch") == NULL &&
		   hostfile_find(&hf, "sigi") == NULL,
	   "hostfile_find: an unknown name is NULL (no prefix match)");
	hostfile_free(&hf);
	ok(hf.n == 0 && hf.hosts == NULL, "hostfile_free empties it");

	ok(load("", &hf, path, sizeof path) == 0 && hf.n == 0 &&
		   hf.dflt.sp == 1000,
	   "an empty file: no host");
	hostfile_free(&hf);
	ok(load("a\nb", &hf, path, sizeof path) == 0 && hf.n == 2 &&
		   !strcmp(hf.hosts[1].name, "b"),
	   "a last line without newline counts");
	hostfile_free(&hf);
	{
		/* Many hosts: the array grows. */
		char *big = malloc(100 * 16), *p = big;
		for (int i = 0; i < 100; i++)
			p += sprintf(p, "host%d sp=%d\n", i, i + 1);
		ok(load(big, &hf, path, sizeof path) == 0 && hf.n == 100 &&
			   hostfile_find(&hf, "host99") &&
			   hostfile_find(&hf, "host99")->sp == 100,
		   "100 hosts");
		hostfile_free(&hf);
		free(big);
	}

	/* Errors name the file and the line. */
	ok(load("a\n# c\n\nb xx=1\nc\n", &hf, path, sizeof path) == -1,
	   "an unknown option fails");
	snprintf(want, sizeof want, "%s:4: unknown option 'xx='", path);
	ok(strcmp(err, want) == 0, "  message \"%s\"", err);
	ok(hf.n == 0 && hf.hosts == NULL, "  and the hostfile is left empty");
	ok(load("a\nb sp=0\n", &hf, path, sizeof path) == -1,
	   "a bad sp= fails");
	snprintf(want, sizeof want, "%s:2: bad sp= value '0'", path);
	ok(strncmp(err, want, strlen(want)) == 0, "  message \"%s\"", err);
	ok(load("* lo=a\n* so=xx\n", &hf, path, sizeof path) == -1,
	   "a bad '*' line fails");
	snprintf(want, sizeof want, "%s:2: bad so= value 'xx'", path);
	ok(strncmp(err, want, strlen(want)) == 0, "  message \"%s\"", err);
	ok(load("a\nb\n& a lo=x\n", &hf, path, sizeof path) == -1,
	   "a host listed twice fails");
	snprintf(want, sizeof want, "%s:3: host a is listed twice", path);
	ok(strcmp(err, want) == 0, "  message \"%s\"", err);
	{
		char *s = long_line("h wd=", 600), *t = malloc(700);
		snprintf(t, 700, "a\n\n%s\n", s);
		ok(load(t, &hf, path, sizeof path) == -1,
		   "a too-long value fails");
		snprintf(want, sizeof want, "%s:3: wd= value too long", path);
		ok(strncmp(err, want, strlen(want)) == 0, "  message \"%s\"",
		   err);
		free(s);
		free(t);
	}
	snprintf(path, sizeof path, "%s/nosuch", dir);
	ok(hostfile_load(path, &hf, err, sizeof err) == -1 &&
		   strstr(err, path) && strstr(err, "No such file"),
	   "a missing file: \"%s\"", err);
	ok(hostfile_load(dir, &hf, err, sizeof err) == -1 && strstr(err, dir),
	   "a directory: \"%s\"", err);

	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
}

int main(void)
{
	test_line();
	test_lengths();
	test_file();
	return tap_done();
}
