/*
 * pt_mbox.c - mailbox and message-handler checks (test/mbox.bats,
 * test/mhf.bats).  Usage: pt_mbox ROLE ARGS...
 *
 *   rules            one task: putinfo/recvinfo/delinfo/getmboxinfo and
 *                    insert/lookup/delete codes (values from the reference)
 *   own NAME FLAGS S put NAME (one int 7) with FLAGS, print "ready", stay
 *                    S seconds (S = 0: exit at once)
 *   other NAME       as another task: what it may do to NAME's entry 0
 *                    (put by `own` without OverWritable): prints codes
 *   list [PATTERN]   prints pvm_getmboxinfo: "name: index owner flags..."
 *   wait NAME        pvm_recvinfo(NAME, 0, WaitForInfo): prints the value
 *                    and how long it waited
 *   put NAME VALUE   puts VALUE (an int) as NAME entry 0, default flags
 *   badbuf           a bad buffer id gives PvmNoSuchBuf, not a hang
 *   fill NAME BYTES  puts entries of BYTES bytes under NAME (multi-
 *                    instance) until one is refused: prints "put N code
 *                    C" (N accepted, C the refusal's code), then deletes
 *                    one and puts again: "again I" (its index or code)
 *   long N LEN       puts N persistent classes, each named by LEN letters
 *                    a-x drawn at random (no 'y' or 'z'): "put N"
 *   mhf              handler rules in one task
 *   quiet            the codes the reference reports without a message
 *   echo             installs a handler for tag 5 that replies from inside
 *                    the handler (tag 6, value + 1000), then receives tag
 *                    99 (which it prints) and counts what it handled
 *   tickle TID N     sends N tag-5 messages to TID, expects N tag-6 replies,
 *                    then sends tag 99
 */
#include "tcommon.h"

void pvmdisplaymhfinfo(char *who, char *msg, int tid);

static int mkint(int v)
{
	int b = pvm_mkbuf(PvmDataDefault);
	int old = pvm_setsbuf(b);
	pvm_pkint(&v, 1, 1);
	pvm_setsbuf(old);
	return b;
}

static int getint(int bufid)
{
	int v = -1, old = pvm_setrbuf(bufid);
	pvm_upkint(&v, 1, 1);
	pvm_setrbuf(old);
	return v;
}

