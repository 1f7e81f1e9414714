/*
 * shm.c - the shared-memory route: this task's inbox, the peers we
 * send to, waiting and leaving (docs/shm.md; layout in proto/shmseg.h).
 * Sending is in shm_tx.c, receiving in shm_rx.c, single copy into a
 * waiting pvm_precv in shm_precv.c.
 */
#define _GNU_SOURCE
#include "tran/shm/shm.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/idhash.h"
#include "lpvm.h"

struct shm_self lp_shm = {.efd = -1};
unsigned lp_shm_test_nap_us; /* PVM_SHM_TEST_NAP (tests only) */

static struct idhash peers;    /* tid -> struct shm_peer */
static struct lp_pollable epl; /* our eventfd */

int lp_shm_pid_gone(pid_t pid)
{
	return pid > 0 && kill(pid, 0) < 0 && errno == ESRCH;
}

int lp_shm_read(pid_t pid, void *dst, uint64_t addr, uint64_t n)
{
	for (uint64_t done = 0; done < n;) {
		struct iovec lv = {(uint8_t *)dst + done, (size_t)(n - done)};
		struct iovec rv = {(void *)(uintptr_t)(addr + done),
				   (size_t)(n - done)};
		ssize_t k = process_vm_readv(pid, &lv, 1, &rv, 1, 0);
		if (k <= 0) {
			if (k == 0)
				errno = EFAULT;
			return -1;
		}
		done += (uint64_t)k;
	}
	return 0;
}

static unsigned long env_num(const char *name, unsigned long def,
			     unsigned long lo, unsigned long hi)
{
	const char *s = getenv(name);
	if (!s || !*s)
		return def;
	char *end;
	unsigned long v = strtoul(s, &end, 0);
	if (*end || v < lo || v > hi)
		return def;
	return v;
}

static void mark_forked(void)
{
	lp_shm.forked = 1;
}

static short efd_events(struct lp_pollable *p)
{
	(void)p;
	return POLLIN;
}

static void efd_ready(struct lp_pollable *p, short revents)
{
	(void)revents;
	uint64_t v;
	/* one read takes the whole count (a second one only said EAGAIN:
	 * a system call more per wake-up, which tasks that share a core
	 * pay on every message) */
	ssize_t r = read(p->fd, &v, sizeof v);
	(void)r;
	lp_shm_poll();
}

/* Creates our inbox.  Returns 0, or -1 (the route then stays off). */
static int make_inbox(void)
{
	uint32_t ring =
		(uint32_t)env_num("PVM_SHM_RING", 128 << 10, 4096, 1u << 26);
	while (ring & (ring - 1))
		ring &= ring - 1; /* a power of two */
	uint32_t nslot =
		(uint32_t)env_num("PVM_SHM_SLOTS", 128, 1, SHMSEG_MAXSLOT);
	uint64_t slot_off, ring_off, bounce_off;
	uint64_t size =
		shmseg_size(nslot, ring, &slot_off, &ring_off, &bounce_off);

	if (shmseg_name(lp_shm.name, sizeof lp_shm.name, lp.mytid) < 0)
		return -1;
	int fd = shm_open(lp_shm.name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC,
			  0600);
	if (fd < 0 && errno == EEXIST) {
		/* left by a dead task that had our tid */
		shm_unlink(lp_shm.name);
		fd = shm_open(lp_shm.name,
			      O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	}
	if (fd < 0)
		return -1;
	void *base = MAP_FAILED;
	if (ftruncate(fd, (off_t)size) == 0)
		base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			    0);
	close(fd);
	if (base == MAP_FAILED) {
		shm_unlink(lp_shm.name);
		return -1;
	}
	int efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (efd < 0) {
		munmap(base, size);
		shm_unlink(lp_shm.name);
		return -1;
	}
	struct shmseg_hdr *h = base;
	h->version = SHMSEG_VERSION;
	h->tid = lp.mytid;
	h->pid = (int32_t)getpid();
	h->efd = efd;
	h->nslot = nslot;
	h->ringsize = ring;
	h->slot_off = slot_off;
	h->ring_off = ring_off;
	h->size = size;
	/* the magic last: a peer that sees it sees the rest */
	atomic_thread_fence(memory_order_release);
	h->magic = SHMSEG_MAGIC;
	lp_shm.base = base;
	lp_shm.size = size;
	lp_shm.hdr = h;
	lp_shm.bounce = (uint8_t *)base + bounce_off;
	lp_shm.nslot = nslot;
	lp_shm.ringsize = ring;
	lp_shm.efd = efd;
	lp_shm.pid = getpid();
	return 0;
}

