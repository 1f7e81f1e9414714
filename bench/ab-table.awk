# ab-table.awk - the table of bench/run-ab.sh: two builds of ours, before
# and after a change, per cell.
#
#   awk -v tol=0.1 -v rounds=N -f stats.awk -f ab-table.awk results.txt
#
# Each input line is "build kind a b c us": build before or after; kind
# local or hosts (a route, b method, c bytes; us = pingpong's median half
# round trip) or groups (a members, b operation, c "-"; us = median time
# per operation).  A cell has one line per build and round (that round's
# median).  Per cell and build the table shows the median of the rounds and
# their min and max; after/before is the ratio of the medians (>1: after
# slower).  A cell is flagged SLOWER when after's median lies above
# before's max x (1 + tol), "faster" when below before's min x (1 - tol).

function lo(list,    v, n, i, m) {
	n = split(list, v, " ")
	m = v[1] + 0
	for (i = 2; i <= n; i++) if (v[i] + 0 < m) m = v[i] + 0
	return m
}
function hi(list,    v, n, i, m) {
	n = split(list, v, " ")
	m = v[1] + 0
	for (i = 2; i <= n; i++) if (v[i] + 0 > m) m = v[i] + 0
	return m
}
function num(x) { return sprintf(x < 10 ? "%.3f" : x < 100000 ? "%.2f" : "%.0f", x) }

NF < 6 { next }
{
	k = $2 " " $3 " " $4 " " $5
	v[$1, k] = v[$1, k] " " $6
	if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
}
END {
	if (!nk) { print "ab-table: no data"; exit 1 }
	if (tol == "") tol = 0.1
	printf "medians of %d round(s), us (pingpong: half round trip; groups: per operation);" \
		" min-max = range of the per-round medians\n", rounds
	printf "%-6s %-7s %-10s %7s | %10s %21s | %10s %21s | %7s  %s\n", "kind", "route/N",
		"method/op", "size", "before", "min-max", "after", "min-max", "aft/bef", "flag"
	print "---------------------------------+----------------------------------+" \
		"----------------------------------+-----------------"
	for (i = 1; i <= nk; i++) {
		k = order[i]
		if (!(("before", k) in v) || !(("after", k) in v)) continue
		split(k, f, " ")
		bm = med(v["before", k]); am = med(v["after", k])
		bl = lo(v["before", k]); bh = hi(v["before", k])
		al = lo(v["after", k]); ah = hi(v["after", k])
		flag = ""
		name = f[1] " " f[2] " " f[3] (f[4] == "-" ? "" : " " human(f[4]))
		if (am > bh * (1 + tol)) { flag = "SLOWER"; slow = slow (nslow++ ? ", " : " ") name }
		else if (am < bl * (1 - tol)) { flag = "faster"; nfast++ }
		if (n++ == 0 || am / bm > worst) { worst = am / bm; wname = name }
		printf "%-6s %-7s %-10s %7s | %10s %21s | %10s %21s | %6.2fx  %s\n", f[1], f[2], f[3],
			f[4] == "-" ? "" : human(f[4]), num(bm), num(bl) "-" num(bh),
			num(am), num(al) "-" num(ah), am / bm, flag
	}
	print ""
	printf "flags: after's median outside before's [min x %.2f, max x %.2f]\n", 1 - tol, 1 + tol
	printf "  %d of %d cells SLOWER%s\n", nslow + 0, n, nslow ? ":" slow : ""
	printf "  %d of %d cells faster\n", nfast + 0, n
	printf "  highest after/before: %.2fx (%s)\n", worst, wname
	if (rounds < 3)
		print "  (fewer than 3 rounds: min-max shows little of the run-to-run spread)"
}
