# test targets: the programs the bats suites run, built by `make check`.
# -no-install makes them real executables (with an rpath to the build-tree
# libpvm3), so that a pvmd can spawn them directly.
test_progs = test/progs/pt_task test/progs/pt_pack test/progs/pt_msg \
	test/progs/pt_order test/progs/pt_out test/progs/mtile_driver \
	test/progs/pt_mbox test/progs/pt_group test/progs/pt_scale \
	test/progs/pt_shm test/progs/pt_stream test/progs/pt_pull \
	test/progs/pt_hosts test/progs/pt_tcp test/progs/pt_mh \
	test/progs/pt_hoster test/progs/pt_notify test/progs/pt_tran \
	test/progs/pt_arch test/progs/pt_hxsvc test/progs/pt_orphan \
	test/progs/pt_flood test/progs/pt_chaos test/progs/pt_py \
	test/progs/pt_run test/progs/pt_addcancel
check_PROGRAMS += $(test_progs)
test_progs_ldflags = -no-install

test_progs_pt_task_SOURCES = test/progs/pt_task.c test/progs/tcommon.h
test_progs_pt_task_LDADD = libpvm/libpvm3.la
test_progs_pt_task_LDFLAGS = $(test_progs_ldflags)
# pt_tran: the transport conformance program (tran.bats).
test_progs_pt_tran_SOURCES = test/progs/pt_tran.c test/progs/tcommon.h \
	test/progs/tpattern.h
test_progs_pt_tran_LDADD = libpvm/libpvm3.la
test_progs_pt_tran_LDFLAGS = $(test_progs_ldflags)
# pt_arch: what a task runs on, PvmDataDefault between unlike hosts
# (hetero.bats).
test_progs_pt_arch_SOURCES = test/progs/pt_arch.c
test_progs_pt_arch_LDADD = libpvm/libpvm3.la
test_progs_pt_arch_LDFLAGS = $(test_progs_ldflags)
# pt_run: jobs for pvmrun and the console's task ends (run.bats).
test_progs_pt_run_SOURCES = test/progs/pt_run.c
test_progs_pt_run_LDADD = libpvm/libpvm3.la
test_progs_pt_run_LDFLAGS = $(test_progs_ldflags)
# pt_orphan: a spawned task whose pvmd dies (reliability.bats).
test_progs_pt_orphan_SOURCES = test/progs/pt_orphan.c
test_progs_pt_orphan_LDADD = libpvm/libpvm3.la
test_progs_pt_orphan_LDFLAGS = $(test_progs_ldflags)
# pt_flood: messages for a task that does not read yet (flow control).
test_progs_pt_flood_SOURCES = test/progs/pt_flood.c
test_progs_pt_flood_LDADD = libpvm/libpvm3.la
test_progs_pt_flood_LDFLAGS = $(test_progs_ldflags)
# pt_chaos: checked streams between tasks on many hosts while a driver
# kills, stops and cuts them (faults.bats, faults.bash).
test_progs_pt_chaos_SOURCES = test/progs/pt_chaos.c \
	test/progs/pt_chaos_worker.c test/progs/pt_chaos.h test/progs/tcommon.h
test_progs_pt_chaos_LDADD = libpvm/libpvm3.la
test_progs_pt_chaos_LDFLAGS = $(test_progs_ldflags)
# pt_hxsvc: mailbox, handlers, contexts, output and notifies between
# unlike hosts (hetero.bats).
test_progs_pt_hxsvc_SOURCES = test/progs/pt_hxsvc.c
test_progs_pt_hxsvc_LDADD = libpvm/libpvm3.la
test_progs_pt_hxsvc_LDFLAGS = $(test_progs_ldflags)
# pt_notify: pvm_notify as a script (notify.bats, hosts-notify.bats).
test_progs_pt_notify_SOURCES = test/progs/pt_notify.c test/progs/tcommon.h
test_progs_pt_notify_LDADD = libpvm/libpvm3.la
test_progs_pt_notify_LDFLAGS = $(test_progs_ldflags)
# pt_py: the C master and C worker of the pvm3 Python module's tests
# (test/python/test_mixed.py).
test_progs_pt_py_SOURCES = test/progs/pt_py.c test/progs/tcommon.h
test_progs_pt_py_LDADD = libpvm/group/libgpvm3.la libpvm/libpvm3.la
test_progs_pt_py_LDFLAGS = $(test_progs_ldflags)
test_progs_pt_pack_SOURCES = test/progs/pt_pack.c test/progs/tcommon.h
test_progs_pt_pack_LDADD = libpvm/libpvm3.la
test_progs_pt_pack_LDFLAGS = $(test_progs_ldflags)
test_progs_pt_msg_SOURCES = test/progs/pt_msg.c test/progs/tcommon.h
test_progs_pt_msg_LDADD = libpvm/libpvm3.la
test_progs_pt_msg_LDFLAGS = $(test_progs_ldflags)
test_progs_pt_order_SOURCES = test/progs/pt_order.c test/progs/tcommon.h
test_progs_pt_order_LDADD = libpvm/libpvm3.la
test_progs_pt_order_LDFLAGS = $(test_progs_ldflags)
# pt_out: task-control tests (taskctl.bats), written with that feature.
test_progs_pt_out_SOURCES = test/progs/pt_out.c test/progs/tcommon.h
test_progs_pt_out_LDADD = libpvm/libpvm3.la
test_progs_pt_out_LDFLAGS = $(test_progs_ldflags)
# pt_mbox: mailbox and message handlers (mbox.bats, mhf.bats).
test_progs_pt_mbox_SOURCES = test/progs/pt_mbox.c test/progs/tcommon.h
test_progs_pt_mbox_LDADD = libpvm/libpvm3.la
test_progs_pt_mbox_LDFLAGS = $(test_progs_ldflags)
# pt_group: dynamic groups (group.bats), linked as PVM programs are:
# -lgpvm3 -lpvm3.
test_progs_pt_group_SOURCES = test/progs/pt_group.c \
	test/progs/pt_group_spmd.c test/progs/pt_group.h \
	test/progs/pt_group_data.h test/progs/tcommon.h
