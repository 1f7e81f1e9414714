/*
 * member.c - group membership: pvm_joingroup, pvm_lvgroup, pvm_gsize,
 * pvm_gettid, pvm_getinst, and the member lists the collectives use.
 *
 * The pvmd keeps the groups (TM_GS_*).  Lists are cached here: a frozen
 * group's for good (man 3 pvm_freezegroup: it cannot change any more),
 * any other group's until the pvmd says that it changed (TM_GS_EVENT,
 * counted by lpvm_priv_gs_epoch), so that the collectives of a group
 * whose members stay put do not ask the pvmd each time.
 */
#include "gs.h"
#include "lpvm_priv.h"

#include <stdlib.h>
#include <string.h>

/* Longest group name accepted (the pvmd caps names as well). */
#define GS_NAME_MAX 4096

void gs_members_free(struct gs_members *m)
{
	free(m->inst);
	free(m->tid);
	m->inst = m->tid = NULL;
	m->n = 0;
}

int gs_name_check(const char *group)
{
	if (!group || !*group)
		return PvmNullGroup;
	if (strlen(group) > GS_NAME_MAX)
		return PvmBadParam;
	return 0;
}

int gs_members_find_tid(const struct gs_members *m, int tid)
{
	for (int i = 0; i < m->n; i++)
		if (m->tid[i] == tid)
			return i;
	return -1;
}

int gs_members_find_inst(const struct gs_members *m, int inst)
{
	for (int i = 0; i < m->n; i++)
		if (m->inst[i] == inst)
			return i;
	return -1;
}

static int members_copy(struct gs_members *to, const struct gs_members *from)
{
	size_t sz = (size_t)(from->n ? from->n : 1) * sizeof(int);
	to->frozen = from->frozen;
	to->n = from->n;
	to->slot = from->slot;
	to->gid = from->gid;
	to->inst = malloc(sz);
	to->tid = malloc(sz);
	if (!to->inst || !to->tid) {
		gs_members_free(to);
		return PvmNoMem;
	}
	memcpy(to->inst, from->inst, (size_t)from->n * sizeof(int));
	memcpy(to->tid, from->tid, (size_t)from->n * sizeof(int));
	return 0;
}

/* ---- the cache of group lists: a short list, looked up by name ---- */

struct cached {
	struct cached *next;
	char *name;
	unsigned epoch; /* lpvm_priv_gs_epoch() before the list was asked */
	struct gs_members m;
};

static struct cached *cache;

static struct cached **cache_find(const char *group)
{
	struct cached **pp = &cache;
	while (*pp && strcmp((*pp)->name, group) != 0)
		pp = &(*pp)->next;
	return pp;
}

void gs_cache_drop(const char *group)
{
	struct cached **pp = cache_find(group);
	struct cached *c = *pp;
	if (!c)
		return;
	*pp = c->next;
	gs_members_free(&c->m);
	free(c->name);
	free(c);
}

void gs_cache_put(const char *group, const struct gs_members *m, unsigned epoch)
{
	gs_cache_drop(group);
	struct cached *c = calloc(1, sizeof *c);
	if (!c)
		return; /* no cache: later calls ask the pvmd */
	c->name = strdup(group);
	if (!c->name || members_copy(&c->m, m) < 0) {
		free(c->name);
		free(c);
		return;
	}
	c->epoch = epoch;
	c->next = cache;
	cache = c;
}

int gs_cache_slot(const char *group, int tid, int *slot, int *gid)
{
	struct cached *c = *cache_find(group);
	/* as current as the list (gs_members_get): a machine that grew from
	 * one host moves every barrier to the pvmd, and a member that kept
	 * meeting in the slot would wait there for good */
	if (!c || c->m.slot < 0 || gs_members_find_tid(&c->m, tid) < 0 ||
	    (!c->m.frozen && c->epoch != lpvm_priv_gs_epoch()))
		return 0;
	*slot = c->m.slot;
	*gid = c->m.gid;
	return 1;
}

/* ---- requests to the pvmd ---- */

/* Sends `code` with the group name (and an i32 when with_arg) and returns
 * the status; on success the reply is left in *rd / *mem. */
