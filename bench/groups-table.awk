# groups-table.awk - table of bench/groups results.
#
#   awk -v mode=compare|tune -f groups-table.awk results.txt
#
# Each input line is "label N op K blocks us_per_op"; a cell (N, op) may
# appear once per round and label.  Per cell and label the table shows the
# median of the rounds.  compare: labels "ours" and "ref", the speedup
# (reference time / our time) and the targets of issue 5.  tune: one column
# per label (tree=flat, tree=2...) and the fastest of them.


function target(k, what,    ok) {
	if (!(k in sp)) { printf "  [  ??   ] %s (no data)\n", what; return }
	ok = sp[k] >= 5
	printf "  [%s] %s (%.2fx)\n", ok ? "  met  " : "NOT met", what, sp[k]
}

NF < 6 { next }
{
	k = $2 " " $3
	t[$1, k] = t[$1, k] " " $6
	if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
	if (!($1 in lseen)) { lseen[$1] = 1; labels[++nl] = $1 }
}

function compare_table(    i, k, f, o, r) {
	printf "%3s %-10s | %12s %12s | %8s\n", "N", "operation", "ours us", "ref us", "speedup"
	print "---------------+---------------------------+---------"
	for (i = 1; i <= nk; i++) {
		k = order[i]
		if (!(("ours", k) in t) || !(("ref", k) in t)) continue
		split(k, f, " ")
		o = med(t["ours", k]); r = med(t["ref", k])
		sp[k] = r / o
		printf "%3d %-10s | %12.2f %12.2f | %7.2fx\n", f[1], f[2], o, r, sp[k]
	}
	print ""
	print "issue-5 targets (at 16 members, reference time / our time >= 5):"
	target("16 barrier", "barrier")
	target("16 reduce1", "reduce, PvmSum of 1 double")
	target("16 reduce100k", "reduce, PvmSum of 100000 doubles")
}

function tune_table(    i, j, k, f, v, best, bl) {
	printf "%3s %-10s |", "N", "operation"
	for (j = 1; j <= nl; j++) printf " %11s", labels[j]
	printf " | %s\n", "fastest"
	for (i = 1; i <= nk; i++) {
		k = order[i]
		split(k, f, " ")
		printf "%3d %-10s |", f[1], f[2]
		best = -1
		for (j = 1; j <= nl; j++) {
			if (!((labels[j], k) in t)) { printf " %11s", "-"; continue }
			v = med(t[labels[j], k])
			printf " %11.2f", v
			if (best < 0 || v < best) { best = v; bl = labels[j] }
		}
		printf " | %s\n", bl
	}
}

END {
	if (mode == "tune") tune_table(); else compare_table()
}
