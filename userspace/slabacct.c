// SPDX-License-Identifier: GPL-2.0
/*
 * slabacct - read /proc/slab_account: sort, filter, diff, watch, draw and
 * export the per call site slab accounting of the slab_account module, or
 * the same account built from a kmem trace.  main(): the options
 * (cmd_opts.c), then the command they chose, one entry per command.
 *
 * The layers, each file's top comment saying what it owns; dependencies
 * run one way, from the top down (tests/host/layers.sh checks the
 * includes):
 *   commands   slabacct.c, cmd_*.c: the command line and what each
 *              command does
 *   printers   pr_*.c: the report's columns, the summary, the metrics, the flame graph, the
 *              treemap, the gate's reports
 *   model      sa_rows.c (the rows model), sa_table.c (the column table
 *              model and its text, CSV and JSON printers), sa_retired.c,
 *              sa_gate.c, sa_dsites.c (a detail file's call sites),
 *              sa_advice.c (the rules of --advise)
 *   parsers    sa_input.c, sa_parse.c, sa_detail.c, sa_unloads.c,
 *              sa_trace.c, sa_tacct.c, sa_kallsyms.c, sa_rules.c,
 *              sa_cgroup.c (cgroup ids to paths), sa_stacks.c (the stacks
 *              file)
 *   utilities  sa_esc.c, sa_num.c, sa_merge.c, sa_json.c, sa_out.c,
 *              sa_time.c
 *   base       sa_base.c (arithmetic, messages, the one line reader and
 *              the one "key: value" header parser) and sa_caller.c (the
 *              one caller splitter, which the parsers check callers with
 *              and every layer above names modules with), sa_ctx.c (the
 *              context part of a 1.6 child row's caller)
 */
#include <stdio.h>
#include <stdlib.h>

#include "cmd_advise.h"
#include "cmd_check.h"
#include "cmd_common.h"
#include "cmd_leaks.h"
#include "cmd_opts.h"
#include "cmd_report.h"
#include "cmd_unloads.h"
#include "cmd_watch.h"
#include "sa_kallsyms.h"
#include "sa_out.h"

/* What each command runs (cmd_opts.c says which options it takes). */
static int (*const commands[CMD_N])(const struct opts *o) = {
	[CMD_REPORT] = cmd_report, [CMD_DIFF] = cmd_report, [CMD_WATCH] = cmd_watch,
	[CMD_LEAKS] = cmd_leaks, [CMD_ADVISE] = cmd_advise, [CMD_UNLOADS] = cmd_unloads,
	[CMD_CHECK] = cmd_check, [CMD_SAVE] = cmd_save,
};

int main(int argc, char **argv)
{
	struct opts o;
	int ret;

	sa_out_init();
	opts_parse(&o, argc, argv);
	if (cmd_cgroups(&o)) {
		opts_free(&o);
		return 1;
	}
	if (o.kallsyms) {
		char *err = NULL;

		if (sa_kallsyms_load(&o.ks, o.kallsyms, &err)) {
			cmd_error(err);
			opts_free(&o);
			return 1;
		}
	}
	ret = commands[o.cmd](&o);
	opts_free(&o);
	sa_kallsyms_free(o.ks);
	if (sa_out_flush())
		ret = 1;
	return ret;
}
