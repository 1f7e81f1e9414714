#!/usr/bin/env bats
# The Fortran interface (libfpvm3, fpvm3.h, pvmfc): Debian's own Fortran
# examples, taken from its pvm-examples sources at test time and built
# with the build tree's pvmfc, run against our pvmd; Debian's prebuilt
# Fortran example binaries (their wrappers are linked in statically) run
# on our libpvm3 and libgpvm3; a Fortran master with C workers
# (progs/pt_fmaster.f, progs/pt_cworker.c).
#
# pvmfc is the build tree's, with its two directories pointed at a
# prefix of links to the tree's headers and libraries: the build tree is
# what make check tests, and an installation costs a configure and a
# build (install.bats makes one and builds a Fortran program with its
# pvmfc).  PVM_TEST_REF=1 builds the same sources against Debian's
# fpvm3.h and libfpvm3.a and runs them on the reference: the expected
# outputs below are what it prints (tids, which differ, are normalised).

load helpers

FEX="master1 slave1 spmd gexample hitc hitc_slave"
# Debian's prebuilt Fortran programs (dpkg -L pvm-examples; they link
# libgfortran) and the names they spawn each other by
FBIN="fmaster1 fslave1 fspmd fgexample frsg hitc hitc_slave"

setup_file() {
	local d=$BATS_FILE_TMPDIR f n fc log=$BATS_FILE_TMPDIR/build.log
	[ -r /usr/share/doc/pvm-examples/examples.tar.gz ] || return 0
	mkdir -p "$d/src" "$d/bin" "$d/p/lib"
	(cd "$d/src" &&
		tar xzf /usr/share/doc/pvm-examples/examples.tar.gz \
			$(for n in $FEX; do echo "examples/$n.f"; done) &&
		tar xzf /usr/share/doc/pvm-examples/gexamples.tar.gz gexamples/frsg.f) || return 1
	# the sources include '../include/fpvm3.h' (PVM's source tree)
	sed -i "s|'../include/fpvm3.h'|'fpvm3.h'|" "$d"/src/*/*.f
	if [ -n "$REF" ]; then
		fc="gfortran -w -fallow-argument-mismatch -I/usr/include"
		cc="gcc"
		flibs="-lfpvm3 -lgpvm3 -lpvm3"
		clibs="-lgpvm3 -lpvm3"
	else
		command -v gfortran >/dev/null || return 0
		ln -s "$S/include" "$d/p/include"
		for f in "$B"/libpvm/.libs/libpvm3.so* "$B"/libpvm/group/.libs/libgpvm3.so* \
			"$B"/libpvm/fortran/.libs/libfpvm3.so*; do
			ln -s "$f" "$d/p/lib/"
		done
		sed -e "s|^includedir=.*|includedir='$d/p/include'|" \
			-e "s|^libdir=.*|libdir='$d/p/lib'|" \
			-e "s|^rpath=.*|rpath='-Wl,-rpath,$d/p/lib '|" \
			"$B/libpvm/fortran/pvmfc" >"$d/pvmfc"
		chmod +x "$d/pvmfc"
		fc="$d/pvmfc -w"
		cc="cc -I$d/p/include -L$d/p/lib -Wl,-rpath,$d/p/lib"
		flibs=
		clibs="-lgpvm3 -lpvm3"
	fi
	{
		# named as Debian names them: the programs spawn these names
		for f in "$d"/src/*/*.f; do
			n=${f##*/}
			n=${n%.f}
			case $n in master1 | slave1 | spmd | gexample) n=f$n ;; esac
			$fc -o "$d/bin/$n" "$f" $flibs || return 1
		done
		$fc -o "$d/bin/pt_fmaster" "$S/test/progs/pt_fmaster.f" $flibs &&
			$cc -o "$d/bin/pt_cworker" "$S/test/progs/pt_cworker.c" $clibs
	} >"$log" 2>&1 || {
		echo "# building the Fortran programs failed:" >&3
		tail -n 20 "$log" | sed 's/^/# /' >&3
		return 1
	}
}

