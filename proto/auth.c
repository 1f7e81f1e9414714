/*
 * auth.c - the virtual machine's secret and its challenge-response (auth.h).
 */
#include "proto/auth.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nettle/hmac.h>
#include <nettle/memops.h>

int auth_random(void *buf, size_t n)
{
	uint8_t *p = buf;

	/* getrandom may return less than asked for (more than 256 bytes, or
	 * a signal); loop until all is there. */
	while (n > 0) {
		ssize_t r = getrandom(p, n, 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

void auth_mac(const uint8_t secret[AUTH_SECRET_LEN], const char *label,
	      const uint8_t nc[AUTH_NONCE_LEN],
	      const uint8_t na[AUTH_NONCE_LEN], uint8_t out[AUTH_MAC_LEN])
{
	struct hmac_sha256_ctx h;

	hmac_sha256_set_key(&h, AUTH_SECRET_LEN, secret);
	hmac_sha256_update(&h, strlen(label), (const uint8_t *)label);
	hmac_sha256_update(&h, AUTH_NONCE_LEN, nc);
	hmac_sha256_update(&h, AUTH_NONCE_LEN, na);
	hmac_sha256_digest(&h, AUTH_MAC_LEN, out);
	/* the context holds the key's inner and outer pads */
	explicit_bzero(&h, sizeof h);
}

int auth_mac_equal(const uint8_t a[AUTH_MAC_LEN], const uint8_t b[AUTH_MAC_LEN])
{
	/* no early exit that would tell a forger how many leading bytes
	 * were right */
	return memeql_sec(a, b, AUTH_MAC_LEN);
}

void auth_hex(const uint8_t *p, size_t n, char *out)
{
	static const char digit[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digit[p[i] >> 4];
		out[2 * i + 1] = digit[p[i] & 15];
	}
	out[2 * n] = '\0';
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int auth_unhex(const char *s, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int hi, lo;
		/* s[2i] is checked before s[2i+1] is read: a short string
		 * stops at its NUL. */
		if ((hi = hexval(s[2 * i])) < 0 ||
		    (lo = hexval(s[2 * i + 1])) < 0)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return s[2 * n] == '\0' ? 0 : -1;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t r = write(fd, p, n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

int auth_secret_save(const char *path, const uint8_t s[AUTH_SECRET_LEN])
{
	char tmp[4096], text[2 * AUTH_SECRET_LEN + 2];
	int fd, r, e;

	r = snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
	if (r < 0 || (size_t)r >= sizeof tmp) {
		errno = ENAMETOOLONG;
		return -1;
	}
	/* O_EXCL|O_NOFOLLOW: never write through a file or link someone
	 * else put there; a leftover of a dead process with our pid is ours
	 * to remove. */
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0 && errno == EEXIST && unlink(tmp) == 0)
		fd = open(tmp,
			  O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			  0600);
	if (fd < 0)
		return -1;

	auth_hex(s, AUTH_SECRET_LEN, text);
	text[2 * AUTH_SECRET_LEN] = '\n';
	/* fchmod: the umask may have taken bits off, never put any on, but
	 * 0600 exactly is what auth_secret_load wants to see. */
	if (fchmod(fd, 0600) < 0 ||
	    write_all(fd, text, 2 * AUTH_SECRET_LEN + 1) < 0 || fsync(fd) < 0)
		goto fail;
	explicit_bzero(text, sizeof text);
	if (close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	/* rename replaces whatever `path` was (even a symlink) atomically,
	 * without following it. */
	if (rename(tmp, path) < 0)
		goto fail;
	return 0;

fail:
	e = errno;
	explicit_bzero(text, sizeof text);
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	errno = e;
	return -1;
}

int auth_secret_load(const char *path, uint8_t s[AUTH_SECRET_LEN])
{
	char text[2 * AUTH_SECRET_LEN + 3];
	struct stat st;
	size_t len = 0;
	int fd, e;

	/* O_NONBLOCK: a FIFO planted there must not block us before fstat
	 * refuses it. */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		goto fail;
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077)) {
		errno = EPERM;
		goto fail;
	}
	/* Read one byte more than a well-formed file holds, to see excess. */
	while (len < sizeof text - 1) {
		ssize_t r = read(fd, text + len, sizeof text - 1 - len);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	fd = -1;
	if (len == 2 * AUTH_SECRET_LEN + 1 && text[len - 1] == '\n')
		len--;
	text[len] = '\0';
	if (len != 2 * AUTH_SECRET_LEN ||
	    auth_unhex(text, s, AUTH_SECRET_LEN) < 0) {
		explicit_bzero(text, sizeof text);
		explicit_bzero(s, AUTH_SECRET_LEN);
		errno = EINVAL;
		return -1;
	}
	explicit_bzero(text, sizeof text);
	return 0;

fail:
	e = errno;
	if (fd >= 0)
		close(fd);
	errno = e;
	return -1;
}
