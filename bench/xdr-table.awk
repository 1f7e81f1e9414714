# xdr-table.awk - side-by-side table of two bench/xdr result files.
#
#   awk -f xdr-table.awk ours.txt ref.txt
#
# Each input line is "enc type bytes reps pack_GB/s unpack_GB/s" (memcpy
# lines: "memcpy - bytes reps GB/s GB/s"); a cell appears once per round.
# Per cell the table shows the median over the rounds of each system's
# pack and unpack speed and our speedup, then the target issue 6 sets.


FNR == 1 { sys = (NR == 1) ? "ours" : "ref" }
/^#/ { next }
NF == 6 {
	k = $1 " " $2
	if (!(k in seen)) { seen[k] = 1; order[++nk] = k; size[k] = $3 }
	pk[sys, k] = pk[sys, k] " " $5
	upk[sys, k] = upk[sys, k] " " $6
}

END {
	printf "%-16s %8s | %9s %9s %8s | %9s %9s %8s\n", "", "", "pack GB/s", "", "", "unpack", "", ""
	printf "%-16s %8s | %9s %9s %8s | %9s %9s %8s\n", "cell", "bytes", "ours", "ref", "speedup", "ours", "ref", "speedup"
	for (i = 1; i <= nk; i++) {
		k = order[i]
		op = med(pk["ours", k]); rp = med(pk["ref", k])
		ou = med(upk["ours", k]); ru = med(upk["ref", k])
		printf "%-16s %8d | %9.2f %9.2f %7.1fx | %9.2f %9.2f %7.1fx\n", k, size[k],
			op, rp, (rp > 0 ? op / rp : 0), ou, ru, (ru > 0 ? ou / ru : 0)
		if (k == "Default int") { tp = op; tu = ou }
		if (k ~ /^Default /) dflt[substr(k, 9)] = ou
		if (k ~ /^Swapped /) swp[substr(k, 9)] = ou
	}
	printf "target (issue 6): XDR pack and unpack of ints at 5 GB/s or more:"
	printf " pack %.1f, unpack %.1f: %s\n", tp, tu, (tp >= 5 && tu >= 5) ? "met" : "NOT met"
	for (t in swp) {
		r = dflt[t] > 0 ? swp[t] / dflt[t] : 0
		printf "target (issue 22): %s of the other byte order unpacked at 0.8x Default's or more: %.2fx: %s\n",
			t, r, (r >= 0.8) ? "met" : "NOT met"
	}
}
