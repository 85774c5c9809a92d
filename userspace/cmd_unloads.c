// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_unloads - the unloads report (see cmd_unloads.h): the unloads file's
 * records joined with a snapshot (sa_retired.c), one row per call site
 * that was still live at an unload (one for a clean unload, one for the
 * sites beyond the listed ones), printed as one column table in text,
 * CSV or JSON.
 */
#include "cmd_unloads.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd_common.h"
#include "sa_esc.h"
#include "sa_input.h"
#include "sa_json.h"
#include "sa_out.h"
#include "sa_retired.h"
#include "sa_table.h"

struct ureport {
	const struct opts *o;
	const struct sa_unloads *un;
	const struct sa_file *snap;
	struct sa_ujoin j;
	char **rest;		/* the rest rows' callers: "N more call sites" */
};

enum { U_ROWS = 1 };
enum { C_WHEN, C_AGO, C_MODULE, C_LOAD, C_OBJS, C_BYTES, C_REQ, C_OLDEST, C_FREED,
       C_LIVE, C_LIVE_BYTES, C_VERDICT, C_TYPE, C_CALLER };

static const struct sa_col unload_cols[] = {
	/* title, name, text, csv, json, flags, id */
	{ "when", NULL, 0, U_ROWS, U_ROWS, 0, C_WHEN },
	{ "ago", NULL, U_ROWS, U_ROWS, U_ROWS, SA_COL_AGE, C_AGO },
	{ "module", NULL, U_ROWS, U_ROWS, U_ROWS, SA_COL_LEFT, C_MODULE },
	{ "load", NULL, U_ROWS, U_ROWS, U_ROWS, 0, C_LOAD },
	{ "objs", NULL, U_ROWS, U_ROWS, U_ROWS, 0, C_OBJS },
	{ "bytes", NULL, U_ROWS, U_ROWS, U_ROWS, SA_COL_BYTES, C_BYTES },
	{ "req", NULL, U_ROWS, U_ROWS, U_ROWS, SA_COL_BYTES, C_REQ },
	{ "oldest", NULL, U_ROWS, U_ROWS, U_ROWS, SA_COL_AGE, C_OLDEST },
	{ "freed", NULL, U_ROWS, U_ROWS, U_ROWS, 0, C_FREED },
	{ "live", NULL, U_ROWS, U_ROWS, U_ROWS, 0, C_LIVE },
	{ "live_bytes", NULL, 0, U_ROWS, U_ROWS, 0, C_LIVE_BYTES },
	{ "verdict", NULL, U_ROWS, U_ROWS, U_ROWS, SA_COL_LEFT, C_VERDICT },
	{ "type", NULL, 0, U_ROWS, U_ROWS, SA_COL_LEFT, C_TYPE },
	{ "caller", NULL, U_ROWS, U_ROWS, U_ROWS, SA_COL_LEFT, C_CALLER },
	{ NULL, NULL, 0, 0, 0, 0, 0 },
};

static void unload_cell(const struct sa_table *t, size_t row, const struct sa_col *c,
			enum sa_fmt fmt, struct sa_cell *x)
{
	const struct ureport *R = t->ctx;
	const struct sa_uitem *it = &R->j.it[row];

	(void)fmt;
	switch (c->id) {
	case C_WHEN:
		sa_cell_u64(x, it->u->when);
		break;
	case C_AGO:
		sa_cell_u64(x, R->un->now - it->u->when);
		break;
	case C_MODULE:
		sa_cell_str(x, it->u->module);
		break;
	case C_LOAD:
		sa_cell_u64(x, it->u->load);
		break;
	case C_OBJS:
		sa_cell_u64(x, it->objs);
		break;
	case C_BYTES:
		sa_cell_u64(x, it->bytes);
		break;
	case C_REQ:
		sa_cell_u64(x, it->req);
		break;
	case C_OLDEST:
		if (it->s)
			sa_cell_u64(x, it->s->oldest);
		else
			x->kind = SA_CELL_NONE;
		break;
	case C_FREED:
	case C_LIVE:
	case C_LIVE_BYTES:
		if (!it->objs || !it->joined)
			x->kind = SA_CELL_NONE;
		else
			sa_cell_u64(x, c->id == C_LIVE ? it->live : c->id == C_LIVE_BYTES ?
				    it->live_bytes : it->objs > it->live ? it->objs - it->live : 0);
		break;
	case C_VERDICT:
		sa_cell_str(x, sa_uverdict_names[it->verdict]);
		break;
	case C_TYPE:
		if (it->s)
			sa_cell_str(x, it->s->site.type_str);
		else
			x->kind = SA_CELL_NONE;
		break;
	default:
		if (it->s)
			sa_cell_str(x, it->s->site.caller);
		else if (it->rest)
			sa_cell_str(x, R->rest[row]);
		else
			x->kind = SA_CELL_NONE;
		break;
	}
}

