# local-table.awk - the table of bench/run-local.sh and issue 6's targets.
#
#   awk -f local-table.awk DIR/ours.txt DIR/noshm.txt DIR/ref.txt ...
#
# A file's name (without directory and .txt) names its system (a column).
# Each input line is "route method bytes reps time_us MB/s" (pingpong's
# format; pingpong_mpi's method is Send, memcpy's is copy, and memcpy's time
# is one copy, not a half round trip); a cell may appear once per round.
# Per cell the table shows the median of the rounds.  psend, MPI's Send and
# memcpy share the rows "psend"; Raw and Default are PVM rows.



# Median time of a cell (system, row key), or "" without data.
function t(sys, k) { return (sys SUBSEP k) in val ? med(val[sys, k]) : "" }

# The faster of the MPIs at row k: sets fm_name, returns its time or "".
function faster_mpi(k,    a, b) {
	a = t("openmpi", k); b = t("mpich", k)
	fm_name = ""
	if (a == "" && b == "") return ""
	if (b == "" || (a != "" && a + 0 <= b + 0)) { fm_name = "openmpi"; return a }
	fm_name = "mpich"; return b
}

# One target line.  r is the ratio for sys, ok whether it meets the goal.
function verdict(what, goal, r, ok, extra) {
	if (r == "") { printf "  [  ??   ] %s: no data\n", what; return }
	printf "  [%s] %s: %.2fx (target %s)%s\n", ok ? "  met  " : "NOT met", what, r, goal, extra
}

# sys time at row k / faster MPI time at row mk (its 8 B row), target <= 1.25.
function vs_mpi_time(sys, k, mk, what,    a, m) {
	a = t(sys, k); m = faster_mpi(mk)
	if (a == "" || m == "") { verdict(what, "", "", 0, ""); return }
	verdict(what, "<= 1.25x", a / m, a / m <= 1.25,
		sprintf(" -- %.2f us vs %s %.2f us", a, fm_name, m))
}

# ours bandwidth / faster MPI bandwidth at row k (same size: time ratio).
function vs_mpi_bw(sys, k, what,    a, m, f) {
	a = t(sys, k); m = faster_mpi(k)
	if (a == "" || m == "") { verdict(what, "", "", 0, ""); return }
	split(k, f, " ")
	verdict(what, ">= 1x", m / a, m / a >= 1,
		sprintf(" -- %.0f vs %s %.0f MB/s", f[2] / a, fm_name, f[2] / m))
}

# sys bandwidth / memcpy bandwidth at row k, target >= 0.8.
function vs_memcpy(sys, k, what,    a, m, f) {
	a = t(sys, k); m = t("memcpy", k)
	if (a == "" || m == "") { verdict(what, "", "", 0, ""); return }
	split(k, f, " ")
	verdict(what, ">= 0.8x", m / a, m / a >= 0.8,
		sprintf(" -- %.0f vs memcpy %.0f MB/s", f[2] / a, f[2] / m))
}

# reference time / sys time at row k, target >= goal.
function vs_ref(sys, k, goal, what,    a, r) {
	a = t(sys, k); r = t("ref", k)
	if (a == "" || r == "") { verdict(what, "", "", 0, ""); return }
	verdict(what, ">= " goal "x", r / a, r / a >= goal,
		sprintf(" -- %.2f us vs ref %.2f us", a, r))
}

function targets(sys) {
	if (!(sys in known)) return
	print ""
	printf "issue-6 targets for %s:\n", sys
	vs_mpi_time(sys, "psend 8", "psend 8", sys " psend 8 B time / faster MPI's")
	vs_mpi_time(sys, "Raw 8", "psend 8", sys " Raw 8 B time / faster MPI's")
	vs_mpi_bw(sys, "psend 1048576", sys " psend 1 MiB bandwidth / faster MPI's")
	vs_memcpy(sys, "psend 16777216", sys " psend 16 MiB bandwidth / cache-cold memcpy's")
	vs_ref(sys, "psend 8", 50, sys " psend 8 B: reference time / " sys " time")
	vs_ref(sys, "Raw 8", 50, sys " Raw 8 B: reference time / " sys " time")
	vs_ref(sys, "psend 1048576", 5, sys " psend 1 MiB: reference time / " sys " time")
	vs_ref(sys, "Default 1048576", 10, sys " Default 1 MiB: reference time / " sys " time")
}

/^#/ || NF < 6 { next }
{
	sys = FILENAME
	sub(/.*\//, "", sys); sub(/\.txt$/, "", sys)
	if (!(sys in known)) { known[sys] = 1; cols[++ncols] = sys }
	m = $2 == "Send" || $2 == "copy" ? "psend" : $2
	k = m " " $3
	val[sys, k] = val[sys, k] " " $5
	if (!(k in seen)) { seen[k] = 1; rows[++nrows] = k }
}
END {
	if (!nrows) { print "local-table: no data"; exit 1 }
	# rows: psend by size, then the others, in the order first seen
	for (i = 1; i <= nrows; i++) if (rows[i] ~ /^psend /) order[++no] = rows[i]
	for (i = 1; i <= nrows; i++) if (rows[i] !~ /^psend /) order[++no] = rows[i]
	for (pass = 1; pass <= 2; pass++) {
		print ""
		if (pass == 1)
			print "median half round trip, us (memcpy: one copy); median of the rounds"
		else
			print "bandwidth, MB/s = 10^6 B/s (size / the time above)"
		printf "%-15s", "method    size"
		for (c = 1; c <= ncols; c++) printf " %11s", cols[c]
		printf "\n"
		for (i = 1; i <= no; i++) {
			split(order[i], f, " ")
			printf "%-8s %6s", f[1], human(f[2])
			for (c = 1; c <= ncols; c++) {
				x = t(cols[c], order[i])
				if (x == "") printf " %11s", "-"
				else if (pass == 1) printf x < 10 ? " %11.3f" : " %11.2f", x
				else printf " %11.1f", f[2] / x
			}
			printf "\n"
		}
	}
	print ""
	print "rows psend: pvm_psend/pvm_precv (PVM_BYTE); MPI: MPI_Send/MPI_Recv (MPI_BYTE);" \
		" memcpy: one copy"
	print "rows Raw, Default: pvm_initsend(PvmDataRaw / PvmDataDefault), pvm_pkint, pvm_send;" \
		" pvm_recv, pvm_upkint"
	m = faster_mpi("psend 16777216")
	if (m != "" && t("memcpy", "psend 16777216") != "")
		printf "faster MPI (%s) at 16 MiB / cache-cold memcpy: %.2fx\n", fm_name,
			t("memcpy", "psend 16777216") / m
	targets("ours")
	targets("noshm")
}
