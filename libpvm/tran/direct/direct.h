/*
 * direct.h - the direct transport (direct.c: Unix sockets within a host,
 * and the hello and messages on every direct connection; direct_tcp.c:
 * TCP listener, connector and handshake between hosts), internal to its
 * folder.
 */
#ifndef LPVM_TRAN_DIRECT_DIRECT_H
#define LPVM_TRAN_DIRECT_DIRECT_H

#include "tran/tran.h"

/* ---- direct_tcp.c ---- */

/* Before TM_CONNECT: loads the VM secret and opens the TCP listener.
 * Returns its port, or 0 when the task accepts no TCP direct routes. */
int lp_tcp_listen_open(void);
/* After enrollment: starts accepting on it. */
void lp_tcp_start(void);
/* Whether that listener is open. */
int lp_tcp_listening(void);
/* Whether a direct route to `tid` goes over TCP: another host, or
 * PVM_DIRECT_TCP=1 (a test option). */
int lp_tcp_wanted(int tid);
/* Whether `tid` may open a TCP direct route to us (its hello). */
int lp_tcp_tid_ok(int tid);
/* An authenticated socket to `tid`, or -1: none (yet); then the pvmd
 * route is used and the handshake may finish in the background. */
int lp_tcp_connect(int tid);
/* Closes the listener and every handshake in progress. */
void lp_tcp_fini(void);
/* direct.c: an accepted socket has authenticated as task `tid`. */
void lp_direct_adopt(int fd, int tid);
#endif /* LPVM_TRAN_DIRECT_DIRECT_H */
