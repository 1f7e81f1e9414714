#!/usr/bin/env bats
# The installed tree, used as a new user would: the sources configured with
# a --prefix of their own (the tree's `make distdir`, so what a tarball
# holds), built and installed once for the file; then programs built with
# pkg-config and with pvmcc run against that installation's pvmd with no
# LD_LIBRARY_PATH, although Debian's libpvm3.so.3 is in the system's
# library directories (CI installs Debian's pvm); every command answers
# --version and --help with no pvmd; and the man pages are ours.
# The installation is test/install/build.sh's: made ahead by test/run.sh
# in the background (PVM_TEST_INSTALL_DIR, with its "installed" mark),
# or here.

load helpers

mk() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make "$@"
}

# it_dir: where the installation is
it_dir() {
	if [ -n "${PVM_TEST_INSTALL_DIR:-}" ] && [ -e "$PVM_TEST_INSTALL_DIR/installed" ]; then
		echo "$PVM_TEST_INSTALL_DIR"
	else
		echo "$BATS_FILE_TMPDIR"
	fi
}

setup_file() {
	[ -z "$REF" ] || return 0
	IT=$(it_dir)
	if [ "$IT" != "$BATS_FILE_TMPDIR" ]; then
		echo "# the installation made ahead in $IT" >&3
		return 0
	fi
	local log=$IT/build.log
	if ! sh "$S/test/install/build.sh" "$B" "$IT" >"$log" 2>&1; then
		echo "# the build or install failed; the end of $log:" >&3
		tail -n 30 "$log" | sed 's/^/# /' >&3
		return 1
	fi
}

setup() {
	[ -z "$REF" ] || skip "our installation only"
	IT=$(it_dir)
	P=$IT/p
	pvm_test_env
	# the installation's own commands and pvmd, as after make install
	export PATH=$P/bin:$PATH
	unset PVM_PVMD
	export PKG_CONFIG_PATH=$P/lib/pkgconfig
}

teardown() {
	stop_vm
}

# run_job PROG: starts the installation's VM with its console, runs PROG
# with no LD_LIBRARY_PATH, then checks that every PVM library it mapped is
# the installation's.
run_job() {
	echo quit | timeout -k 5 30 pvm >/dev/null 2>&1
	wait_until 10 pvmd_alive
	[ "$(readlink "/proc/$(pvmd_pid)/exe")" = "$P/bin/pvmd" ]
	run env -u LD_LIBRARY_PATH timeout -k 5 "$TMO" "$@"
	echo "$output"
	[ "$status" -eq 0 ]
	local n=0 lib
	while read -r lib; do
		[ "$(dirname "$lib")" = "$P/lib" ] || { echo "not ours: $lib"; return 1; }
		n=$((n + 1))
	done < <(sed -n 's/^lib //p' <<<"$output")
	[ "$n" -ge 1 ]
}

@test "pvm3.pc and gpvm3.pc: API version 3.4.6, our include and library directories, a RUNPATH" {
	[ "$(pkg-config --modversion pvm3)" = 3.4.6 ]
	[ "$(pkg-config --modversion gpvm3)" = 3.4.6 ]
	# (echo: pkg-config ends its lines with a blank)
	[ "$(echo $(pkg-config --cflags pvm3))" = "-I$P/include" ]
	[ "$(echo $(pkg-config --libs pvm3))" = "-L$P/lib -Wl,-rpath,$P/lib -lpvm3" ]
	run pkg-config --libs gpvm3
	[[ "$output" == *"-lgpvm3"* && "$output" == *"-lpvm3"* ]]
	[[ "$output" == *"-Wl,-rpath,$P/lib"* ]]
	# -lgpvm3 before -lpvm3, as the linker needs them
	[[ "${output%%-lpvm3*}" == *"-lgpvm3"* ]]
}

