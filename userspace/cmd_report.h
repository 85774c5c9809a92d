// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_report - the report: a file's call sites (or a trace's account), or
 * with --diff the changes between two, in the output format chosen; one
 * entry per format.  --watch writes it at every refresh.
 */
#ifndef CMD_REPORT_H
#define CMD_REPORT_H

#include "cmd_opts.h"
#include "sa_parse.h"

/* How a refresh of --watch changes the report. */
struct report_env {
	int in_watch;		/* no "OLD -> NEW" line */
	const char *stamp;	/* CSV: the refresh's time, a first column */
	int no_header;		/* CSV: the header line was written */
	size_t max_lines;	/* text: the lines the report may take (a terminal); 0: any */
	size_t lines_before;	/* of them, written before the report */
	size_t width;		/* text: the columns the table is fitted to (0: not fitted) */
	int compact;		/* text: the summary in a few lines (a terminal's --watch) */
};

/* The report of @new, or of @old -> @new; 0, or -1 (a message said why). */
int report(const struct opts *o, const struct report_env *env,
	   const struct sa_file *old, const struct sa_file *new);

/* slabacct [FILE], --diff OLD NEW, --from-trace TRACE: the exit status. */
int cmd_report(const struct opts *o);

#endif /* CMD_REPORT_H */
