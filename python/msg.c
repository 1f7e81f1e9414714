/*
 * msg.c - message buffers, packing, sending and receiving for pvm3._pvm3.
 *
 * PVM has one active send and one active receive buffer, and pvm_recv
 * frees the active receive buffer it replaces.  A Python Message owns its
 * buffer for as long as it lives, so the active buffers stay 0 between
 * calls: a call that packs, unpacks or sends makes the message's buffer
 * active for that call alone, and a received buffer is detached at once
 * (pvm_setrbuf(0)), so that no later receive frees it under its Message.
 */
#include "pvm3mod.h"
#include "libpvm/lpvm_priv.h"

#include <stdlib.h>
#include <sys/time.h>

static PyObject *py_mkbuf(PyObject *self, PyObject *args)
{
	(void)self;
	int enc, r;
	if (!PyArg_ParseTuple(args, "i", &enc))
		return NULL;
	PYM_CALL(r = pvm_mkbuf(enc));
	return PyLong_FromLong(r);
}

static PyObject *py_freebuf(PyObject *self, PyObject *args)
{
	(void)self;
	int id, r;
	if (!PyArg_ParseTuple(args, "i", &id))
		return NULL;
	PYM_CALL(r = pvm_freebuf(id));
	return PyLong_FromLong(r);
}

/* bufinfo(bufid) -> (code, bytes, tag, src) */
static PyObject *py_bufinfo(PyObject *self, PyObject *args)
{
	(void)self;
	int id, r, bytes = 0, tag = 0, src = 0;
	if (!PyArg_ParseTuple(args, "i", &id))
		return NULL;
	PYM_CALL(r = pvm_bufinfo(id, &bytes, &tag, &src));
	return Py_BuildValue("(iiii)", r, bytes, tag, src);
}

/* pk(bufid, type, obj, nitem, stride) and upk(...): nitem items, every
 * stride-th of the buffer (nitem -1: as many as the buffer has).  The
 * binding checks what PVM cannot: that the items are inside the buffer
 * (so strides are >= 1 here). */
static PyObject *xfer(PyObject *args, int unpack)
{
	int bufid, type, nitem, stride, r = 0;
	PyObject *obj;
	if (!PyArg_ParseTuple(args, "iiOii", &bufid, &type, &obj, &nitem,
			      &stride))
		return NULL;
	if (stride < 1)
		return PyErr_Format(PyExc_ValueError, "stride %d", stride);
	Py_buffer view;
	Py_ssize_t count;
	/* type -1 becomes the buffer's */
	if (pym_get_buffer(obj, &type, unpack, &view, &count) < 0)
		return NULL;
	if (type == PVM_STR || !lpvm_priv_dtype_size(type)) {
		PyBuffer_Release(&view);
		return PyErr_Format(PyExc_ValueError, "no PVM data type %d",
				    type);
	}
	if (nitem < 0)
		nitem = (int)((count + stride - 1) / stride);
	if (count > INT_MAX ||
	    (nitem > 0 && (Py_ssize_t)(nitem - 1) * stride >= count)) {
		PyBuffer_Release(&view);
		return PyErr_Format(PyExc_ValueError,
				    "%d items at stride %d do not fit in a "
				    "buffer of %zd",
				    nitem, stride, count);
	}
	if (nitem > 0) {
		PYM_CALL({
			int old = unpack ? pvm_setrbuf(bufid)
					 : pvm_setsbuf(bufid);
			if (old < 0) {
				r = old;
			} else {
				r = lpvm_priv_pack(type, view.buf, nitem,
						   stride, unpack);
				if (unpack)
					pvm_setrbuf(old);
				else
					pvm_setsbuf(old);
			}
		});
	}
	PyBuffer_Release(&view);
	return PyLong_FromLong(r);
}

static PyObject *py_pk(PyObject *self, PyObject *args)
{
	(void)self;
	return xfer(args, 0);
}

static PyObject *py_upk(PyObject *self, PyObject *args)
{
	(void)self;
	return xfer(args, 1);
}

