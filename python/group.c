/*
 * group.c - dynamic groups (libgpvm3) and the message mailbox for
 * pvm3._pvm3.  Buffers are made active for a call alone, as in msg.c.
 */
#include "pvm3mod.h"

#include <stdlib.h>

/* int f(char *group) */
#define GROUP_CALL1(name, call)                                                \
	static PyObject *name(PyObject *self, PyObject *args)                  \
	{                                                                      \
		(void)self;                                                    \
		const char *g;                                                 \
		int r;                                                         \
		if (!PyArg_ParseTuple(args, "s", &g))                          \
			return NULL;                                           \
		PYM_CALL(r = call((char *)g));                                 \
		return PyLong_FromLong(r);                                     \
	}
/* int f(char *group, int) */
#define GROUP_CALL2(name, call)                                                \
	static PyObject *name(PyObject *self, PyObject *args)                  \
	{                                                                      \
		(void)self;                                                    \
		const char *g;                                                 \
		int a, r;                                                      \
		if (!PyArg_ParseTuple(args, "si", &g, &a))                     \
			return NULL;                                           \
		PYM_CALL(r = call((char *)g, a));                              \
		return PyLong_FromLong(r);                                     \
	}
GROUP_CALL1(py_joingroup, pvm_joingroup)
GROUP_CALL1(py_lvgroup, pvm_lvgroup)
GROUP_CALL1(py_gsize, pvm_gsize)
GROUP_CALL2(py_getinst, pvm_getinst)
GROUP_CALL2(py_gettid, pvm_gettid)
GROUP_CALL2(py_barrier, pvm_barrier)
GROUP_CALL2(py_freezegroup, pvm_freezegroup)

/* bcast(bufid, group, tag) */
static PyObject *py_bcast(PyObject *self, PyObject *args)
{
	(void)self;
	const char *g;
	int bufid, tag, r;
	if (!PyArg_ParseTuple(args, "isi", &bufid, &g, &tag))
		return NULL;
	PYM_CALL({
		int old = pvm_setsbuf(bufid);
		if (old < 0) {
			r = old;
		} else {
			r = pvm_bcast((char *)g, tag);
			pvm_setsbuf(old);
		}
	});
	return PyLong_FromLong(r);
}

/* reduce(op, obj, type, tag, group, root): in place in the object's
 * memory, every item of it; op 0-3 is PvmMax, PvmMin, PvmSum,
 * PvmProduct. */
typedef void (*reduce_fn)(int *, void *, void *, int *, int *);
static PyObject *py_reduce(PyObject *self, PyObject *args)
{
	(void)self;
	static const reduce_fn ops[] = {PvmMax, PvmMin, PvmSum, PvmProduct};
	const char *g;
	int op, type, tag, root, r;
	PyObject *obj;
	if (!PyArg_ParseTuple(args, "iOiisi", &op, &obj, &type, &tag, &g,
			      &root))
		return NULL;
	if (op < 0 || op >= (int)(sizeof ops / sizeof ops[0]))
		return PyErr_Format(PyExc_ValueError, "no reduce operation %d",
				    op);
	Py_buffer view;
	Py_ssize_t count;
	if (pym_get_buffer(obj, &type, 1, &view, &count) < 0)
		return NULL;
	if (count > INT_MAX) {
		PyBuffer_Release(&view);
		return PyErr_Format(PyExc_ValueError, "%zd items", count);
	}
	PYM_CALL(r = pvm_reduce(ops[op], view.buf, (int)count, type, tag,
				(char *)g, root));
	PyBuffer_Release(&view);
	return PyLong_FromLong(r);
}

/* The two buffers of a scatter or a gather: `mine` (count items, written
 * when `write_mine`) and `all` (gsize x count items, on the root only:
 * None elsewhere), of one PVM type.  0, or -1 with the exception set and
 * no buffer held. */
static int coll_buffers(PyObject *mine, PyObject *all, int write_mine,
			const char *group, int *type, Py_buffer *mv,
			Py_buffer *av, Py_ssize_t *count)
{
	Py_ssize_t n, an = 0;
	if (pym_get_buffer(mine, type, write_mine, mv, &n) < 0)
		return -1;
	av->obj = NULL;
	if (n > INT_MAX) {
		PyBuffer_Release(mv);
		PyErr_Format(PyExc_ValueError, "%zd items", n);
		return -1;
	}
	if (all != Py_None) {
		int t = *type;
		if (pym_get_buffer(all, &t, !write_mine, av, &an) < 0) {
			PyBuffer_Release(mv);
			return -1;
		}
		/* the root's side must hold every member's part: libgpvm3
		 * reads or writes gsize x count items there */
		int gs;
		PYM_CALL(gs = pvm_gsize((char *)group));
		if (gs > 0 && an < (Py_ssize_t)gs * n) {
			PyBuffer_Release(mv);
			PyBuffer_Release(av);
			av->obj = NULL;
			PyErr_Format(PyExc_ValueError,
				     "the root's buffer holds %zd items, the "
				     "group's %d members need %zd",
				     an, gs, (Py_ssize_t)gs * n);
			return -1;
		}
	}
	*count = n;
	return 0;
}

/* scatter(result, data or None, type, tag, group, root): the root's data
 * (gsize x count items) is dealt out, count items (result's size) to each
 * member's result, in place.  gather(result or None, data, type, tag,
 * group, root): every member's data (count items) lands in the root's
 * result, in instance order.  `mine` is the count items of this member,
 * `all` the root's gsize x count. */
