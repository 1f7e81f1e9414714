/*
 * pt_group_spmd.c - pt_group's spmd mode: N members (this task and N-1
 * spawned copies, "pt_group child MODE N ARGS") run the same checks of
 * reduce, scatter, gather, bcast, barriers and freezegroup, and the copies
 * send their check counts back (test/group.bats; usage in pt_group.c).
 */
#include <stdint.h>

#include "tcommon.h"
#include "pt_group.h"
#include "pt_group_data.h"

static int ncalls;

/* One reduction of every type and operation to root; unsigned types
 * only with uns (they are not in man 3 pvm_reduce's list, and the
 * reference has none), the others without. */
static void reduce_one(int inst, int n, int root, int *tag, int uns)
{
	union {
		double d[2 * CNT];
		long l[CNT];
	} buf;
	cur_cnt = CNT;
	for (size_t t = 0; t < sizeof itypes / sizeof itypes[0]; t++)
		for (int op = 0; op < OP_USER; op++) {
			/* no sum or product of bytes (man 3 pvm_reduce) */
			if (itypes[t].pt == PVM_BYTE && op >= OP_SUM)
				continue;
			if (uns != (itypes[t].pt >= PVM_USHORT))
				continue;
			/* the reference loses the upper half of longs */
			if (getenv("PVM_TEST_REF") && itypes[t].pt == PVM_LONG)
				continue;
			itypes[t].fill(&buf, op, inst);
			int rc = pvm_reduce(opfn(op), &buf, CNT, itypes[t].pt,
					    (*tag)++, SPMD, root);
			CHECK(rc == 0, "reduce %s %s: %d", itypes[t].name,
			      opname[op], rc);
			if (inst == root)
				itypes[t].check(&buf, op, n, root);
			ncalls++;
		}
	if (uns)
		return;
	for (size_t t = 0; t < sizeof ftypes / sizeof ftypes[0]; t++)
		for (int op = 0; op < OP_USER; op++) {
			ffill(&ftypes[t], &buf, op, n, inst);
			int rc = pvm_reduce(opfn(op), &buf, CNT, ftypes[t].pt,
					    (*tag)++, SPMD, root);
			CHECK(rc == 0, "reduce %s %s: %d", ftypes[t].name,
			      opname[op], rc);
			if (inst == root)
				fcheck(&ftypes[t], &buf, op, n, root);
			ncalls++;
		}
	/* user functions */
	int iv[CNT], want[CNT];
	for (int k = 0; k < CNT; k++) {
		iv[k] = 1 << ((inst * 3 + k) % 31);
		want[k] = 0;
		for (int i = 0; i < n; i++)
			want[k] |= 1 << ((i * 3 + k) % 31);
	}
	int rc = pvm_reduce(user_or, iv, CNT, PVM_INT, (*tag)++, SPMD, root);
	CHECK(rc == 0, "reduce user_or: %d", rc);
	if (inst == root)
		for (int k = 0; k < CNT; k++)
			CHECK(iv[k] == want[k],
			      "user_or n=%d root=%d [%d]: got "
			      "%#x, expected %#x",
			      n, root, k, iv[k], want[k]);
	double dv[CNT];
	for (int k = 0; k < CNT; k++)
		dv[k] = fval(OP_USER, inst, k);
	rc = pvm_reduce(user_dsum, dv, CNT, PVM_DOUBLE, (*tag)++, SPMD, root);
	CHECK(rc == 0, "reduce user_dsum: %d", rc);
	if (inst == root)
		for (int k = 0; k < CNT; k++)
			fcheck1("double", OP_USER, n, root, k, dv[k],
				fexpect(OP_USER, n, k));
	ncalls += 2;
}

static int roots(int n, int *r)
{
	int m = 0;
	r[m++] = 0;
	if (n > 1)
		r[m++] = n - 1;
	if (n > 2)
		r[m++] = n / 2;
	return m;
}

