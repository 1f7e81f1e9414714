/*
 * pvmd_link.c - the task's one Unix-socket connection to its pvmd: part
 * of the core below the transports, since enrollment and every control
 * call go over it.  The pvmd transport (tran/pvmd/) sends task messages
 * on it too; the pvmd forwards them.
 */
#define _GNU_SOURCE
#include "tran/tran.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "lpvm.h"
#include "proto/vmdir.h"

static struct lp_conn *pconn;
int lp_pvmd_lost;

struct lp_conn *lp_pvmd_conn(void)
{
	return pconn && !pconn->dead ? pconn : NULL;
}

static int pvmd_msg(struct lp_conn *c, struct lp_inmsg *m)
{
	(void)c;
	if (m->h.flags & WIRE_F_CTRL)
		lp_ctl_arrived(&m->h, m->ctl, m->ctllen);
	else if (!lp_route_link_arrived(&m->h, m->buf))
		lp_tran_arrived(m->buf);
	return 0;
}

static void pvmd_closed(struct lp_conn *c)
{
	if (c == pconn) {
		pconn = NULL;
		lp_pvmd_lost = 1;
		lp_route_ep_lost(c);
	}
}

/* Checks that the process at the other end runs as our user. */
int lp_peer_is_us(int fd)
{
	struct ucred cr;
	socklen_t len = sizeof cr;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0 ||
	    len != sizeof cr)
		return 0;
	return cr.uid == getuid();
}

/* A blocking connection to the pvmd's socket, whose other end runs as
 * our user; -1 when there is none. */
static int open_pvmd_sock(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (vmdir_file(sa.sun_path, sizeof sa.sun_path, VMDIR_SOCK) < 0)
		return -1;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0 ||
			!lp_peer_is_us(fd))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

int lp_pvmd_connect(void)
{
	if (pconn)
		return 0;
	int fd = vmdir_check() < 0 ? -1 : open_pvmd_sock();
	if (fd < 0)
		return PvmSysErr;
	pconn = lp_conn_new(fd, "pvmd", pvmd_msg, pvmd_closed, NULL);
	if (!pconn)
		return PvmSysErr;
	lp_pvmd_lost = 0;
	return 0;
}

int lp_pvmd_leaving(void)
{
	int fd = lp_pvmd_conn() && lp.enrolled ? open_pvmd_sock() : -1;
	if (fd < 0)
		return PvmSysErr;
	struct wire_hdr h = {.flags = WIRE_F_FIRST | WIRE_F_LAST | WIRE_F_CTRL,
			     .dst = lp.hosttid,
			     .src = lp.mytid,
			     .tag = WIRE_TM_LEAVING,
			     .wid = 1};
	uint8_t buf[WIRE_HDR_SIZE + 64];
	wire_hdr_encode(&h, buf);
	int r = PvmSysErr;
	if (send(fd, buf, WIRE_HDR_SIZE, MSG_NOSIGNAL) == WIRE_HDR_SIZE) {
		/* the answer (header and status), or give up after 5 s */
		struct pollfd p = {.fd = fd, .events = POLLIN};
		size_t got = 0;
		while (got < WIRE_HDR_SIZE + 4 && poll(&p, 1, 5000) > 0) {
			ssize_t n = read(fd, buf + got, sizeof buf - got);
			if (n <= 0)
				break;
			got += (size_t)n;
		}
		if (got >= WIRE_HDR_SIZE + 4)
			r = 0;
	}
	close(fd);
	return r;
}

void lp_pvmd_close(void)
{
	if (pconn) {
		struct lp_conn *c = pconn;
		pconn = NULL;
		c->on_close = NULL;
		lp_conn_close(c);
	}
	lp_pvmd_lost = 0;
}
