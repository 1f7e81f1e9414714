#!/bin/sh
# i386.sh - makes i386 (i686) programs run on this x86_64 machine, for the
# cross pass (test/run.sh) and the i686 host of test/hetero.bats.
#
# Exits 0 when an i386 program runs, and prints how: "native" (the
# kernel runs 32-bit programs itself), or "qemu-i386" (a kernel without
# that mode answers "Exec format error": some virtual machines, this
# project's CI machine among them; then qemu-i386 is registered here with
# binfmt_misc as pvm-i386, which needs root, and stays registered, as
# qemu-user-binfmt's entries do).  Otherwise exits 1 and prints why.
probe=/lib/ld-linux.so.2
if [ ! -e "$probe" ]; then
	echo "no $probe (apt-get install libc6-i386)"
	exit 1
fi
if "$probe" --version >/dev/null 2>&1; then
	echo native
	exit 0
fi
qemu=$(command -v qemu-i386) || {
	echo "this kernel runs no 32-bit programs and qemu-i386 is missing (apt-get install qemu-user)"
	exit 1
}
f=/proc/sys/fs/binfmt_misc
[ -f "$f/status" ] || mount -t binfmt_misc binfmt_misc "$f" 2>/dev/null
if [ ! -e "$f/pvm-i386" ]; then
	# an ELF of class 32, little-endian, executable or shared object,
	# machine 3 (EM_386); F: the kernel opens qemu now, so that the
	# hosts' mount namespaces need not see it at the same path
	printf '%s' ':pvm-i386:M::\x7fELF\x01\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x03\x00:\xff\xff\xff\xff\xff\xfe\xfe\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff:'"$qemu"':F' \
		>"$f/register" 2>/dev/null
fi
if "$probe" --version >/dev/null 2>&1; then
	echo qemu-i386
	exit 0
fi
echo "this kernel runs no 32-bit programs, and qemu-i386 could not be registered with binfmt_misc (needs root)"
exit 1