static int rules(void)
{
	EQ(pvm_putinfo("a", mkint(1), PvmMboxDefault), 0);
	EQ(pvm_putinfo("a", mkint(2), PvmMboxDefault), 0); /* owner replaces */
	EQ(pvm_putinfo("a", mkint(3), PvmMboxMultiInstance), 1);
	EQ(pvm_putinfo("m", mkint(1), PvmMboxMultiInstance), 0);
	EQ(pvm_putinfo("m", mkint(2), PvmMboxMultiInstance), 1);
	EQ(pvm_putinfo("m", mkint(3),
		       PvmMboxMultiInstance | PvmMboxDirectIndex(5)),
	   5);
	/* a direct index needs no MultiInstance */
	EQ(pvm_putinfo("m", mkint(4), PvmMboxDirectIndex(7)), 7);
	/* with it, the direct index is where the search for a free one
	 * starts */
	EQ(pvm_putinfo("s", mkint(1),
		       PvmMboxMultiInstance | PvmMboxDirectIndex(3)),
	   3);
	EQ(pvm_putinfo("s", mkint(2),
		       PvmMboxMultiInstance | PvmMboxDirectIndex(3)),
	   4);
	EQ(pvm_putinfo("s", mkint(3), PvmMboxDirectIndex(3)), 3); /* mine */
	EQ(pvm_delinfo("s", 3, 0), 3);
	EQ(pvm_delinfo("s", 4, 0), 4);
	EQ(pvm_putinfo(NULL, mkint(1), 0), PvmBadParam);
	EQ(pvm_putinfo("", mkint(1), 0), PvmBadParam);

	struct pvmmboxinfo *c = NULL;
	int n = -1;
	EQ(pvm_getmboxinfo("m", &n, &c), 0);
	EQ(n, 1);
	if (n == 1) {
		CHECK(!strcmp(c[0].mi_name, "m"), "name %s", c[0].mi_name);
		EQ(c[0].mi_nentries, 4);
		if (c[0].mi_nentries == 4) {
			EQ(c[0].mi_indices[2], 5);
			EQ(c[0].mi_owners[2], pvm_mytid());
			/* the flags as given, direct index included */
			EQ(c[0].mi_flags[2],
			   PvmMboxMultiInstance | PvmMboxDirectIndex(5));
		}
	}
	EQ(pvm_getmboxinfo("*", &n, &c), 0);
	EQ(n, 2);
	EQ(pvm_getmboxinfo("", &n, &c), 0);
	EQ(n, 2);
	EQ(pvm_getmboxinfo("zzz", &n, &c), 0);
	EQ(n, 0);

	int b = pvm_recvinfo("m", 5, PvmMboxDefault);
	CHECK(b > 0, "recvinfo m 5 = %d", b);
	EQ(pvm_getrbuf(), b);
	EQ(getint(b), 3);
	int len = -1, tag = -1, src = -1;
	EQ(pvm_bufinfo(b, &len, &tag, &src), 0);
	EQ(len, 4);
	EQ(tag, 0);
	EQ(src, pvm_mytid());
	EQ(pvm_recvinfo("m", 3, PvmMboxDefault), PvmNotFound);
	b = pvm_recvinfo("m", 3, PvmMboxFirstAvail);
	EQ(getint(b), 3); /* index 5 */
	b = pvm_recvinfo("m", 0, PvmMboxReadAndDelete);
	EQ(getint(b), 1);
	EQ(pvm_recvinfo("m", 0, PvmMboxDefault), PvmNotFound);
	EQ(pvm_recvinfo("nope", 0, PvmMboxDefault), PvmNotFound);
	EQ(pvm_recvinfo("m", -1, PvmMboxDefault), PvmBadParam);
	EQ(pvm_recvinfo(NULL, 0, PvmMboxDefault), PvmBadParam);
	b = pvm_recvinfo("a", 0, PvmMboxDefault);
	EQ(getint(b), 2);
	/* the previous receive buffer is freed, as by a receive */
	int b2 = pvm_recvinfo("a", 1, PvmMboxDefault);
	EQ(getint(b2), 3);
	if (b2 != b)
		EQ(pvm_bufinfo(b, NULL, NULL, NULL), PvmNoSuchBuf);

	/* pvm_delinfo returns the index */
	EQ(pvm_delinfo("m", 9, 0), PvmNotFound);
	EQ(pvm_delinfo("m", 1, 0), 1);
	EQ(pvm_delinfo("m", 5, PvmMboxReadAndDelete), 5);
	EQ(pvm_delinfo("nope", 0, 0), PvmNotFound);
	EQ(pvm_delinfo("m", -1, 0), PvmBadParam);
	EQ(pvm_delinfo(NULL, 0, 0), PvmBadParam);
	EQ(pvm_getmboxinfo("m", &n, &c), 0);
	EQ(n, 1);
	if (n == 1) {
		EQ(c[0].mi_nentries, 1);
		EQ(c[0].mi_indices[0], 7);
	}
	EQ(pvm_delinfo("m", 7, 0), 7);
	EQ(pvm_getmboxinfo("m", &n, &c), 0);
	EQ(n, 0); /* a class vanishes with its last entry */

	/* the PVM 3.3 calls: persistent multi-instance entries of one int */
	EQ(pvm_insert("ins", -1, 42), 0);
	EQ(pvm_insert("ins", -1, 43), 1);
	EQ(pvm_insert("ins", 5, 44), 5);
	EQ(pvm_insert("ins", 5, 45), PvmDupEntry); /* taken, even by me */
	int d = 0, rb = pvm_getrbuf();
	EQ(pvm_lookup("ins", -1, &d), 0);
	EQ(d, 42);
	EQ(pvm_lookup("ins", 5, &d), 5);
	EQ(d, 44);
	EQ(pvm_getrbuf(), rb); /* lookup leaves the receive buffer alone */
	EQ(pvm_lookup("ins", 3, &d), PvmNotFound);
	EQ(pvm_delete("ins", 0), 0);
	EQ(pvm_delete("ins", 0), PvmNotFound);
	EQ(pvm_getmboxinfo("ins", &n, &c), 0);
	EQ(n, 1);
	if (n == 1) {
		EQ(c[0].mi_nentries, 2);
		EQ(c[0].mi_flags[0], PvmMboxPersistent | PvmMboxMultiInstance);
	}
	return 0;
}

