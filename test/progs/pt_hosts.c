/*
 * pt_hosts.c - the host calls on one host (test/hosts-api.bats):
 * pvm_addhosts, pvm_delhosts, pvm_hostsync, pvm_archcode, pvm_config,
 * pvm_mstat.  Expected values are what the reference PVM 3.4.6 returns.
 * Usage: pt_hosts MODE [HOST]
 *
 *   args       argument checks the library makes itself, archcode,
 *              config and mstat (no TM_ADDHOST/DELHOST/HOSTSYNC needed)
 *   probe      prints the status pvm_addhosts and pvm_hostsync get from
 *              the pvmd for requests that must fail ("add N sync N")
 *   add HOST   adding HOST (this host, by its name) again, an unknown
 *              name, an empty one, a mix, with and without infos
 *   del HOST   deleting an unknown name, "", the master HOST, a mix
 *   sync       pvm_hostsync of this host by every form of its tids
 */
#include "tcommon.h"

#define NOSUCH "nosuchhost.invalid"

/* Cases the reference crashes on (a NULL array or name) are not tried
 * in runs against it. */
static int ref_run(void)
{
	return getenv("PVM_TEST_REF") != NULL;
}

/* pvm_addhosts/delhosts with infos prefilled with a marker. */
static int hcall(int add, char **names, int n, int *infos)
{
	for (int i = 0; i < n; i++)
		infos[i] = 777;
	return add ? pvm_addhosts(names, n, infos)
		   : pvm_delhosts(names, n, infos);
}

static int args(void)
{
	int inf[2] = {777, 777};
	char host[256];
	gethostname(host, sizeof host);
	char *h[] = {host};
	/* nhost < 1 or no array: PvmBadParam, infos untouched */
	EQ(pvm_addhosts(h, 0, inf), PvmBadParam);
	EQ(pvm_addhosts(h, -1, inf), PvmBadParam);
	if (!ref_run())
		EQ(pvm_addhosts(NULL, 1, inf), PvmBadParam);
	EQ(inf[0], 777);
	EQ(pvm_delhosts(h, 0, inf), PvmBadParam);
	EQ(pvm_delhosts(h, -1, inf), PvmBadParam);
	if (!ref_run())
		EQ(pvm_delhosts(NULL, 1, inf), PvmBadParam);
	EQ(inf[0], 777);

	/* hostsync: a tid whose host part is 0 names no host */
	struct timeval clk = {77, 77}, d = {77, 77};
	EQ(pvm_hostsync(0, &clk, &d), PvmNoHost);
	EQ(pvm_hostsync((int)0x80000000u, &clk, &d), PvmNoHost);
	EQ(pvm_hostsync(0x3, &clk, &d), PvmNoHost);
	CHECK(clk.tv_sec == 77 && d.tv_sec == 77, "clk/delta changed on error");

	/* archcode: this machine's data signature; others not found */
	EQ(pvm_archcode("LINUX64"), 0x408c41);
	EQ(pvm_archcode("SUN4"), PvmNotFound);
	EQ(pvm_archcode("linux64"), PvmNotFound);
	EQ(pvm_archcode(""), PvmNotFound);

	/* config: one host, the pvmd's tid, hi_dsig = archcode */
	int nh = -1, na = -1;
	struct pvmhostinfo *hi = NULL;
	EQ(pvm_config(&nh, &na, &hi), 0);
	EQ(nh, 1);
	EQ(na, 1);
	if (hi && nh >= 1) {
		EQ(hi[0].hi_tid, 0x40000);
		EQ(hi[0].hi_tid, pvm_tidtohost(pvm_mytid()));
		CHECK(!strcmp(hi[0].hi_arch, "LINUX64"), "arch %s",
		      hi[0].hi_arch);
		EQ(hi[0].hi_dsig, pvm_archcode(hi[0].hi_arch));
		EQ(hi[0].hi_speed, 1000);
		CHECK(!strcmp(hi[0].hi_name, host), "name %s, host %s",
		      hi[0].hi_name, host);
	}
	EQ(pvm_config(NULL, NULL, NULL), 0);

	/* mstat: this host runs, another name is no host */
	EQ(pvm_mstat(host), 0);
	EQ(pvm_mstat(NOSUCH), PvmNoHost);
	return t_done("pt_hosts args");
}

/* What the pvmd answers (PvmNotImpl before multi-host support). */
static int probe(void)
{
	int inf = 0;
	char *h[] = {NOSUCH};
	int a = pvm_addhosts(h, 1, &inf);
	struct timeval clk;
	int s = pvm_hostsync(pvm_tidtohost(pvm_mytid()), &clk, NULL);
	printf("add %d sync %d\n", a < 0 ? a : inf, s);
	return 0;
}

