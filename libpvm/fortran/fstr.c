/* fstr.c - strings between Fortran (fixed length, blank padded, no NUL)
 * and C (NUL terminated). */
#include "fpvm.h"

#include <string.h>

int fpvm_cstr(char *dst, size_t dstsize, const char *src, fpvm_len len)
{
	while (len > 0 && src[len - 1] == ' ')
		len--;
	if (len + 1 > dstsize) {
		if (dstsize > 0)
			dst[0] = '\0';
		return -1;
	}
	memcpy(dst, src, len);
	dst[len] = '\0';
	return 0;
}

void fpvm_fstr(char *dst, fpvm_len len, const char *src)
{
	size_t n = src ? strlen(src) : 0;

	if (n > len)
		n = len;
	if (n > 0)
		memcpy(dst, src, n);
	memset(dst + n, ' ', len - n);
}

/* ftocstr: 0 when the trimmed string fits in ds (size dl), 1 when not
 * (ds is then ""), as the reference's. */
int ftocstr(char *ds, int dl, char *ss, int sl)
{
	if (dl <= 0 || sl < 0)
		return 1;
	return fpvm_cstr(ds, (size_t)dl, ss, (fpvm_len)sl) ? 1 : 0;
}

/* ctofstr: always 0. */
int ctofstr(char *ds, int dl, char *ss)
{
	if (dl > 0)
		fpvm_fstr(ds, (fpvm_len)dl, ss);
	return 0;
}