static void scatgath(int inst, int n)
{
	int r[3], nr = roots(n, r);
	for (int j = 0; j < nr; j++) {
		int root = r[j];
		int *data = calloc((size_t)n * 3, sizeof(int)),
		    res[3] = {0, 0, 0};
		if (inst == root)
			for (int i = 0; i < n * 3; i++)
				data[i] = 1000 * (i / 3) + i % 3 + 7 * root;
		int rc = pvm_scatter(res, data, 3, PVM_INT, 60 + j, SPMD, root);
		CHECK(rc == 0, "scatter root %d: %d", root, rc);
		for (int k = 0; k < 3; k++)
			CHECK(res[k] == 1000 * inst + k + 7 * root,
			      "scatter root "
			      "%d inst %d [%d]: %d",
			      root, inst, k, res[k]);
		double dres[2], *dd = calloc((size_t)n * 2, sizeof(double));
		if (inst == root)
			for (int i = 0; i < n * 2; i++)
				dd[i] = i * 0.5 - root;
		rc = pvm_scatter(dres, dd, 2, PVM_DOUBLE, 70 + j, SPMD, root);
		CHECK(rc == 0 && dres[0] == inst * 1.0 - root &&
			      dres[1] == inst * 1.0 + 0.5 - root,
		      "scatter double root %d: %d %g %g", root, rc, dres[0],
		      dres[1]);
		int mine[3] = {inst * 10, inst * 10 + 1, -inst - root};
		memset(data, 0xff, (size_t)n * 3 * sizeof(int));
		rc = pvm_gather(data, mine, 3, PVM_INT, 80 + j, SPMD, root);
		CHECK(rc == 0, "gather root %d: %d", root, rc);
		if (inst == root)
			for (int i = 0; i < n; i++)
				CHECK(data[3 * i] == i * 10 &&
					      data[3 * i + 1] == i * 10 + 1 &&
					      data[3 * i + 2] == -i - root,
				      "gather root %d from %d: %d %d %d", root,
				      i, data[3 * i], data[3 * i + 1],
				      data[3 * i + 2]);
		free(data);
		free(dd);
		pvm_barrier(SPMD, n);
	}
}

static void bcast(int inst, int n)
{
	int me = pvm_mytid();
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&inst, 1, 1);
	pvm_pkint(&me, 1, 1);
	/* the reference: PvmNoInst when there is no member but the sender */
	EQ(pvm_bcast(SPMD, 88), n == 1 ? PvmNoInst : 0);
	char *seen = calloc((size_t)n, 1);
	for (int i = 0; i < n - 1; i++) {
		int b = t_recv(-1, 88, 20), src = 0, in = -1, tid = 0;
		CHECK(b > 0, "bcast message %d of %d: %d", i + 1, n - 1, b);
		if (b <= 0)
			break;
		pvm_bufinfo(b, NULL, NULL, &src);
		pvm_upkint(&in, 1, 1);
		pvm_upkint(&tid, 1, 1);
		CHECK(src == tid && src != me && in >= 0 && in < n &&
			      in != inst && !seen[in],
		      "bcast from t%x inst %d tid t%x", src, in, tid);
		if (in >= 0 && in < n)
			seen[in] = 1;
	}
	free(seen);
	pvm_barrier(SPMD, n);
	EQ(t_recv(-1, 88, 0.3), 0); /* nothing more, none from myself */
}

static void freeze(int inst, int n)
{
	/* the reference returns the size of the frozen group */
	EQ(pvm_freezegroup(SPMD, n), n);
	EQ(pvm_freezegroup(SPMD, n), PvmDupGroup);
	EQ(pvm_gsize(SPMD), n);
	EQ(pvm_getinst(SPMD, pvm_mytid()), inst);
	EQ(pvm_gettid(SPMD, inst), pvm_mytid());
	EQ(pvm_gettid(SPMD, n), PvmNoInst);
	EQ(pvm_barrier(SPMD, -1), 0);
	int v[2] = {inst, 1};
	EQ(pvm_reduce(PvmSum, v, 2, PVM_INT, 95, SPMD, 0), 0);
	if (inst == 0) {
		EQ(v[0], n * (n - 1) / 2);
		EQ(v[1], n);
	}
	EQ(pvm_barrier(SPMD, n), 0);
}

/* reducebig: one PvmSum of `cnt` doubles (many fragments) to two roots */
static void reducebig(int inst, int n, int cnt)
{
	double *d = malloc((size_t)cnt * sizeof(double));
	int r[3], nr = roots(n, r);
	for (int j = 0; j < nr; j++) {
		for (int k = 0; k < cnt; k++)
			d[k] = inst + 0.5 * (k % 1000);
		EQ(pvm_reduce(PvmSum, d, cnt, PVM_DOUBLE, 300 + j, SPMD, r[j]),
		   0);
		EQ(pvm_barrier(SPMD, n), 0);
		if (inst != r[j])
			continue;
		int bad = 0;
		for (int k = 0; k < cnt; k++)
			if (d[k] != n * (n - 1) / 2 + n * 0.5 * (k % 1000) &&
			    !bad++)
				CHECK(0, "reducebig root %d [%d]: %g", r[j], k,
				      d[k]);
		EQ(bad, 0);
	}
	free(d);
}

/* reduceseq: `rounds` reductions with the same tag, no barrier between,
 * the root moving each time */
static void reduceseq(int inst, int n, int rounds)
{
	for (int c = 0; c < rounds; c++) {
		int root = c % n, v[2] = {inst * 1000 + c, -c};
		int rc = pvm_reduce(PvmSum, v, 2, PVM_INT, 5, SPMD, root);
		CHECK(rc == 0, "reduce %d: %d", c, rc);
		if (inst == root)
			CHECK(v[0] == 1000 * n * (n - 1) / 2 + n * c &&
				      v[1] == -n * c,
			      "reduce %d at root %d: %d %d", c, root, v[0],
			      v[1]);
	}
}