/* pkstr(bufid, bytes): bytes without NUL ("y" refuses those) */
static PyObject *py_pkstr(PyObject *self, PyObject *args)
{
	(void)self;
	int bufid, r;
	const char *s;
	if (!PyArg_ParseTuple(args, "iy", &bufid, &s))
		return NULL;
	PYM_CALL({
		int old = pvm_setsbuf(bufid);
		if (old < 0) {
			r = old;
		} else {
			r = pvm_pkstr((char *)s);
			pvm_setsbuf(old);
		}
	});
	return PyLong_FromLong(r);
}

/* upkstr(bufid) -> bytes, or the error code.  pvm_upkstr is told no
 * size: no string of a message is longer than the message. */
static PyObject *py_upkstr(PyObject *self, PyObject *args)
{
	(void)self;
	int bufid, r, bytes = 0, tag, src;
	if (!PyArg_ParseTuple(args, "i", &bufid))
		return NULL;
	PYM_CALL(r = pvm_bufinfo(bufid, &bytes, &tag, &src));
	if (r < 0)
		return PyLong_FromLong(r);
	char *s = malloc((size_t)bytes + 1);
	if (!s)
		return PyErr_NoMemory();
	PYM_CALL({
		int old = pvm_setrbuf(bufid);
		if (old < 0) {
			r = old;
		} else {
			r = pvm_upkstr(s);
			pvm_setrbuf(old);
		}
	});
	PyObject *res = r < 0 ? PyLong_FromLong(r) : PyBytes_FromString(s);
	free(s);
	return res;
}

static PyObject *py_send(PyObject *self, PyObject *args)
{
	(void)self;
	int bufid, tid, tag, r;
	if (!PyArg_ParseTuple(args, "iii", &bufid, &tid, &tag))
		return NULL;
	PYM_CALL({
		int old = pvm_setsbuf(bufid);
		if (old < 0) {
			r = old;
		} else {
			r = pvm_send(tid, tag);
			pvm_setsbuf(old);
		}
	});
	return PyLong_FromLong(r);
}

static PyObject *py_mcast(PyObject *self, PyObject *args)
{
	(void)self;
	int bufid, tag, n, r;
	PyObject *seq;
	if (!PyArg_ParseTuple(args, "iOi", &bufid, &seq, &tag))
		return NULL;
	int *tids = pym_int_array(seq, &n);
	if (!tids)
		return NULL;
	PYM_CALL({
		int old = pvm_setsbuf(bufid);
		if (old < 0) {
			r = old;
		} else {
			r = pvm_mcast(tids, n, tag);
			pvm_setsbuf(old);
		}
	});
	free(tids);
	return PyLong_FromLong(r);
}

/* recv, nrecv, trecv: the buffer id (> 0) of the message received,
 * detached from the active receive buffer; 0 for none; < 0 an error. */
static int detach(int bufid)
{
	if (bufid > 0)
		pvm_setrbuf(0);
	return bufid;
}

static PyObject *py_recv(PyObject *self, PyObject *args)
{
	(void)self;
	int tid, tag, r;
	if (!PyArg_ParseTuple(args, "ii", &tid, &tag))
		return NULL;
	PYM_CALL(r = detach(pvm_recv(tid, tag)));
	return PyLong_FromLong(r);
}

static PyObject *py_nrecv(PyObject *self, PyObject *args)
{
	(void)self;
	int tid, tag, r;
	if (!PyArg_ParseTuple(args, "ii", &tid, &tag))
		return NULL;
	PYM_CALL(r = detach(pvm_nrecv(tid, tag)));
	return PyLong_FromLong(r);
}

/* trecv(tid, tag, seconds): a negative time waits for ever */
static PyObject *py_trecv(PyObject *self, PyObject *args)
{
	(void)self;
	int tid, tag, r;
	double secs;
	if (!PyArg_ParseTuple(args, "iid", &tid, &tag, &secs))
		return NULL;
	struct timeval tv, *tvp = NULL;
	if (secs >= 0) {
		if (secs > 1e9)
			secs = 1e9;
		tv.tv_sec = (time_t)secs;
		tv.tv_usec = (suseconds_t)((secs - (double)tv.tv_sec) * 1e6);
		tvp = &tv;
	}
	PYM_CALL(r = detach(pvm_trecv(tid, tag, tvp)));
	return PyLong_FromLong(r);
}

