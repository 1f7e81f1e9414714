/*
 * startwait.h - the pipe between a detaching pvmd and the process the
 * user started (main.c's detach): the child's verdict ("ok" or why it
 * failed), and while the startup hostfile's hosts start, which of them
 * are still pending and the lines to print on the user's stderr.  The
 * waiting process shows the progress, and a Ctrl-C (SIGINT) or SIGTERM
 * to it has the child cancel the starts still pending (SIGUSR1).
 */
#ifndef PVMD_STARTWAIT_H
#define PVMD_STARTWAIT_H

#include <sys/types.h>

/* The waiting process: reads fd (the pipe's read end) until the child
 * closes it, then exits: 0 on "ok", else 1 with the reason on stderr
 * (on stdout as "error ..." for a slave's master). */
void startwait_parent(int fd, pid_t child, int slave) __attribute__((noreturn));

/* The child: its end of the pipe (-1: none, pvmd -f). */
void startwait_child(int fd);
/* 1 while a process waits for the verdict. */
int startwait_open(void);
/* The verdict ("ok" or an error), then the pipe is closed. */
void startwait_verdict(const char *msg);
/* The startup hostfile's starts are under way: n hosts still pending,
 * `names` some of them (space-separated); quiet: a start holds a dialogue
 * on the terminal (so=ms, so=pw), no status line over it. */
void startwait_pending(int n, const char *names, int quiet);
/* A line for the starter's stderr (without its newline): through the
 * pipe, so that it comes after the status line is erased, or on our
 * stderr when nobody waits. */
void startwait_say(const char *line);

#endif
