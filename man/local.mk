# man/: the API reference, a section 3 page for every name libpvm3
# and libgpvm3 export (man/gen-local-mk.sh writes this list).  A page
# that documents several names is the main one's; the others are
# one-line .so links to it.  The commands' pages are beside them
# (console/pvm.1, pvmd/pvmd.1...).
EXTRA_DIST += man/gen-local-mk.sh
dist_man3_MANS += \
	man/man3/pvm_joingroup.3 \
	man/man3/pvm_lvgroup.3 \
	man/man3/pvm_gsize.3 \
	man/man3/pvm_gettid.3 \
	man/man3/pvm_getinst.3 \
	man/man3/pvm_barrier.3 \
	man/man3/pvm_freezegroup.3 \
	man/man3/pvm_bcast.3 \
	man/man3/pvm_reduce.3 \
	man/man3/pvm_scatter.3 \
	man/man3/pvm_gather.3 \
	man/man3/PvmMax.3 \
	man/man3/PvmMin.3 \
	man/man3/PvmProduct.3 \
	man/man3/PvmSum.3
