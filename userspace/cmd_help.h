// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_help - the usage text of --help (the options themselves and what
 * goes with what are cmd_opts.c's).
 */
#ifndef CMD_HELP_H
#define CMD_HELP_H

#include <stdio.h>

#define METRICS_TOP 50		/* --prometheus: call sites when -n is not given */

/* The usage text, to @fp. */
void opts_usage(FILE *fp);

#endif /* CMD_HELP_H */
