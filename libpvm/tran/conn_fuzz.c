/*
 * conn_fuzz.c - libFuzzer target: the library's frame reader and message
 * reassembly (conn.c), which every byte from a pvmd or a direct-route
 * peer goes through.
 *
 * Input byte 0 sets the size of the pieces the peer writes in (1-255
 * bytes, 0: all at once), so that headers and payloads arrive cut at
 * every place; the rest is the stream.  Besides what the sanitizers
 * catch it checks what conn.h promises of each message handed up: a
 * control message's length is its header's total, a data message's
 * buffer holds exactly `total` bytes, and its fields are the header's.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lpvm.h"
#include "tran/conn.h"

static int closed;

static int on_msg(struct lp_conn *c, struct lp_inmsg *m)
{
	(void)c;
	if (m->h.flags & WIRE_F_CTRL) {
		if (m->buf || (m->ctllen && !m->ctl) || m->ctllen != m->h.total)
			__builtin_trap();
	} else {
		struct lp_buf *b = m->buf;
		if (!b || m->ctl || b->len != m->h.total ||
		    b->src != m->h.src || b->tag != m->h.tag ||
		    b->ctx != m->h.ctx || !b->received)
			__builtin_trap();
		volatile uint8_t sum = 0;
		for (size_t i = 0; i < b->len; i++)
			sum ^= b->data[i];
		(void)sum;
	}
	lp_buf_free(m->buf);
	free(m->ctl);
	return 0;
}

static void on_close(struct lp_conn *c)
{
	(void)c;
	closed = 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t n)
{
	static const struct timespec zero;
	if (n < 1)
		return 0;
	size_t piece = in[0];
	in++;
	n--;
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		abort();
	closed = 0;
	struct lp_conn *c = lp_conn_new(sv[0], "fuzz", on_msg, on_close, NULL);
	if (!c)
		abort();
	while (n && !closed) {
		size_t k = piece && piece < n ? piece : n;
		ssize_t w = send(sv[1], in, k, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w > 0) {
			in += w;
			n -= (size_t)w;
		} else if (w < 0 && errno != EAGAIN && errno != EINTR) {
			break;
		}
		lp_progress(&zero);
	}
	close(sv[1]);
	for (int idle = 0; !closed && idle < 2;)
		idle = lp_progress(&zero) > 0 ? 0 : idle + 1;
	if (!closed)
		lp_conn_close(c);
	lp_conn_reap();
	/* (the caches of buf.c stay: freeing them after each input, so
	 * that libFuzzer's leak check after each input balances, made
	 * this target three times slower, each large body mapped anew) */
	return 0;
}
