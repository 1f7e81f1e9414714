/*
 * regex_cost.c - what an extended regular expression would cost glibc's
 * regcomp, known before regcomp is asked (regex_cost.h).
 *
 * glibc compiles a repetition by copying its operand: `x+` becomes `xx*`,
 * `x{2,5}` five copies of x, and a repetition of a repetition copies the
 * copies.  So the 38 bytes `)+++...+` make a tree of 2^32 nodes, and
 * `(a{999}){999}` one of a million; regcomp then works out which nodes
 * each node reaches without input, which grows with the square of the
 * nodes.  Either takes minutes and gigabytes before regcomp returns (a
 * 10-second timeout of cmd_fuzz found the first).  The estimate below
 * follows the grammar far enough to bound the copies from above.
 *
 * Back-references (a GNU extension to extended expressions) are counted
 * apart: glibc matches them by backtracking, exponential in the length
 * of the text.
 */
#include "regex_cost.h"

#include <stdint.h>

#define CAP (UINT64_C(1) << 40) /* far above any limit, no overflow */

struct scan {
	const char *p;
	int depth;   /* open groups */
	int backref; /* a \1 ... \9 was seen */
};

static uint64_t sat(uint64_t v)
{
	return v > CAP ? CAP : v;
}

/* a * b, or CAP if more (a, b <= CAP: the product could wrap) */
static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	return a && b > CAP / a ? CAP : a * b;
}

static uint64_t alternation(struct scan *s);

/* A bracket expression, s->p just after its '[': one node.  A ']' first
 * (after an optional '^') is a member; [:class:], [.coll.] and [=equiv=]
 * may hold a ']'.  Without its closing ']' regcomp refuses it anyway. */
static void bracket(struct scan *s)
{
	const char *p = s->p;
	if (*p == '^')
		p++;
	if (*p == ']')
		p++;
	while (*p && *p != ']') {
		if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
			char end = p[1];
			p += 2;
			while (*p && !(*p == end && p[1] == ']'))
				p++;
			if (*p)
				p += 2;
			continue;
		}
		p++;
	}
	s->p = *p ? p + 1 : p;
}

/* An interval {m}, {m,}, {m,n} or {,n}, s->p at its '{': the copies it makes
 * (m + 1 for {m,}: m, then a starred one), or 0 if it is none (then the
 * '{' is an ordinary character, or regcomp refuses the expression). */
static uint64_t interval(struct scan *s)
{
	const char *p = s->p + 1;
	uint64_t m = 0, n;
	if ((*p < '0' || *p > '9') && *p != ',')
		return 0; /* ({,n} is glibc's {0,n}) */
	while (*p >= '0' && *p <= '9')
		m = sat(m * 10 + (uint64_t)(*p++ - '0'));
	n = m;
	if (*p == ',') {
		p++;
		if (*p >= '0' && *p <= '9') {
			n = 0;
			while (*p >= '0' && *p <= '9')
				n = sat(n * 10 + (uint64_t)(*p++ - '0'));
		} else {
			n = m + 1;
		}
	}
	if (*p != '}')
		return 0;
	s->p = p + 1;
	uint64_t copies = m > n ? m : n;
	return copies ? copies : 1;
}

/* One atom and the repetitions after it: its nodes. */
static uint64_t piece(struct scan *s)
{
	uint64_t n = 1;
	char c = *s->p++;
	if (c == '(') {
		s->depth++;
		n = sat(alternation(s) + 1);
		if (*s->p == ')')
			s->p++;
		s->depth--;
	} else if (c == '[') {
		bracket(s);
	} else if (c == '\\' && *s->p) {
		if (*s->p >= '1' && *s->p <= '9')
			s->backref = 1;
		s->p++;
	}
	for (;;) {
		uint64_t copies;
		if (*s->p == '*' || *s->p == '?') {
			copies = 1;
			s->p++;
		} else if (*s->p == '+') {
			copies = 2;
			s->p++;
		} else if (*s->p == '{' && (copies = interval(s)) != 0) {
			;
		} else {
			return n;
		}
		n = sat(mul_sat(copies, n + 1) + 1);
	}
}

/* Branches separated by '|', up to a ')' that closes an open group (a
 * ')' with none open is an ordinary character to glibc) or the end. */
static uint64_t alternation(struct scan *s)
{
	uint64_t n = 0;
	while (*s->p && !(*s->p == ')' && s->depth > 0)) {
		if (*s->p == '|') {
			s->p++;
			n = sat(n + 1);
			continue;
		}
		n = sat(n + piece(s) + 1);
	}
	return n;
}

uint64_t lp_regex_cost(const char *pattern, int *backref)
{
	struct scan s = {.p = pattern};
	uint64_t n = alternation(&s);
	/* (a ')' with a group open cannot be left over: alternation stops
	 * there only inside one) */
	if (backref)
		*backref = s.backref;
	return n;
}