static int fill(const char *name, int bytes)
{
	char *body = calloc(1, (size_t)bytes + 1);
	int n = 0, code = 0;
	if (!body)
		return 1;
	int b = pvm_initsend(PvmDataRaw);
	pvm_pkbyte(body, bytes, 1);
	pvm_setopt(PvmAutoErr, 0);
	while (n < 100000 &&
	       (code = pvm_putinfo((char *)name, b, PvmMboxMultiInstance)) >= 0)
		n++;
	printf("put %d code %d\n", n, code);
	pvm_delinfo((char *)name, 0, 0);
	printf("again %d\n",
	       pvm_putinfo((char *)name, b, PvmMboxMultiInstance));
	free(body);
	pvm_exit();
	return 0;
}

static int put_long(int n, int len)
{
	char *name = malloc((size_t)len + 1);
	int k = 0;
	if (!name)
		return 1;
	srand(27);
	for (; k < n; k++) {
		for (int j = 0; j < len; j++)
			name[j] = (char)('a' + rand() % 24);
		name[len] = 0;
		if (pvm_putinfo(name, mkint(k), PvmMboxPersistent) < 0)
			break;
	}
	printf("put %d\n", k);
	free(name);
	pvm_exit();
	return k == n ? 0 : 1;
}

static void list(const char *pat)
{
	struct pvmmboxinfo *c = NULL;
	int n = -1;
	int r = pvm_getmboxinfo((char *)pat, &n, &c);
	printf("getmboxinfo %d n %d\n", r, n);
	for (int i = 0; i < n; i++) {
		printf("%s:", c[i].mi_name);
		for (int j = 0; j < c[i].mi_nentries; j++)
			printf(" %d %x %d", c[i].mi_indices[j],
			       (unsigned)c[i].mi_owners[j], c[i].mi_flags[j]);
		printf("\n");
	}
}

static int h_count;
static int echo_handler(int mid)
{
	int v = -1, src = -1;
	pvm_bufinfo(mid, NULL, NULL, &src);
	pvm_upkint(&v, 1, 1);
	/* reply from inside the handler, on a send buffer of its own */
	pvm_setsbuf(pvm_mkbuf(PvmDataDefault));
	v += 1000;
	pvm_pkint(&v, 1, 1);
	pvm_send(src, 6);
	pvm_freebuf(pvm_setsbuf(0));
	h_count++;
	return 0;
}

static int self_handler(int mid)
{
	h_count++;
	CHECK(pvm_getrbuf() == mid, "rbuf %d in handler, mid %d", pvm_getrbuf(),
	      mid);
	CHECK(pvm_getsbuf() == 0, "sbuf %d in handler", pvm_getsbuf());
	return 0;
}

