/*
 * auth_test.c - unit test of proto/auth.c: the FIPS 180-4 and RFC 4231
 * vectors through nettle's SHA-256 and HMAC, which auth_mac uses (they
 * catch a broken library or build, e.g. on another architecture), hex,
 * the secret file and the MAC.  Prints TAP.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nettle/hmac.h>
#include <nettle/sha2.h>

#include "proto/auth.h"
#include "test/unit/tap.h"

#define SHA256_LEN SHA256_DIGEST_SIZE

static int digest_is(const uint8_t d[SHA256_LEN], const char *hex)
{
	char h[2 * SHA256_LEN + 1];
	auth_hex(d, SHA256_LEN, h);
	if (strcmp(h, hex) != 0) {
		printf("# got  %s\n# want %s\n", h, hex);
		return 0;
	}
	return 1;
}

static void sha_vector(const char *name, const void *m, size_t n,
		       const char *hex)
{
	struct sha256_ctx s;
	uint8_t d[SHA256_LEN];

	sha256_init(&s);
	sha256_update(&s, n, m);
	sha256_digest(&s, SHA256_LEN, d);
	ok(digest_is(d, hex), "sha256 %s, one update", name);

	/* The same bytes one at a time: every block boundary crossed. */
	sha256_init(&s);
	for (size_t i = 0; i < n; i++)
		sha256_update(&s, 1, (const uint8_t *)m + i);
	sha256_digest(&s, SHA256_LEN, d);
	ok(digest_is(d, hex), "sha256 %s, byte by byte", name);
}

