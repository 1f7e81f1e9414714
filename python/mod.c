/*
 * mod.c - the pvm3._pvm3 extension module: its constants (every one of
 * pvm3.h's, from the header itself, so they cannot drift), the error
 * texts, and the calls about tasks: enrollment, spawn, signals, options,
 * notify, the task and host tables, contexts.
 */
#include "pvm3mod.h"
#include "libpvm/lpvm_priv.h"

#include <stdlib.h>
#include <string.h>

pthread_mutex_t pym_lock = PTHREAD_MUTEX_INITIALIZER;

static PyObject *py_errtext(PyObject *self, PyObject *args)
{
	(void)self;
	int code;
	if (!PyArg_ParseTuple(args, "i", &code))
		return NULL;
	return PyUnicode_FromString(lpvm_priv_errstr(code));
}

static PyObject *py_mytid(PyObject *self, PyObject *args)
{
	(void)self, (void)args;
	int r;
	PYM_CALL(r = pvm_mytid());
	return PyLong_FromLong(r);
}

static PyObject *py_parent(PyObject *self, PyObject *args)
{
	(void)self, (void)args;
	int r;
	PYM_CALL(r = pvm_parent());
	return PyLong_FromLong(r);
}

static PyObject *py_exit(PyObject *self, PyObject *args)
{
	(void)self, (void)args;
	int r;
	PYM_CALL(r = pvm_exit());
	return PyLong_FromLong(r);
}

/* int f(int): kill, pstat, tidtohost, getopt, the context calls... */
#define INT_CALL1(name, call)                                                  \
	static PyObject *name(PyObject *self, PyObject *args)                  \
	{                                                                      \
		(void)self;                                                    \
		int a, r;                                                      \
		if (!PyArg_ParseTuple(args, "i", &a))                          \
			return NULL;                                           \
		PYM_CALL(r = call(a));                                         \
		return PyLong_FromLong(r);                                     \
	}
#define INT_CALL0(name, call)                                                  \
	static PyObject *name(PyObject *self, PyObject *args)                  \
	{                                                                      \
		(void)self, (void)args;                                        \
		int r;                                                         \
		PYM_CALL(r = call());                                          \
		return PyLong_FromLong(r);                                     \
	}
INT_CALL1(py_kill, pvm_kill)
INT_CALL1(py_pstat, pvm_pstat)
INT_CALL1(py_tidtohost, pvm_tidtohost)
INT_CALL1(py_getopt, pvm_getopt)
INT_CALL1(py_setcontext, pvm_setcontext)
INT_CALL1(py_freecontext, pvm_freecontext)
INT_CALL0(py_newcontext, pvm_newcontext)
INT_CALL0(py_getcontext, pvm_getcontext)
INT_CALL0(py_halt, pvm_halt)

static PyObject *py_setopt(PyObject *self, PyObject *args)
{
	(void)self;
	int what, val, r;
	if (!PyArg_ParseTuple(args, "ii", &what, &val))
		return NULL;
	PYM_CALL(r = pvm_setopt(what, val));
	return PyLong_FromLong(r);
}

static PyObject *py_sendsig(PyObject *self, PyObject *args)
{
	(void)self;
	int tid, sig, r;
	if (!PyArg_ParseTuple(args, "ii", &tid, &sig))
		return NULL;
	PYM_CALL(r = pvm_sendsig(tid, sig));
	return PyLong_FromLong(r);
}

/* A list of ints as a malloc'd C array (*n items); NULL with the
 * exception set.  An empty list gives a 1-item array, never NULL. */
static int *int_array(PyObject *seq, int *n)
{
	PyObject *fast = PySequence_Fast(seq, "a sequence of tids is needed");
	if (!fast)
		return NULL;
	Py_ssize_t len = PySequence_Fast_GET_SIZE(fast);
	if (len > 1 << 24) {
		Py_DECREF(fast);
		PyErr_SetString(PyExc_ValueError, "too many tids");
		return NULL;
	}
	int *a = malloc(sizeof *a * (size_t)(len ? len : 1));
	if (!a) {
		Py_DECREF(fast);
		PyErr_NoMemory();
		return NULL;
	}
	for (Py_ssize_t i = 0; i < len; i++) {
		long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
		if (v == -1 && PyErr_Occurred()) {
			free(a);
			Py_DECREF(fast);
			return NULL;
		}
		a[i] = (int)v;
	}
	Py_DECREF(fast);
	*n = (int)len;
	return a;
}
/* exported to msg.c for pvm_mcast */
int *pym_int_array(PyObject *seq, int *n)
{
	return int_array(seq, n);
}

