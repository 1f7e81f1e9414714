/*
 * log.c - timestamped lines in pvmd.log (see log.h).
 */
#include "config.h"

#include "pvmd/log.h"
#include "pvmd/loop.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static FILE *logf;
static int to_stderr;
static int debugmask;
static char logpath[600];
static unsigned long logmax = LOG_MAX_DEFAULT, logsize;
static int max_set;
/* The pid on every line: the daemon's, taken when it opens its log (a
 * system call per line was a tenth of the fuzz targets' calls). */
static pid_t logpid;

static int reopen(void)
{
	int fd = open(logpath, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	FILE *f = fdopen(fd, "a");
	if (!f) {
		close(fd);
		return -1;
	}
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
	/* the fuzz targets' pvmd logs every line, and needs none of them
	 * on disk before it crashes: a write per line was a quarter of the
	 * calls a request cost */
	setvbuf(f, NULL, _IOFBF, 0);
#else
	setvbuf(f, NULL, _IOLBF, 0); /* each line there before a crash */
#endif
	logpid = getpid();
	if (logf)
		fclose(logf);
	logf = f;
	struct stat st;
	logsize = fstat(fd, &st) == 0 ? (unsigned long)st.st_size : 0;
	return 0;
}

long long size_parse(const char *v)
{
	char *end;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	if (errno || end == v || *v == '-')
		return -1;
	int shift = 0;
	if (*end == 'k' || *end == 'K')
		shift = 10;
	else if (*end == 'm' || *end == 'M')
		shift = 20;
	else if (*end == 'g' || *end == 'G')
		shift = 30;
	if (shift)
		end++;
	if (*end || n > (1ull << 40) >> shift)
		return -1;
	return (long long)(n << shift);
}

int log_open(const char *path)
{
	if (strlen(path) >= sizeof logpath)
		return -1;
	strcpy(logpath, path);
	const char *v = getenv("PVM_LOG_MAX");
	if (!max_set && v && *v) {
		long long n = size_parse(v);
		if (n < 0)
			fprintf(stderr,
				"pvmd: PVM_LOG_MAX=%s ignored (bytes, with k, M "
				"or G; 0: no cap)\n",
				v);
		else
			log_set_max((unsigned long)n);
	}
	return reopen();
}

void log_set_max(unsigned long bytes)
{
	max_set = 1;
	/* a cap smaller than a few lines would rotate at every line */
	logmax = bytes && bytes < 4096 ? 4096 : bytes;
}

/* The log is full: pvmd.log becomes pvmd.log.1, a new one starts. */
static void rotate(void)
{
	char old[sizeof logpath + 2];
	snprintf(old, sizeof old, "%s.1", logpath);
	if (rename(logpath, old) < 0 || reopen() < 0)
		logmax = 0; /* cannot: no cap rather than lines lost */
}

void log_set_stderr(int on)
{
	to_stderr = on;
}

void log_set_debug(int mask)
{
	debugmask = mask;
}

int log_debug_on(void)
{
	return debugmask != 0;
}

static int emit(FILE *f, const char *stamp, const char *lvl, const char *msg)
{
	return fprintf(f, "%s [%d] %s%s\n", stamp,
		       (int)(logpid ? logpid : getpid()), lvl, msg);
}

/* A line into the open log file, counted against its cap. */
static void emit_log(const char *stamp, const char *lvl, const char *msg)
{
	int n = emit(logf, stamp, lvl, msg);
	logsize += n > 0 ? (unsigned long)n : 0;
}

/* Writes a line to the log (rotating it first if it is full) and, when
 * asked or before the log is open, to stderr. */
static void put_file(const char *stamp, const char *lvl, const char *msg)
{
	if (logf && logmax &&
	    logsize + strlen(stamp) + strlen(lvl) + strlen(msg) + 16 > logmax) {
		rotate();
		if (logf) {
			char note[700];
			snprintf(note, sizeof note,
				 "log rotated at %lu bytes (PVM_LOG_MAX): "
				 "earlier lines are in %s.1",
				 logmax, logpath);
			emit_log(stamp, "", note);
		}
	}
	if (logf)
		emit_log(stamp, lvl, msg);
	if (!logf || to_stderr)
		emit(stderr, stamp, lvl, msg);
}

static void put(int level, const char *msg)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	struct tm tm;
	localtime_r(&tv.tv_sec, &tm);
	char stamp[48];
	size_t n = strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(stamp + n, sizeof stamp - n, ".%03ld",
		 (long)tv.tv_usec / 1000);

	const char *lvl = level == PL_ERR     ? "error: "
			  : level == PL_DEBUG ? "debug: "
					      : "";
	put_file(stamp, lvl, msg);
}

