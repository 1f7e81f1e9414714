/*
 * vmdir.c - the virtual machine's private directory (see vmdir.h).
 */
#include "proto/vmdir.h"

#include <errno.h>
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

int vmdir_path(char *buf, size_t n)
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

int vmdir_file(char *buf, size_t n, const char *name)
{
	char dir[512];
	if (vmdir_path(dir, sizeof dir) < 0)
		return -1;
	int r = snprintf(buf, n, "%s/%s", dir, name);
	return (r < 0 || (size_t)r >= n) ? -1 : 0;
}

int vmdir_task_sock(char *buf, size_t n, int tid)
{
	char name[32];
	snprintf(name, sizeof name, "t%x.sock", (unsigned)tid);
	return vmdir_file(buf, n, name);
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

int vmdir_create(char *err, size_t errlen)
{
	char dir[512];
	if (vmdir_path(dir, sizeof dir) < 0) {
		snprintf(
			err, errlen,
			"bad PVM_VMID or PVM_TMP (VMID may hold letters, digits, '.', '_', '-')");
		return -1;
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
