/*
 * vmdir.c - the virtual machine's private directory (see vmdir.h).
 */
#include "proto/vmdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <sys/file.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int vmid_ok(const char *s)
{
	if (!*s || strlen(s) > 64)
		return 0;
	for (; *s; s++) {
		char c = *s;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		      c == '-'))
			return 0;
	}
	return 1;
}

int vmdir_primary(char *buf, size_t n)
{
	const char *tmp = getenv("PVM_TMP");
	const char *vmid = getenv("PVM_VMID");
	int r;

	if (!tmp || !*tmp)
		tmp = "/tmp";
	if (vmid && *vmid) {
		if (!vmid_ok(vmid))
			return -1;
		r = snprintf(buf, n, "%s/pvm.%u.%s", tmp, (unsigned)getuid(),
			     vmid);
	} else {
		r = snprintf(buf, n, "%s/pvm.%u", tmp, (unsigned)getuid());
	}
	return (r < 0 || (size_t)r >= n) ? -1 : 0;
}

/* The home directory of this uid, from the password database: the same
 * under cron, su or ssh, whatever HOME says.  0 or -1. */
static int home_of_uid(char *buf, size_t n)
{
	struct passwd pw, *res = NULL;
	char pwbuf[4096];
	if (getpwuid_r(getuid(), &pw, pwbuf, sizeof pwbuf, &res) != 0 || !res ||
	    !pw.pw_dir || pw.pw_dir[0] != '/')
		return -1;
	int r = snprintf(buf, n, "%s", pw.pw_dir);
	return (r < 0 || (size_t)r >= n) ? -1 : 0;
}

/* <home>/.pvm/<host> (level 1: <home>/.pvm), where a machine whose
 * primary directory another user holds lives.  0 or -1. */
static int fallback_parent(char *buf, size_t n, int level)
{
	char home[400], host[256];
	if (home_of_uid(home, sizeof home) < 0 ||
	    gethostname(host, sizeof host) < 0)
		return -1;
	host[sizeof host - 1] = '\0';
	int r = level == 1 ? snprintf(buf, n, "%s/.pvm", home)
			   : snprintf(buf, n, "%s/.pvm/%s", home, host);
	return (r < 0 || (size_t)r >= n) ? -1 : 0;
}

int vmdir_path(char *buf, size_t n)
{
	if (vmdir_primary(buf, n) < 0)
		return -1;
	struct stat st;
	int there = lstat(buf, &st) == 0, missing = !there && errno == ENOENT;
	if ((there && st.st_uid == getuid()) || (!there && !missing))
		return 0; /* ours (the usual case: no more to look up) */
	char parent[512], fb[600], sock[640];
	const char *base = strrchr(buf, '/');
	if (fallback_parent(parent, sizeof parent, 2) < 0 ||
	    (size_t)snprintf(fb, sizeof fb, "%s/%s", parent, base + 1) >=
		    sizeof fb)
		return 0; /* no fallback: the primary it is */
	int taken;
	if (there)
		taken = 1; /* another user's */
	else
		/* free: unless our machine already runs in the fallback
		 * (its holder removed the name after the pvmd started) */
		taken = (size_t)snprintf(sock, sizeof sock, "%s/%s", fb,
					 VMDIR_SOCK) < sizeof sock &&
			lstat(sock, &st) == 0 && S_ISSOCK(st.st_mode) &&
			st.st_uid == getuid();
	if (!taken)
		return 0;
	if (strlen(fb) >= n)
		return -1;
	strcpy(buf, fb);
	return 0;
}

int vmdir_in(char *buf, size_t n, const char *dir, const char *name)
{
	int r = snprintf(buf, n, "%s/%s", dir, name);
	return (r < 0 || (size_t)r >= n) ? -1 : 0;
}

int vmdir_file(char *buf, size_t n, const char *name)
{
	char dir[512];
	if (vmdir_path(dir, sizeof dir) < 0)
		return -1;
	return vmdir_in(buf, n, dir, name);
}

int vmdir_task_sock_in(char *buf, size_t n, const char *dir, int tid)
{
	char name[32];
	snprintf(name, sizeof name, "t%x.sock", (unsigned)tid);
	return dir ? vmdir_in(buf, n, dir, name) : vmdir_file(buf, n, name);
}

