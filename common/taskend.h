/*
 * taskend.h - one phrase for how a task's process ended, the same in the
 * console and in pvmrun: "exited with status 3", "killed by signal 11
 * (SIGSEGV), core dumped".  `state`, `code` and `core` are what
 * lpvm_priv_taskend() answers (LPVM_END_EXITED or LPVM_END_SIGNALED).
 */
#ifndef COMMON_TASKEND_H
#define COMMON_TASKEND_H

#include <stddef.h>

/* Writes the phrase into buf; returns buf. */
char *taskend_text(char *buf, size_t size, int state, int code, int core);
/* The status a shell gives such an end: the exit status, or 128 + the
 * signal. */
int taskend_shell_status(int state, int code);

/* The text of a PVM error code ("No such file"), "Error N" for none. */
const char *taskend_errstr(int code);

#endif /* COMMON_TASKEND_H */
