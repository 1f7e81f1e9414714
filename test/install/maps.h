/* maps.h - prints the files of the PVM libraries this process has mapped,
 * from /proc/self/maps, once each: "lib PATH". */
#include <stdio.h>
#include <string.h>

static void print_pvm_libs(void)
{
	char line[4096], seen[8][1024];
	int nseen = 0;
	FILE *f = fopen("/proc/self/maps", "r");
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		char *path = strchr(line, '/');
		if (!path || !strstr(path, "pvm3.so"))
			continue;
		path[strcspn(path, "\n")] = 0;
		int dup = 0;
		for (int i = 0; i < nseen; i++)
			dup |= !strcmp(seen[i], path);
		if (!dup && nseen < 8) {
			snprintf(seen[nseen++], sizeof seen[0], "%s", path);
			printf("lib %s\n", path);
		}
	}
	fclose(f);
}
