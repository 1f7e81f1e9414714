/*
 * auth.h - the secret of a virtual machine and the challenge-response of
 * docs/hosts.md ("Authentication").
 *
 * The master pvmd makes a secret of AUTH_SECRET_LEN random bytes
 * (auth_random), keeps it in the VM directory's `secret` file
 * (auth_secret_save / auth_secret_load; VMDIR_SECRET in vmdir.h) and hands
 * it to the pvmds it starts through the ssh channel.  Both ends of a link
 * send a random nonce; each proves it knows the secret with
 *     auth_mac(secret, label, nonce_c, nonce_a)
 * = HMAC-SHA256(secret, label || nonce_c || nonce_a), label one of
 * "pvmd-acceptor", "pvmd-connector", "task-acceptor", "task-connector", and
 * compares the peer's MAC with auth_mac_equal (constant time).  The
 * hashing is nettle's, behind this header: only auth.c includes nettle's.
 * The exchange itself, for pvmds and tasks alike, is proto/handshake.h.
 */
#ifndef PVM_AUTH_H
#define PVM_AUTH_H

#include <stddef.h>
#include <stdint.h>

#define AUTH_SECRET_LEN 32
#define AUTH_NONCE_LEN	32
#define AUTH_MAC_LEN	32

/* Fills buf with n random bytes (getrandom, retried on EINTR). 0 or -1. */
int auth_random(void *buf, size_t n);

/* out = HMAC-SHA256(secret, label || nc || na); label without its NUL. */
void auth_mac(const uint8_t secret[AUTH_SECRET_LEN], const char *label,
	      const uint8_t nc[AUTH_NONCE_LEN],
	      const uint8_t na[AUTH_NONCE_LEN], uint8_t out[AUTH_MAC_LEN]);

/* 1 if equal, else 0; time independent of the contents. */
int auth_mac_equal(const uint8_t a[AUTH_MAC_LEN],
		   const uint8_t b[AUTH_MAC_LEN]);

/* Writes secret s to `path` (mode 0600, via a temp file in the same
 * directory + rename, O_NOFOLLOW), as 64 hex digits and a newline.
 * 0 or -1 (errno). */
int auth_secret_save(const char *path, const uint8_t s[AUTH_SECRET_LEN]);

/* Reads it back; -1 if missing, not a regular file owned by us with mode
 * 0600 (no group/other bits), or malformed (errno ENOENT, ELOOP for a
 * symlink, EPERM for the wrong owner or mode, EINVAL for bad contents...).
 * The file holds exactly 64 hex digits, then an optional newline. */
int auth_secret_load(const char *path, uint8_t s[AUTH_SECRET_LEN]);

/* Hex (lower case): out gets 2n digits and a NUL.  unhex: exactly 2n hex
 * digits (either case, then NUL) -> 0, else -1. */
void auth_hex(const uint8_t *p, size_t n, char *out);
int auth_unhex(const char *s, uint8_t *out, size_t n);

#endif /* PVM_AUTH_H */