static int add(char *host)
{
	int inf[4];
	char empty[] = "";
	char *self[] = {host};
	char *nosuch[] = {NOSUCH};
	char *opts[] = {NOSUCH " dx=/x/pvmd"};
	char *mix[] = {host, NOSUCH, empty, host};
	char *withnull[] = {NOSUCH, NULL};

	/* a host already there: 0 successful, PvmDupHost */
	EQ(hcall(1, self, 1, inf), 0);
	EQ(inf[0], PvmDupHost);
	EQ(hcall(1, nosuch, 1, inf), 0);
	EQ(inf[0], PvmNoHost);
	/* a name followed by hostfile options */
	EQ(hcall(1, opts, 1, inf), 0);
	EQ(inf[0], PvmNoHost);
	/* one result per name, in order; "" is a bad parameter */
	EQ(hcall(1, mix, 4, inf), 0);
	EQ(inf[0], PvmDupHost);
	EQ(inf[1], PvmNoHost);
	EQ(inf[2], PvmBadParam);
	EQ(inf[3], PvmDupHost);
	/* infos may be NULL */
	EQ(pvm_addhosts(self, 1, NULL), 0);
	EQ(pvm_addhosts(nosuch, 1, NULL), 0);
	/* a NULL name (the reference crashes): an error for it alone */
	if (!ref_run()) {
		EQ(hcall(1, withnull, 2, inf), 0);
		EQ(inf[0], PvmNoHost);
		CHECK(inf[1] < 0 && inf[1] != 777, "NULL name: %d", inf[1]);
	}
	/* and the machine is unchanged */
	int nh = -1;
	EQ(pvm_config(&nh, NULL, NULL), 0);
	EQ(nh, 1);
	return t_done("pt_hosts add");
}

static int del(char *host)
{
	int inf[3];
	char empty[] = "";
	char *nosuch[] = {NOSUCH};
	char *self[] = {host};
	char *mix[] = {host, NOSUCH, empty};

	EQ(hcall(0, nosuch, 1, inf), 0);
	EQ(inf[0], PvmNoHost);
	/* the master host cannot be deleted: PvmBadParam (reference) */
	EQ(hcall(0, self, 1, inf), 0);
	EQ(inf[0], PvmBadParam);
	EQ(hcall(0, mix, 3, inf), 0);
	EQ(inf[0], PvmBadParam);
	EQ(inf[1], PvmNoHost);
	EQ(inf[2], PvmNoHost);
	EQ(pvm_delhosts(nosuch, 1, NULL), 0);
	int nh = -1;
	EQ(pvm_config(&nh, NULL, NULL), 0);
	EQ(nh, 1);
	EQ(pvm_mstat(host), 0);
	return t_done("pt_hosts del");
}

static long long us_of(struct timeval t)
{
	return (long long)t.tv_sec * 1000000 + t.tv_usec;
}

static int sync_(void)
{
	int me = pvm_mytid();
	int htid = pvm_tidtohost(me);
	/* the host by its pvmd tid, with the daemon bit, by a task tid */
	int forms[] = {htid, (int)((unsigned)htid | 0x80000000u), me, htid | 1};
	for (unsigned i = 0; i < sizeof forms / sizeof *forms; i++) {
		struct timeval clk = {0, 0}, d = {77, 77}, a, b;
		gettimeofday(&a, NULL);
		int r = pvm_hostsync(forms[i], &clk, &d);
		gettimeofday(&b, NULL);
		EQ(r, 0);
		if (r < 0)
			continue;
		/* the same clock: the sample lies between ours (1 ms slack) */
		CHECK(us_of(clk) >= us_of(a) - 1000 &&
			      us_of(clk) <= us_of(b) + 1000,
		      "tid %x: clk %lld not in [%lld, %lld]", forms[i],
		      us_of(clk), us_of(a), us_of(b));
		CHECK(d.tv_usec >= 0 && d.tv_usec <= 999999, "delta usec %ld",
		      (long)d.tv_usec);
		long long dus = us_of(d);
		/* the same clock: the midpoint of our readings is at most
		 * half the round trip away (1 ms slack), however loaded */
		long long half = (us_of(b) - us_of(a)) / 2 + 1000;
		CHECK(dus > -half && dus < half,
		      "tid %x: delta %lld us (bound %lld)", forms[i], dus,
		      half);
		printf("tid %x delta %lld us\n", (unsigned)forms[i], dus);
	}
	/* NULL clk and delta are allowed */
	EQ(pvm_hostsync(htid, NULL, NULL), 0);
	/* a host number that is not in the machine */
	struct timeval clk = {77, 77};
	EQ(pvm_hostsync(0x7ffc0000, &clk, NULL), PvmNoHost);
	EQ(pvm_hostsync(0x80000, &clk, NULL), PvmNoHost);
	EQ(clk.tv_sec, 77);
	return t_done("pt_hosts sync");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr,
			"usage: pt_hosts args|probe|add HOST|del HOST|sync\n");
		return 2;
	}
	if (pvm_mytid() < 0)
		return 1;
	int r = 2;
	if (!strcmp(argv[1], "args"))
		r = args();
	else if (!strcmp(argv[1], "probe"))
		r = probe();
	else if (!strcmp(argv[1], "add") && argc > 2)
		r = add(argv[2]);
	else if (!strcmp(argv[1], "del") && argc > 2)
		r = del(argv[2]);
	else if (!strcmp(argv[1], "sync"))
		r = sync_();
	pvm_exit();
	return r;
}