static int call(int code, const char *group, int with_arg, int arg,
		struct wire_rd *rd, uint8_t **mem)
{
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_str(&w, group);
	if (with_arg)
		wire_wr_i32(&w, arg);
	int status = lpvm_priv_ctl(code, &w, rd, mem);
	wire_wr_free(&w);
	return status;
}

int gs_simple_call(int code, const char *group, int with_arg, int arg)
{
	struct wire_rd rd;
	uint8_t *mem;
	int st = call(code, group, with_arg, arg, &rd, &mem);
	free(mem);
	return st;
}

/* Decodes the rest of a TM_GS_INFO reply: frozen, n, n x {inst, tid},
 * slot, gid. */
static int info_decode(struct wire_rd *rd, struct gs_members *m)
{
	m->frozen = wire_rd_i32(rd) != 0;
	int n = wire_rd_count(rd, 8);
	if (rd->err)
		return PvmBadMsg;
	size_t sz = (size_t)(n ? n : 1) * sizeof(int);
	m->n = n;
	m->inst = malloc(sz);
	m->tid = malloc(sz);
	if (!m->inst || !m->tid) {
		gs_members_free(m);
		return PvmNoMem;
	}
	for (int i = 0; i < n; i++) {
		m->inst[i] = wire_rd_i32(rd);
		m->tid[i] = wire_rd_i32(rd);
		/* sorted by instance, as the protocol promises */
		if (i > 0 && m->inst[i] <= m->inst[i - 1])
			rd->err = 1;
	}
	m->slot = wire_rd_i32(rd);
	m->gid = wire_rd_i32(rd);
	if (rd->err) {
		gs_members_free(m);
		return PvmBadMsg;
	}
	return 0;
}

int gs_members_get(const char *group, int fresh, struct gs_members *m)
{
	memset(m, 0, sizeof *m);
	/* Taken before asking: an event that comes with or after the reply
	 * then marks the new list stale, never the other way round. */
	unsigned epoch = lpvm_priv_gs_epoch();
	if (!fresh) {
		struct cached *c = *cache_find(group);
		if (c && (c->m.frozen || c->epoch == epoch))
			return members_copy(m, &c->m);
	}
	struct wire_rd rd;
	uint8_t *mem;
	int st = call(WIRE_TM_GS_INFO, group, 0, 0, &rd, &mem);
	if (st < 0) {
		free(mem);
		if (st == PvmNoGroup)
			gs_cache_drop(group);
		return st;
	}
	st = info_decode(&rd, m);
	free(mem);
	if (st < 0)
		return st;
	gs_cache_put(group, m, epoch);
	return 0;
}

/* ---- the API ---- */

int pvm_joingroup(char *group)
{
	int r = gs_name_check(group);
	if (r < 0)
		return gs_quiet_err(r);
	r = gs_simple_call(WIRE_TM_GS_JOIN, group, 0, 0);
	return gs_quiet_err(r);
}

int pvm_lvgroup(char *group)
{
	int r = gs_name_check(group);
	if (r < 0)
		return gs_quiet_err(r);
	/* members and outsiders alike forget what they cached */
	gs_cache_drop(group);
	r = gs_simple_call(WIRE_TM_GS_LEAVE, group, 0, 0);
	return gs_quiet_err(r > 0 ? 0 : r);
}

int gs_members_of(const char *group, struct gs_members *m)
{
	int r = gs_name_check(group);
	if (r < 0)
		return r;
	return gs_members_get(group, 0, m);
}

int pvm_gsize(char *group)
{
	struct gs_members m;
	int r = gs_members_of(group, &m);
	if (r < 0)
		return gs_quiet_err(r);
	int n = m.n;
	gs_members_free(&m);
	return n;
}

int pvm_gettid(char *group, int inum)
{
	struct gs_members m;
	int r = gs_members_of(group, &m);
	if (r < 0)
		return gs_quiet_err(r);
	int i = gs_members_find_inst(&m, inum);
	int tid = i < 0 ? PvmNoInst : m.tid[i];
	gs_members_free(&m);
	return gs_quiet_err(tid);
}

int pvm_getinst(char *group, int tid)
{
	struct gs_members m;
	int r = gs_members_of(group, &m);
	if (r < 0)
		return gs_quiet_err(r);
	int i = gs_members_find_tid(&m, tid);
	int inst = i < 0 ? PvmNotInGroup : m.inst[i];
	gs_members_free(&m);
	return gs_quiet_err(inst);
}