static PyObject *int_list(const int *a, int n)
{
	PyObject *l = PyList_New(n);
	for (int i = 0; l && i < n; i++) {
		PyObject *v = PyLong_FromLong(a[i]);
		if (!v) {
			Py_DECREF(l);
			return NULL;
		}
		PyList_SET_ITEM(l, i, v);
	}
	return l;
}

/* spawn(task, argv or None, flag, where or None, ntask) -> (numt, tids):
 * every slot of tids, the errors (< 0) of the ones not started too. */
static PyObject *py_spawn(PyObject *self, PyObject *args)
{
	(void)self;
	const char *task, *where;
	PyObject *argv;
	int flag, ntask;
	if (!PyArg_ParseTuple(args, "sOizi", &task, &argv, &flag, &where,
			      &ntask))
		return NULL;
	if (ntask < 1 || ntask > 1 << 20)
		return PyErr_Format(PyExc_ValueError, "ntask %d", ntask);
	PyObject *fast = NULL;
	char **av = NULL;
	Py_ssize_t na = 0;
	if (argv != Py_None) {
		fast = PySequence_Fast(argv, "argv must be a list of str");
		if (!fast)
			return NULL;
		na = PySequence_Fast_GET_SIZE(fast);
		av = calloc((size_t)na + 1, sizeof *av);
		if (!av) {
			Py_DECREF(fast);
			return PyErr_NoMemory();
		}
		for (Py_ssize_t i = 0; i < na; i++) {
			/* borrowed UTF-8 kept alive by the items of fast */
			const char *s = PyUnicode_AsUTF8(
				PySequence_Fast_GET_ITEM(fast, i));
			if (!s) {
				free(av);
				Py_DECREF(fast);
				return NULL;
			}
			av[i] = (char *)s;
		}
	}
	int *tids = malloc(sizeof *tids * (size_t)ntask);
	PyObject *res = NULL;
	if (!tids) {
		PyErr_NoMemory();
	} else {
		int r;
		PYM_CALL(r = pvm_spawn((char *)task, av, flag, (char *)where,
				       ntask, tids));
		/* a call refused as a whole (r < 0) filled no slot */
		PyObject *l = r < 0 ? PyList_New(0) : int_list(tids, ntask);
		if (l)
			res = Py_BuildValue("(iN)", r, l);
	}
	free(tids);
	free(av);
	Py_XDECREF(fast);
	return res;
}

/* notify(what, tag, cnt, tids or None): cnt is PvmHostAdd's count; with
 * tids, their number. */
static PyObject *py_notify(PyObject *self, PyObject *args)
{
	(void)self;
	int what, tag, cnt, r;
	PyObject *seq;
	if (!PyArg_ParseTuple(args, "iiiO", &what, &tag, &cnt, &seq))
		return NULL;
	int *a = NULL;
	if (seq != Py_None && !(a = int_array(seq, &cnt)))
		return NULL;
	PYM_CALL(r = pvm_notify(what, tag, cnt, a));
	free(a);
	return PyLong_FromLong(r);
}

static PyObject *py_siblings(PyObject *self, PyObject *args)
{
	(void)self, (void)args;
	int *tids = NULL, n;
	PYM_CALL(n = pvm_siblings(&tids));
	if (n < 0)
		return PyLong_FromLong(n);
	return int_list(tids, n);
}

/* tasks(where) -> [(tid, ptid, host, flag, a_out, pid)] or the error */
static PyObject *py_tasks(PyObject *self, PyObject *args)
{
	(void)self;
	int where, n = 0, r;
	struct pvmtaskinfo *ti = NULL;
	if (!PyArg_ParseTuple(args, "i", &where))
		return NULL;
	PYM_CALL(r = pvm_tasks(where, &n, &ti));
	if (r < 0)
		return PyLong_FromLong(r);
	PyObject *l = PyList_New(n);
	for (int i = 0; l && i < n; i++) {
		PyObject *t = Py_BuildValue(
			"(iiiisi)", ti[i].ti_tid, ti[i].ti_ptid, ti[i].ti_host,
			ti[i].ti_flag, ti[i].ti_a_out ? ti[i].ti_a_out : "",
			ti[i].ti_pid);
		if (!t) {
			Py_CLEAR(l);
			break;
		}
		PyList_SET_ITEM(l, i, t);
	}
	return l;
}

