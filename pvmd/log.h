/*
 * log.h - the pvmd log file (pvmd.log in the virtual machine's directory).
 *
 * Every line starts with a timestamp.  Errors and notable events are always
 * logged; PL_DEBUG lines only when the debug mask (pvmd -d) has bit 1 set.
 */
#ifndef PVMD_LOG_H
#define PVMD_LOG_H

#include <stddef.h>
#include <stdint.h>

enum { PL_ERR, PL_INFO, PL_DEBUG };

/* Opens (appends to) the log file; until then lines go to stderr.  Reads
 * the size cap from PVM_LOG_MAX (bytes, with an optional k, M or G; 0:
 * none) unless log_set_max was called. */
int log_open(const char *path);
/* Also copy every line to stderr (foreground mode). */
void log_set_stderr(int on);
void log_set_debug(int mask);
int log_debug_on(void);
void plog(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Lines caused by one peer: a source key (LOG_SRC_*; 0 = none, as plog).
 * Each source may log LOG_SRC_BURST lines at once and LOG_SRC_RATE a
 * second after that; what it logs beyond is counted, and log_tick says
 * how many lines of which source were dropped, so that a peer that
 * floods (junk connections to the TCP port) cannot grow the log, and the
 * log is never silent about it. */
#define LOG_SRC_PID(pid) ((1ull << 32) | (uint32_t)(pid))
#define LOG_SRC_IP4(a)	 ((2ull << 32) | (uint32_t)(a)) /* network order */
#define LOG_SRC_TID(tid) ((3ull << 32) | (uint32_t)(tid))
#define LOG_SRC_BURST	 20
#define LOG_SRC_RATE	 2
void plog_src(uint64_t src, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A source key as the log names it: "10.0.0.7", "t40001", "pid 123". */
void log_src_name(uint64_t src, char *buf, size_t len);
/* Once a second (the pvmd's tick): reports the sources whose lines were
 * dropped since the last report. */
void log_tick(void);

/* The log's size cap: when a line would take pvmd.log past `bytes`, the
 * file becomes pvmd.log.1 (replacing an older one) and a new pvmd.log
 * starts with a line saying so; at most twice the cap is on disk.
 * 0: no cap.  Default LOG_MAX_DEFAULT, or PVM_LOG_MAX (log_open). */
#define LOG_MAX_DEFAULT (16ul << 20)
void log_set_max(unsigned long bytes);
/* "16M", "65536", "1G": bytes (at most 2^40), or -1 (PVM_* settings). */
long long size_parse(const char *v);

#endif /* PVMD_LOG_H */
