/*
 * regex_cost_test.c - unit test of regex_cost.c: expressions that would
 * take glibc's regcomp minutes and gigabytes cost more than the 2048
 * nodes pvm_getmboxinfo allows, ordinary ones far less, and the grammar
 * (groups, brackets, intervals, a stray ')') is followed.
 */
#include <string.h>

#include "api/regex_cost.h"
#include "test/unit/tap.h"

static void expect(const char *pat, uint64_t lo, uint64_t hi, int backref)
{
	int br = -1;
	uint64_t n = lp_regex_cost(pat, &br);
	ok(n >= lo && n <= hi && br == backref,
	   "%.48s: %llu nodes (expected %llu..%llu), back-reference %d", pat,
	   (unsigned long long)n, (unsigned long long)lo,
	   (unsigned long long)hi, br);
}

int main(void)
{
	char big[1100];

	/* ordinary patterns: about a node a character */
	expect("", 0, 0, 0);
	expect("abc", 3, 8, 0);
	expect("^worker[0-9]+$", 5, 40, 0);
	expect("a.c|x", 5, 12, 0);
	expect("[]a]", 1, 2, 0); /* ']' first is a member */
	expect("[^]a]b", 2, 4, 0);
	expect("[[:alpha:]]x", 2, 4, 0); /* ':]' does not end it */
	expect("[[.].]]x", 2, 4, 0);
	expect("a{2,5}", 10, 20, 0);
	expect("a{,5}", 10, 20, 0); /* glibc's {0,5} */
	expect("a{,}", 3, 12, 0);
	expect("a{x}", 3, 8, 0);
	expect(")", 1, 2, 0); /* a ')' with no group open is a character */
	expect("(a)b)", 4, 12, 0);
	expect("(((", 3, 12, 0); /* unclosed: regcomp refuses it */
	expect("a\\.b", 3, 8, 0);
	expect("\\", 1, 2, 0);
	/* what a repetition of a repetition copies */
	expect("(a?){1000}", 2049, UINT64_MAX, 0);
	expect("(a{999}){999}", 2049, UINT64_MAX, 0);
	expect(")+++++++++++++++++++++++++++++++ ", 2049, UINT64_MAX, 0);
	expect("a++++++++++++", 2049, UINT64_MAX, 0);
	expect("(a{32767}){32767}{32767}{32767}{32767}", 2049, UINT64_MAX, 0);
	expect("a{99999999999999999999999}", 2049, UINT64_MAX, 0);
	/* (copies of 2^40 nodes 2^40 times: the product must not wrap) */
	expect("(a{1099511627775}){1099511627775}", 2049, UINT64_MAX, 0);
	expect("((a{99999999999}){99999999999}){99999999999}", 2049, UINT64_MAX,
	       0);
	/* ...but not a star of a star, which adds a node */
	expect("(((((a*)*)*)*)*)*", 6, 40, 0);
	/* back-references, matched by backtracking */
	expect("(a*)*\\1b", 4, 20, 1);
	expect("\\9", 1, 2, 1);
	expect("\\0", 1, 2, 0);
	/* a plain expression costs two nodes a character at most */
	memset(big, 'x', 1000);
	strcpy(big + 1000, ".*");
	expect(big, 1000, 2006, 0);
	return tap_done();
}