static void vput(int level, const char *fmt, va_list ap)
{
	char msg[2048];
	vsnprintf(msg, sizeof msg, fmt, ap);
	put(level, msg);
}

void plog(int level, const char *fmt, ...)
{
	if (level == PL_DEBUG && !debugmask)
		return;
	va_list ap;
	va_start(ap, fmt);
	vput(level, fmt, ap);
	va_end(ap);
}

/* ---- sources that may flood: a token bucket each ---- */

#define NSRC 256

struct src {
	uint64_t key; /* 0: free */
	double tokens;
	uint64_t last_ms, used_ms; /* last refill, last use */
	unsigned long dropped;
	uint64_t since_ms; /* first drop since the last report */
};
static struct src srcs[NSRC];

void log_src_name(uint64_t key, char *buf, size_t len)
{
	uint32_t v = (uint32_t)key;
	if (key >> 32 == 2) {
		const unsigned char *b = (const unsigned char *)&v;
		snprintf(buf, len, "%u.%u.%u.%u", b[0], b[1], b[2], b[3]);
	} else if (key >> 32 == 3) {
		snprintf(buf, len, "t%x", (unsigned)v);
	} else {
		snprintf(buf, len, "pid %u", (unsigned)v);
	}
}

static void report(struct src *b, uint64_t now)
{
	if (!b->dropped)
		return;
	char who[64], msg[160];
	log_src_name(b->key, who, sizeof who);
	snprintf(msg, sizeof msg,
		 "%lu lines about %s not logged in the last %.1f s (more than "
		 "%d a second)",
		 b->dropped, who, (double)(now - b->since_ms) / 1000.0,
		 LOG_SRC_RATE);
	b->dropped = 0;
	put(PL_ERR, msg);
}

/* The bucket of `key`: found, a free one, or the one used longest ago
 * (its count reported first). */
static struct src *src_get(uint64_t key, uint64_t now)
{
	struct src *free_b = NULL, *lru = &srcs[0];
	for (int i = 0; i < NSRC; i++) {
		struct src *b = &srcs[i];
		if (b->key == key)
			return b;
		if (!b->key && !free_b)
			free_b = b;
		if (b->used_ms < lru->used_ms)
			lru = b;
	}
	struct src *b = free_b ? free_b : lru;
	if (!free_b)
		report(b, now);
	*b = (struct src){.key = key, .tokens = LOG_SRC_BURST, .last_ms = now};
	return b;
}

void plog_src(uint64_t src, int level, const char *fmt, ...)
{
	if (level == PL_DEBUG && !debugmask)
		return;
	if (src) {
		uint64_t now = loop_now_ms();
		struct src *b = src_get(src, now);
		b->tokens += (double)(now - b->last_ms) * LOG_SRC_RATE / 1000.0;
		if (b->tokens > LOG_SRC_BURST)
			b->tokens = LOG_SRC_BURST;
		b->last_ms = b->used_ms = now;
		if (b->tokens < 1) {
			if (!b->dropped++)
				b->since_ms = now;
			return;
		}
		b->tokens -= 1;
	}
	va_list ap;
	va_start(ap, fmt);
	vput(level, fmt, ap);
	va_end(ap);
}

void log_tick(void)
{
	uint64_t now = loop_now_ms();
	for (int i = 0; i < NSRC; i++)
		if (srcs[i].key && srcs[i].dropped)
			report(&srcs[i], now);
}
