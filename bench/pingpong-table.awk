# pingpong-table.awk - side-by-side table of two pingpong result files.
#
#   awk -f pingpong-table.awk ours.txt ref.txt
#
# Each input line is "route method bytes reps half_rtt_us MB/s"; a cell may
# appear once per round.  Per cell and system the table shows the median of
# the rounds' half round trips, the bandwidth it gives, and the speedup
# (reference time / our time), then the targets issue 2 sets.



function target(k, strict, what,    ok) {
	if (!(k in sp)) { printf "  [  ??   ] %s (no data)\n", what; return }
	ok = strict ? sp[k] > 1 : sp[k] >= 1
	printf "  [%s] %s (%.2fx)\n", ok ? "  met  " : "NOT met", what, sp[k]
}

/^#/ || NF < 6 { next }
{
	k = $1 " " $2 " " $3
	if (FILENAME == ARGV[1]) ours[k] = ours[k] " " $5; else ref[k] = ref[k] " " $5
	if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
}
END {
	printf "%-6s %-7s %7s | %11s %11s | %10s %10s | %7s\n", "route", "method",
		"size", "ours us", "ref us", "ours MB/s", "ref MB/s", "speedup"
	print "-----------------------+-------------------------+-----------------------+--------"
	for (i = 1; i <= nk; i++) {
		k = order[i]
		if (!(k in ours) || !(k in ref)) continue
		split(k, f, " ")
		lo = med(ours[k]); lr = med(ref[k])
		printf "%-6s %-7s %7s | %11.2f %11.2f | %10.2f %10.2f | %6.2fx\n", f[1], f[2],
			human(f[3]), lo, lr, f[3] / lo, f[3] / lr, lr / lo
		sp[k] = lr / lo
	}
	print ""
	print "issue-2 targets (speedup > 1 for latency, >= 1 for bandwidth):"
	target("direct Raw 8", 1, "direct-route Raw latency at 8 B below the reference")
	target("direct psend 8", 1, "direct-route psend latency at 8 B below the reference")
	target("pvmd Default 1048576", 0, "pvmd-route Default bandwidth at 1 MiB >= the reference")
	target("direct Default 1048576", 0, "direct-route Default bandwidth at 1 MiB >= the reference")
}