@test "no RUNPATH with configure's --disable-rpath, nor for a system library directory" {
	local b=$IT/b
	# remade with other settings (rm, not make -B, which remakes the
	# Makefile too)
	remake() {
		local t
		for t in $1; do rm -f "$b/$t"; done
		mk -s -C "$b" $1 "${@:2}"
	}
	remake "libpvm/pvm3.pc libpvm/pvmcc" PVM_RPATH=no
	grep -qx 'Libs: -L${libdir} -lpvm3' "$b/libpvm/pvm3.pc"
	grep -qx "rpath=''" "$b/libpvm/pvmcc"
	remake libpvm/group/gpvm3.pc libdir=/usr/lib
	grep -qx 'Libs: -L${libdir} -lgpvm3' "$b/libpvm/group/gpvm3.pc"
	remake libpvm/pvm3.pc
	grep -qx "Libs: -L\${libdir} -Wl,-rpath,$P/lib -lpvm3" "$b/libpvm/pvm3.pc"
	grep -q -- '--disable-rpath' <("$IT/src/configure" --help)
}

@test "a program built with pkg-config runs on our libpvm3 and pvmd, not Debian's" {
	cc -o "$TESTTMP/basic" "$S/test/install/basic.c" $(pkg-config --cflags --libs pvm3)
	readelf -d "$TESTTMP/basic" | grep -F "RUNPATH" | grep -qF "[$P/lib]"
	run_job "$TESTTMP/basic"
	[[ "$output" == *" hosts 1 version 3.4.6"* ]]
}

@test "a group program built with pkg-config gpvm3 runs on our libgpvm3 and libpvm3" {
	cc -o "$TESTTMP/group" "$S/test/install/group.c" $(pkg-config --cflags --libs gpvm3)
	run_job "$TESTTMP/group"
	[[ "$output" == *"inst 0 size 1 reduce 0 sum 21"* ]]
	grep -q "^lib $P/lib/libgpvm3.so" <<<"$output"
	grep -q "^lib $P/lib/libpvm3.so" <<<"$output"
}

@test "pvmcc builds both programs; --show prints the command it runs" {
	run pvmcc --show -O2 -o x x.c
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^[^\ ]+\ -I$P/include\ -O2\ -o\ x\ x\.c\ -L$P/lib\ -Wl,-rpath,$P/lib\ -lpvm3$ ]]
	run pvmcc --show -c x.c
	[[ "$output" != *"-lpvm3"* ]]
	run pvmcc --show -o x x.c -lgpvm3
	[[ "$output" == *" -lgpvm3 -L$P/lib -Wl,-rpath,$P/lib -lpvm3" ]]
	pvmcc -o "$TESTTMP/basic" "$S/test/install/basic.c"
	pvmcc -o "$TESTTMP/group" "$S/test/install/group.c" -lgpvm3
	run_job "$TESTTMP/basic"
	run_job "$TESTTMP/group"
	[[ "$output" == *"inst 0 size 1 reduce 0 sum 21"* ]]
	# PVMCC_CC names another compiler
	run env PVMCC_CC="echo mycc" pvmcc -o x x.c
	[[ "$output" == "mycc -I$P/include -o x x.c "* ]]
	run pvmcc
	[ "$status" -eq 2 ]
}

