/*
 * tap.h - TAP output for the C unit tests (run by test/run.sh): ok()
 * prints "ok N - ..." or "not ok N - ...", diag() a "# ..." line,
 * tap_done() prints the plan and gives the exit status.
 */
#ifndef PVM_TEST_TAP_H
#define PVM_TEST_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int ntest, nfail;

__attribute__((format(printf, 2, 3), unused)) static int
ok(int cond, const char *fmt, ...)
{
	va_list ap;
	ntest++;
	if (!cond)
		nfail++;
	printf("%s %d - ", cond ? "ok" : "not ok", ntest);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return cond;
}

/* A comment line ("# ...") among the results: what a failure saw. */
__attribute__((format(printf, 1, 2), unused)) static void diag(const char *fmt,
							       ...)
{
	va_list ap;
	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* The plan at the end ("1..N"), as TAP allows; 0 if all passed. */
__attribute__((unused)) static int tap_done(void)
{
	printf("1..%d\n", ntest);
	return nfail ? 1 : 0;
}

#endif /* PVM_TEST_TAP_H */
