/*
 * reply_fuzz.c - libFuzzer target: everything the library takes from its
 * pvmd.  A script of API calls (the host, task, mailbox, context, notify
 * and group calls, receives with unpacking) runs against a pvmd played
 * from the input (fuzz_peer.h): every answer it decodes, every message,
 * event and raw frame on that connection comes from the fuzzer.
 *
 * Input: a count byte (mod 16), that many call bytes (the low 5 bits pick
 * the call, below), then the records of fuzz_peer.h.  pvm_exit ends each
 * run.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "api/fuzz_peer.h"
#include "pvm3.h"

static void unpack_all(int bufid)
{
	int bytes, tag, src;
	if (bufid <= 0 || pvm_bufinfo(bufid, &bytes, &tag, &src) < 0 ||
	    bytes < 0)
		return;
	int v[4];
	double x;
	/* pvm_upkstr has no bound: like any careful program, room for the
	 * whole body */
	char *s = malloc((size_t)bytes + 1);
	if (!s)
		return;
	pvm_upkint(v, 4, 1);
	pvm_upkstr(s);
	pvm_upkdouble(&x, 1, 1);
	pvm_upkbyte(s, bytes < 64 ? bytes : 64, 1);
	free(s);
}

static void call(uint8_t op)
{
	int tids[8] = {0}, n = 0, info[4];
	char *hosts[] = {"h2", "h3 ep=x wd=/tmp"};
	struct pvmhostinfo *hi;
	struct pvmtaskinfo *ti;
	struct pvmmboxinfo *mi;
	struct timeval tv, dt, tmo = {0, 1000};
	switch (op & 31) {
	case 0:
		pvm_config(&n, info, &hi);
		break;
	case 1:
		pvm_tasks(op & 32 ? 0x40001 : 0, &n, &ti);
		break;
	case 2:
		pvm_mstat(op & 32 ? "h2" : "h1");
		break;
	case 3:
		pvm_pstat(0x40002);
		break;
	case 4:
		pvm_spawn("prog", NULL, op & 32 ? PvmTaskHost : 0, "h2", 3,
			  tids);
		break;
	case 5:
		pvm_kill(0x40002);
		break;
	case 6:
		pvm_sendsig(0x40002, 15);
		break;
	case 7:
		tids[0] = 0x40002;
		pvm_notify(op & 32 ? PvmHostDelete : PvmTaskExit, 7, 1, tids);
		break;
	case 8:
		pvm_notify(PvmHostAdd, 8, op & 32 ? -1 : 2, NULL);
		break;
	case 9:
		n = pvm_newcontext();
		pvm_freecontext(n > 0 ? n : 5);
		break;
	case 10: {
		int *sib;
		pvm_siblings(&sib);
		break;
	}
	case 11: {
		int *nr;
		pvm_getnoresets(&nr, &n);
		break;
	}
	case 12: {
		int b = pvm_initsend(PvmDataDefault);
		pvm_pkint(&b, 1, 1);
		pvm_putinfo("fz", b, op & 32 ? PvmMboxMultiInstance : 0);
		break;
	}
	case 13:
		unpack_all(pvm_recvinfo(
			"fz", 0, op & 32 ? PvmMboxFirstAvail : PvmMboxDefault));
		break;
	case 14:
		pvm_delinfo("fz", 0, 0);
		break;
	case 15:
		pvm_getmboxinfo(op & 32 ? "*" : "f", &n, &mi);
		break;
	case 16:
		pvm_addhosts(hosts, 2, info);
		break;
	case 17:
		pvm_delhosts(hosts, 1, info);
		break;
	case 18:
		pvm_hostsync(op & 32 ? 0x80000 : 0x40000, &tv, &dt);
		break;
	case 19:
		pvm_tidtohost(0x40002);
		break;
	case 20:
		unpack_all(pvm_nrecv(-1, -1));
		break;
	case 21:
		unpack_all(pvm_trecv(-1, -1, &tmo));
		break;
	case 22:
		pvm_setopt(PvmOutputTid, op & 32 ? 0x40002 : 0);
		break;
	case 23:
		pvm_initsend(PvmDataDefault);
		pvm_pkint(tids, 8, 1);
		pvm_send(0x40002, 3);
		break;
	case 24:
		pvm_mcast(tids, 2, 4);
		break;
	case 25:
		n = pvm_joingroup("fz");
		pvm_gettid("fz", n);
		pvm_getinst("fz", 0x40001);
		pvm_gsize("fz");
		break;
	case 26:
		pvm_barrier("fz", op & 32 ? 1 : -1);
		break;
	case 27:
		pvm_lvgroup("fz");
		break;
	case 28:
		pvm_bcast("fz", 5);
		break;
	case 29:
		pvm_setopt(PvmRoute, PvmRouteDirect);
		pvm_psend(0x40002, 6, tids, 4, PVM_INT);
		break;
	case 30:
		pvm_precv(-1, -1, tids, 8, PVM_INT, &n, &n, &n);
		break;
	default:
		pvm_parent();
		pvm_tidtohost(pvm_mytid());
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t n)
{
	static int init;
	if (!init++) {
		fzp_init();
		pvm_setopt(PvmAutoErr, 0);
	}
	if (n < 1)
		return 0;
	size_t nops = in[0] % 16;
	if (nops > n - 1)
		nops = n - 1;
	fzp_start(in + 1 + nops, n - 1 - nops);
	pvm_mytid();
	for (size_t i = 0; i < nops; i++)
		call(in[1 + i]);
	pvm_exit();
	fzp_finish();
	return 0;
}