static int mhf(void)
{
	int me = pvm_mytid(), ctx = pvm_getcontext();
	int a = pvm_addmhf(-1, 5, -1, self_handler);
	CHECK(a >= 0, "addmhf = %d", a);
	EQ(pvm_addmhf(-1, 5, -1, self_handler), PvmExists);
	/* overlapping through a wildcard is the same handler */
	EQ(pvm_addmhf(-1, -1, 5, self_handler), PvmExists);
	EQ(pvm_addmhf(me, 5, ctx, self_handler), PvmExists);
	int b = pvm_addmhf(me, 6, ctx, self_handler);
	CHECK(b >= 0 && b != a, "addmhf 2 = %d", b);
	/* the reference accepts a NULL function (and would call it) */
	if (!getenv("PVM_TEST_REF"))
		EQ(pvm_addmhf(me, 7, ctx, NULL), PvmBadParam);

	int sb = pvm_initsend(PvmDataDefault), v = 1;
	pvm_pkint(&v, 1, 1);
	EQ(pvm_send(me, 5), 0);
	EQ(pvm_getsbuf(), sb); /* the program's send buffer is back */
	/* never seen by a receive; consumed by the handler */
	EQ(pvm_nrecv(-1, 5), 0);
	EQ(pvm_probe(-1, -1), 0);
	EQ(h_count, 1);
	/* a message the handler does not match is received normally */
	pvm_send(me, 8);
	int r = pvm_nrecv(-1, -1);
	CHECK(r > 0, "nrecv tag 8 = %d", r);
	EQ(h_count, 1);

	EQ(pvm_delmhf(a), 0);
	EQ(pvm_delmhf(a), PvmNotFound);
	EQ(pvm_delmhf(9999), PvmNotFound);
	EQ(pvm_delmhf(-1), PvmBadParam);
	/* after deletion the message goes to the receive queue */
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&v, 1, 1);
	pvm_send(me, 5);
	r = pvm_recv(-1, 5);
	CHECK(r > 0, "recv tag 5 after delmhf = %d", r);
	EQ(h_count, 1);
	/* ids are reused */
	EQ(pvm_addmhf(-1, 9, -1, self_handler), a);
	/* another context: the handler of context ctx does not match */
	pvm_initsend(PvmDataDefault);
	int nctx = pvm_newcontext();
	int octx = pvm_setcontext(nctx);
	pvm_send(me, 6);
	pvm_setcontext(octx);
	EQ(h_count, 1);
	pvm_setcontext(nctx);
	r = pvm_nrecv(-1, 6);
	CHECK(r > 0, "nrecv tag 6 in the other context = %d", r);
	pvm_setcontext(octx);
	pvm_send(me, 6);
	EQ(h_count, 2);
	pvmdisplaymhfinfo("pt_mbox", "table", me);
	/* pvm_exit forgets the handlers (as the reference does) */
	pvm_exit();
	me = pvm_mytid();
	int c = pvm_addmhf(-1, 5, -1, self_handler);
	CHECK(c >= 0, "addmhf after pvm_exit = %d", c);
	EQ(pvm_delmhf(c), 0);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2) {
		fprintf(stderr, "usage: pt_mbox ROLE ARGS...\n");
		return 2;
	}
	const char *role = argv[1];
	pvm_setopt(PvmAutoErr, 0);
	if (pvm_mytid() < 0) {
		printf("no pvmd\n");
		return 1;
	}
	if (!strcmp(role, "quiet")) {
		/* answers a program expects print nothing, as with the
		 * reference; a real error still does (one line) */
		pvm_setopt(PvmAutoErr, 1);
		int x = 0, m = mkint(1);
		printf("recvinfo %d\n", pvm_recvinfo("q-none", 0, 0));
		printf("delinfo %d\n", pvm_delinfo("q-none", 0, 0));
		printf("lookup %d\n", pvm_lookup("q-none", 0, &x));
		printf("delete %d\n", pvm_delete("q-none", 0));
		printf("insert %d\n", pvm_insert("q-db", 2, 1));
		printf("insert again %d\n", pvm_insert("q-db", 2, 1));
		printf("put %d\n", pvm_putinfo("q-p", m, 0));
		fflush(stdout);
		printf("bad %d\n", pvm_recvinfo("q-none", -1, 0));
		pvm_delete("q-db", 2);
		pvm_exit();
		return 0;
	} else if (!strcmp(role, "rules")) {
		rules();
	} else if (!strcmp(role, "mhf")) {
		mhf();
	} else if (!strcmp(role, "own") && argc == 5) {
		int r = pvm_putinfo(argv[2], mkint(7), atoi(argv[3]));
		printf("put %d\nready\n", r);
		sleep((unsigned)atoi(argv[4]));
		pvm_exit();
		return r < 0;
	} else if (!strcmp(role, "other") && argc == 3) {
		char *nm = argv[2];
		printf("put %d\n", pvm_putinfo(nm, mkint(8), 0));
		printf("put multi %d\n",
		       pvm_putinfo(nm, mkint(8), PvmMboxMultiInstance));
		printf("del %d\n", pvm_delinfo(nm, 0, 0));
		int b = pvm_recvinfo(nm, 0, 0);
		printf("read %d\n", b > 0 ? getint(b) : b);
		pvm_exit();
		return 0;
	} else if (!strcmp(role, "fill") && argc > 3) {
		return fill(argv[2], atoi(argv[3]));
	} else if (!strcmp(role, "long") && argc == 4) {
		return put_long(atoi(argv[2]), atoi(argv[3]));
	} else if (!strcmp(role, "list")) {
		list(argc > 2 ? argv[2] : "*");
		pvm_exit();
		return 0;
	} else if (!strcmp(role, "wait") && argc == 3) {
		double t0 = t_now();
		int b = pvm_recvinfo(argv[2], 0, PvmMboxWaitForInfo);
		printf("got %d after %.1f s\n", b > 0 ? getint(b) : b,
		       t_now() - t0);
		pvm_exit();
		return b > 0 ? 0 : 1;
	} else if (!strcmp(role, "put") && argc == 4) {
		int r = pvm_putinfo(argv[2], mkint(atoi(argv[3])),
				    PvmMboxPersistent);
		printf("put %d\n", r);
		pvm_exit();
		return r < 0;
	} else if (!strcmp(role, "badbuf")) {
		EQ(pvm_putinfo("x", 9999, 0), PvmNoSuchBuf);
		EQ(pvm_putinfo("x", -1, 0), PvmNoSuchBuf);
		EQ(pvm_putinfo("x", 0, 0), PvmNoSuchBuf);
	} else if (!strcmp(role, "echo")) {
		EQ(pvm_addmhf(-1, 5, -1, echo_handler) >= 0, 1);
		printf("echo t%x ready\n", (unsigned)pvm_mytid());
		int r = pvm_recv(-1, -1); /* only the tag 99 reaches here */
		int tag = -1;
		pvm_bufinfo(r, NULL, &tag, NULL);
		EQ(tag, 99);
		printf("echo handled %d\n", h_count);
	} else if (!strcmp(role, "tickle") && argc == 4) {
		int tid = (int)strtol(argv[2], NULL, 16), n = atoi(argv[3]);
		for (int i = 0; i < n; i++) {
			pvm_initsend(PvmDataDefault);
			pvm_pkint(&i, 1, 1);
			EQ(pvm_send(tid, 5), 0);
			struct timeval tmo = {10, 0};
			int r = pvm_trecv(tid, 6, &tmo);
			CHECK(r > 0, "reply %d: %d", i, r);
			if (r > 0)
				EQ(getint(r), i + 1000);
		}
		pvm_initsend(PvmDataDefault);
		pvm_send(tid, 99);
	} else {
		fprintf(stderr, "pt_mbox: bad role %s\n", role);
		return 2;
	}
	printf("%d checks passed, %d failed\n", t_nok, t_nfail);
	pvm_exit();
	return t_nfail ? 1 : 0;
}