test_progs_pt_group_LDADD = libpvm/group/libgpvm3.la libpvm/libpvm3.la -lm
test_progs_pt_group_LDFLAGS = $(test_progs_ldflags)
# pt_scale: thousands of tasks at once, resource exhaustion (scale.bats).
test_progs_pt_scale_SOURCES = test/progs/pt_scale.c test/progs/tcommon.h
test_progs_pt_scale_LDADD = libpvm/libpvm3.la
test_progs_pt_scale_LDFLAGS = $(test_progs_ldflags)
# pt_shm: the shared-memory route (shm.bats).
test_progs_pt_shm_SOURCES = test/progs/pt_shm.c test/progs/pt_shm_child.c \
	test/progs/pt_shm.h test/progs/tcommon.h test/progs/tpattern.h
test_progs_pt_shm_LDADD = libpvm/libpvm3.la
test_progs_pt_shm_LDFLAGS = $(test_progs_ldflags)
# pt_stream: large messages into a waiting pvm_precv (shm.bats).
test_progs_pt_stream_SOURCES = test/progs/pt_stream.c test/progs/tcommon.h \
	test/progs/tpattern.h
test_progs_pt_stream_LDADD = libpvm/libpvm3.la
test_progs_pt_stream_LDFLAGS = $(test_progs_ldflags)
# pt_pull: streams the receiver may pull the rest of (shm.bats).
test_progs_pt_pull_SOURCES = test/progs/pt_pull.c test/progs/tcommon.h \
	test/progs/tpattern.h
test_progs_pt_pull_LDADD = libpvm/libpvm3.la
test_progs_pt_pull_LDFLAGS = $(test_progs_ldflags)
# pt_hosts: add/delete hosts, hostsync, archcode, config (hosts-api.bats).
test_progs_pt_hosts_SOURCES = test/progs/pt_hosts.c test/progs/tcommon.h
test_progs_pt_hosts_LDADD = libpvm/libpvm3.la
test_progs_pt_hosts_LDFLAGS = $(test_progs_ldflags)
# pt_addcancel: pvm_addhosts cut short (lpvm_priv_addhosts, TM_ADDCANCEL;
# add-cancel.bats).
test_progs_pt_addcancel_SOURCES = test/progs/pt_addcancel.c \
	test/progs/tcommon.h
test_progs_pt_addcancel_LDADD = libpvm/libpvm3.la proto/libwire.la
test_progs_pt_addcancel_LDFLAGS = $(test_progs_ldflags)
# pt_tcp: direct routes over TCP (direct-tcp.bats).
test_progs_pt_tcp_SOURCES = test/progs/pt_tcp.c test/progs/tcommon.h
test_progs_pt_tcp_LDADD = libpvm/libpvm3.la
test_progs_pt_tcp_LDFLAGS = $(test_progs_ldflags)
# pt_mh: many hosts (multihost.bats); groups too, so -lgpvm3.
test_progs_pt_mh_SOURCES = test/progs/pt_mh.c test/progs/pt_mh_hosts.c \
	test/progs/pt_mh.h test/progs/pt_mh_payload.h test/progs/tcommon.h
test_progs_pt_mh_LDADD = libpvm/group/libgpvm3.la libpvm/libpvm3.la
test_progs_pt_mh_LDFLAGS = $(test_progs_ldflags)
# pt_hoster: a hoster task (pvm_reg_hoster; hosts-hoster.bats).
test_progs_pt_hoster_SOURCES = test/progs/pt_hoster.c test/progs/tcommon.h
test_progs_pt_hoster_LDADD = libpvm/libpvm3.la
test_progs_pt_hoster_LDFLAGS = $(test_progs_ldflags)
test_progs_mtile_driver_SOURCES = test/progs/mtile_driver.c test/progs/tcommon.h
test_progs_mtile_driver_LDADD = libpvm/libpvm3.la
test_progs_mtile_driver_LDFLAGS = $(test_progs_ldflags)

