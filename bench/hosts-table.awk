# hosts-table.awk - the table of bench/run-hosts.sh (issue 7, two hosts).
#
#   awk -f stats.awk -f hosts-table.awk ours.txt ref.txt
#
# Each input line is "route method bytes reps half_rtt_us MB/s"; a cell may
# appear once per round.  Per cell and system: the median of the rounds'
# half round trips, the bandwidth it gives, ours/ref (our speed over the
# reference's = reference time / our time) and whether the cell meets
# issue 7's target (ours at least the reference's speed: ours/ref >= 1).
# Then one verdict per route and one for the whole target.

/^#/ || NF < 6 { next }
{
	k = $1 " " $2 " " $3
	if (FILENAME == ARGV[1]) ours[k] = ours[k] " " $5; else ref[k] = ref[k] " " $5
	if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
}
END {
	printf "%-6s %-7s %7s | %11s %11s | %10s %10s | %8s %s\n", "route", "method",
		"size", "ours us", "ref us", "ours MB/s", "ref MB/s", "ours/ref", "target"
	print "-----------------------+-------------------------+-----------------------+-----------------"
	for (i = 1; i <= nk; i++) {
		k = order[i]
		if (!(k in ours) || !(k in ref)) continue
		split(k, f, " ")
		lo = med(ours[k]); lr = med(ref[k])
		r = lr / lo
		ok = r >= 1
		printf "%-6s %-7s %7s | %11.2f %11.2f | %10.2f %10.2f | %7.2fx %s\n", f[1], f[2],
			human(f[3]), lo, lr, f[3] / lo, f[3] / lr, r, ok ? "met" : "NOT met"
		cells[f[1]]++
		if (!ok) { bad[f[1]]++; worst[f[1]] = worst[f[1]] " " f[2] "@" human(f[3]) }
		if (!(f[1] in low) || r < low[f[1]]) low[f[1]] = r
	}
	print ""
	print "issue-7 target: ours at least the reference's speed across two hosts, per cell"
	all = 1
	for (j = 1; j <= 2; j++) {
		rt = j == 1 ? "pvmd" : "direct"
		if (!(rt in cells)) { printf "  [  ??   ] %s route (no data)\n", rt; all = 0; continue }
		if (rt in bad) {
			all = 0
			printf "  [NOT met] %s route: %d of %d cells slower (lowest %.2fx):%s\n", rt,
				bad[rt], cells[rt], low[rt], worst[rt]
		} else
			printf "  [  met  ] %s route: all %d cells at least the reference's speed" \
				" (lowest %.2fx)\n", rt, cells[rt], low[rt]
	}
	printf "  [%s] both routes\n", all ? "  met  " : "NOT met"
}
