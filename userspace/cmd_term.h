// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_term - the terminal the text report is written to: its size, and
 * the width the report's table is fitted to (--width, else a terminal's).
 */
#ifndef CMD_TERM_H
#define CMD_TERM_H

#include <stddef.h>

#include "cmd_opts.h"

/*
 * The size of the terminal on standard output: TIOCGWINSZ, else $LINES
 * and $COLUMNS.  0 with *@rows and *@cols, or -1 (not a terminal, or no
 * size known); either of them 0 when only the other is known.
 */
int cmd_term_size(unsigned int *rows, unsigned int *cols);

/*
 * The width the text report fits its table to: --width N (0: none), else
 * with standard output a terminal (no -o) its width, else 0 (a file or a
 * pipe: the lines as they are).  When it is not 0, the locale's LC_CTYPE
 * is taken from the environment (display widths, the ellipsis).
 */
size_t cmd_fit_width(const struct opts *o);

/* Take LC_CTYPE from the environment (the display widths of a fitted table). */
void cmd_term_locale(void);

#endif /* CMD_TERM_H */