# What make dist takes of test/ besides the programs' sources: the suites
# and their helpers.  Not the directory (that would take the objects and
# binaries an in-tree build leaves there), and not a list of names (a new
# suite would be left out without a word): every such file of the source
# tree.
dist-hook: dist-test-suites
dist-test-suites:
	$(MKDIR_P) '$(distdir)/test'
	for f in '$(srcdir)'/test/README.md '$(srcdir)'/test/*.sh \
		'$(srcdir)'/test/*.bats '$(srcdir)'/test/*.bash '$(srcdir)'/test/*.py \
		'$(srcdir)'/test/*.supp; do \
		cp -p "$$f" '$(distdir)/test/' || exit 1; \
	done
	cp -pR '$(srcdir)'/test/fuzz '$(distdir)/test/'
	$(MKDIR_P) '$(distdir)/test/python'
	cp -p '$(srcdir)'/test/python/*.py '$(distdir)/test/python/'
.PHONY: dist-test-suites

# The suite: every test/*.bats file and the TAP unit programs, one summary
# line at the end (test/run.sh).  Binaries are found through these paths.
# test-programs is what the suites run: the sanitizer pass of test/run.sh
# builds just that in its own tree.
test-programs: $(check_PROGRAMS) $(bin_PROGRAMS)
check-local: test-programs
	abs_top_builddir='$(abs_top_builddir)' abs_top_srcdir='$(abs_top_srcdir)' \
		$(SHELL) '$(abs_top_srcdir)/test/run.sh'
.PHONY: test-programs

# The sanitizer pass's build tree (and its copy of the sources), and the
# fuzz targets' (with their corpora and findings); the fault-injection
# job's files.
clean-local: clean-asan-build clean-faults-logs
clean-asan-build:
	-rm -rf asan-build fuzz-build
.PHONY: clean-asan-build

# The libFuzzer targets (test/fuzz.sh, test/README.md): make fuzz builds
# them with clang in fuzz-build and runs each for FUZZ_TIME seconds
# (FUZZ_TARGETS, FUZZ_JOBS); make fuzz-merge adds what the runs found to
# test/fuzz/corpus, minimized.  make check replays the corpora and fuzzes
# briefly.
fuzz:
	abs_top_builddir='$(abs_top_builddir)' abs_top_srcdir='$(abs_top_srcdir)' \
		$(SHELL) '$(abs_top_srcdir)/test/fuzz.sh' run
fuzz-merge:
	abs_top_builddir='$(abs_top_builddir)' abs_top_srcdir='$(abs_top_srcdir)' \
		$(SHELL) '$(abs_top_srcdir)/test/fuzz.sh' merge
# Seeds from the test suites' traffic (strace on their pvmds).
fuzz-capture: test-programs
	abs_top_builddir='$(abs_top_builddir)' abs_top_srcdir='$(abs_top_srcdir)' \
		$(SHELL) '$(abs_top_srcdir)/test/fuzz/capture.sh'
.PHONY: fuzz fuzz-merge fuzz-capture

.PHONY: check-tests-ref
# Runs the same suites against the reference PVM 3.4.6 (for checking the
# expected behaviour; needs pvm, pvm-dev and pvm-examples installed).
check-tests-ref:
	abs_top_builddir='$(abs_top_builddir)' abs_top_srcdir='$(abs_top_srcdir)' \
		$(SHELL) '$(abs_top_srcdir)/test/build-ref-progs.sh' && \
	PVM_TEST_REF=1 abs_top_builddir='$(abs_top_builddir)' abs_top_srcdir='$(abs_top_srcdir)' \
		$(SHELL) '$(abs_top_srcdir)/test/run.sh'

# The long fault-injection job (issue 24, test/faults.bats): FAULT_TIME
# seconds of faults for each of FAULT_SEEDS, on the sanitizer pass's tree
# (PVM_TEST_ASAN=0 in the environment: on this one); each seed's files
# are kept in faults-logs/seed.N.  test/README.md.
FAULT_SEEDS = 1 2 3
FAULT_TIME = 300
check-faults: test-programs
	n=0; for s in $(FAULT_SEEDS); do n=$$((n + 1)); done; \
	PVM_TEST_ASAN=$${PVM_TEST_ASAN:-only} FAULT_SEEDS='$(FAULT_SEEDS)' \
	FAULT_TIME='$(FAULT_TIME)' FAULT_KEEP='$(abs_top_builddir)/faults-logs' \
	FAULT_LANE=$${FAULT_LANE:-1} \
	PVM_TEST_SUITE_TIMEOUT=$$((n * ($(FAULT_TIME) + 240) + 300)) \
	abs_top_builddir='$(abs_top_builddir)' abs_top_srcdir='$(abs_top_srcdir)' \
		$(SHELL) '$(abs_top_srcdir)/test/run.sh' '$(abs_top_srcdir)/test/faults.bats'
.PHONY: check-faults
clean-faults-logs:
	-rm -rf faults-logs
.PHONY: clean-faults-logs

# fortran.bats builds these at test time (with pvmfc, and against the
# reference): a Fortran master and its C worker.
EXTRA_DIST += test/progs/pt_fmaster.f test/progs/pt_cworker.c
