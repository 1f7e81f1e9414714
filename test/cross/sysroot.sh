#!/usr/bin/env bash
# sysroot.sh ARCH DIR - the libraries of Debian architecture ARCH (s390x,
# i386) that our build and tests need, unpacked from Debian's archive into
# DIR (docs/hetero.md).  Prints DIR's state and exits 0 when DIR is ready.
#
# apt-get runs with a state, cache and sources list of its own that name
# only ARCH, so the machine's apt configuration, lists and cache are left
# as they were (a multiarch install of the target's -dev packages would
# conflict with the machine's own); the .debs are unpacked with
# dpkg-deb -x, never installed.  Needs the Debian archive unless DIR is
# complete already (DIR/.complete names the package list it holds).
set -euo pipefail

arch=${1:?usage: sysroot.sh ARCH DIR}
dir=${2:?usage: sysroot.sh ARCH DIR}

# The target's C library and loader (what qemu-user's QEMU_LD_PREFIX and a
# native i686 program load), and the libraries we link: nettle (pvmd and
# libpvm), readline (the console), libtirpc (the XDR oracle of the unit
# tests) with what their shared objects need; and Debian's PVM example
# programs of that architecture (pvm-examples: run on our libraries by
# hetero.bats; never their libpvm3).
pkgs="libc6 libgcc-s1 libnettle8 nettle-dev libreadline8 libreadline-dev
libtinfo6 libncurses6 libncursesw6 libncurses-dev libtirpc3 libtirpc-dev
libtirpc-common libgssapi-krb5-2 libkrb5-3 libk5crypto3 libcom-err2
libkrb5support0 libkeyutils1 libssl3 pvm-examples"
want=$(echo $pkgs)

if [ -f "$dir/.complete" ] && [ "$(cat "$dir/.complete")" = "$want" ]; then
	echo "sysroot.sh: $dir is ready for $arch"
	exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/parts" \
	"$tmp/debs"
cat >"$tmp/sources.list" <<LIST
deb [arch=$arch] http://deb.debian.org/debian bookworm main
deb [arch=$arch] http://deb.debian.org/debian bookworm-updates main
deb [arch=$arch] http://deb.debian.org/debian-security bookworm-security main
LIST
opts=(-o "Dir::Etc::SourceList=$tmp/sources.list"
	-o "Dir::Etc::SourceParts=$tmp/parts"
	-o "Dir::State::Lists=$tmp/lists"
	-o "Dir::Cache=$tmp/cache"
	-o "APT::Architecture=$arch"
	-o "APT::Architectures::=$arch"
	-o "Debug::NoLocking=1"
	-o "APT::Sandbox::User=root"
	-qq)
echo "sysroot.sh: fetching the package lists of $arch"
# An index that fails (a mirror in sync) makes update exit non-zero while
# the others are there: the download below says whether they sufficed.
apt-get "${opts[@]}" update ||
	echo "sysroot.sh: apt-get update reported errors; trying the download" >&2
echo "sysroot.sh: downloading $want"
(cd "$tmp/debs" && apt-get "${opts[@]}" download $pkgs)
mkdir -p "$dir"
for deb in "$tmp"/debs/*.deb; do
	dpkg-deb -x "$deb" "$dir"
done
# Debian 12 merges /lib into /usr/lib; the unpacked .debs may not carry
# the links, and the loader (PT_INTERP /lib/ld-linux.so.2,
# /lib/ld64.so.1) is looked up through them.
for d in lib lib64; do
	if [ -d "$dir/$d" ] && [ ! -L "$dir/$d" ]; then
		mkdir -p "$dir/usr/$d"
		cp -a "$dir/$d/." "$dir/usr/$d/"
		rm -rf "${dir:?}/$d"
	fi
	[ -e "$dir/$d" ] || [ -L "$dir/$d" ] || ln -s "usr/$d" "$dir/$d"
done
# Links with an absolute target (libfoo.so -> /lib/...) would name the
# build machine's files: they are made to point inside DIR.
find "$dir" -type l -lname '/*' | while read -r link; do
	target=$(readlink "$link")
	case $target in
	"$dir"/*) ;; # made so by an earlier run
	*) ln -sfn "$dir$target" "$link" ;;
	esac
done
echo "$want" >"$dir/.complete"
echo "sysroot.sh: $dir is ready for $arch"