/* The lines above the text table: what was read, what the columns are. */
static void print_head(const struct ureport *R)
{
	const struct sa_unloads *un = R->un;
	uint64_t left = 0, objs = 0, freed = 0, live = 0;
	size_t i;

	for (i = 0; i < un->n; i++) {
		left += un->u[i].objs != 0;
		objs += un->u[i].objs;
	}
	for (i = 0; i < R->j.n; i++)
		if (R->j.it[i].joined) {
			live += R->j.it[i].live;
			freed += R->j.it[i].objs > R->j.it[i].live ?
				 R->j.it[i].objs - R->j.it[i].live : 0;
		}
	sa_esc_str(stdout, un->name, SA_ESC_TEXT);
	printf(" (now %" PRIu64 "): %" PRIu64 " unload%s since slab_account loaded", un->now,
	       un->unloads, un->unloads == 1 ? "" : "s");
	if (un->kept < un->unloads)
		printf(", the last %" PRIu64 " kept (the first %" PRIu64 " dropped)", un->kept,
		       un->unloads - un->kept);
	printf("; %" PRIu64 " left %" PRIu64 " object%s still live at the unload\n", left, objs,
	       objs == 1 ? "" : "s");
	if (R->snap) {
		printf("in ");
		sa_esc_str(stdout, R->snap->name, SA_ESC_TEXT);
		printf(": %" PRIu64 " of them freed since, %" PRIu64 " still live", freed, live);
		if (R->j.older)
			printf(" (%zu unload%s after it: not joined)", R->j.older,
			       R->j.older == 1 ? " came" : "s came");
		putchar('\n');
	}
	if (R->o->sel.filter.module && R->j.n == 0)
		printf("no unload of module %s\n", R->o->sel.filter.module);
	putchar('\n');
}

static int print_unloads(struct ureport *R)
{
	const struct opts *o = R->o;
	struct sa_table t = { unload_cols, U_ROWS, R->j.n, unload_cell, NULL, NULL, o->human, 0, R };
	struct sa_json j;
	char v[48];

	if (o->fmt == FMT_CSV) {
		sa_table_csv(&t, NULL, 0);
		return 0;
	}
	if (o->fmt == FMT_JSON) {
		sa_json_begin(&j, stdout);
		sa_json_kstr(&j, "file", R->un->name);
		snprintf(v, sizeof(v), "%" PRIu64 ".%" PRIu64, R->un->major, R->un->minor);
		sa_json_kstr(&j, "version", v);
		sa_json_ku64(&j, "now", R->un->now);
		sa_json_ku64(&j, "unloads", R->un->unloads);
		sa_json_ku64(&j, "kept", R->un->kept);
		if (R->snap)
			sa_json_kstr(&j, "snapshot", R->snap->name);
		sa_json_key(&j, "rows");
		sa_table_json(&t, &j);
		sa_json_end(&j);
		return 0;
	}
	print_head(R);
	sa_table_text(&t);
	return 0;
}

static int report_unloads(const struct opts *o, const struct sa_unloads *un,
			  const struct sa_file *snap)
{
	struct ureport R = { o, un, snap, { NULL, NULL, NULL, 0, 0 }, NULL };
	size_t i;
	int ret = -1;

	if (sa_ujoin_build(&R.j, un, snap, o->sel.filter.module))
		goto out;
	R.rest = calloc(R.j.n + 1, sizeof(*R.rest));
	if (!R.rest)
		goto out;
	for (i = 0; i < R.j.n; i++)
		if (R.j.it[i].rest &&
		    !(R.rest[i] = sa_format("%" PRIu64 " more call site%s", R.j.it[i].rest,
					    R.j.it[i].rest == 1 ? "" : "s")))
			goto out;
	ret = print_unloads(&R);
out:
	if (ret)
		cmd_error(NULL);
	for (i = 0; R.rest && i < R.j.n; i++)
		free(R.rest[i]);
	free(R.rest);
	sa_ujoin_free(&R.j);
	return ret;
}

int cmd_unloads(const struct opts *o)
{
	const char *upath = o->nargs ? o->args[0] : SA_UNLOADS_PATH;
	const char *spath = o->nargs == 2 ? o->args[1] : o->nargs ? NULL : SA_DEFAULT_PATH;
	struct sa_unloads un;
	struct sa_file snap;
	char *err = NULL;
	int ret = 1;

	if (sa_unloads_load(&un, upath, o->max_input, &err)) {
		cmd_error(err);
		return 1;
	}
	if (!spath || cmd_load(o, &snap, spath) == 0) {
		if (sa_out_begin(o->output) == 0)
			ret = sa_out_end(o->output, !report_unloads(o, &un, spath ? &snap : NULL)) ? 1 : 0;
		if (spath)
			sa_file_free(&snap);
	}
	sa_unloads_free(&un);
	return ret;
}
