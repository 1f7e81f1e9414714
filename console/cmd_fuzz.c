/*
 * cmd_fuzz.c - libFuzzer target: the console's command lines (word
 * splitting, quoting, aliases, every command's arguments) and what each
 * command makes of the answers of a pvmd played from the input
 * (libpvm/api/fuzz_peer.h).
 *
 * Input: up to 8 command lines ending at the first NUL byte, then the
 * records of fuzz_peer.h.  The console's output goes to /dev/null.
 */
#include "console.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/fuzz_peer.h"
#include "pvm3.h"

struct console cons;

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t n)
{
	static int init;
	if (!init++) {
		fzp_init();
		if (!freopen("/dev/null", "w", stdout))
			abort();
	}
	const uint8_t *nul = memchr(in, 0, n);
	size_t tlen = nul ? (size_t)(nul - in) : n;
	char *text = malloc(tlen + 1);
	if (!text)
		abort();
	memcpy(text, in, tlen);
	text[tlen] = 0;
	size_t rest = nul ? n - tlen - 1 : 0;
	fzp_start(nul ? nul + 1 : in + n, rest);
	memset(&cons, 0, sizeof cons);
	cons.mytid = pvm_mytid();
	char *save = NULL;
	int lines = 0;
	for (char *l = strtok_r(text, "\n", &save);
	     l && lines < 8 && !cons.quitting;
	     l = strtok_r(NULL, "\n", &save), lines++)
		cmd_execute(l);
	pvm_exit();
	fzp_finish();
	free(text);
	return 0;
}
