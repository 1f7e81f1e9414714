#!/usr/bin/env python3
"""layers.py BUILDDIR - checks that libpvm's layers call only downward.

Reads the symbols every object of libpvm3 defines and uses (nm), maps
each object to its folder, and fails on a call from a layer to one above
it (docs/architecture.md).  Bottom up:

    error.c (root) < pack/ < tran/ < tran/<transport>/ < msg/ < api/

The one exception is the transport table: tran/route.c names each
transport's `lp_tran_<name>` row.  Transports may not call each other.
Prints TAP.
"""
import os
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
    print("1..2")
    print(("ok" if objs else "not ok") + f" 1 - {len(objs)} objects of libpvm3 found")
    if bad:
        print("not ok 2 - calls upward between libpvm's layers:")
        for b in sorted(set(bad)):
            print("#   " + b)
    else:
        print("ok 2 - libpvm's layers call only downward")


main()
