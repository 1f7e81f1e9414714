# The pvmd transport: messages through the task's pvmd (the route of last
# resort), on the connection that also carries the control calls.
lpvm_tran_sources += libpvm/tran/pvmd/pvmd_route.c
