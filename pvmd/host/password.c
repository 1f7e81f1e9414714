/*
 * password.c - so=pw: the password prompt on the foreground master's
 * terminal, the password's short-lived file, and pvmd's askpass mode
 * (password.h; docs/hosts.md, "so=pw").
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "proto/vmdir.h"
#include "pvmd/host/host.h"
#include "pvmd/host/password.h"
#include "pvmd/log.h"
#include "pvmd/pvmd.h"

/* ---- the prompt: one at a time ---- */

static struct {
	int active;
	int fd;	      /* where the password is read */
	int out;      /* where the prompt goes */
	int echo_off; /* fd's echo was turned off: restore `saved` */
	struct termios saved;
	int bytewise; /* not a terminal: read byte by byte, so that
		       * what follows the line stays for the next */
	int unpolled; /* a file (epoll cannot watch it): read from
		       * a timer, it never blocks */
	unsigned gen; /* one per prompt */
	struct loop_io io;
	struct loop_timer timer;
	char buf[PW_MAX + 1];
	size_t n;
	pw_done_cb done;
	void *arg;
} pr = {.fd = -1};

static void put(int fd, const char *s)
{
	size_t n = strlen(s);
	while (n) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

/* Ends the prompt: the terminal as it was, the descriptor closed. */
static void prompt_end(struct pvmd *d)
{
	if (!pr.active)
		return;
	if (pr.unpolled)
		loop_timer_stop(d->loop, &pr.timer);
	else
		loop_io_stop(d->loop, &pr.io);
	if (pr.echo_off) {
		tcsetattr(pr.fd, TCSAFLUSH, &pr.saved);
		put(pr.out, "\n"); /* the Enter typed was not echoed */
	}
	close(pr.fd);
	pr.fd = -1;
	pr.active = pr.echo_off = 0;
}

static void prompt_finish(struct pvmd *d, const char *pw, const char *why)
{
	pw_done_cb done = pr.done;
	void *arg = pr.arg;
	prompt_end(d);
	done(d, arg, pw, why);
	explicit_bzero(pr.buf, sizeof pr.buf);
	pr.n = 0;
}

/* One read: a whole line from a terminal (canonical mode), one byte from
 * anything else. */
static void prompt_step(struct pvmd *d)
{
	size_t room = sizeof pr.buf - 1 - pr.n;
	ssize_t n = read(pr.fd, pr.buf + pr.n, pr.bytewise ? 1 : room);
	if (n < 0 &&
	    (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
		return;
	if (n <= 0) {
		prompt_finish(d, NULL,
			      n < 0 ? "cannot read the password"
				    : "no password (end of input)");
		return;
	}
	pr.n += (size_t)n;
	pr.buf[pr.n] = 0;
	char *end = strpbrk(pr.buf, "\r\n");
	if (end) {
		*end = 0;
		prompt_finish(d, pr.buf, NULL);
	} else if (pr.n == sizeof pr.buf - 1) {
		prompt_finish(d, NULL, "password too long");
	}
}

static void prompt_cb(struct loop *l, struct loop_io *io, uint32_t ev)
{
	(void)l;
	(void)ev;
	prompt_step(io->data); /* one read per event: never stalls the loop */
}

static void prompt_timer_cb(struct loop *l, struct loop_timer *t)
{
	(void)l;
	unsigned gen = pr.gen;
	while (pr.active && pr.gen == gen)
		prompt_step(t->data);
}

int pw_prompt(struct pvmd *d, const char *host, const char *login,
	      pw_done_cb done, void *arg, char *why, size_t whylen)
{
	if (pr.active) {
		snprintf(why, whylen, "a password is being asked already");
		return -1;
	}
	if (!login || !*login) {
		const struct passwd *p = getpwuid(getuid());
		login = p ? p->pw_name : getenv("USER");
		if (!login)
			login = "?";
	}
	/* the controlling terminal; without one (stdin a pipe), stdin and
	 * stdout, as so=ms's dialogue */
	int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	pr.out = fd;
	if (fd < 0) {
		fd = fcntl(0, F_DUPFD_CLOEXEC, 3);
		pr.out = 1;
	}
	if (fd < 0) {
		snprintf(why, whylen, "no terminal to ask the password on: %s",
			 strerror(errno));
		return -1;
	}
	pr.fd = fd;
	pr.echo_off = 0;
	if (isatty(fd) && tcgetattr(fd, &pr.saved) == 0) {
		struct termios t = pr.saved;
		t.c_lflag &= ~(tcflag_t)(ECHO | ECHOE | ECHOK | ECHONL);
		t.c_lflag |= ICANON;
		pr.echo_off = tcsetattr(fd, TCSAFLUSH, &t) == 0;
	}
	pr.n = 0;
	pr.done = done;
	pr.arg = arg;
	pr.active = 1;
	pr.gen++;
	pr.bytewise = !isatty(fd);
	pr.unpolled = 0;
	int st = loop_io_start(d->loop, &pr.io, fd, LOOP_IN, prompt_cb, d);
	if (st < 0 && errno == EPERM) {
		/* a regular file or /dev/null: read from the loop, at once */
		pr.unpolled = 1;
		loop_timer_init(&pr.timer, prompt_timer_cb, d);
		st = loop_timer_start(d->loop, &pr.timer, 0);
	}
	if (st < 0) {
		snprintf(why, whylen, "cannot watch the terminal: %s",
			 strerror(errno));
		pw_cancel(d);
		return -1;
	}
	char prompt[600];
	snprintf(prompt, sizeof prompt, "Password (%s:%s): ", host, login);
	if (pr.out == 1)
		fflush(stdout);
	put(pr.out, prompt);
	return 0;
}

void pw_cancel(struct pvmd *d)
{
	prompt_end(d);
	explicit_bzero(pr.buf, sizeof pr.buf);
	pr.n = 0;
}

/* ---- the file ssh's askpass reads ---- */

int pw_file_write(const struct pvmd *d, int hostno, const char *pw, char *path,
		  size_t n)
{
	int k = snprintf(path, n, "%s/%s%d", d->dir, PW_FILE_PREFIX, hostno);
	if (k < 0 || (size_t)k >= n) {
		*path = 0;
		errno = ENAMETOOLONG;
		return -1;
	}
	unlink(path); /* left by a pvmd that was killed */
	int fd =
		open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		     0600);
	if (fd < 0) {
		*path = 0;
		return -1;
	}
	size_t len = strlen(pw);
	int ok = fchmod(fd, 0600) == 0 && write(fd, pw, len) == (ssize_t)len;
	int e = errno;
	close(fd);
	if (!ok) {
		unlink(path);
		*path = 0;
		errno = e;
		return -1;
	}
	return 0;
}

void pw_file_remove(char *path)
{
	if (!*path)
		return;
	int fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		char zero[PW_MAX] = {0};
		size_t len = (size_t)st.st_size < sizeof zero
				     ? (size_t)st.st_size
				     : sizeof zero;
		if (write(fd, zero, len) < 0) {
			/* removed below anyway */
		}
	}
	if (fd >= 0)
		close(fd);
	unlink(path);
	*path = 0;
}

/* ---- askpass mode ---- */

static void askpass_fail(const char *why)
{
	fprintf(stderr, "pvmd (askpass): %s\n", why);
	exit(1);
}

/* ssh runs `$SSH_ASKPASS <prompt>` and reads the answer on its stdout.
 * Only a file of ours is printed: askpass.* directly in this VM's private
 * directory, a regular file (no link) owned by this user, mode 0600.  The
 * program runs as the user who runs it, so it never reveals more than that
 * user can read; these checks keep it from printing anything but a
 * password file even when the variable is pointed elsewhere. */
void pw_askpass_main(int argc, char **argv)
{
	const char *f = getenv(PW_ASKPASS_ENV);
	if (!f)
		return;
	/* a host key question ("Are you sure ... (yes/no/[fingerprint])?")
	 * must not be answered with the password */
	if (argc > 1 && strstr(argv[1], "yes/no"))
		askpass_fail("not a password prompt: refused");
	char dir[512];
	if (vmdir_path(dir, sizeof dir) < 0 || vmdir_check() < 0)
		askpass_fail("no private VM directory");
	size_t dl = strlen(dir), pl = strlen(PW_FILE_PREFIX);
	if (strncmp(f, dir, dl) || f[dl] != '/')
		askpass_fail("not a password file of this virtual machine");
	const char *base = f + dl + 1, *no = base + pl;
	if (strncmp(base, PW_FILE_PREFIX, pl) || !*no ||
	    strspn(no, "0123456789") != strlen(no))
		askpass_fail("not a password file of this virtual machine");
	int fd = open(f, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK |
				 O_NOCTTY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0)
		askpass_fail("cannot open the password file");
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 07777) != 0600 || st.st_nlink != 1 ||
	    st.st_size > PW_MAX)
		askpass_fail(
			"the password file is not private (0600, ours, not linked)");
	char buf[PW_MAX + 2];
	ssize_t n = read(fd, buf, PW_MAX);
	close(fd);
	if (n < 0)
		askpass_fail("cannot read the password file");
	buf[n++] = '\n';
	ssize_t w = write(1, buf, (size_t)n);
	explicit_bzero(buf, sizeof buf);
	exit(w == n ? 0 : 1);
}

/* ---- ssh ---- */

int pw_ssh_args(char **argv, int argc)
{
	/* so=pw means a password: no key may log in instead, ssh asks once
	 * (a wrong password fails at once) and is allowed to ask at all */
	static char *opts[] = {
		"-o", "PreferredAuthentications=keyboard-interactive,password",
		"-o", "NumberOfPasswordPrompts=1",
		"-o", "BatchMode=no",
	};
	for (size_t i = 0; i < sizeof opts / sizeof *opts; i++)
		argv[argc++] = opts[i];
	return argc;
}

void pw_ssh_env(const char *path)
{
	char self[600];
	ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
	if (k <= 0)
		return; /* ssh fails to log in: reported as such */
	self[k] = 0;
	setenv("SSH_ASKPASS", self, 1);
	setenv("SSH_ASKPASS_REQUIRE", "force", 1);
	setenv(PW_ASKPASS_ENV, path, 1);
}
