/*
 * cmd_mbox.c - console commands on the message mailbox: names, put.
 */
#include <stdlib.h>
#include <string.h>

#include "console.h"

/* names [pattern]: each class and its entries, in the reference's layout:
 *   <name>:
 *   \tindex=0 owner=0x40005/262149 flags=0x1
 *   (blank line) */
int cmd_names(int argc, char **argv)
{
	int n = 0;
	struct pvmmboxinfo *c = NULL;
	int cc = CONS_QUIET(pvm_getmboxinfo(argc > 1 ? argv[1] : "", &n, &c));
	if (cc < 0) {
		term_printf("names: %s\n", cons_errstr(cc));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		term_printf("<%s>:\n", c[i].mi_name);
		for (int j = 0; j < c[i].mi_nentries; j++)
			term_printf(
				"\tindex=%d owner=0x%x/%d flags=0x%x\n",
				c[i].mi_indices[j], (unsigned)c[i].mi_owners[j],
				c[i].mi_owners[j], (unsigned)c[i].mi_flags[j]);
		term_printf("\n");
	}
	return 0;
}

/* put name flags text: stores the string as an entry (owned by the
 * console), as the reference does; its help says "put name flags", but it
 * too wants the three words (anything else: "wrong #args"). */
int cmd_put(int argc, char **argv)
{
	(void)argc; /* exactly 3 words: checked by the command table */
	int flags = (int)strtol(argv[2], NULL, 0);
	int buf = pvm_mkbuf(PvmDataDefault);
	int old = pvm_setsbuf(buf);
	pvm_pkstr(argv[3]);
	int cc = CONS_QUIET(pvm_putinfo(argv[1], buf, flags));
	pvm_setsbuf(old);
	pvm_freebuf(buf);
	if (cc < 0) {
		term_printf("put: %s\n", cons_errstr(cc));
		return -1;
	}
	return 0;
}

/* Deletes the orphaned entries (persistent, their owner gone) of class
 * `name` (NULL: every class), only index `index` if >= 0.  The pvmd lets
 * a console do so because it set PvmNoReset.  Returns how many went. */
int mbox_reset_orphans(const char *name, int index)
{
	int n = 0, gone = 0;
	struct pvmmboxinfo *c = NULL;
	if (CONS_QUIET(pvm_getmboxinfo("", &n, &c)) < 0)
		return 0;
	/* the list belongs to the library until the next call: copy what
	 * is needed first */
	struct orphan {
		char *name;
		int index;
	} *v = NULL;
	int nv = 0, cap = 0;
	for (int i = 0; i < n; i++) {
		if (name && strcmp(name, c[i].mi_name))
			continue;
		for (int j = 0; j < c[i].mi_nentries; j++) {
			if (c[i].mi_owners[j] != 0 ||
			    (index >= 0 && c[i].mi_indices[j] != index))
				continue;
			if (nv == cap) {
				cap = cap ? 2 * cap : 16;
				struct orphan *nw =
					realloc(v, (size_t)cap * sizeof *v);
				if (!nw)
					goto out;
				v = nw;
			}
			if (!(v[nv].name = strdup(c[i].mi_name)))
				goto out;
			v[nv++].index = c[i].mi_indices[j];
		}
	}
out:
	for (int i = 0; i < nv; i++) {
		if (CONS_QUIET(pvm_delinfo(v[i].name, v[i].index, 0)) >= 0)
			gone++;
		free(v[i].name);
	}
	free(v);
	return gone;
}
