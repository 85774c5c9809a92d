// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_common - loading inputs for the commands, with their notes (see
 * cmd_common.h).
 */
#include "cmd_common.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pr_summary.h"
#include "sa_base.h"
#include "sa_esc.h"
#include "sa_input.h"

void cmd_error(char *err)
{
	fprintf(stderr, "slabacct: %s\n", err ? err : "out of memory");
	free(err);
}

int cmd_cgroups(struct opts *o)
{
	const char *root = o->cgroup_root ? o->cgroup_root : SA_CGROUP_ROOT;
	const char *a = o->cgroup;
	int numeric = a && a[0] && strspn(a, "0123456789") == strlen(a);
	char *err = NULL;

	if (o->sel.by != SA_BY_CGROUP && !a && o->fmt != FMT_PROM)
		return 0;
	if (sa_cgroups_load(&o->cg, root, &err)) {
		if (!err || o->cgroup_root || (a && !numeric && strcmp(a, "irq"))) {
			cmd_error(err ? sa_format("--cgroup-root: %s", err) : NULL);
			free(err);
			return -1;
		}
		free(err);	/* no cgroup2 here: ids are shown as cgroup#ID */
	}
	o->sel.cg = &o->cg;
	if (!a)
		return 0;
	if (strcmp(a, "irq") == 0)
		o->sel.filter.cgroup_irq = 1;
	else if (numeric && !sa_parse_u64(a, strlen(a), &o->sel.filter.cgroup))
		return 0;
	else if (sa_cgroups_id(&o->cg, a, &o->sel.filter.cgroup)) {
		cmd_error(sa_format("--cgroup: no cgroup '%s' under %s", a, root));
		return -1;
	}
	return 0;
}

int cmd_truncated(const struct sa_file *f, char **msg)
{
	const struct sa_summary *callers = sa_summary_get(f, "number of callers");
	char *tmp;

	*msg = NULL;
	if (!callers || !callers->is_num || f->nrows >= callers->num)
		return 0;
	*msg = sa_format("%s: %zu row%s, fewer than the header's 'number of callers: %" PRIu64 "': the file is truncated (cut at the end of a line), or slab_account was reset while it was read",
			sa_esc_text(f->name, &tmp), f->nrows, f->nrows == 1 ? "" : "s",
			callers->num);
	free(tmp);
	return 1;
}

/*
 * Flag a summary that does not match the rows (docs/format.md: they agree
 * when nothing moves).  Fewer rows than callers: the file is cut short
 * (cmd_truncated()).  While stopped any other difference is a warning;
 * while active the header and the rows are read at different moments, so
 * only more rows than callers is noted (sites added meanwhile; sums always
 * move on a busy system).
 */
static void check_sums(const struct sa_file *f)
{
	const struct sa_summary *state = sa_summary_get(f, "state");
	const struct sa_summary *callers = sa_summary_get(f, "number of callers");
	char buf[512], *tmp, *cut;

	if (cmd_truncated(f, &cut)) {
		fprintf(stderr, "slabacct: warning: %s\n", cut ? cut : "out of memory");
		free(cut);
		return;
	}
	if (!sa_check_sums(f, buf, sizeof(buf)))
		return;
	if (state && strcmp(state->value, "stopped") == 0) {
		fprintf(stderr, "slabacct: warning: %s: the summary does not match the rows though the module is stopped: %s\n",
			sa_esc_text(f->name, &tmp), buf);
		free(tmp);
	} else if (callers && callers->is_num && callers->num != f->nrows) {
		fprintf(stderr, "slabacct: note: %s: number of callers %" PRIu64 ", rows %zu: read while allocations ran (the summary and the rows are read at different moments)\n",
			sa_esc_text(f->name, &tmp), callers->num, f->nrows);
		free(tmp);
	}
}

void cmd_trace_warnings(const struct sa_file *f)
{
	uint64_t lost = pr_summary_num(f, "lost events");
	uint64_t reports = pr_summary_num(f, "lost event reports");
	uint64_t ptrval = pr_summary_num(f, "unmatched pointers");
	char *tmp;
	const char *name = sa_esc_text(f->name, &tmp);

	if (reports)
		fprintf(stderr, "slabacct: warning: %s: the trace lost at least %" PRIu64 " events (%" PRIu64 " LOST or DROPPED lines): the account is incomplete\n",
			name, lost, reports);
	if (ptrval)
		fprintf(stderr, "slabacct: warning: %s: %" PRIu64 " events give their pointer as (____ptrval____) (traced before the pointer hash was ready): not accounted\n",
			name, ptrval);
	free(tmp);
}

int cmd_load(const struct opts *o, struct sa_file *f, const char *path)
{
	char *err = NULL;

	if (cmd_load_err(o, f, path, &err) == 0)
		return 0;
	cmd_error(err);
	return -1;
}

int cmd_load_err(const struct opts *o, struct sa_file *f, const char *path, char **err)
{
	struct sa_trace_opts to = { o->ks, 1, NULL };
	int is_trace = 0, r;

	if (o->from_trace) {
		is_trace = 1;
		r = sa_trace_load(f, path, &to, err);
	} else if (o->cmd == CMD_DIFF || (o->cmd == CMD_WATCH && o->delta)) {
		r = sa_load_any(f, path, o->max_input, &to, &is_trace, err);
	} else {
		r = sa_load_max(f, path, o->max_input, err);
	}
	if (r)
		return -1;
	if (is_trace)
		cmd_trace_warnings(f);
	else
		check_sums(f);
	return 0;
}

int cmd_load_keep(const struct opts *o, struct sa_file *f, const char *path, char **keep,
		  size_t *keep_len, char **err)
{
	*err = NULL;
	if (sa_load_keep(f, path, o->max_input, keep, keep_len, err))
		return -1;
	if (cmd_truncated(f, err)) {
		sa_file_free(f);
		if (keep) {
			free(*keep);
			*keep = NULL;
		}
		return -1;
	}
	check_sums(f);
	return 0;
}

int cmd_load_detail(const struct opts *o, struct sa_detail *d, const char *path)
{
	char *err = NULL;

	if (sa_detail_load(d, path, o->max_input, &err) == 0)
		return 0;
	cmd_error(err);
	return -1;
}