static int shm_init(int forced)
{
	static int atfork_done;
	const char *e = getenv("PVM_SHM");

	(void)forced; /* shared memory takes every local peer anyway */
	if (e && !strcmp(e, "0"))
		return -1;
	if (lp_shm.on)
		return 0;
	if (make_inbox() < 0)
		return -1;
	lp_shm_direct_min = env_num("PVM_SHM_DIRECT", 32768, 0, SIZE_MAX);
	if (lp_shm_direct_min == 0)
		lp_shm_direct_min = SIZE_MAX; /* 0: never */
	lp_shm_stream_min = env_num("PVM_SHM_STREAM", 32768, 0, SIZE_MAX);
	if (lp_shm_stream_min == 0)
		lp_shm_stream_min = SIZE_MAX;
	lp_shm_split_min = env_num("PVM_SHM_SPLIT", 65536, 0, SIZE_MAX);
	lp_shm_ref_min = env_num("PVM_SHM_REF", 8u << 20, 0, SIZE_MAX);
	if (lp_shm_ref_min == 0)
		lp_shm_ref_min = SIZE_MAX;
	if (lp_shm_split_min == 0)
		lp_shm_split_min = SIZE_MAX;
	lp_shm_test_nap_us =
		(unsigned)env_num("PVM_SHM_TEST_NAP", 0, 0, 1000000);
	if (lp_shm_rx_init() < 0) {
		munmap(lp_shm.base, lp_shm.size);
		shm_unlink(lp_shm.name);
		close(lp_shm.efd);
		lp_shm.efd = -1;
		return -1;
	}
	if (!atfork_done && pthread_atfork(NULL, NULL, mark_forked) == 0)
		atfork_done = 1;
	lp_shm.forked = 0;
	epl.fd = lp_shm.efd;
	epl.events = efd_events;
	epl.ready = efd_ready;
	lp_poll_add(&epl);
	lp_shm.on = 1;
	return 0;
}

/* Maps the inbox of sp->tid and claims a slot in it.  Returns 0, 1 to
 * try again later (no inbox yet, no free slot), -1 never to try again. */
static int open_peer(struct shm_peer *sp)
{
	char name[160];
	if (shmseg_name(name, sizeof name, sp->tid) < 0)
		return -1;
	int fd = shm_open(name, O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0);
	if (fd < 0)
		return 1; /* not enrolled yet, or gone */
	struct stat st;
	if (fstat(fd, &st) < 0 || st.st_uid != getuid() ||
	    (uint64_t)st.st_size < sizeof(struct shmseg_hdr)) {
		close(fd);
		return 1;
	}
	size_t size = (size_t)st.st_size;
	void *base =
		mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (base == MAP_FAILED)
		return 1;
	struct shmseg_hdr *h = base;
	uint64_t bounce_off = 0;
	int ok = atomic_load_explicit((_Atomic uint64_t *)&h->magic,
				      memory_order_acquire) == SHMSEG_MAGIC &&
		 h->version == SHMSEG_VERSION && h->tid == sp->tid &&
		 h->size == size && h->nslot >= 1 &&
		 h->nslot <= SHMSEG_MAXSLOT && h->ringsize >= 4096 &&
		 !(h->ringsize & (h->ringsize - 1)) &&
		 shmseg_size(h->nslot, h->ringsize, NULL, NULL, &bounce_off) ==
			 size;
	if (!ok || atomic_load(&h->dead)) {
		munmap(base, size);
		return 1;
	}
	/* the receiver's eventfd, to wake it */
	int pfd = pidfd_open(h->pid, 0);
	int efd = pfd >= 0 ? pidfd_getfd(pfd, h->efd, 0) : -1;
	if (pfd >= 0)
		close(pfd);
	if (efd < 0) {
		munmap(base, size);
		return -1; /* we cannot wake it: no shared memory to it */
	}
	for (uint32_t i = 0; i < h->nslot; i++) {
		struct shmseg_slot *s = shmseg_slot(base, i);
		int zero = 0;
		if (atomic_load_explicit(&s->sender, memory_order_relaxed) ||
		    !atomic_compare_exchange_strong(&s->sender, &zero,
						    lp.mytid))
			continue;
		atomic_store(&s->spid, (int32_t)getpid());
		atomic_store(&s->sefd, lp_shm.efd);
		atomic_store(&s->closed, 0);
		atomic_store(&s->want_space, 0);
		sp->head = atomic_load(&s->head);
		sp->tail = atomic_load(&s->tail);
		atomic_fetch_or_explicit(&h->active[i / 64], 1ULL << (i % 64),
					 memory_order_release);
		sp->base = base;
		sp->size = size;
		sp->hdr = h;
		sp->slot = s;
		sp->ring = shmseg_ring(base, i);
		sp->bounce = (uint8_t *)base + bounce_off;
		sp->mask = h->ringsize - 1;
		sp->efd = efd;
		return 0;
	}
	close(efd);
	munmap(base, size);
	return 1; /* every slot taken: the pvmd route meanwhile */
}

