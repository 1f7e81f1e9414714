/*
 * pt_mh_hosts.c - pt_mh's modes spawn, hostinfo, addhosts and grow: where
 * spawned tasks go, the host calls, and a group the machine grows under,
 * over many hosts
 * (test/multihost.bats; usage in pt_mh.c).
 */
#include "tcommon.h"
#include "pt_mh.h"

/* ---- spawn ---- */

static int count_on(const int *tids, int n, int htid)
{
	int c = 0;
	for (int k = 0; k < n; k++)
		c += tids[k] > 0 && pvm_tidtohost(tids[k]) == htid;
	return c;
}

int spawn_main(int n)
{
	get_hosts();
	if (n <= 0)
		n = 2 * nhost;
	int *all = calloc((size_t)(4 * n + 4 * nhost + 8), sizeof *all), na = 0;
	int *t = all;
	/* default placement: spread over every host */
	int got = spawn_on("wait", PvmTaskDefault, NULL, n, t, NULL);
	EQ(got, n);
	int lo = n / nhost, hi = (n + nhost - 1) / nhost;
	for (int h = 0; h < nhost; h++) {
		int c = count_on(t, n, hosts[h].hi_tid);
		printf("default host %s count %d\n", hosts[h].hi_name, c);
		CHECK(c >= lo && c <= hi, "host %s got %d of %d tasks",
		      hosts[h].hi_name, c, n);
	}
	na += n;
	/* PvmTaskHost: one on each host, by name */
	for (int h = 0; h < nhost; h++) {
		int tid = 0;
		got = spawn_on("wait", PvmTaskHost, hosts[h].hi_name, 1, &tid,
			       NULL);
		CHECK(got == 1 && pvm_tidtohost(tid) == hosts[h].hi_tid,
		      "PvmTaskHost %s: %d t%x", hosts[h].hi_name, got,
		      (unsigned)tid);
		if (got == 1)
			all[na++] = tid;
		printf("host %s t%x\n", hosts[h].hi_name, (unsigned)tid);
	}
	/* PvmTaskArch */
	got = spawn_on("wait", PvmTaskArch, "LINUX64", nhost, all + na, NULL);
	EQ(got, nhost);
	printf("arch LINUX64 %d\n", got);
	na += got > 0 ? got : 0;
	int bad = 0;
	got = spawn_on("wait", PvmTaskArch, "NOSUCHARCH", 1, &bad, NULL);
	CHECK(got < 1 && bad < 0, "arch NOSUCHARCH: %d %d", got, bad);
	printf("arch NOSUCHARCH %d %d\n", got, bad);
	/* PvmHostCompl: anywhere but our host */
	int nc = 2 * (nhost - 1);
	if (nc > 0) {
		got = spawn_on("wait", PvmTaskHost | PvmHostCompl,
			       host_name_of(myhost), nc, all + na, NULL);
		EQ(got, nc);
		EQ(count_on(all + na, nc, myhost), 0);
		printf("compl %d on our host %d\n", got,
		       count_on(all + na, nc, myhost));
		na += got > 0 ? got : 0;
	}
	/* pvm_tasks(0): every task with its host */
	struct pvmtaskinfo *ti = NULL;
	int nt = 0;
	EQ(pvm_tasks(0, &nt, &ti), 0);
	int found = 0;
	for (int k = 0; k < na; k++)
		for (int j = 0; j < nt; j++)
			if (ti[j].ti_tid == all[k]) {
				found++;
				CHECK(ti[j].ti_host == pvm_tidtohost(all[k]),
				      "t%x listed on host t%x",
				      (unsigned)all[k],
				      (unsigned)ti[j].ti_host);
			}
	EQ(found, na);
	for (int h = 0; h < nhost; h++) {
		int c = 0;
		for (int j = 0; j < nt; j++)
			c += ti[j].ti_host == hosts[h].hi_tid;
		CHECK(c > 0, "pvm_tasks(0) lists no task of %s",
		      hosts[h].hi_name);
	}
	printf("tasks(0) %d found %d of %d\n", nt, found, na);
	/* pvm_tasks(host tid) of each other host: exactly its tasks */
	for (int h = 0; h < nhost; h++) {
		if (hosts[h].hi_tid == myhost)
			continue;
		int nh = 0, mine = 0, others = 0;
		EQ(pvm_tasks(hosts[h].hi_tid, &nh, &ti), 0);
		for (int j = 0; j < nh; j++) {
			others += ti[j].ti_host != hosts[h].hi_tid;
			for (int k = 0; k < na; k++)
				mine += ti[j].ti_tid == all[k];
		}
		EQ(others, 0);
		EQ(mine, count_on(all, na, hosts[h].hi_tid));
		printf("tasks(%s) %d ours %d\n", hosts[h].hi_name, nh, mine);
	}
	/* pvm_kill of every task, remote ones too: each is reported by its
	 * PvmTaskExit notify and pvm_pstat says it is gone */
	EQ(pvm_notify(PvmTaskExit, TAG_TX, na, all), 0);
	for (int k = 0; k < na; k++)
		EQ(pvm_kill(all[k]), 0);
	int nx = 0;
	while (nx < na && t_recv(-1, TAG_TX, 10) > 0)
		nx++;
	EQ(nx, na);
	int alive = 0;
	for (int k = 0; k < na; k++)
		alive += pvm_pstat(all[k]) != PvmNoTask;
	EQ(alive, 0);
	printf("killed %d, exit notifies %d\n", na, nx);
	/* a notify for a remote task that is already gone comes at once */
	for (int h = 0; h < nhost; h++) {
		if (hosts[h].hi_tid == myhost)
			continue;
		int c = 0;
		if (spawn_on("exit", PvmTaskHost, hosts[h].hi_name, 1, &c,
			     NULL) != 1)
			continue;
		double t0 = t_now();
		while (pvm_pstat(c) != PvmNoTask && t_now() - t0 < 10)
			t_msleep(20);
		EQ(pvm_pstat(c), PvmNoTask);
		EQ(pvm_notify(PvmTaskExit, TAG_TX, 1, &c), 0);
		int b = t_recv(-1, TAG_TX, 10), who = 0;
		if (b > 0)
			pvm_upkint(&who, 1, 1);
		CHECK(b > 0 && who == c, "late notify for t%x on %s: %d t%x",
		      (unsigned)c, hosts[h].hi_name, b, (unsigned)who);
	}
	free(all);
	return t_done("spawn");
}

