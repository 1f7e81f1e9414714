/*
 * json.c - the --json forms of conf, ps, mstat and version (jobs: in
 * jobs.c, which holds them), one JSON object per command on one line.
 * docs/console-json.md describes them and docs/console-json.schema.json
 * is their schema.  Task and host ids are numbers, as pvm3.h has them.
 */
#include "config.h"

#include "console.h"

#include <stdio.h>
#include <string.h>

#include "pvm3.h"

void json_str(const char *s)
{
	putchar('"');
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;
	     p++) {
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if (*p < 0x20)
			printf("\\u%04x", *p);
		else
			putchar(*p);
	}
	putchar('"');
}

int json_conf(void)
{
	int nhost, narch;
	struct pvmhostinfo *hosts;
	if (pvm_config(&nhost, &narch, &hosts) < 0)
		return -1;
	printf("{\"nhost\":%d,\"narch\":%d,\"hosts\":[", nhost, narch);
	for (int i = 0; i < nhost; i++) {
		printf("%s{\"name\":", i ? "," : "");
		json_str(hosts[i].hi_name);
		printf(",\"dtid\":%d,\"arch\":", hosts[i].hi_tid);
		json_str(hosts[i].hi_arch);
		printf(",\"speed\":%d,\"dsig\":%d}", hosts[i].hi_speed,
		       hosts[i].hi_dsig);
	}
	printf("]}\n");
	return 0;
}

int json_ps(int where, int show_all)
{
	int nhost, narch, ntask;
	struct pvmhostinfo *hosts;
	struct pvmtaskinfo *tasks;
	if (pvm_config(&nhost, &narch, &hosts) < 0 ||
	    pvm_tasks(where, &ntask, &tasks) < 0)
		return -1;
	printf("{\"tasks\":[");
	int k = 0;
	for (int i = 0; i < ntask; i++) {
		const struct pvmtaskinfo *t = &tasks[i];
		if (t->ti_tid == cons.mytid && !show_all)
			continue;
		const char *host = "";
		for (int h = 0; h < nhost; h++)
			if (hosts[h].hi_tid == t->ti_host)
				host = hosts[h].hi_name;
		printf("%s{\"host\":", k++ ? "," : "");
		json_str(host);
		printf(",\"tid\":%d,\"ptid\":%d,\"pid\":%d,\"flag\":%d,"
		       "\"console\":%s,\"command\":",
		       t->ti_tid, t->ti_ptid, t->ti_pid, t->ti_flag,
		       t->ti_tid == cons.mytid ? "true" : "false");
		json_str(t->ti_a_out);
		putchar('}');
	}
	printf("]}\n");
	return 0;
}

int json_mstat(int argc, char **argv)
{
	printf("{\"hosts\":[");
	for (int i = 1; i < argc; i++) {
		int cc = CONS_QUIET(pvm_mstat(argv[i]));
		printf("%s{\"name\":", i > 1 ? "," : "");
		json_str(argv[i]);
		printf(",\"status\":");
		json_str(cc == PvmOk ? "ok" : cons_errstr(cc));
		printf(",\"code\":%d}", cc);
	}
	printf("]}\n");
	return 0;
}

int json_version(void)
{
	printf("{\"api\":");
	json_str(pvm_version());
	printf(",\"package\":");
	json_str(PACKAGE_NAME);
	printf(",\"version\":");
	json_str(PACKAGE_VERSION);
	printf("}\n");
	return 0;
}