static void *shm_reach(int tid)
{
	if (!lp_shm.on || lp_shm.forked || !lp_tid_local_peer(tid))
		return NULL;
	struct shm_peer *sp = idhash_get(&peers, tid);
	if (!sp) {
		sp = calloc(1, sizeof *sp);
		if (!sp)
			return NULL;
		sp->tid = tid;
		sp->efd = -1;
		if (idhash_put(&peers, tid, sp) < 0) {
			free(sp);
			return NULL;
		}
	}
	if (sp->state == SHM_P_OK)
		return sp;
	if (sp->state != SHM_P_NEW)
		return NULL;
	int64_t now = mono_ns();
	if (lp_backoff_waiting(&sp->retry, now))
		return NULL;
	int r = open_peer(sp);
	if (r == 0) {
		sp->state = SHM_P_OK;
		sp->retry.wait_ns = 0;
		return sp;
	}
	if (r < 0) {
		sp->state = SHM_P_FAIL;
		return NULL;
	}
	/* 1, 2, 4 ... 32 ms between attempts: a child that has not
	 * enrolled yet is found soon, a missing one costs little */
	lp_backoff_failed(&sp->retry, now, 1000000, 32000000);
	return NULL;
}

/* Forgets the mapping of a peer (its queue is gone already). */
static void unmap_peer(struct shm_peer *sp)
{
	if (sp->efd >= 0)
		close(sp->efd);
	sp->efd = -1;
	if (sp->base)
		munmap(sp->base, sp->size);
	sp->base = NULL;
	sp->hdr = NULL;
	sp->slot = NULL;
	sp->ring = NULL;
}

void lp_shm_tx_drop(struct shm_peer *sp)
{
	while (sp->q) {
		struct shm_out *o = sp->q;
		sp->q = o->next;
		lp_shm_out_free(o);
	}
	sp->qtail = NULL;
	sp->qbytes = 0;
	if (sp->state == SHM_P_OK)
		sp->state = SHM_P_DEAD;
	unmap_peer(sp);
}

static int shm_send(void *ep, const struct lp_omsg *m)
{
	struct shm_peer *sp = ep;
	if (sp->state != SHM_P_OK || lp_shm.forked)
		return PvmSysErr;
	return lp_shm_tx_send(sp, m);
}

/* Output waiting for room (lp_flush hands it to the pvmd route first;
 * a group barrier's wait pushes it meanwhile). */
static int shm_pending(void *ep)
{
	struct shm_peer *sp = ep;
	return sp->state == SHM_P_OK && sp->q != NULL;
}

int lp_shm_poll(void)
{
	if (lp_shm.forked)
		return 0; /* the rings are our parent's */
	int n = lp_shm_rx_poll() + lp_shm_post_done();
	struct shm_peer **pp = &lp_shm.busy;
	while (*pp) {
		struct shm_peer *sp = *pp;
		if (sp->state == SHM_P_OK && sp->q)
			n += lp_shm_tx_push(sp);
		if (sp->state != SHM_P_OK || !sp->q) {
			*pp = sp->bnext;
			sp->bnext = NULL;
			sp->busy = 0;
		} else {
			pp = &sp->bnext;
		}
	}
	return n;
}

int lp_shm_quiet(void)
{
	if (lp_shm.busy)
		return 0;
	uint32_t nw = (lp_shm.nslot + 63) / 64;
	for (uint32_t w = 0; w < nw; w++)
		if (atomic_load_explicit(&lp_shm.hdr->active[w],
					 memory_order_relaxed))
			return 0;
	return 1;
}

int lp_shm_sleep_begin(int64_t *cap_ns)
{
	if (lp_shm_test_nap_us)
		usleep(lp_shm_test_nap_us);
	*cap_ns = -1;
	atomic_store(&lp_shm.hdr->sleeping, 1);
	/* senders we wait for room: the receiver wakes us when it frees some */
	for (struct shm_peer *sp = lp_shm.busy; sp; sp = sp->bnext) {
		if (sp->state == SHM_P_OK) {
			atomic_store(&sp->slot->want_space, 1);
			/* and a dead receiver never frees any: look again;
			 * a message waiting for a posted receive streams
			 * after its grace */
			*cap_ns = sp->q && sp->q->grace_ns ? SHM_GRACE_NS
							   : 100000000;
		}
	}
	/* a message half here: its sender may not go on with it (we pull
	 * it then), or it may have died */
	int took, partial = lp_shm_rx_check(&took);
	int64_t look = partial == 2 ? SHM_PULL_NS : partial ? 100000000 : -1;
	if (look >= 0 && (*cap_ns < 0 || *cap_ns > look))
		*cap_ns = look;
	int n = lp_shm_poll() + took;
	if (n > 0) {
		lp_shm_sleep_end();
		return n;
	}
	return 0;
}

