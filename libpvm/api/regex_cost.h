/*
 * regex_cost.h - a bound on the nodes glibc's regcomp would build for an
 * extended regular expression (regex_cost.c), so that a task refuses an
 * expression that would take it minutes and gigabytes to compile.
 */
#ifndef LPVM_API_REGEX_COST_H
#define LPVM_API_REGEX_COST_H

#include <stdint.h>

/* Nodes at most regcomp(REG_EXTENDED) would build for `pattern` (about
 * two per character when nothing repeats a repetition); *backref, if
 * not NULL, is set to whether it has a back-reference \1 ... \9. */
uint64_t lp_regex_cost(const char *pattern, int *backref);

#endif
