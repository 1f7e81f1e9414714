/* pt_cworker.c - the C worker of fortran.bats's Fortran master
 * (pt_fmaster.f): receives one message of every Fortran type code packed
 * by pvmfpack, sends back what it computed from them with the C calls,
 * answers a pvm_psend, and takes part in the group's reduce and gather.
 * It prints nothing: the master checks and prints. */
#include <pvm3.h>
#include <string.h>

int main(void)
{
	int me = pvm_mytid(), parent = pvm_parent(), inst, i;
	int iv[4], n;
	short sv[3];
	long lv[2];
	float fv[2], cv[2];
	double dv[3], zv[2];
	char str[16] = {0};

	if (me < 0 || parent < 0)
		return 1;
	/* the master's message: INTEGER4 n, then n INTEGER4, INTEGER2 x3,
	 * INTEGER8 x2, REAL4 x2, COMPLEX8 x1, REAL8 x3, COMPLEX16 x1, and
	 * a STRING of 11 characters */
	pvm_recv(parent, 1);
	pvm_upkint(&n, 1, 1);
	if (n != 4)
		return 2;
	pvm_upkint(iv, 4, 1);
	pvm_upkshort(sv, 3, 1);
	pvm_upklong(lv, 2, 1);
	pvm_upkfloat(fv, 2, 1);
	pvm_upkcplx(cv, 1, 1);
	pvm_upkdouble(dv, 3, 1);
	pvm_upkdcplx(zv, 1, 1);
	pvm_upkbyte(str, 11, 1);

	/* back: the sums of each array, the string reversed, our tid */
	int isum = 0, ssum = 0;
	long lsum = 0;
	double dsum = 0;
	char rev[11];

	for (i = 0; i < 4; i++)
		isum += iv[i];
	for (i = 0; i < 3; i++) {
		ssum += sv[i];
		dsum += dv[i];
	}
	lsum = lv[0] + lv[1];
	for (i = 0; i < 11; i++)
		rev[i] = str[10 - i];
	double fsum = (double)fv[0] + fv[1] + cv[0] + cv[1] + zv[0] + zv[1];

	pvm_initsend(PvmDataDefault);
	pvm_pkint(&me, 1, 1);
	pvm_pkint(&isum, 1, 1);
	pvm_pkint(&ssum, 1, 1);
	pvm_pklong(&lsum, 1, 1);
	pvm_pkdouble(&dsum, 1, 1);
	pvm_pkdouble(&fsum, 1, 1);
	pvm_pkbyte(rev, 11, 1);
	pvm_send(parent, 2);

	/* psend/precv: ten ints back, each doubled */
	int buf[10], atid, atag, alen;

	pvm_precv(parent, 3, buf, 10, PVM_INT, &atid, &atag, &alen);
	for (i = 0; i < 10; i++)
		buf[i] *= 2;
	pvm_psend(parent, 4, buf, 10, PVM_INT);

	/* the group: the master made it first (instance 0) */
	inst = pvm_joingroup("fcgroup");
	pvm_barrier("fcgroup", 4);
	int val[2] = {inst, inst * inst};

	pvm_reduce(PvmSum, val, 2, PVM_INT, 5, "fcgroup", 0);
	int g = 100 + inst;

	pvm_gather(NULL, &g, 1, PVM_INT, 6, "fcgroup", 0);
	pvm_barrier("fcgroup", 4);
	pvm_lvgroup("fcgroup");
	pvm_exit();
	return 0;
}