void lp_shm_sleep_end(void)
{
	if (!lp_shm.fdwatch)
		atomic_store_explicit(&lp_shm.hdr->sleeping, 0,
				      memory_order_relaxed);
}

void lp_shm_watch_fds(void)
{
	if (!lp_shm.on || lp_shm.fdwatch)
		return;
	lp_shm.fdwatch = 1;
	atomic_store(&lp_shm.hdr->sleeping, 1);
}

void lp_shm_handoff(void)
{
	if (!lp_shm_active())
		return; /* (a forked child: the queues are its parent's) */
	lp_shm_poll();	/* what fits now goes the fast way */
	while (lp_shm.busy) {
		struct shm_peer *sp = lp_shm.busy;
		lp_shm.busy = sp->bnext;
		sp->bnext = NULL;
		sp->busy = 0;
		if (sp->state == SHM_P_OK)
			lp_shm_tx_handoff(sp);
	}
}

static void shm_fini(void)
{
	if (!lp_shm.on)
		return;
	int mine = !lp_shm.forked;
	for (size_t i = 0; i < peers.cap; i++) {
		struct shm_peer *sp = idhash_at(&peers, i);
		if (!sp)
			continue;
		if (sp->slot && mine)
			atomic_store(&sp->slot->closed, 1);
		/* (queues were handed off by lp_flush, or are dropped as an
		 * unflushed socket's would be) */
		lp_shm_tx_drop(sp);
		free(sp);
	}
	idhash_fini(&peers);
	lp_shm.busy = NULL;
	lp_poll_del(&epl);
	lp_shm_rx_fini();
	if (mine) {
		/* senders drop what they still have for us */
		atomic_store(&lp_shm.hdr->dead, 1);
		shm_unlink(lp_shm.name);
	}
	munmap(lp_shm.base, lp_shm.size);
	close(lp_shm.efd);
	lp_shm.efd = -1;
	lp_shm.base = NULL;
	lp_shm.hdr = NULL;
	lp_shm.on = 0;
	lp_shm.fdwatch = 0;
}

/* The wait policy (tran/waitpol.h): publishes the CPU we wait on, and
 * says whether the peers we send to crowd our CPUs: one of them last
 * waited on our only CPU, or one that is awake on the CPU we run on (the
 * scheduler puts a woken partner beside its waker), or more of them are
 * awake on our CPUs than there are CPUs (a sleeping peer does not run
 * until we wake it).  With many peers the answer is kept CROWD_NS. */
#define CROWD_FEW 16
#define CROWD_NS  1000000
static int shm_crowded(const struct lp_cpus *c, int64_t now)
{
	static int64_t at;
	static int last = -1; /* -1: not asked yet */
	if (c->cpu >= 0 &&
	    atomic_load_explicit(&lp_shm.hdr->cpu, memory_order_relaxed) !=
		    c->cpu + 1)
		atomic_store_explicit(&lp_shm.hdr->cpu, c->cpu + 1,
				      memory_order_relaxed);
	if (last >= 0 && peers.count > CROWD_FEW && now - at < CROWD_NS)
		return last;
	at = now;
	last = lp_shm.crowded = 1;
	int awake = 1; /* we are */
	for (size_t i = 0; i < peers.cap; i++) {
		struct shm_peer *sp = idhash_at(&peers, i);
		if (!sp || sp->state != SHM_P_OK || !sp->hdr)
			continue;
		int pc = atomic_load_explicit(&sp->hdr->cpu,
					      memory_order_relaxed) -
			 1;
		if (!lp_cpus_has(c, pc))
			continue;
		if (c->n == 1)
			return 1;
		if (atomic_load_explicit(&sp->hdr->sleeping,
					 memory_order_relaxed))
			continue;
		if (pc == c->cpu || ++awake > c->n)
			return 1;
	}
	return last = lp_shm.crowded = 0;
}

static int shm_active(void)
{
	return lp_shm_active();
}

static size_t shm_post_min(void)
{
	return lp_shm_active() ? lp_shm_direct_min : SIZE_MAX;
}

const struct lp_tran lp_tran_shm = {
	.name = "shm",
	.exclusivity = 20,
	.init = shm_init,
	.handoff = lp_shm_handoff,
	.fini = shm_fini,
	.reach = shm_reach,
	.send = shm_send,
	.pending = shm_pending,
	.active = shm_active,
	.progress = lp_shm_poll,
	.quiet = lp_shm_quiet,
	.sleep_begin = lp_shm_sleep_begin,
	.sleep_end = lp_shm_sleep_end,
	.watch_fds = lp_shm_watch_fds,
	.crowded = shm_crowded,
	.post_min = shm_post_min,
	.post = lp_shm_post,
	.post_done = lp_shm_post_done,
	.post_take = lp_shm_post_take,
	.post_withdraw = lp_shm_withdraw,
};