@test "fpvm3.pc and pvmfc: a Fortran master with C workers built with them runs on the installation" {
	command -v gfortran >/dev/null || skip "no gfortran: libfpvm3 is not built"
	[ "$(pkg-config --modversion fpvm3)" = 3.4.6 ]
	[ "$(echo $(pkg-config --cflags fpvm3))" = "-fallow-argument-mismatch -I$P/include" ]
	run pkg-config --libs fpvm3
	[[ "$output" == "-L$P/lib "* && "$output" == *"-Wl,-rpath,$P/lib"* ]]
	# -lfpvm3 before -lpvm3, as the linker needs them
	[[ "${output%%-lpvm3*}" == *"-lfpvm3"* ]]
	[ -f "$P/include/fpvm3.h" ] && [ -f "$P/lib/libfpvm3.a" ] && [ -e "$P/lib/libfpvm3.so.3" ]
	run pvmfc --show -O2 -o x x.f
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^[^\ ]+\ -fallow-argument-mismatch\ -I$P/include\ -O2\ -o\ x\ x\.f\ -L$P/lib\ -Wl,-rpath,$P/lib\ -lfpvm3\ -lpvm3$ ]]
	run pvmfc --show -c x.f
	[[ "$output" != *"-lfpvm3"* ]]
	# -lgpvm3 goes between -lfpvm3 and -lpvm3, as a static link needs
	run pvmfc --show -o x x.f -lgpvm3
	[[ "$output" == *" -o x x.f -L$P/lib -Wl,-rpath,$P/lib -lfpvm3 -lgpvm3 -lpvm3" ]]
	run env PVMFC_FC="echo myfc" pvmfc -o x x.f
	[[ "$output" == "myfc -fallow-argument-mismatch -I$P/include -o x x.f "* ]]
	run pvmfc
	[ "$status" -eq 2 ]
	# the spawned C workers are found on PVM_PATH
	pvmfc -w -o "$TESTTMP/fmaster" "$S/test/progs/pt_fmaster.f"
	pvmcc -o "$TESTTMP/bin/pt_cworker" "$S/test/progs/pt_cworker.c" -lgpvm3
	readelf -d "$TESTTMP/fmaster" | grep -F "RUNPATH" | grep -qF "[$P/lib]"
	echo quit | timeout -k 5 30 pvm >/dev/null 2>&1
	wait_until 10 pvmd_alive
	run env -u LD_LIBRARY_PATH timeout -k 5 "$TMO" "$TESTTMP/fmaster"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"reduce  0   6  14"* && "$output" == *"gather  0  100  101  102  103"* ]]
	[ "$(grep -c '^worker 10  20  2000000007' <<<"$output")" -eq 3 ]
	# the Fortran program loaded the installation's libraries only
	local m
	m=$(env -u LD_LIBRARY_PATH LD_TRACE_LOADED_OBJECTS=1 "$TESTTMP/fmaster" | grep -E 'lib[fg]?pvm3')
	[ "$(grep -c "$P/lib/" <<<"$m")" -eq 3 ]
}

@test "--version and --help of every command, with no pvmd running and none started" {
	local c
	for c in pvm pvmd pvmgroups pvmcc pvmrun $(command -v gfortran >/dev/null && echo pvmfc); do
		run timeout 10 "$P/bin/$c" --version
		echo "$c --version: $status: $output"
		[ "$status" -eq 0 ]
		[[ "${lines[0]}" =~ ^$c\ \(openpvm[\ \)].*[0-9]+\.[0-9]+\.[0-9]+$ ]]
		[[ "${lines[1]}" == "PVM API 3.4.6"* ]]
		run timeout 10 "$P/bin/$c" --help
		echo "$c --help: $status: $output"
		[ "$status" -eq 0 ]
		[[ "${lines[0]}" == "usage: $c "* ]]
	done
	# nothing was started and nothing was made for this VM
	[ -z "$(vm_pids "$PVM_VMID")" ]
	[ ! -e "$VMDIR" ]
	run "$P/bin/pvmd" --bogus
	[ "$status" -eq 2 ]
}

@test "the console's version names the API level and ours" {
	run bash -c 'echo version | pvm'
	grep -Eqx '3\.4\.6 \(openpvm [0-9]+\.[0-9]+\.[0-9]+\)' <<<"$output"
}