/* ---- the host table through the API ---- */

/* hostinfo: pvm_mstat, pvm_hostsync, pvm_archcode, pvm_tidtohost for
 * every host of the machine, from wherever we run. */
int hostinfo_main(void)
{
	get_hosts();
	EQ(pvm_mstat("nosuchhost"), PvmNoHost);
	int ac = pvm_archcode("LINUX64");
	CHECK(ac > 0, "pvm_archcode(LINUX64) = %d", ac);
	for (int h = 0; h < nhost; h++) {
		const char *hn = hosts[h].hi_name;
		EQ(pvm_mstat((char *)hn), PvmOk);
		EQ(pvm_tidtohost(hosts[h].hi_tid), hosts[h].hi_tid);
		CHECK(!strcmp(hosts[h].hi_arch, "LINUX64"), "%s arch %s", hn,
		      hosts[h].hi_arch);
		struct timeval clk = {0, 0}, delta = {99, 0};
		double t0 = t_now();
		int r = pvm_hostsync(hosts[h].hi_tid, &clk, &delta);
		double ms = (t_now() - t0) * 1000;
		EQ(r, 0);
		/* one clock on this machine: the delta is the transit time */
		double dd = delta.tv_sec + delta.tv_usec / 1e6;
		CHECK(dd > -1 && dd < 1 && clk.tv_sec > 1000000000,
		      "%s delta %g clk %ld", hn, dd, (long)clk.tv_sec);
		printf("host %s mstat ok hostsync delta %.6f s in %.1f ms\n",
		       hn, dd, ms);
	}
	int bad = pvm_hostsync(0x7ff << 18, NULL, NULL);
	CHECK(bad < 0, "pvm_hostsync of no host: %d", bad);
	return t_done("hostinfo");
}

/* addhosts NAME...: pvm_addhosts of the names (expected results given as
 * NAME=ok, NAME=NoHost, NAME=DupHost, NAME=CantStart), the PvmHostAdd
 * notify for the new ones; then pvm_delhosts of the added ones and their
 * PvmHostDelete notifies. */
