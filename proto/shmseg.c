/*
 * shmseg.c - names of the shared-memory inboxes and the pvmd's side of
 * their life (see shmseg.h).
 */
#define _GNU_SOURCE
#include "proto/shmseg.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

uint64_t shmseg_size(uint32_t nslot, uint32_t ringsize, uint64_t *slot_off,
		     uint64_t *ring_off, uint64_t *bounce_off)
{
	uint64_t s = sizeof(struct shmseg_hdr);
	s = (s + SHMSEG_LINE - 1) & ~(uint64_t)(SHMSEG_LINE - 1);
	if (slot_off)
		*slot_off = s;
	s += (uint64_t)nslot * sizeof(struct shmseg_slot);
	s = (s + 4095) & ~(uint64_t)4095; /* rings start on a page */
	if (ring_off)
		*ring_off = s;
	s += (uint64_t)nslot * ringsize;
	s = (s + 4095) & ~(uint64_t)4095;
	if (bounce_off)
		*bounce_off = s;
	return s + (uint64_t)SHMSEG_BOUNCE_N * SHMSEG_BOUNCE_CHUNK;
}

/* "pvm.<uid>.<vmid>." without the leading slash; the vmid is PVM_VMID if
 * it is a plain name (vmdir.c accepts no other), else "0". */
static int prefix(char *buf, size_t n)
{
	const char *vmid = getenv("PVM_VMID");
	if (!vmid || !*vmid || strchr(vmid, '/'))
		vmid = "0";
	int r = snprintf(buf, n, "pvm.%u.%s.", (unsigned)getuid(), vmid);
	return r < 0 || (size_t)r >= n ? -1 : 0;
}

int shmseg_name(char *buf, size_t n, int tid)
{
	char pre[128];
	if (prefix(pre, sizeof pre) < 0)
		return -1;
	int r = snprintf(buf, n, "/%s%x", pre, (unsigned)tid);
	return r < 0 || (size_t)r >= n ? -1 : 0;
}

void shmseg_mark_dead(int tid)
{
	char name[160];
	if (shmseg_name(name, sizeof name, tid) < 0)
		return;
	int fd = shm_open(name, O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0);
	if (fd < 0)
		return;
	struct stat st;
	if (fstat(fd, &st) == 0 && st.st_uid == getuid() &&
	    (uint64_t)st.st_size >= sizeof(struct shmseg_hdr)) {
		struct shmseg_hdr *h =
			mmap(NULL, sizeof *h, PROT_READ | PROT_WRITE,
			     MAP_SHARED, fd, 0);
		if (h != MAP_FAILED) {
			if (h->magic == SHMSEG_MAGIC && h->tid == tid)
				atomic_store(&h->dead, 1);
			munmap(h, sizeof *h);
		}
	}
	close(fd);
	shm_unlink(name);
}

/* Whether s is a nonempty string of lowercase hex digits. */
static int all_hex(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return 0;
	return 1;
}

int shmseg_remove_all(void)
{
	char pre[128], name[400];
	int n = 0;

	if (prefix(pre, sizeof pre) < 0)
		return 0;
	size_t plen = strlen(pre);
	DIR *dir = opendir("/dev/shm");
	if (!dir)
		return 0;
	struct dirent *e;
	while ((e = readdir(dir))) {
		/* exactly prefix + hex tid: a vmid with dots ("a.b") never
		 * looks like another's ("a") followed by a tid */
		if (strncmp(e->d_name, pre, plen) || !all_hex(e->d_name + plen))
			continue;
		if (snprintf(name, sizeof name, "/%s", e->d_name) >=
		    (int)sizeof name)
			continue;
		if (shm_unlink(name) == 0)
			n++;
	}
	closedir(dir);
	return n;
}
