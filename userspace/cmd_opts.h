// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_opts - the command line: the options as parsed (struct opts), the
 * command and the output format they select, and the one table that says
 * which options go together (cmd_opts.c).
 */
#ifndef CMD_OPTS_H
#define CMD_OPTS_H

#include <stddef.h>
#include <stdint.h>

#include "sa_cgroup.h"
#include "sa_kallsyms.h"
#include "sa_rows.h"

#define SLABACCT_VERSION "1.0"
#define EXIT_USAGE 2

/* The commands: what slabacct does (one per run). */
enum cmd { CMD_REPORT, CMD_DIFF, CMD_WATCH, CMD_LEAKS, CMD_ADVISE, CMD_UNLOADS, CMD_CHECK,
	   CMD_SAVE, CMD_N };

/* The output formats. */
enum fmt { FMT_TEXT, FMT_CSV, FMT_JSON, FMT_PROM, FMT_FOLDED, FMT_SVG, FMT_KTAP, FMT_JUNIT,
	   FMT_N };

enum summary_mode { SUM_BOTH, SUM_ONLY, SUM_NONE };

struct opts {
	enum cmd cmd;
	enum fmt fmt;
	struct sa_select sel;	/* filters, --by, sort, --min, --top, --all */
	int human;
	enum summary_mode summary;
	int batch, delta;	/* --watch */
	int full_summary;	/* --watch on a terminal: the whole summary */
	size_t width;		/* --width: the text report's columns (0: not fitted) */
	int width_set;
	double interval;
	uint64_t count;		/* watch refreshes; 0: forever */
	int once;
	const char *output;	/* -o FILE (or --svg FILE), replaced atomically; NULL: stdout */
	size_t max_input;
	const char *detail;	/* --detail FILE */
	uint64_t min_age;	/* --leaks-min-age */
	const char *from_trace;	/* --from-trace FILE */
	const char *kallsyms;	/* --kallsyms FILE */
	struct sa_kallsyms *ks;	/* its symbols (loaded by main) */
	char *cache_name;	/* --cache=NAME, blanks as '_' */
	const char **rules;	/* --check: the --rule RULEs, in order */
	size_t nrules;
	int argc;		/* (the most --rule options there can be) */
	const char *rules_file;	/* --rules FILE */
	const char *baseline;	/* --baseline FILE (or BASELINE of --check BASELINE CURRENT) */
	const char *baseline_detail;	/* --baseline-detail FILE */
	const char *unloads;	/* --unloads-file FILE */
	const char *save;	/* --save-baseline FILE */
	const char *cgroup;	/* (1.6) --cgroup PATH|ID|irq */
	const char *cgroup_root;	/* --cgroup-root DIR (default /sys/fs/cgroup) */
	struct sa_cgroups cg;	/* its cgroups, loaded for --by cgroup and --cgroup */
	char *task;		/* --task COMM, blanks as '_' */
	int stacks;		/* --stacks: the trees of the captured sites */
	const char *stacks_file;	/* --stacks-file FILE (default /proc/slab_account_stacks) */
	int nargs;		/* the FILE arguments */
	char **args;
};

/*
 * Parse the command line into @o, or exit: 0 after --help and --version,
 * EXIT_USAGE with a message for a usage error.
 */
void opts_parse(struct opts *o, int argc, char **argv);

void opts_free(struct opts *o);

#endif /* CMD_OPTS_H */