/* config() -> [(tid, name, arch, speed, dsig)] or the error */
static PyObject *py_config(PyObject *self, PyObject *args)
{
	(void)self, (void)args;
	int n = 0, narch = 0, r;
	struct pvmhostinfo *hi = NULL;
	PYM_CALL(r = pvm_config(&n, &narch, &hi));
	if (r < 0)
		return PyLong_FromLong(r);
	PyObject *l = PyList_New(n);
	for (int i = 0; l && i < n; i++) {
		PyObject *t = Py_BuildValue("(issii)", hi[i].hi_tid,
					    hi[i].hi_name, hi[i].hi_arch,
					    hi[i].hi_speed, hi[i].hi_dsig);
		if (!t) {
			Py_CLEAR(l);
			break;
		}
		PyList_SET_ITEM(l, i, t);
	}
	return l;
}

#define M(name, fn, doc)                                                       \
	{                                                                      \
		name, (PyCFunction)(void (*)(void))fn, METH_VARARGS, doc       \
	}
PyMethodDef pym_task_methods[] = {
	M("errtext", py_errtext,
	  "errtext(code): the reference's text of a PVM error code"),
	M("mytid", py_mytid, "pvm_mytid()"),
	M("parent", py_parent, "pvm_parent()"),
	M("exit", py_exit, "pvm_exit()"),
	M("halt", py_halt, "pvm_halt()"),
	M("kill", py_kill, "pvm_kill(tid)"),
	M("sendsig", py_sendsig, "pvm_sendsig(tid, signum)"),
	M("pstat", py_pstat, "pvm_pstat(tid)"),
	M("tidtohost", py_tidtohost, "pvm_tidtohost(tid)"),
	M("getopt", py_getopt, "pvm_getopt(what)"),
	M("setopt", py_setopt, "pvm_setopt(what, val)"),
	M("newcontext", py_newcontext, "pvm_newcontext()"),
	M("getcontext", py_getcontext, "pvm_getcontext()"),
	M("setcontext", py_setcontext, "pvm_setcontext(ctx)"),
	M("freecontext", py_freecontext, "pvm_freecontext(ctx)"),
	M("spawn", py_spawn,
	  "spawn(task, argv, flag, where, ntask) -> (numt, tids)"),
	M("notify", py_notify, "notify(what, tag, cnt, tids or None)"),
	M("siblings", py_siblings, "siblings() -> [tid] or error"),
	M("tasks", py_tasks,
	  "tasks(where) -> [(tid, ptid, host, flag, a_out, pid)] or error"),
	M("config", py_config,
	  "config() -> [(tid, name, arch, speed, dsig)] or error"),
	{NULL, NULL, 0, NULL},
};

/* Every constant of pvm3.h, by its own name. */
#define C(x)                                                                   \
	{                                                                      \
#x, x                                                          \
	}
static const struct {
	const char *name;
	long value;
} constants[] = {
	C(PvmDataDefault),
	C(PvmDataRaw),
	C(PvmDataInPlace),
	C(PvmDataTrace),
	C(PvmTaskDefault),
	C(PvmTaskHost),
	C(PvmTaskArch),
	C(PvmTaskDebug),
	C(PvmTaskTrace),
	C(PvmMppFront),
	C(PvmHostCompl),
	C(PvmNoSpawnParent),
	C(PvmTaskExit),
	C(PvmHostDelete),
	C(PvmHostAdd),
	C(PvmRouteAdd),
	C(PvmRouteDelete),
	C(PvmNotifyCancel),
	C(PvmRoute),
	C(PvmDontRoute),
	C(PvmAllowDirect),
	C(PvmRouteDirect),
	C(PvmDebugMask),
	C(PvmAutoErr),
	C(PvmOutputTid),
	C(PvmOutputCode),
	C(PvmTraceTid),
	C(PvmTraceCode),
	C(PvmTraceBuffer),
	C(PvmTraceOptions),
	C(PvmTraceFull),
	C(PvmTraceTime),
	C(PvmTraceCount),
	C(PvmFragSize),
	C(PvmResvTids),
	C(PvmSelfOutputTid),
	C(PvmSelfOutputCode),
	C(PvmSelfTraceTid),
	C(PvmSelfTraceCode),
	C(PvmSelfTraceBuffer),
	C(PvmSelfTraceOptions),
	C(PvmShowTids),
	C(PvmPollType),
	C(PvmPollConstant),
	C(PvmPollSleep),
	C(PvmPollTime),
	C(PvmOutputContext),
	C(PvmTraceContext),
	C(PvmSelfOutputContext),
	C(PvmSelfTraceContext),
	C(PvmNoReset),
	C(PvmTaskSelf),
	C(PvmTaskChild),
	C(PvmBaseContext),
	C(PvmMboxDefault),
	C(PvmMboxPersistent),
	C(PvmMboxMultiInstance),
	C(PvmMboxOverWritable),
	C(PvmMboxFirstAvail),
	C(PvmMboxReadAndDelete),
	C(PvmMboxWaitForInfo),
	C(PvmMboxMaxFlag),
	C(PvmMboxDirectIndexShift),
	C(PvmMboxMaxDirectIndex),
	C(PVM_STR),
	C(PVM_BYTE),
	C(PVM_SHORT),
	C(PVM_INT),
	C(PVM_FLOAT),
	C(PVM_CPLX),
	C(PVM_DOUBLE),
	C(PVM_DCPLX),
	C(PVM_LONG),
	C(PVM_USHORT),
	C(PVM_UINT),
	C(PVM_ULONG),
	C(PVM_MAJOR_VERSION),
	C(PVM_MINOR_VERSION),
	C(PVM_PATCH_VERSION),
	C(PvmNoEntry),
	C(PvmDupEntry),
};
/* The error codes: constants too, and the names of their exceptions
 * (PvmNoEntry and PvmDupEntry are aliases, left out here). */
