# stats.awk - functions shared by the bench table scripts (*-table.awk),
# loaded before them: awk -f stats.awk -f xdr-table.awk ...

# Median of the space-separated numbers in list.
function med(list,    v, n, i, j, x) {
	n = split(list, v, " ")
	for (i = 2; i <= n; i++) {
		x = v[i] + 0
		for (j = i - 1; j >= 1 && v[j] + 0 > x; j--) v[j + 1] = v[j]
		v[j + 1] = x
	}
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}

# A size in bytes as people write it: 8 B, 64 KiB, 16 MiB.
function human(n) {
	if (n >= 1048576) return n / 1048576 " MiB"
	if (n >= 1024) return n / 1024 " KiB"
	return n " B"
}
