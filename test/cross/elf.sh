#!/bin/sh
# elf.sh FILE: the ELF machine of FILE and its byte order, as
# "MACHINE/L" or "MACHINE/B" (3 i386, 22 s390, 62 x86-64); nothing when
# FILE is no ELF file.  The cross pass (test/run.sh) and hetero.bats use
# it to check that a program is of the architecture it claims.
h=$(od -An -tx1 -N20 "$1" 2>/dev/null | tr -d ' \n')
[ "$(printf %.8s "$h")" = 7f454c46 ] || exit 0
m_lo=$(printf %s "$h" | cut -c37-38)
m_hi=$(printf %s "$h" | cut -c39-40)
case $(printf %s "$h" | cut -c11-12) in
01) echo "$((0x$m_hi$m_lo))/L" ;;
02) echo "$((0x$m_lo$m_hi))/B" ;;
esac