/* isolation: user messages with the reduce's tag, sent to the root
 * before the reduce, are neither taken by it nor disturb it, and the
 * reduce leaves nothing a user receive could take */
static void isolation(int inst, int n)
{
	int root = n - 1, rt = pvm_gettid(SPMD, root), v = inst + 1;
	if (inst != root) {
		int u = 999000 + inst;
		pvm_initsend(PvmDataDefault);
		pvm_pkint(&u, 1, 1);
		EQ(pvm_send(rt, 7), 0);
	}
	EQ(pvm_reduce(PvmSum, &v, 1, PVM_INT, 7, SPMD, root), 0);
	pvm_barrier(SPMD, n);
	if (inst == root) {
		EQ(v, n * (n + 1) / 2);
		for (int i = 0; i < n - 1; i++) {
			int u = 0;
			CHECK(t_recv(-1, 7, 10) > 0, "user message %d", i);
			pvm_upkint(&u, 1, 1);
			CHECK(u >= 999000 && u < 999000 + n,
			      "user message %d: %d", i, u);
		}
	}
	t_msleep(200);
	EQ(pvm_nrecv(-1, -1), 0);
}

int spmd_main(int child, const char *mode, int n, int argc, char **argv)
{
	int me = pvm_mytid(), parent = pvm_parent();
	if (me < 0 || n < 1)
		return 1;
	int *kids = calloc((size_t)n, sizeof(int));
	if (!child)
		pvm_catchout(stdout);
	int inst = pvm_joingroup(SPMD);
	if (!child) {
		EQ(inst, 0);
		char **av = calloc((size_t)argc + 4, sizeof(char *));
		av[0] = "child";
		av[1] = (char *)mode;
		char nb[16];
		snprintf(nb, sizeof nb, "%d", n);
		av[2] = nb;
		for (int i = 0; i < argc; i++)
			av[3 + i] = argv[i];
		if (n > 1)
			EQ(pvm_spawn((char *)self_name, av, PvmTaskDefault, "",
				     n - 1, kids),
			   n - 1);
		free(av);
	}
	CHECK(inst >= 0 && inst < n, "instance %d of %d", inst, n);
	CHECK(gsize_until(SPMD, n, 30) == n, "all %d members joined", n);
	double t0 = t_now();
	EQ(pvm_barrier(SPMD, n), 0);
	if (!strcmp(mode, "reduce") || !strcmp(mode, "reduceu")) {
		int r[3], nr = roots(n, r), tag = 1000;
		for (int j = 0; j < nr; j++) {
			reduce_one(inst, n, r[j], &tag, mode[6] == 'u');
			EQ(pvm_barrier(SPMD, n), 0);
		}
		if (!child)
			P("%s: %d members, %d roots, %d calls each\n", mode, n,
			  nr, ncalls);
	} else if (!strcmp(mode, "reducebig") && argc == 1) {
		reducebig(inst, n, atoi(argv[0]));
	} else if (!strcmp(mode, "reduceseq") && argc == 1) {
		reduceseq(inst, n, atoi(argv[0]));
	} else if (!strcmp(mode, "isolation")) {
		isolation(inst, n);
	} else if (!strcmp(mode, "scatgath")) {
		scatgath(inst, n);
	} else if (!strcmp(mode, "bcast")) {
		bcast(inst, n);
	} else if (!strcmp(mode, "barriers") && argc == 1) {
		int rounds = atoi(argv[0]), ok = 0;
		for (int i = 0; i < rounds; i++)
			ok += pvm_barrier(SPMD, n) == 0;
		EQ(ok, rounds);
		if (!child)
			P("%d barriers of %d members in %.2f s\n", ok, n,
			  t_now() - t0);
	} else if (!strcmp(mode, "freeze")) {
		freeze(inst, n);
	} else {
		CHECK(0, "unknown mode %s", mode);
	}
	/* nobody leaves while another may still wait for it (man 3
	 * pvm_reduce: a member leaving before the root is done may cause an
	 * error) */
	CHECK(pvm_barrier(SPMD, n) == 0, "last barrier");
	if (child) {
		pvm_initsend(PvmDataDefault);
		pvm_pkint(&t_nok, 1, 1);
		pvm_pkint(&t_nfail, 1, 1);
		pvm_send(parent, TAG_COUNTS);
		pvm_lvgroup(SPMD);
		pvm_exit();
		free(kids);
		return 0;
	}
	for (int i = 0; i < n - 1; i++) {
		int b = t_recv(-1, TAG_COUNTS, 60), ok = 0, bad = 1;
		CHECK(b > 0, "counts of member %d: %d", i + 1, b);
		if (b <= 0)
			break;
		pvm_upkint(&ok, 1, 1);
		pvm_upkint(&bad, 1, 1);
		t_nok += ok;
		t_nfail += bad;
	}
	pvm_lvgroup(SPMD);
	pvm_exit();
	free(kids);
	return t_done(mode);
}
