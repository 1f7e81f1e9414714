/*
 * log.c - timestamped lines in pvmd.log (see log.h).
 */
#include "config.h"

#include "pvmd/log.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static FILE *logf;
static int to_stderr;
static int debugmask;

int log_open(const char *path)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	FILE *f = fdopen(fd, "a");
	if (!f) {
		close(fd);
		return -1;
	}
	setvbuf(f, NULL, _IOLBF, 0);
	if (logf)
		fclose(logf);
	logf = f;
	return 0;
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

static void emit(FILE *f, const char *stamp, const char *lvl, const char *msg)
{
	fprintf(f, "%s [%d] %s%s\n", stamp, (int)getpid(), lvl, msg);
}

void plog(int level, const char *fmt, ...)
{
	if (level == PL_DEBUG && !debugmask)
		return;

	char msg[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);

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
	if (logf)
		emit(logf, stamp, lvl, msg);
	if (!logf || to_stderr)
		emit(stderr, stamp, lvl, msg);
}