static const struct {
	const char *name;
	long value;
} errors[] = {
	C(PvmOk),	  C(PvmBadParam),  C(PvmMismatch),   C(PvmOverflow),
	C(PvmNoData),	  C(PvmNoHost),	   C(PvmNoFile),     C(PvmDenied),
	C(PvmNoMem),	  C(PvmBadMsg),	   C(PvmSysErr),     C(PvmNoBuf),
	C(PvmNoSuchBuf),  C(PvmNullGroup), C(PvmDupGroup),   C(PvmNoGroup),
	C(PvmNotInGroup), C(PvmNoInst),	   C(PvmHostFail),   C(PvmNoParent),
	C(PvmNotImpl),	  C(PvmDSysErr),   C(PvmBadVersion), C(PvmOutOfRes),
	C(PvmDupHost),	  C(PvmCantStart), C(PvmAlready),    C(PvmNoTask),
	C(PvmNotFound),	  C(PvmExists),	   C(PvmHostrNMstr), C(PvmParentNotSet),
	C(PvmIPLoopback),
};

static struct PyModuleDef moddef = {
	PyModuleDef_HEAD_INIT,
	"pvm3._pvm3",
	"The C half of the pvm3 module: PVM calls returning PVM's codes.",
	-1,
	NULL,
	NULL,
	NULL,
	NULL,
	NULL,
};

PyMODINIT_FUNC PyInit__pvm3(void);
PyMODINIT_FUNC PyInit__pvm3(void)
{
	PyObject *m = PyModule_Create(&moddef);
	if (!m)
		return NULL;
	if (PyModule_AddFunctions(m, pym_task_methods) < 0 ||
	    PyModule_AddFunctions(m, pym_msg_methods) < 0 ||
	    PyModule_AddFunctions(m, pym_group_methods) < 0)
		goto fail;
	for (size_t i = 0; i < sizeof constants / sizeof constants[0]; i++)
		if (PyModule_AddIntConstant(m, constants[i].name,
					    constants[i].value) < 0)
			goto fail;
	PyObject *names = PyDict_New();
	if (!names || PyModule_AddObject(m, "errnames", names) < 0) {
		Py_XDECREF(names);
		goto fail;
	}
	for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++) {
		PyObject *k = PyLong_FromLong(errors[i].value);
		PyObject *v = PyUnicode_FromString(errors[i].name);
		int bad = !k || !v || PyDict_SetItem(names, k, v) < 0 ||
			  PyModule_AddIntConstant(m, errors[i].name,
						  errors[i].value) < 0;
		Py_XDECREF(k);
		Py_XDECREF(v);
		if (bad)
			goto fail;
	}
	if (PyModule_AddStringConstant(m, "PVM_VER", PVM_VER) < 0 ||
	    PyModule_AddIntConstant(m, "sizeof_long", sizeof(long)) < 0)
		goto fail;
	/* Errors come to Python as exceptions: libpvm3's own report of each
	 * (a line on stderr) is off unless the program sets PvmAutoErr
	 * again.  A local option: this does not enroll. */
	pvm_setopt(PvmAutoErr, 0);
	return m;
fail:
	Py_DECREF(m);
	return NULL;
}
