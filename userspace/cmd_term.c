// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_term - the terminal's size and the width the report fits (see
 * cmd_term.h).
 */
#define _POSIX_C_SOURCE 200809L

#include "cmd_term.h"

#include <locale.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* $@name as a number of lines or columns (1 to 65535), or 0. */
static unsigned int env_size(const char *name)
{
	const char *v = getenv(name);
	char *end;
	unsigned long n;

	if (!v || *v < '0' || *v > '9')
		return 0;
	n = strtoul(v, &end, 10);
	return *end || n > 65535 ? 0 : (unsigned int)n;
}

int cmd_term_size(unsigned int *rows, unsigned int *cols)
{
	struct winsize ws = { 0, 0, 0, 0 };

	if (!isatty(STDOUT_FILENO))
		return -1;
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row && ws.ws_col) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
		return 0;
	}
	*rows = env_size("LINES");
	*cols = env_size("COLUMNS");
	return *rows || *cols ? 0 : -1;
}

void cmd_term_locale(void)
{
	setlocale(LC_CTYPE, "");
}

size_t cmd_fit_width(const struct opts *o)
{
	unsigned int rows, cols = 0;
	size_t width = 0;

	if (o->width_set)
		width = o->width;
	else if (!o->output && cmd_term_size(&rows, &cols) == 0)
		width = cols;
	if (width)
		cmd_term_locale();
	return width;
}
