#!/usr/bin/env bash
# build.sh ARCH BUILDDIR [SRCDIR] - our tree (SRCDIR, default this one)
# built for Debian architecture ARCH (s390x or i386) out of tree in
# BUILDDIR with Debian's cross compiler,
# the target's libraries from a sysroot (sysroot.sh), and the check
# programs too.  Prints the sysroot's path on its last line.
#
# Exits 77 with the reason on stderr when the cross compiler is missing
# (.ci/run installs it: gcc-s390x-linux-gnu libc6-dev-s390x-cross,
# gcc-i686-linux-gnu libc6-dev-i386-cross).  PVM_CROSS_CACHE is where
# sysroots are kept (default /var/cache/pvm-cross, or ~/.cache/pvm-cross
# where that is not writable: fetched once).
set -euo pipefail

arch=${1:?usage: build.sh ARCH BUILDDIR [SRCDIR]}
builddir=${2:?usage: build.sh ARCH BUILDDIR [SRCDIR]}
srcdir=${3:-$(cd "$(dirname "$0")/../.." && pwd)}
case $arch in
s390x) triplet=s390x-linux-gnu ;;
i386) triplet=i686-linux-gnu ;;
*) echo "build.sh: no cross build for '$arch' (s390x, i386)" >&2; exit 2 ;;
esac
if ! command -v "$triplet-gcc" >/dev/null; then
	echo "build.sh: $triplet-gcc is not installed (apt-get install gcc-$triplet libc6-dev-$arch-cross)" >&2
	exit 77
fi
cache=${PVM_CROSS_CACHE:-/var/cache/pvm-cross}
if ! mkdir -p "$cache" 2>/dev/null || [ ! -w "$cache" ]; then
	cache=${XDG_CACHE_HOME:-$HOME/.cache}/pvm-cross
fi
sysroot=$cache/$arch
"$(dirname "$0")/sysroot.sh" "$arch" "$sysroot" >&2

mkdir -p "$builddir"
cd "$builddir"
if [ ! -f config.status ] || [ "$(cat .pvm-srcdir 2>/dev/null)" != "$srcdir" ]; then
	"$srcdir/configure" -q --host="$triplet" --with-cross-sysroot="$sysroot" \
		--enable-werror >&2
	echo "$srcdir" >.pvm-srcdir
fi
make -s -j2 >&2
progs=$(printf 'print-cp:\n\t@echo $(check_PROGRAMS)\n' |
	make -s -f Makefile -f - print-cp)
make -s -j2 $progs >&2
echo "$sysroot"
