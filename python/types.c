/*
 * types.c - PVM data types and Python buffers: which PVM type a buffer's
 * format is (numpy's dtypes, array.array's typecodes, memoryview casts
 * all describe themselves with struct-module format strings), and taking
 * a buffer for a call that reads or writes it in place.
 */
#include "pvm3mod.h"
#include "libpvm/lpvm_priv.h"

#include <string.h>

/* An integer of `size` bytes: the PVM type of that size, -1 for none. */
static int int_type(Py_ssize_t size, int is_signed)
{
	if (size == 1)
		return PVM_BYTE;
	if (size == (Py_ssize_t)sizeof(short))
		return is_signed ? PVM_SHORT : PVM_USHORT;
	if (size == (Py_ssize_t)sizeof(int))
		return is_signed ? PVM_INT : PVM_UINT;
	if (size == (Py_ssize_t)sizeof(long))
		return is_signed ? PVM_LONG : PVM_ULONG;
	return -1;
}

int pym_type_of(const Py_buffer *view)
{
	const char *f = view->format ? view->format : "B";
	const unsigned one = 1;
	int little = *(const unsigned char *)&one == 1;
	/* byte order: PVM's native-format types want the host's */
	if (*f == '@' || *f == '=') {
		f++;
	} else if (*f == '<' || *f == '>' || *f == '!') {
		if ((*f == '<') != little) {
			PyErr_Format(PyExc_ValueError,
				     "buffer format '%s' is not in this host's "
				     "byte order",
				     view->format);
			return -1;
		}
		f++;
	}
	int t = -1;
	/* the letter gives the kind, the item size the width ('l' is 4 or
	 * 8 bytes depending on who wrote the format) */
	if (f[0] && !f[1]) {
		switch (f[0]) {
		case 'b':
		case 'B':
		case 'c':
		case '?':
			t = view->itemsize == 1 ? PVM_BYTE : -1;
			break;
		case 'h':
		case 'i':
		case 'l':
		case 'q':
		case 'n':
			t = int_type(view->itemsize, 1);
			break;
		case 'H':
		case 'I':
		case 'L':
		case 'Q':
		case 'N':
			t = int_type(view->itemsize, 0);
			break;
		case 'f':
			t = view->itemsize == sizeof(float) ? PVM_FLOAT : -1;
			break;
		case 'd':
			t = view->itemsize == sizeof(double) ? PVM_DOUBLE : -1;
			break;
		}
	} else if (f[0] == 'Z' && f[1] && !f[2]) {
		if (f[1] == 'f' && view->itemsize == 2 * sizeof(float))
			t = PVM_CPLX;
		else if (f[1] == 'd' && view->itemsize == 2 * sizeof(double))
			t = PVM_DCPLX;
	}
	if (t < 0)
		PyErr_Format(PyExc_TypeError,
			     "no PVM data type for buffer format '%s' (item "
			     "size %zd)",
			     view->format ? view->format : "B", view->itemsize);
	return t;
}

static const char *type_name(int type)
{
	static const char *const names[] = {
		"PVM_STR",   "PVM_BYTE",   "PVM_SHORT",	 "PVM_INT",
		"PVM_FLOAT", "PVM_CPLX",   "PVM_DOUBLE", "PVM_DCPLX",
		"PVM_LONG",  "PVM_USHORT", "PVM_UINT",	 "PVM_ULONG",
	};
	if (type >= 0 && type < (int)(sizeof names / sizeof names[0]))
		return names[type];
	return "an unknown type";
}

int pym_get_buffer(PyObject *obj, int *type, int writable, Py_buffer *view,
		   Py_ssize_t *count)
{
	int want = *type;
	if (want != -1 && lpvm_priv_dtype_size(want) == 0) {
		PyErr_Format(PyExc_ValueError, "no PVM data type %d", want);
		return -1;
	}
	int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT;
	if (writable)
		flags |= PyBUF_WRITABLE;
	if (PyObject_GetBuffer(obj, view, flags) < 0)
		return -1;
	if (want == PVM_BYTE || want == PVM_STR) {
		/* bytes of anything */
		*count = view->len;
		return 0;
	}
	int t = pym_type_of(view);
	if (t < 0) {
		PyBuffer_Release(view);
		return -1;
	}
	/* complex numbers as pairs of reals (array.array has no complex) */
	if ((want == PVM_CPLX && t == PVM_FLOAT) ||
	    (want == PVM_DCPLX && t == PVM_DOUBLE)) {
		if ((view->len / view->itemsize) % 2) {
			PyErr_SetString(PyExc_ValueError,
					"complex numbers as reals need an even "
					"count");
			PyBuffer_Release(view);
			return -1;
		}
		*count = view->len / view->itemsize / 2;
		return 0;
	}
	if (want != -1 && t != want) {
		PyErr_Format(PyExc_TypeError,
			     "a buffer of format '%s' holds %s, not %s",
			     view->format ? view->format : "B", type_name(t),
			     type_name(want));
		PyBuffer_Release(view);
		return -1;
	}
	*type = t;
	*count = view->len / view->itemsize;
	return 0;
}