int vmdir_task_sock(char *buf, size_t n, int tid)
{
	return vmdir_task_sock_in(buf, n, NULL, tid);
}

static int dir_is_private(const char *dir)
{
	struct stat st;
	if (lstat(dir, &st) < 0)
		return -1;
	if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
	    (st.st_mode & 077) != 0)
		return -1;
	return 0;
}

int vmdir_create(const char *dir, char *err, size_t errlen)
{
	char primary[512];
	if (vmdir_primary(primary, sizeof primary) == 0 &&
	    strcmp(primary, dir)) {
		/* the fallback in our home: its parents, ours alone */
		char p[512];
		for (int level = 1; level <= 2; level++)
			if (fallback_parent(p, sizeof p, level) == 0 &&
			    mkdir(p, 0700) < 0 && errno != EEXIST) {
				snprintf(err, errlen, "cannot create %s: %s", p,
					 strerror(errno));
				return -1;
			}
	}
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", dir,
			 strerror(errno));
		return -1;
	}
	if (dir_is_private(dir) < 0) {
		snprintf(
			err, errlen,
			"%s exists but is not a private directory of this user (mode 0700); refusing to use it",
			dir);
		return -1;
	}
	return 0;
}

int vmdir_check(void)
{
	char dir[512];
	if (vmdir_path(dir, sizeof dir) < 0)
		return -1;
	return dir_is_private(dir);
}

int vmdir_write_file(const char *path, const char *text)
{
	char tmp[PATH_MAX];
	if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) {
		errno = ENAMETOOLONG;
		return -1;
	}
	size_t n = strlen(text);
	int fd =
		open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		     0600);
	if (fd < 0)
		return -1;
	int ok = write(fd, text, n) == (ssize_t)n;
	if (close(fd) != 0)
		ok = 0;
	if (!ok || rename(tmp, path) < 0) {
		int e = ok ? errno : EIO;
		unlink(tmp);
		errno = e;
		return -1;
	}
	return 0;
}

int vmdir_remove(const char *dir)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				unlinkat(dirfd(d), e->d_name, 0);
		closedir(d);
	}
	return rmdir(dir);
}

int vmdir_pvmd_alive(const char *dir)
{
	char path[PATH_MAX];
	if (vmdir_in(path, sizeof path, dir, VMDIR_LOCK) < 0)
		return 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return 0;
	/* a shared lock: it only fails while the pvmd holds its own (a
	 * pvmd that starts at this instant tries again: pvmd/main.c) */
	int alive = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	close(fd);
	return alive;
}

/* Appends to buf the machines with a live pvmd among the directories
 * pvm.<uid>[.<vmid>] of `parent`; counts them in *count. */
static void list_in(const char *parent, char *buf, size_t n, int *count)
{
	char prefix[32];
	snprintf(prefix, sizeof prefix, "pvm.%u", (unsigned)getuid());
	size_t plen = strlen(prefix);
	DIR *d = opendir(parent);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, prefix, plen) ||
		    (e->d_name[plen] != '\0' && e->d_name[plen] != '.'))
			continue;
		char dir[PATH_MAX];
		struct stat st;
		if (snprintf(dir, sizeof dir, "%s/%s", parent, e->d_name) >=
			    (int)sizeof dir ||
		    lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) ||
		    st.st_uid != getuid() || !vmdir_pvmd_alive(dir))
			continue;
		const char *vmid = e->d_name[plen] ? e->d_name + plen + 1 : "";
		size_t len = strlen(buf);
		snprintf(buf + len, n - len, "%s%s", *count ? ", " : "",
			 *vmid ? vmid : "(no PVM_VMID)");
		(*count)++;
	}
	closedir(d);
}

int vmdir_list_running(char *buf, size_t n)
{
	const char *tmp = getenv("PVM_TMP");
	if (!tmp || !*tmp)
		tmp = "/tmp";
	int count = 0;
	if (!n)
		return 0;
	buf[0] = '\0';
	list_in(tmp, buf, n, &count);
	/* and those that live in the home because another user held
	 * their name in PVM_TMP (vmdir_path) */
	char fb[512];
	if (fallback_parent(fb, sizeof fb, 2) == 0)
		list_in(fb, buf, n, &count);
	return count;
}
