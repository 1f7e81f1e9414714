/*
 * pvm3mod.h - what the files of the pvm3._pvm3 extension share.
 *
 * The extension is the thin C half of the pvm3 Python module
 * (docs/python.md): one function per PVM call, returning PVM's own
 * result codes; the Python half (python/pvm3/) turns codes into
 * exceptions and buffers into Message objects.  Data goes between PVM and
 * Python objects through the buffer protocol, never through a copy.
 */
#ifndef PVM3MOD_H
#define PVM3MOD_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <pthread.h>

#include "pvm3.h"

/* libpvm3 is not thread-safe.  Every call runs with the GIL released (a
 * blocking receive must not stop the interpreter's other threads) and
 * under this lock, so that two Python threads never are inside libpvm3
 * at once.  The GIL is released first: a thread holding the lock never
 * waits for the GIL. */
extern pthread_mutex_t pym_lock;
#define PYM_CALL(stmt)                                                         \
	do {                                                                   \
		Py_BEGIN_ALLOW_THREADS pthread_mutex_lock(&pym_lock);          \
		stmt;                                                          \
		pthread_mutex_unlock(&pym_lock);                               \
		Py_END_ALLOW_THREADS                                           \
	} while (0)

/* The PVM data type of a buffer's format ("d", "<i4"...), or -1 when
 * there is none (the ValueError is set). */
int pym_type_of(const Py_buffer *view);
/* Takes a C-contiguous buffer of `obj` for PVM type `type` (-1: the
 * type its format names, stored back into *type), writable if asked.
 * The format must be the type's; PVM_BYTE (and PVM_STR) take any
 * buffer as bytes.  Its number of items goes to *count.  0, or -1 with
 * the exception set (and no buffer held). */
int pym_get_buffer(PyObject *obj, int *type, int writable, Py_buffer *view,
		   Py_ssize_t *count);

/* A sequence of ints as a malloc'd C array of *n items (at least one
 * allocated); NULL with the exception set. */
int *pym_int_array(PyObject *seq, int *n);

/* The method tables of each file, added to the module by mod.c. */
extern PyMethodDef pym_task_methods[];
extern PyMethodDef pym_msg_methods[];
extern PyMethodDef pym_group_methods[];

#endif
