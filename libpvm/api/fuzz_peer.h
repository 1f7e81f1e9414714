/*
 * fuzz_peer.h - a pvmd played from fuzz input, for the libFuzzer targets
 * of the library (reply_fuzz.c, console/cmd_fuzz.c).
 *
 * connect() is wrapped (-Wl,--wrap=connect): the library's connection to
 * its pvmd's socket becomes one end of a socketpair whose other end a
 * thread of the harness plays.  That thread goes through the input's
 * records in order:
 *   kind 0  the reply to the next control request the library sends: the
 *           harness reads the request and writes a reply with its code
 *           and wid (the first one answers TM_CONNECT; a well-formed
 *           enrollment answer is used when the record is empty);
 *   kind 1  bytes written as they are (frames of any header);
 *   kind 2  a message to the task: tag and context from the first 8 bytes
 *           of the record, the rest its body (PvmDataDefault);
 * each record being a kind byte, a 16-bit little-endian length and the
 * bytes.  When the records run out the thread closes its end.
 */
#ifndef LPVM_API_FUZZ_PEER_H
#define LPVM_API_FUZZ_PEER_H

#include <stddef.h>
#include <stdint.h>

/* Once per process: a private VM directory, no shared memory route. */
void fzp_init(void);
/* The records the next connection to the pvmd plays. */
void fzp_start(const uint8_t *rec, size_t n);
/* After the library is done (pvm_exit): waits for the thread, frees the
 * closed connection, and traps if the library still holds a message. */
void fzp_finish(void);

#endif /* LPVM_API_FUZZ_PEER_H */