setup() {
	[ -x "$BATS_FILE_TMPDIR/bin/fmaster1" ] ||
		skip "no gfortran, no libfpvm3 or no pvm-examples"
	pvm_test_env
	local p
	for p in "$BATS_FILE_TMPDIR"/bin/*; do
		ln -sf "$p" "$TESTTMP/bin/"
	done
	F=$BATS_FILE_TMPDIR/bin
}

teardown() {
	stop_vm
}

# tidless: the last run's output with every tid (t4xxxx, 2621xx decimal
# in list-directed output) replaced by TID.
tidless() {
	sed -E -e 's/t4[0-9a-f]{4}/TID/g' -e 's/\b26[0-9]{4}\b/TID/g' <<<"$output"
}

@test "libfpvm3.so.3 exports exactly the reference's names, and needs libgpvm3 and libpvm3" {
	skip_if_ref
	local so=$B/libpvm/fortran/.libs/libfpvm3.so.3 ref=/usr/lib/x86_64-linux-gnu/libfpvm3.a
	if [ -f "$ref" ]; then
		diff <(nm --defined-only "$ref" | awk '$2 == "T" { print $3 }' | sort) \
			<(nm -D --defined-only "$so" | awk '{ print $3 }' | sort)
	fi
	[ "$(nm -D --defined-only "$so" | awk '$3 ~ /^pvmf/' | wc -l)" -eq 63 ]
	readelf -d "$so" | grep -q 'SONAME.*\[libfpvm3.so.3\]'
	readelf -d "$so" | grep -q 'NEEDED.*\[libgpvm3.so.3\]'
	readelf -d "$so" | grep -q 'NEEDED.*\[libpvm3.so.3\]'
	[ -f "$B/libpvm/fortran/libfpvm3.a" ]
	ldd "$F/fmaster1" | grep -q "$BATS_FILE_TMPDIR/p/lib/libfpvm3.so.3"
}

@test "fpvm3.h has the reference's constants with the reference's values" {
	skip_if_ref
	[ -r /usr/include/fpvm3.h ] || skip "pvm-dev is not installed"
	diff <(grep -i '^ *parameter' /usr/include/fpvm3.h | tr -d ' ' |
		sed 's/parameter(//;s/)//' | tr a-z A-Z | sort) \
		<(sed -n 's/.*parameter :: //p' "$S/include/fpvm3.h" | tr -d ' ' | tr a-z A-Z | sort)
}

# master1's lines, sorted (the workers answer in any order)
MASTER1=' Spawning    3 tasks ...
                          SUCCESSFUL
 I got     100.0000000 from   1 (expected     100.0000000 )
 I got     200.0000000 from   0 (expected     200.0000000 )
 I got     300.0000000 from   2 (expected     300.0000000 )'

check_master1() {
	show
	[ "$status" -eq 0 ]
	[ "$(sed -n 1,2p <<<"$output")" = "$(sed -n 1,2p <<<"$MASTER1")" ]
	[ "$(sed -n '3,$p' <<<"$output" | sort)" = "$(sed -n '3,$p' <<<"$MASTER1")" ]
}

@test "master1.f and slave1.f built with pvmfc: three workers, the expected results" {
	start_pvmd
	run t "$F/fmaster1"
	check_master1
}

HITC=$(printf '           1  hosts detected in configuration\n'
	for n in 137 139 136 134 136 135 132 134 132 -1; do
		printf ' I got result from tid:      TID\n'
		printf ' sent       TID  task of size:  %10d\n' "$n"
	done
	printf ' Program Finished')

@test "hitc.f and hitc_slave.f built with pvmfc: every task's result, in order" {
	start_pvmd
	run t "$F/hitc"
	show
	[ "$status" -eq 0 ]
	diff -u <(printf '%s\n' "$HITC") <(tidless)
}

GEXAMPLE='
 This program demonstrates some group and reduction
 operations in PVM.  The output displays the
 the product of the first column of a 100x100 Toeplitz
 matrix and the matrix 1-norm. The matrix data is
 distributed among several tasks.  The Toeplitz
 matrix is symmetric with the first row being the
 row vector [1 2 ... n].

 There are            1  machines in the configuration
 Starting            1  tasks
  --> using            2  processors <--

  The 1-Norm is         5050
 (Should be the sum of the first 100 integers)
  The product of column 1 is   9.3326215443944127E+157
 (Should be 100 factorial)'

@test "gexample.f built with pvmfc: groups, pvmfreduce with PvmSum and PvmMax" {
	start_pvmd
	run t "$F/fgexample"
	show
	[ "$status" -eq 0 ]
	diff -u <(printf '%s\n' "$GEXAMPLE") <(printf '%s\n' "$output")
}

FRSG=' / * Example: PVM Reduce, Scatter, and Gather * / Number of processors to use (1-          16 )? : 
  Number of elements per row to use (1-          20 )? : 
  INPUT values: nprocs =            4 , count =            5
 / Test OK: Sum of Squares of first           20  integers is         2870
  Test Ok: Received (   5.0000000000000000      ,   2.0000000000000000      ) '

@test "frsg.f built with pvmfc: reduce (PvmSum, PvmProduct, a Fortran function), scatter, gather over 4 tasks" {
	start_pvmd
	run t "$F/frsg" <<<$'4\n5'
	show
	[ "$status" -eq 0 ]
	diff -u <(printf '%s\n' "$FRSG") <(printf '%s\n' "$output")
}

# spmd_ring: the console's output of 4 spmd copies passing the token
check_spmd() {
	show
	printf '%s\n' "$output" | grep -Eq '^4 successful$'
	[ "$(printf '%s\n' "$output" | grep -c 'token ring done')" -eq 1 ]
	[ "$(printf '%s\n' "$output" | grep -c 'Pass a token through the *4  *tid ring:')" -eq 1 ]
	[ "$(printf '%s\n' "$output" | grep -Ec '\] EOF$')" -eq 4 ]
}

@test "spmd.f built with pvmfc, spawned as 4 copies: the token goes round the siblings" {
	start_pvmd
	run t bash -c "(printf 'spawn -4 -> fspmd\n'; sleep 3; printf 'quit\n') | '$CONSOLE' 2>&1"
	check_spmd
}

FMASTER='instance 0
spawned 3
mcast info 0
worker 10  20  2000000007  1.0000E+10   9.250 dlrow olleh
worker 10  20  2000000007  1.0000E+10   9.250 dlrow olleh
worker 10  20  2000000007  1.0000E+10   9.250 dlrow olleh
precv T  4  40  770
precv T  4  40  770
precv T  4  40  770
group size 4
reduce  0   6  14
gather  0  100  101  102  103
exit 0'

@test "a Fortran master with C workers: every pvmfpack type, psend/precv, reduce and gather" {
	start_pvmd
	run t "$F/pt_fmaster"
	show
	[ "$status" -eq 0 ]
	diff -u <(printf '%s\n' "$FMASTER") <(printf '%s\n' "$output")
}

# Debian's prebuilt Fortran programs: links to them replace the ones built
# above, and the pvmd hands our libraries to what it spawns.
use_debian_binaries() {
	local p
	for p in $FBIN; do
		[ -x "/usr/bin/$p" ] || skip "pvm-examples is not installed (/usr/bin/$p)"
		ln -sf "/usr/bin/$p" "$TESTTMP/bin/$p"
	done
	if [ -n "$OURLIB" ]; then
		start_pvmd LD_LIBRARY_PATH="$OURLIB:$OURGLIB" ${OURPRELOAD:+LD_PRELOAD="$OURPRELOAD"}
	else
		start_pvmd
	fi
}

# debian PROG...: runs a prebuilt program on our libraries
debian() {
	if [ -n "$OURLIB" ]; then
		timeout -k 5 "$TMO" env LD_LIBRARY_PATH="$OURLIB:$OURGLIB" \
			${OURPRELOAD:+LD_PRELOAD="$OURPRELOAD"} "$@"
	else
		timeout -k 5 "$TMO" "$@"
	fi
}

@test "Debian's fmaster1 and fslave1 on our libraries" {
	use_debian_binaries
	run debian /usr/bin/fmaster1
	check_master1
}

@test "Debian's hitc and hitc_slave on our libraries" {
	use_debian_binaries
	run debian /usr/bin/hitc
	show
	[ "$status" -eq 0 ]
	diff -u <(printf '%s\n' "$HITC") <(tidless)
}

@test "Debian's fgexample on our libgpvm3" {
	use_debian_binaries
	run debian /usr/bin/fgexample
	show
	[ "$status" -eq 0 ]
	diff -u <(printf '%s\n' "$GEXAMPLE") <(printf '%s\n' "$output")
}

@test "Debian's frsg on our libgpvm3" {
	use_debian_binaries
	run debian /usr/bin/frsg <<<$'4\n5'
	show
	[ "$status" -eq 0 ]
	diff -u <(printf '%s\n' "$FRSG") <(printf '%s\n' "$output")
}

@test "Debian's fspmd spawned as 4 copies on our libraries" {
	use_debian_binaries
	run t bash -c "(printf 'spawn -4 -> fspmd\n'; sleep 3; printf 'quit\n') | '$CONSOLE' 2>&1"
	check_spmd
}
