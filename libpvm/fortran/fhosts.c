/* fhosts.c - Fortran wrappers of the host calls: add, delete, the host
 * table, status, architecture codes, clocks. */
#include "fpvm.h"

#include <pvm3.h>
#include <sys/time.h>

/* info: the host's pvmd tid, or an error (of the call or of the host). */
void pvmfaddhost_(char *host, int *info, fpvm_len len)
{
	char h[FPVM_NAME_MAX], *hp = h;
	int st = 0;

	if (fpvm_cstr(h, sizeof h, host, len)) {
		*info = PvmBadParam;
		return;
	}
	*info = pvm_addhosts(&hp, 1, &st);
	if (*info >= 0)
		*info = st;
}

void pvmfdelhost_(char *host, int *info, fpvm_len len)
{
	char h[FPVM_NAME_MAX], *hp = h;
	int st = 0;

	if (fpvm_cstr(h, sizeof h, host, len)) {
		*info = PvmBadParam;
		return;
	}
	*info = pvm_delhosts(&hp, 1, &st);
	if (*info >= 0)
		*info = st;
}

/* One host per call, as pvmftasks does with tasks: nhost = -1 asks the
 * pvmd again; info is 1 for each host returned. */
static struct {
	int n, narch, next;
	struct pvmhostinfo *hi;
} conf;

void pvmfconfig_(int *nhost, int *narch, int *dtid, char *name, char *arch,
		 int *speed, int *info, fpvm_len namelen, fpvm_len archlen)
{
	if (conf.n == 0 || *nhost == -1) {
		int n = 0, cc = pvm_config(&n, &conf.narch, &conf.hi);

		conf.n = 0;
		if (cc < 0) {
			*info = cc;
			return;
		}
		conf.n = n;
		conf.next = 0;
	}
	if (conf.next < conf.n) {
		const struct pvmhostinfo *p = &conf.hi[conf.next++];

		*nhost = conf.n;
		*narch = conf.narch;
		*dtid = p->hi_tid;
		fpvm_fstr(name, namelen, p->hi_name);
		fpvm_fstr(arch, archlen, p->hi_arch);
		*speed = p->hi_speed;
		*info = 1;
	}
	if (conf.next >= conf.n)
		conf.n = 0;
}

void pvmfmstat_(char *host, int *mstat, fpvm_len len)
{
	char h[FPVM_NAME_MAX];

	*mstat = fpvm_cstr(h, sizeof h, host, len) ? PvmBadParam : pvm_mstat(h);
}

void pvmfarchcode_(char *arch, int *code, fpvm_len len)
{
	char a[FPVM_NAME_MAX];

	*code = fpvm_cstr(a, sizeof a, arch, len) ? PvmBadParam
						  : pvm_archcode(a);
}

/* The clock and its difference from the local one, as INTEGER seconds and
 * microseconds. */
void pvmfhostsync_(int *host, int *clksec, int *clkusec, int *deltasec,
		   int *deltausec, int *info)
{
	struct timeval clk = {0, 0}, delta = {0, 0};

	*info = pvm_hostsync(*host, &clk, &delta);
	*clksec = (int)clk.tv_sec;
	*clkusec = (int)clk.tv_usec;
	*deltasec = (int)delta.tv_sec;
	*deltausec = (int)delta.tv_usec;
}