@test "every exported name has a section 3 page that renders without warnings" {
	local names n=0 name page pages=()
	names=$(nm -D --defined-only "$P/lib/libpvm3.so.3" "$P/lib/libgpvm3.so.3" |
		awk '$2 == "T" && $3 ~ /^(pvm_|Pvm)/ { print $3 }' | sort -u)
	for name in $names; do
		page=$(MANPATH=$P/share/man man -w 3 "$name") || { echo "no page: $name"; return 1; }
		[[ "$page" == "$P/share/man/man3/"* ]]
		# a page of several names: the others are links (.so) to it
		if head -n 1 "$page" | grep -q '^[.]so '; then
			page=$P/share/man/$(sed -n '1s/^[.]so //p' "$page")
			[ -f "$page" ] || { echo "$name: link to a missing $page"; return 1; }
		fi
		pages+=("$page")
		n=$((n + 1))
	done
	echo "$n names"
	# the reference's 112 names and our pvm_getmwid and pvm_setmwid
	[ "$n" -ge 114 ]
	# each page once, two at a time: warnings (stderr) fail the test
	printf '%s\n' "${pages[@]}" | sort -u >"$TESTTMP/pages"
	run xargs -P 2 -I{} sh -c 'MANWIDTH=80 man --warnings -E UTF-8 -l "$1" 2>&1 >/dev/null | sed "s|^|$1: |"' _ {} <"$TESTTMP/pages"
	echo "$(wc -l <"$TESTTMP/pages") pages: $output"
	[ -z "$output" ]
	[ "$(wc -l <"$TESTTMP/pages")" -ge 50 ]
	# a link renders as the page it names
	MANPATH=$P/share/man MANWIDTH=80 man 3 pvm_upkint | grep -q "pvm_upkint"
}

@test "with our man directory first, man pvm, pvmd, pvmgroups, pvmcc, pvmrun and pvm_spawn are ours" {
	local name
	for name in pvm pvmd pvmgroups pvmcc pvmrun pvm_spawn; do
		run env MANPATH="$P/share/man:" man -w "$name"
		echo "$name: $output"
		[[ "$output" == "$P/share/man/"* ]]
	done
	run env MANPATH="$P/share/man:" MANWIDTH=80 man pvmd
	[[ "$output" == *"openpvm"* ]]
	# the section 1 pages render without warnings too
	for name in pvm pvmd pvmgroups pvmcc pvmrun $(command -v gfortran >/dev/null && echo pvmfc); do
		run env MANPATH="$P/share/man" man --warnings -E UTF-8 1 "$name"
		[ "$status" -eq 0 ]
		[ -z "$(MANPATH=$P/share/man man --warnings -E UTF-8 1 "$name" 2>&1 >/dev/null)" ]
	done
}

@test "the pvm3 Python module: installed for python3, found with PYTHONPATH, runs a job on the installation's libraries" {
	local site
	site=$(dirname "$(find "$P" -path '*-packages/pvm3/__init__.py' | head -n 1)")
	[ -n "$site" ] && [ "$site" != . ] || skip "the Python module was not built (no python3-dev)"
	site=${site%/pvm3}
	echo quit | timeout -k 5 30 pvm >/dev/null 2>&1
	run env -u LD_LIBRARY_PATH PYTHONPATH="$site" timeout -k 5 "$TMO" /usr/bin/python3 -c '
import pvm3
with pvm3.enroll() as me:
    pvm3.Message().pkstr("hi").send(me, 5)
    print("got", pvm3.recv(me, 5).upkstr())
for line in open("/proc/self/maps"):
    if "pvm3" in line and ".so" in line:
        print("lib", line.split()[-1])
'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"got hi"* ]]
	local lib n=0
	while read -r lib; do
		[[ "$lib" == "$P/"* ]] || { echo "not ours: $lib"; return 1; }
		n=$((n + 1))
	done < <(sed -n 's/^lib //p' <<<"$output")
	[ "$n" -ge 2 ] # the module and libpvm3.so.3
}

@test "the licence and the README are installed with the documentation" {
	grep -q "MIT License" "$P/share/doc/openpvm/LICENSE"
	[ -s "$P/share/doc/openpvm/README.md" ]
}
