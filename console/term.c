/*
 * term.c - printing to the terminal while readline may own the line.
 *
 * Children's output arrives while the user is typing.  With readline's
 * callback interface active, text printed straight away would land in the
 * middle of the edited line; term_async_begin() hides the prompt and line,
 * term_async_end() draws them again below what was printed.
 */
#include "console.h"

#include <stdio.h>

#include <readline/readline.h>

int term_readline_active;
static int hidden; /* nesting depth of term_async_begin() */

void term_printf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
}

void term_async_begin(void)
{
	if (hidden++ || !term_readline_active)
		return;
	rl_clear_visible_line();
}

void term_async_end(void)
{
	fflush(stdout);
	if (--hidden || !term_readline_active)
		return;
	rl_on_new_line();
	rl_redisplay();
}
