/*
 * log.h - the pvmd log file (pvmd.log in the virtual machine's directory).
 *
 * Every line starts with a timestamp.  Errors and notable events are always
 * logged; PL_DEBUG lines only when the debug mask (pvmd -d) has bit 1 set.
 */
#ifndef PVMD_LOG_H
#define PVMD_LOG_H

enum { PL_ERR, PL_INFO, PL_DEBUG };

/* Opens (appends to) the log file; until then lines go to stderr. */
int log_open(const char *path);
/* Also copy every line to stderr (foreground mode). */
void log_set_stderr(int on);
void log_set_debug(int mask);
int log_debug_on(void);
void plog(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* PVMD_LOG_H */
