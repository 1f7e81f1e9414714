"""The worker side of test/progs/pt_py.c's protocol, in Python: spawned
by pt_py's C master (test_mixed.py), through a copy of this file with a
shebang on PVM_PATH."""

import array

import pvm3


def main():
    parent = pvm3.parent()
    try:
        serve(parent)
    except Exception as e:  # the master reports it: a worker cannot print
        pvm3.send(parent, 99, "%s: %s" % (type(e).__name__, e))
    pvm3.exit()


def serve(parent):
    m = pvm3.recv(parent, 1)
    n = m.upkint()
    longs = m.upklong(n)
    d = m.upkdouble()
    s = m.upkstr()
    pvm3.Message().pklong(sum(longs)).pkdouble(2 * d).pkstr(s + "!") \
        .pkint(n).send(parent, 11)

    dv = array.array("d", bytes(8 * 1000))
    st = pvm3.precv(parent, 2, dv)
    nd = st.nbytes // 8
    pvm3.psend(parent, 12, array.array("d", (2 * x for x in dv[:nd])))

    iv = array.array("i", bytes(4 * 5))
    st = pvm3.precv(parent, 3, iv)
    pvm3.psend(parent, 13, array.array("i", (x + 1 for x in iv[:st.nbytes // 4])))

    m = pvm3.recv(parent, 4)
    group, count = m.upkstr(), m.upkint()
    inst = pvm3.joingroup(group)
    pvm3.barrier(group, count)
    pvm3.reduce(pvm3.PvmSum, array.array("i", [inst + 1] * 4), 5, group, 0)
    pvm3.barrier(group, count)
    pvm3.lvgroup(group)

    pvm3.recv(parent, 9)


main()
