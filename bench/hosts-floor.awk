# hosts-floor.awk - issue 27's table of bench/run-hosts.sh: the floors
# (raw TCP blocking and polling, Open MPI's TCP BTL) beside our psend on
# both routes and the reference's, and issue 27's targets.
#
#   awk -f stats.awk -f hosts-floor.awk ours.txt ref.txt floor.txt
#
# Input lines: "route method bytes reps half_rtt_us MB/s", a cell once
# per round; per cell the median of the rounds.  Latency (us, half round
# trip) at 8 B and 1 KiB, bandwidth (MB/s = 10^6 B/s) from 64 KiB on.

/^#/ || NF < 6 { next }
{
	if (FILENAME == ARGV[1]) sys = "ours " $1
	else if (FILENAME == ARGV[2]) sys = "ref " $1
	else sys = $1 " " $2
	if ($2 != "psend" && FILENAME != ARGV[3]) next
	k = sys SUBSEP $3
	t[k] = t[k] " " $5
	if (!($3 in isz)) { isz[$3] = 1; sz[++nsz] = $3 }
	if (!(sys in isys)) { isys[sys] = 1 }
}
function cell(sys, b,    k) {
	k = sys SUBSEP b
	return (k in t) ? med(t[k]) : -1
}
function show(sys, label,    i, v) {
	if (!(sys in isys)) return
	printf "%-26s", label
	for (i = 1; i <= nsz; i++) {
		v = cell(sys, sz[i])
		if (v < 0) printf " %12s", "-"
		else if (sz[i] < 65536) printf " %9.1f us", v
		else printf " %7.0f MB/s", sz[i] / v
	}
	printf "\n"
}
function target(ok, text) {
	printf "  [%s] %s\n", ok < 0 ? "  ??   " : ok ? "  met  " : "NOT met", text
}
END {
	# sizes in increasing order
	for (i = 2; i <= nsz; i++)
		for (j = i; j > 1 && sz[j - 1] + 0 > sz[j] + 0; j--) { x = sz[j]; sz[j] = sz[j - 1]; sz[j - 1] = x }
	printf "%-26s", ""
	for (i = 1; i <= nsz; i++) printf " %12s", human(sz[i])
	printf "\n"
	show("tcp block", "raw TCP, blocking")
	show("tcp poll", "raw TCP, polling")
	show("mpi Send", "Open MPI, TCP BTL")
	show("ours direct", "ours, direct, psend")
	show("ours pvmd", "ours, via the pvmds, psend")
	show("ref direct", "reference, direct, psend")
	show("ref pvmd", "reference, via pvmds, psend")
	print ""
	print "issue-27 targets (medians of the rounds):"
	for (i = 1; i <= nsz; i++) {
		b = sz[i]; o = cell("ours direct", b)
		if (b < 65536) {
			m = cell("mpi Send", b)
			target(o < 0 || m < 0 ? -1 : o <= m,
				sprintf("direct %s: ours %.1f us <= Open MPI's %.1f us (%.2fx)", human(b), o, m, m > 0 ? o / m : 0))
			p = cell("ours pvmd", b); r = cell("ref pvmd", b)
			target(p < 0 || r < 0 ? -1 : p <= 0.5 * r,
				sprintf("via the pvmds %s: ours %.1f us <= 0.5x the reference's %.1f us (%.2fx)", human(b), p, r, r > 0 ? p / r : 0))
		} else {
			w = cell("tcp block", b)
			target(o < 0 || w < 0 ? -1 : w / o >= 0.9,
				sprintf("direct %s: ours %.0f MB/s >= 0.9x raw TCP's %.0f MB/s (%.2fx)", human(b), b / o, b / w, w > 0 ? w / o : 0))
		}
	}
}