static PyObject *scatter_gather(PyObject *args, int gather)
{
	const char *g;
	int type, tag, root, r;
	PyObject *res, *data;
	if (!PyArg_ParseTuple(args, "OOiisi", &res, &data, &type, &tag, &g,
			      &root))
		return NULL;
	Py_buffer mv, av;
	Py_ssize_t n;
	if (coll_buffers(gather ? data : res, gather ? res : data, !gather, g,
			 &type, &mv, &av, &n) < 0)
		return NULL;
	void *all = av.obj ? av.buf : NULL;
	PYM_CALL(r = gather ? pvm_gather(all, mv.buf, (int)n, type, tag,
					 (char *)g, root)
			    : pvm_scatter(mv.buf, all, (int)n, type, tag,
					  (char *)g, root));
	PyBuffer_Release(&mv);
	if (av.obj)
		PyBuffer_Release(&av);
	return PyLong_FromLong(r);
}

static PyObject *py_scatter(PyObject *self, PyObject *args)
{
	(void)self;
	return scatter_gather(args, 0);
}

static PyObject *py_gather(PyObject *self, PyObject *args)
{
	(void)self;
	return scatter_gather(args, 1);
}

/* putinfo(name, bufid, flags) -> index or error */
static PyObject *py_putinfo(PyObject *self, PyObject *args)
{
	(void)self;
	const char *name;
	int bufid, flags, r;
	if (!PyArg_ParseTuple(args, "sii", &name, &bufid, &flags))
		return NULL;
	PYM_CALL(r = pvm_putinfo((char *)name, bufid, flags));
	return PyLong_FromLong(r);
}

/* recvinfo(name, index, flags) -> bufid, detached from the active
 * receive buffer (which pvm_recvinfo makes it) */
static PyObject *py_recvinfo(PyObject *self, PyObject *args)
{
	(void)self;
	const char *name;
	int index, flags, r;
	if (!PyArg_ParseTuple(args, "sii", &name, &index, &flags))
		return NULL;
	PYM_CALL({
		r = pvm_recvinfo((char *)name, index, flags);
		if (r > 0)
			pvm_setrbuf(0);
	});
	return PyLong_FromLong(r);
}

static PyObject *py_delinfo(PyObject *self, PyObject *args)
{
	(void)self;
	const char *name;
	int index, flags, r;
	if (!PyArg_ParseTuple(args, "sii", &name, &index, &flags))
		return NULL;
	PYM_CALL(r = pvm_delinfo((char *)name, index, flags));
	return PyLong_FromLong(r);
}

/* getmboxinfo(pattern) -> [(name, [(index, owner, flags)])] or error.
 * The library keeps the classes until the next call. */
static PyObject *py_getmboxinfo(PyObject *self, PyObject *args)
{
	(void)self;
	const char *pat;
	int n = 0, r;
	struct pvmmboxinfo *mi = NULL;
	if (!PyArg_ParseTuple(args, "s", &pat))
		return NULL;
	PYM_CALL(r = pvm_getmboxinfo((char *)pat, &n, &mi));
	if (r < 0)
		return PyLong_FromLong(r);
	PyObject *l = PyList_New(n);
	for (int i = 0; l && i < n; i++) {
		PyObject *e = PyList_New(mi[i].mi_nentries);
		for (int j = 0; e && j < mi[i].mi_nentries; j++) {
			PyObject *t = Py_BuildValue(
				"(iii)", mi[i].mi_indices[j],
				mi[i].mi_owners[j], mi[i].mi_flags[j]);
			if (!t)
				Py_CLEAR(e);
			else
				PyList_SET_ITEM(e, j, t);
		}
		PyObject *c =
			e ? Py_BuildValue("(sN)", mi[i].mi_name, e) : NULL;
		if (!c) {
			Py_CLEAR(l);
			break;
		}
		PyList_SET_ITEM(l, i, c);
	}
	return l;
}

#define M(name, fn, doc)                                                       \
	{                                                                      \
		name, (PyCFunction)(void (*)(void))fn, METH_VARARGS, doc       \
	}
PyMethodDef pym_group_methods[] = {
	M("joingroup", py_joingroup, "pvm_joingroup(group)"),
	M("lvgroup", py_lvgroup, "pvm_lvgroup(group)"),
	M("gsize", py_gsize, "pvm_gsize(group)"),
	M("getinst", py_getinst, "pvm_getinst(group, tid)"),
	M("gettid", py_gettid, "pvm_gettid(group, inst)"),
	M("barrier", py_barrier, "pvm_barrier(group, count)"),
	M("freezegroup", py_freezegroup, "pvm_freezegroup(group, size)"),
	M("bcast", py_bcast, "bcast(bufid, group, tag)"),
	M("reduce", py_reduce, "reduce(op, buffer, type, tag, group, root)"),
	M("scatter", py_scatter,
	  "scatter(result, data or None, type, tag, group, root)"),
	M("gather", py_gather,
	  "gather(result or None, data, type, tag, group, root)"),
	M("putinfo", py_putinfo, "pvm_putinfo(name, bufid, flags)"),
	M("recvinfo", py_recvinfo, "recvinfo(name, index, flags) -> bufid"),
	M("delinfo", py_delinfo, "pvm_delinfo(name, index, flags)"),
	M("getmboxinfo", py_getmboxinfo,
	  "getmboxinfo(pattern) -> [(name, [(index, owner, flags)])] or error"),
	{NULL, NULL, 0, NULL},
};
