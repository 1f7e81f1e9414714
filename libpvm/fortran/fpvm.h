/* fpvm.h - what the Fortran wrappers of libfpvm3 share (not installed).
 *
 * The wrappers follow gfortran's calling convention: every argument is
 * passed by reference, and each CHARACTER argument adds a hidden length,
 * passed by value after all the visible arguments in their order; since
 * gfortran 8 that length is a size_t.  A name is the Fortran name in lower
 * case with one trailing underscore (pvmfsend -> pvmfsend_). */
#ifndef FPVM_H
#define FPVM_H

#include <stddef.h>

/* The hidden length of a CHARACTER argument. */
typedef size_t fpvm_len;

/* Room for a host, task or class name turned into a C string, and for a
 * group name: the reference's limits (a longer name is PvmBadParam). */
#define FPVM_NAME_MAX  257
#define FPVM_GROUP_MAX 32

/* Fortran string (len bytes, blank padded) to a C string in dst of size
 * dstsize, trailing blanks dropped.  Returns 0, or -1 when it does not
 * fit (dst is then ""). */
int fpvm_cstr(char *dst, size_t dstsize, const char *src, fpvm_len len);

/* C string to a Fortran string of len bytes: copied, cut at len, and
 * padded with blanks.  A NULL src gives all blanks. */
void fpvm_fstr(char *dst, fpvm_len len, const char *src);

/* The exported helpers of the reference's libfpvm3 (same semantics). */
int ftocstr(char *ds, int dl, char *ss, int sl);
int ctofstr(char *ds, int dl, char *ss);

/* libpvm3 exports it as the reference's does; pvm3.h does not declare it. */
int pvmsleep(int secs);

#endif