static void test_sha256(void)
{
	static const char m448[] =
		"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	static const char m896[] =
		"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
		"hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
	static const struct {
		size_t n;
		const char *hex;
	} as[] = {
		/* "a" * n around the padding edges (55: length fits, 56: it
		 * does not, 64: a whole block...). */
		{55,
		 "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
		{56,
		 "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
		{63,
		 "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"},
		{64,
		 "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
		{65,
		 "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"},
		{119,
		 "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"},
		{120,
		 "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"},
	};
	static uint8_t a[1000000];
	struct sha256_ctx s;
	uint8_t d[SHA256_LEN];
	size_t i, step, done;

	sha_vector(
		"\"\"", "", 0,
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	sha_vector(
		"\"abc\"", "abc", 3,
		"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	ok(strlen(m448) * 8 == 448 && strlen(m896) * 8 == 896,
	   "FIPS messages' lengths");
	sha_vector(
		"448-bit FIPS message", m448, strlen(m448),
		"248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	sha_vector(
		"896-bit FIPS message", m896, strlen(m896),
		"cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
	memset(a, 'a', sizeof a);
	for (i = 0; i < sizeof as / sizeof as[0]; i++) {
		char name[32];
		snprintf(name, sizeof name, "\"a\" x %zu", as[i].n);
		sha_vector(name, a, as[i].n, as[i].hex);
	}

	/* One million 'a', in chunks of odd sizes (1, 3, 5, ... 127, again)
	 * so that fills and block boundaries fall everywhere. */
	sha256_init(&s);
	for (done = 0, step = 1; done < sizeof a;
	     step = step >= 127 ? 1 : step + 2) {
		size_t n = step < sizeof a - done ? step : sizeof a - done;
		sha256_update(&s, n, a + done);
		done += n;
	}
	sha256_digest(&s, SHA256_LEN, d);
	ok(digest_is(
		   d,
		   "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
	   "sha256 of one million 'a' in odd-sized chunks");
	sha256_init(&s);
	sha256_update(&s, sizeof a, a);
	sha256_digest(&s, SHA256_LEN, d);
	ok(digest_is(
		   d,
		   "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
	   "sha256 of one million 'a' in one update");
}

/* out = HMAC-SHA256(key, msg) in one call. */
static void hmac(const void *key, size_t klen, const void *msg, size_t mlen,
		 uint8_t out[SHA256_LEN])
{
	struct hmac_sha256_ctx h;

	hmac_sha256_set_key(&h, klen, key);
	hmac_sha256_update(&h, mlen, msg);
	hmac_sha256_digest(&h, SHA256_LEN, out);
}

static void test_hmac(void)
{
	static const char data7[] =
		"This is a test using a larger than block-size key and a larger "
		"than block-size data. The key needs to be hashed before being "
		"used by the HMAC algorithm.";
	uint8_t k[131], m[50], d[SHA256_LEN];
	char h[2 * SHA256_LEN + 1];
	struct hmac_sha256_ctx hs;
	size_t i;

	memset(k, 0x0b, 20);
	hmac(k, 20, "Hi There", 8, d);
	ok(digest_is(
		   d,
		   "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
	   "RFC 4231 case 1");
	hmac("Jefe", 4, "what do ya want for nothing?", 28, d);
	ok(digest_is(
		   d,
		   "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
	   "RFC 4231 case 2");
	memset(k, 0xaa, 20);
	memset(m, 0xdd, 50);
	hmac(k, 20, m, 50, d);
	ok(digest_is(
		   d,
		   "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
	   "RFC 4231 case 3");
	for (i = 0; i < 25; i++)
		k[i] = (uint8_t)(i + 1);
	memset(m, 0xcd, 50);
	hmac(k, 25, m, 50, d);
	ok(digest_is(
		   d,
		   "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
	   "RFC 4231 case 4");
	/* Case 5 gives only the first 128 bits of the output. */
	memset(k, 0x0c, 20);
	hmac(k, 20, "Test With Truncation", 20, d);
	auth_hex(d, 16, h);
	ok(strcmp(h, "a3b6167473100ee06e0c796c2955552b") == 0,
	   "RFC 4231 case 5 (first 128 bits)");
	memset(k, 0xaa, 131);
	hmac(k, 131, "Test Using Larger Than Block-Size Key - Hash Key First",
	     54, d);
	ok(digest_is(
		   d,
		   "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
	   "RFC 4231 case 6 (key longer than a block)");
	hmac(k, 131, data7, strlen(data7), d);
	ok(digest_is(
		   d,
		   "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
	   "RFC 4231 case 7 (key and data longer than a block)");

	/* Incremental: case 7 in three pieces. */
	hmac_sha256_set_key(&hs, 131, k);
	hmac_sha256_update(&hs, 10, (const uint8_t *)data7);
	hmac_sha256_update(&hs, 70, (const uint8_t *)data7 + 10);
	hmac_sha256_update(&hs, strlen(data7) - 80,
			   (const uint8_t *)data7 + 80);
	hmac_sha256_digest(&hs, SHA256_LEN, d);
	ok(digest_is(
		   d,
		   "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
	   "RFC 4231 case 7, incremental");
}

static void test_hex(void)
{
	uint8_t b[4] = {0x00, 0x7f, 0xa5, 0xff}, r[4];
	char h[9], big[2 * 256 + 1];
	uint8_t all[256], back[256];
	int i;

	auth_hex(b, 4, h);
	ok(strcmp(h, "007fa5ff") == 0,
	   "auth_hex gives lower-case digits and a NUL");
	auth_hex(b, 0, h);
	ok(h[0] == '\0', "auth_hex of nothing is \"\"");
	ok(auth_unhex("007FA5fF", r, 4) == 0 && memcmp(r, b, 4) == 0,
	   "auth_unhex takes either case");
	for (i = 0; i < 256; i++)
		all[i] = (uint8_t)i;
	auth_hex(all, 256, big);
	ok(auth_unhex(big, back, 256) == 0 && memcmp(all, back, 256) == 0,
	   "hex round trip of every byte value");
	ok(auth_unhex("", r, 0) == 0, "auth_unhex of \"\" into 0 bytes");
	ok(auth_unhex("007fa5", r, 4) < 0, "auth_unhex refuses too few digits");
	ok(auth_unhex("007fa5f", r, 4) < 0, "auth_unhex refuses an odd count");
	ok(auth_unhex("007fa5ff0", r, 4) < 0,
	   "auth_unhex refuses too many digits");
	ok(auth_unhex("007fa5ff\n", r, 4) < 0,
	   "auth_unhex refuses trailing junk");
	ok(auth_unhex("007fg5ff", r, 4) < 0,
	   "auth_unhex refuses a non-hex digit");
	ok(auth_unhex(" 07fa5ff", r, 4) < 0, "auth_unhex refuses a space");
	ok(auth_unhex("0x7fa5ff", r, 4) < 0, "auth_unhex refuses a 0x prefix");
}

static void test_mac(void)
{
	static const struct {
		const char *label, *hex;
	} v[] = {
		{"pvmd-acceptor",
		 "dcbec76ff558d1f956b19f284a360c00c9a306d07077c7b44ea1e300e2acc73f"},
		{"pvmd-connector",
		 "581c2a9e10e86c363f91387497c4507f11fa09351cfc152226ff89aa3352cf4e"},
		{"task-acceptor",
		 "d63929bf9a8b1e4bd68a37a39e011a500249b7c850640cf06345af0b5416250d"},
		{"task-connector",
		 "7f5c37887f1edd12251a5ae7466edebc675269cde33674d7dc8e33188f3964a0"},
	};
	uint8_t sec[AUTH_SECRET_LEN], nc[AUTH_NONCE_LEN], na[AUTH_NONCE_LEN];
	uint8_t m1[AUTH_MAC_LEN], m2[AUTH_MAC_LEN],
		cat[64 + 2 * AUTH_NONCE_LEN];
	uint8_t r1[64], r2[64], zero[64];
	size_t i;

	for (i = 0; i < 32; i++) {
		sec[i] = (uint8_t)i;
		nc[i] = (uint8_t)(32 + i);
		na[i] = (uint8_t)(64 + i);
	}
	for (i = 0; i < sizeof v / sizeof v[0]; i++) {
		auth_mac(sec, v[i].label, nc, na, m1);
		ok(digest_is(m1, v[i].hex), "auth_mac with label %s",
		   v[i].label);
	}
	/* The same as HMAC over the concatenation. */
	memcpy(cat, "pvmd-acceptor", 13);
	memcpy(cat + 13, nc, 32);
	memcpy(cat + 45, na, 32);
	hmac(sec, sizeof sec, cat, 77, m2);
	auth_mac(sec, "pvmd-acceptor", nc, na, m1);
	ok(memcmp(m1, m2, AUTH_MAC_LEN) == 0,
	   "auth_mac = HMAC(secret, label|nc|na)");
	auth_mac(sec, "pvmd-acceptor", na, nc, m2);
	ok(!auth_mac_equal(m1, m2), "swapping the nonces changes the MAC");
	sec[31] ^= 1;
	auth_mac(sec, "pvmd-acceptor", nc, na, m2);
	ok(!auth_mac_equal(m1, m2), "another secret gives another MAC");
	sec[31] ^= 1;

	ok(auth_mac_equal(m1, m1), "auth_mac_equal: a MAC equals itself");
	memcpy(m2, m1, AUTH_MAC_LEN);
	ok(auth_mac_equal(m1, m2), "auth_mac_equal: equal copies");
	for (i = 0; i < AUTH_MAC_LEN; i += 31) {
		memcpy(m2, m1, AUTH_MAC_LEN);
		m2[i] ^= 0x80;
		ok(!auth_mac_equal(m1, m2), "auth_mac_equal: byte %zu differs",
		   i);
	}

	memset(zero, 0, sizeof zero);
	ok(auth_random(r1, sizeof r1) == 0 && auth_random(r2, sizeof r2) == 0,
	   "auth_random succeeds");
	ok(memcmp(r1, r2, sizeof r1) != 0 && memcmp(r1, zero, sizeof r1) != 0,
	   "auth_random gives different, non-zero bytes");
	{
		static uint8_t huge[100000];
		size_t nz = 0;
		ok(auth_random(huge, sizeof huge) == 0,
		   "auth_random of 100000 bytes");
		/* Partial reads would leave the tail zero. */
		for (i = sizeof huge - 1000; i < sizeof huge; i++)
			nz += huge[i] != 0;
		ok(nz > 900,
		   "auth_random fills to the end (%zu of the last 1000 bytes non-zero)",
		   nz);
	}
}

static int write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, text, strlen(text));
	close(fd);
	return (n == (ssize_t)strlen(text) && chmod(path, mode) == 0) ? 0 : -1;
}

static void test_secret(void)
{
	char dir[] = "/tmp/pvm-auth-test.XXXXXX";
	char path[256], other[256], link[256], text[128];
	uint8_t s[AUTH_SECRET_LEN], r[AUTH_SECRET_LEN];
	struct stat st;
	int fd;
	ssize_t n;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(path, sizeof path, "%s/secret", dir);
	snprintf(other, sizeof other, "%s/other", dir);
	snprintf(link, sizeof link, "%s/link", dir);

	auth_random(s, sizeof s);
	umask(022);
	ok(auth_secret_save(path, s) == 0, "auth_secret_save");
	ok(lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
		   (st.st_mode & 07777) == 0600 && st.st_uid == geteuid(),
	   "the secret file is a regular file of ours, mode 0600");
	fd = open(path, O_RDONLY);
	n = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;
	if (fd >= 0)
		close(fd);
	text[n > 0 ? n : 0] = '\0';
	{
		char want[2 * AUTH_SECRET_LEN + 2];
		auth_hex(s, sizeof s, want);
		strcat(want, "\n");
		ok(n == 65 && strcmp(text, want) == 0,
		   "it holds 64 hex digits and a newline");
	}
	memset(r, 0, sizeof r);
	ok(auth_secret_load(path, r) == 0 && memcmp(r, s, sizeof s) == 0,
	   "auth_secret_load reads the same secret back");

	/* Saving again replaces the file (rename over it). */
	s[0] ^= 0xff;
	ok(auth_secret_save(path, s) == 0 && auth_secret_load(path, r) == 0 &&
		   memcmp(r, s, sizeof s) == 0,
	   "a second save replaces the secret");
	{
		/* No temp file left behind. */
		char tmp[300];
		snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
		ok(access(tmp, F_OK) < 0, "no temporary file left behind");
	}

	ok(chmod(path, 0644) == 0 && auth_secret_load(path, r) < 0 &&
		   errno == EPERM,
	   "a secret file of mode 0644 is refused");
	ok(chmod(path, 0640) == 0 && auth_secret_load(path, r) < 0,
	   "a secret file of mode 0640 is refused");
	ok(chmod(path, 0604) == 0 && auth_secret_load(path, r) < 0,
	   "a secret file of mode 0604 is refused");
	ok(chmod(path, 0600) == 0 && auth_secret_load(path, r) == 0,
	   "back to 0600, it is read again");

	ok(symlink(path, link) == 0 && auth_secret_load(link, r) < 0,
	   "a symlink to a good secret file is refused");
	unlink(link);
	ok(symlink(other, link) == 0 && auth_secret_save(link, s) == 0 &&
		   access(other, F_OK) < 0 && lstat(link, &st) == 0 &&
		   S_ISREG(st.st_mode),
	   "saving over a symlink replaces the link, does not write through it");

	ok(auth_secret_load(other, r) < 0 && errno == ENOENT,
	   "a missing file is refused (ENOENT)");
	ok(mkdir(other, 0700) == 0 && auth_secret_load(other, r) < 0,
	   "a directory is refused");
	rmdir(other);
	ok(mkfifo(other, 0600) == 0 && auth_secret_load(other, r) < 0,
	   "a FIFO is refused (without blocking)");
	unlink(other);

	static const struct {
		const char *text, *what;
	} bad[] = {
		{"", "an empty file"},
		{"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n",
		 "63 digits"},
		{"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0\n",
		 "65 digits"},
		{"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdeg\n",
		 "a non-hex digit"},
		{"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n\n",
		 "two newlines"},
		{"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef \n",
		 "a space"},
		{" 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		 "a leading space"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ok(write_file(other, bad[i].text, 0600) == 0 &&
			   auth_secret_load(other, r) < 0 && errno == EINVAL,
		   "a file with %s is refused", bad[i].what);
	ok(write_file(
		   other,
		   "0123456789abcdef0123456789ABCDEF0123456789abcdef0123456789abcdef",
		   0600) == 0 &&
		   auth_secret_load(other, r) == 0 && r[0] == 0x01 &&
		   r[31] == 0xef,
	   "64 digits without a newline are accepted");
	ok(write_file(
		   other,
		   "0123456789abcdef0123456789ABCDEF0123456789abcdef0123456789abcdef\n",
		   0400) == 0 &&
		   auth_secret_load(other, r) == 0,
	   "mode 0400 is accepted (no group/other bits)");
	chmod(other, 0600);
	unlink(other);

	if (geteuid() == 0) {
		/* Owned by someone else (only root can make such a file). */
		ok(write_file(
			   other,
			   "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n",
			   0600) == 0 &&
			   chown(other, 65534, 65534) == 0 &&
			   auth_secret_load(other, r) < 0 && errno == EPERM,
		   "a file owned by another user is refused");
		unlink(other);
	} else {
		ok(1, "# SKIP a file owned by another user (needs root)");
	}

	snprintf(other, sizeof other, "%s/nodir/secret", dir);
	ok(auth_secret_save(other, s) < 0 && errno == ENOENT,
	   "saving into a missing directory fails with ENOENT");
	unlink(path);
	unlink(link);
	rmdir(dir);
}

int main(void)
{
	test_sha256();
	test_hmac();
	test_hex();
	test_mac();
	test_secret();
	return tap_done();
}
