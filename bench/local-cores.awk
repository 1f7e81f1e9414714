# local-cores.awk - issue 27's table of bench/run-local.sh: two tasks on
# one CPU (route 1core, pingpong psend, half round trip) and N tasks
# all-to-all (route a2aN, bench/alltoall, one exchange), for ours, noshm
# and ref; per cell the median of the rounds' medians and their range.
#
#   awk -f stats.awk -f local-cores.awk cores-ours.txt cores-noshm.txt cores-ref.txt
#
# Targets (issue 27): ours no slower than noshm (ours/noshm <= 1) and at
# least 1.5x faster than the reference (ref/ours >= 1.5), at 8 B and 64 KiB.

/^#/ || NF < 6 { next }
{
	s = FILENAME == ARGV[1] ? 1 : FILENAME == ARGV[2] ? 2 : 3
	k = $1 " " $3
	v[k, s] = v[k, s] " " $5
	if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
}
function lo(list,    a, n, i, m) {
	n = split(list, a, " "); m = a[1] + 0
	for (i = 2; i <= n; i++) if (a[i] + 0 < m) m = a[i] + 0
	return m
}
function hi(list,    a, n, i, m) {
	n = split(list, a, " "); m = a[1] + 0
	for (i = 2; i <= n; i++) if (a[i] + 0 > m) m = a[i] + 0
	return m
}
function has(k, s,    kk) { kk = k SUBSEP s; return kk in v }
function c(k, s) {
	return has(k, s) ? sprintf("%9.2f %8.2f-%-8.2f", med(v[k, s]), lo(v[k, s]), hi(v[k, s])) : sprintf("%9s %17s", "-", "")
}
END {
	printf("%-6s %7s | %-27s | %-27s | %-27s | %10s %8s\n", "run", "size",
		"ours us (min-max)", "noshm us (min-max)", "ref us (min-max)", "ours/noshm", "ref/ours")
	for (i = 1; i <= nk; i++) {
		k = order[i]; split(k, f, " ")
		o = has(k, 1) ? med(v[k, 1]) : -1
		ns = has(k, 2) ? med(v[k, 2]) : -1
		r = has(k, 3) ? med(v[k, 3]) : -1
		# (mawk: no ">" among printf's bare arguments)
		q1 = (o > 0 && ns > 0) ? o / ns : 0
		q2 = (o > 0 && r > 0) ? r / o : 0
		printf("%-6s %7s | %s | %s | %s | %9.2fx %7.2fx\n", f[1], human(f[2]),
			c(k, 1), c(k, 2), c(k, 3), q1, q2)
		if ((f[2] == 8 || f[2] == 65536) && o > 0) {
			t1 = (ns > 0 && o <= ns); t2 = (r > 0 && q2 >= 1.5)
			tl[++nt] = sprintf("  [%s] %s %s: ours <= noshm (%.2fx)", t1 ? "  met  " : "NOT met", f[1], human(f[2]), q1)
			tl[++nt] = sprintf("  [%s] %s %s: ref/ours >= 1.5 (%.2fx)", t2 ? "  met  " : "NOT met", f[1], human(f[2]), q2)
		}
	}
	print ""
	print "issue-27 targets (medians; ours/noshm and ref/ours are time ratios):"
	for (i = 1; i <= nt; i++) print tl[i]
}