int addhosts_main(int argc, char **argv)
{
	int n = argc, *infos = calloc((size_t)n + 1, sizeof *infos);
	char **names = calloc((size_t)n + 1, sizeof *names);
	int *want = calloc((size_t)n + 1, sizeof *want);
	for (int k = 0; k < n; k++) {
		names[k] = strdup(argv[k]);
		char *eq = strchr(names[k], '=');
		const char *w = eq ? eq + 1 : "ok";
		if (eq)
			*eq = 0;
		want[k] = !strcmp(w, "NoHost")	    ? PvmNoHost
			  : !strcmp(w, "DupHost")   ? PvmDupHost
			  : !strcmp(w, "CantStart") ? PvmCantStart
						    : 1;
	}
	get_hosts();
	int before = nhost;
	EQ(pvm_notify(PvmHostAdd, TAG_HA, -1, NULL), 0);
	double t0 = t_now();
	int r = pvm_addhosts(names, n, infos);
	int nok = 0;
	for (int k = 0; k < n; k++) {
		printf("add %s: %d (t%x) after %.0f ms\n", names[k], infos[k],
		       (unsigned)(infos[k] > 0 ? infos[k] : 0),
		       (t_now() - t0) * 1000);
		if (want[k] > 0)
			CHECK(infos[k] > 0, "add %s: %d", names[k], infos[k]);
		else
			CHECK(infos[k] == want[k], "add %s: %d, expected %d",
			      names[k], infos[k], want[k]);
		nok += infos[k] > 0;
	}
	EQ(r, nok);
	/* the notifies of the added hosts, then the table */
	int seen = 0;
	while (seen < nok) {
		int b = t_recv(-1, TAG_HA, 10), cnt = 0;
		if (b <= 0)
			break;
		pvm_upkint(&cnt, 1, 1);
		seen += cnt;
	}
	EQ(seen, nok);
	get_hosts();
	EQ(nhost, before + nok);
	int *added = calloc((size_t)n + 1, sizeof *added), na = 0;
	char **dnames = calloc((size_t)n + 1, sizeof *dnames);
	for (int k = 0; k < n; k++)
		if (infos[k] > 0) {
			EQ(host_tid_of(names[k]), infos[k]);
			added[na] = infos[k];
			dnames[na++] = names[k];
		}
	if (na) {
		EQ(pvm_notify(PvmHostDelete, TAG_HD, na, added), 0);
		int *dinfo = calloc((size_t)na, sizeof *dinfo);
		EQ(pvm_delhosts(dnames, na, dinfo), na);
		for (int k = 0; k < na; k++) {
			EQ(dinfo[k], 0);
			int b = t_recv(-1, TAG_HD, 10), who = 0;
			if (b > 0)
				pvm_upkint(&who, 1, 1);
			CHECK(b > 0 && who > 0, "PvmHostDelete notify %d", k);
			printf("deleted t%x\n", (unsigned)who);
		}
		free(dinfo);
		get_hosts();
		EQ(nhost, before);
	}
	return t_done("addhosts");
}

/* ---- grow: barriers move from a host's shared slot to the pvmd ---- */

/* "child grow FIRST": joins group "grow"; with FIRST, meets the master
 * at a barrier of 2 first; then at one of 3; reports 8 ints: inst and
 * the two barriers' codes. */
void child_grow(int par, int first)
{
	int res[8] = {pvm_joingroup("grow"), 0, 0};
	if (first)
		res[1] = pvm_barrier("grow", 2);
	res[2] = pvm_barrier("grow", 3);
	pvm_initsend(PvmDataDefault);
	pvm_pkint(res, 8, 1);
	pvm_send(par, TAG_RES);
	pvm_lvgroup("grow");
}

int grow_main(const char *hname)
{
	get_hosts();
	EQ(nhost, 1);
	EQ(pvm_joingroup("grow"), 0);
	int kids[2] = {0, 0};
	char one[] = "1", zero[] = "0";
	EQ(spawn_on("grow", PvmTaskHost, (char *)host_name_of(myhost), 1, kids,
		    one),
	   1);
	/* one host: this barrier meets in the group's shared slot, which
	 * both members now keep in their cached lists */
	EQ(pvm_barrier("grow", 2), 0);
	char *names[1] = {(char *)hname};
	int info = 0;
	EQ(pvm_addhosts(names, 1, &info), 1);
	CHECK(info > 0, "addhosts %s: %d", hname, info);
	EQ(spawn_on("grow", PvmTaskHost, (char *)hname, 1, kids + 1, zero), 1);
	/* with the member of the new host, every member must go to the pvmd:
	 * one still meeting in the slot would wait there for good */
	EQ(pvm_barrier("grow", 3), 0);
	printf("barrier of 3 over 2 hosts passed\n");
	for (int k = 0; k < 2; k++) {
		int res[8] = {-1, -1, -1}, src = 0, len, tag;
		int b = t_recv(-1, TAG_RES, WAIT);
		CHECK(b > 0, "no result from a member");
		if (b <= 0)
			break;
		pvm_bufinfo(b, &len, &tag, &src);
		pvm_upkint(res, 8, 1);
		CHECK(res[0] > 0 && res[1] == 0 && res[2] == 0,
		      "member t%x: inst %d barriers %d %d", (unsigned)src,
		      res[0], res[1], res[2]);
	}
	pvm_lvgroup("grow");
	return t_done("grow");
}
