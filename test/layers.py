#!/usr/bin/env python3
"""layers.py BUILDDIR SRCDIR - checks that libpvm's layers call only
downward, and that the pvmd's core uses only the host layer's interface.

Reads the symbols every object of libpvm3 defines and uses (nm), maps
each object to its folder, and fails on a call from a layer to one above
it (docs/architecture.md).  Bottom up:

    error.c (root) < pack/ < tran/ < tran/<transport>/ < msg/ < api/

The one exception is the transport table: tran/route.c names each
transport's `lp_tran_<name>` row.  Transports may not call each other.

The pvmd's core (pvmd/*.c) may call into the host layer (pvmd/host/)
only through what pvmd/host/host.h declares; the host layer's own
header, hostlayer.h, is for pvmd/host/ alone.
Prints TAP.
"""
import glob
import os
import re
import subprocess
import sys

RANK = {"root": 0, "pack": 1, "tran": 2, "tran/*": 3, "msg": 4, "api": 5}


def layer(folder):
    if folder.startswith("tran/"):
        return "tran/*"
    return folder


def objects(libdir):
    for dirpath, _, files in os.walk(libdir):
        if os.path.basename(dirpath) != ".libs":
            continue
        for f in files:
            if f.startswith("libpvm3_la-") and f.endswith(".o"):
                yield os.path.join(dirpath, f)


def folder_of(libdir, obj):
    rel = os.path.relpath(os.path.dirname(os.path.dirname(obj)), libdir)
    return "root" if rel == "." else rel


def nm(obj, *flags):
    out = subprocess.run(["nm", *flags, obj], capture_output=True,
                         text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2:
            yield parts[-2], parts[-1]


def declared(header):
    """Names of the functions and objects a header declares."""
    names = set()
    for line in open(header):
        m = re.match(r"^(?:extern\s+)?[A-Za-z_][\w\s\*]*?\b(\w+)\s*[\(\[]", line)
        if m and not line.startswith(("#", " ", "\t", "/*")):
            names.add(m.group(1))
    return names


def pvmd_objects(builddir, srcdir, sub):
    """The objects of the pvmd built from SRCDIR/pvmd/SUB*.c (not tests,
    nor the fuzz targets and their harness)."""
    for c in sorted(glob.glob(os.path.join(srcdir, "pvmd", sub, "*.c"))):
        base = os.path.basename(c)[:-2]
        if (base.endswith(("_test", "_fuzz")) or base.startswith("fuzz_")
                or base == "wirefuzz"):
            continue
        yield os.path.join(builddir, "pvmd", sub, f"pvmd-{base}.o")


def check_pvmd(builddir, srcdir):
    core = list(pvmd_objects(builddir, srcdir, ""))
    host = list(pvmd_objects(builddir, srcdir, "host"))
    public = declared(os.path.join(srcdir, "pvmd", "host", "host.h"))
    hostdefs = set()
    for o in host:
        hostdefs |= {s for k, s in nm(o, "--defined-only") if k in "TDBRC"}
    bad = []
    for o in core:
        for _, sym in nm(o, "-u"):
            if sym in hostdefs and sym not in public:
                bad.append(f"{os.path.basename(o)} -> pvmd/host: {sym}")
    return core, host, public, bad


def verdict(n, bad, good, what):
    """TAP line n: ok when bad is empty, else not ok with what and the list."""
    if not bad:
        print(f"ok {n} - {good}")
        return
    print(f"not ok {n} - {what}")
    for b in sorted(set(bad)):
        print("#   " + b)


def main():
    libdir = os.path.join(sys.argv[1], "libpvm")
    objs = list(objects(libdir))
    defs = {}
    for o in objs:
        for kind, sym in nm(o, "--defined-only"):
            if kind in "TDBRC":
                defs[sym] = folder_of(libdir, o)
    bad = []
    for o in objs:
        src = folder_of(libdir, o)
        for kind, sym in nm(o, "-u"):
            dst = defs.get(sym)
            if dst is None or dst == src:
                continue
            a, b = layer(src), layer(dst)
            if a == b == "tran/*":
                bad.append(f"{src} -> {dst}: {sym} (transports call no other transport)")
            elif RANK[b] > RANK[a] and not (src == "tran" and sym.startswith("lp_tran_")):
                bad.append(f"{src} -> {dst}: {sym}")
    core, host, public, pbad = check_pvmd(sys.argv[1], sys.argv[2])
    print("1..4")
    print(("ok" if objs else "not ok") + f" 1 - {len(objs)} objects of libpvm3 found")
    verdict(2, bad, "libpvm's layers call only downward",
            "calls upward between libpvm's layers:")
    print(("ok" if core and host and public else "not ok") +
          f" 3 - {len(core)} core and {len(host)} host-layer objects of the pvmd,"
          f" {len(public)} names in host.h")
    verdict(4, pbad, "the pvmd's core calls the host layer only through host.h",
            "the pvmd's core calls the host layer outside host.h:")


main()