/* probe(tid, tag) -> (code, bytes, tag, src): code 0 when nothing */
static PyObject *py_probe(PyObject *self, PyObject *args)
{
	(void)self;
	int tid, tag, r, bytes = 0, mtag = 0, src = 0;
	if (!PyArg_ParseTuple(args, "ii", &tid, &tag))
		return NULL;
	PYM_CALL({
		r = pvm_probe(tid, tag);
		if (r > 0 && pvm_bufinfo(r, &bytes, &mtag, &src) < 0)
			bytes = mtag = src = 0;
	});
	return Py_BuildValue("(iiii)", r, bytes, mtag, src);
}

/* psend(tid, tag, obj, type): straight from the object's memory; type -1
 * is the one its format names. */
static PyObject *py_psend(PyObject *self, PyObject *args)
{
	(void)self;
	int tid, tag, type, r;
	PyObject *obj;
	if (!PyArg_ParseTuple(args, "iiOi", &tid, &tag, &obj, &type))
		return NULL;
	Py_buffer view;
	Py_ssize_t count;
	if (pym_get_buffer(obj, &type, 0, &view, &count) < 0)
		return NULL;
	if (count > INT_MAX) {
		PyBuffer_Release(&view);
		return PyErr_Format(PyExc_ValueError, "%zd items", count);
	}
	PYM_CALL(r = pvm_psend(tid, tag, view.buf, (int)count, type));
	PyBuffer_Release(&view);
	return PyLong_FromLong(r);
}

/* precv(tid, tag, obj, type) -> (code, src, tag, bytes): straight into
 * the object's memory. */
static PyObject *py_precv(PyObject *self, PyObject *args)
{
	(void)self;
	int tid, tag, type, r, atid = 0, atag = 0, alen = 0;
	PyObject *obj;
	if (!PyArg_ParseTuple(args, "iiOi", &tid, &tag, &obj, &type))
		return NULL;
	Py_buffer view;
	Py_ssize_t count;
	if (pym_get_buffer(obj, &type, 1, &view, &count) < 0)
		return NULL;
	if (count > INT_MAX) {
		PyBuffer_Release(&view);
		return PyErr_Format(PyExc_ValueError, "%zd items", count);
	}
	PYM_CALL(r = pvm_precv(tid, tag, view.buf, (int)count, type, &atid,
			       &atag, &alen));
	PyBuffer_Release(&view);
	return Py_BuildValue("(iiii)", r, atid, atag, alen);
}

#define M(name, fn, doc)                                                       \
	{                                                                      \
		name, (PyCFunction)(void (*)(void))fn, METH_VARARGS, doc       \
	}
PyMethodDef pym_msg_methods[] = {
	M("mkbuf", py_mkbuf, "pvm_mkbuf(encoding)"),
	M("freebuf", py_freebuf, "pvm_freebuf(bufid)"),
	M("bufinfo", py_bufinfo, "bufinfo(bufid) -> (code, bytes, tag, src)"),
	M("pk", py_pk, "pk(bufid, type, buffer, nitem, stride)"),
	M("upk", py_upk, "upk(bufid, type, writable buffer, nitem, stride)"),
	M("pkstr", py_pkstr, "pkstr(bufid, bytes)"),
	M("upkstr", py_upkstr, "upkstr(bufid) -> bytes or error code"),
	M("send", py_send, "send(bufid, tid, tag)"),
	M("mcast", py_mcast, "mcast(bufid, tids, tag)"),
	M("recv", py_recv, "recv(tid, tag) -> bufid"),
	M("nrecv", py_nrecv, "nrecv(tid, tag) -> bufid or 0"),
	M("trecv", py_trecv, "trecv(tid, tag, seconds) -> bufid or 0"),
	M("probe", py_probe, "probe(tid, tag) -> (code, bytes, tag, src)"),
	M("psend", py_psend, "psend(tid, tag, buffer, type)"),
	M("precv", py_precv,
	  "precv(tid, tag, buffer, type) -> (code, src, tag, bytes)"),
	{NULL, NULL, 0, NULL},
};
