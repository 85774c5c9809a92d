// SPDX-License-Identifier: GPL-2.0
/*
 * pr_gate - the gate's results as text, KTAP, JUnit XML and JSON (see
 * pr_gate.h).  JSON's rules and their offenders are tables of the column
 * model (sa_table.h), printed by its JSON printer; text, KTAP and JUnit
 * are line formats of their own, not tables.
 */
#include "pr_gate.h"

#include <stdio.h>
#include <stdlib.h>

#include "sa_esc.h"
#include "sa_json.h"
#include "sa_table.h"

static void text(const char *s)
{
	sa_esc_str(stdout, s, SA_ESC_TEXT);
}

#define RUN_NAME "slabacct --check"	/* the one test of a gate that could not run */

static size_t failed(const struct pr_gate *g)
{
	size_t i, n = 0;

	for (i = 0; i < g->n; i++)
		n += !g->res[i].pass;
	return n;
}

/* The offenders of @r, one per line, each after @prefix; the first PR_GATE_SHOWN. */
static void offenders(const struct sa_result *r, const char *prefix, enum sa_esc mode)
{
	size_t k;

	for (k = 0; k < r->noff && k < PR_GATE_SHOWN; k++) {
		fputs(prefix, stdout);
		sa_esc_str(stdout, r->off[k].name, mode);
		fputs(": ", stdout);
		sa_esc_str(stdout, r->off[k].detail, mode);
		putchar('\n');
	}
	if (r->noff > PR_GATE_SHOWN)
		printf("%sand %zu more\n", prefix, r->noff - PR_GATE_SHOWN);
}

/* "CURRENT against BASELINE (with UNLOADS, DETAIL...)" for the first line. */
static void inputs(const struct pr_gate *g, enum sa_esc mode)
{
	sa_esc_str(stdout, g->current, mode);
	if (g->baseline) {
		fputs(" against the baseline ", stdout);
		sa_esc_str(stdout, g->baseline, mode);
	}
	if (g->unloads) {
		fputs(", unloads ", stdout);
		sa_esc_str(stdout, g->unloads, mode);
	}
	if (g->detail) {
		fputs(", detail ", stdout);
		if (g->baseline_detail) {
			sa_esc_str(stdout, g->baseline_detail, mode);
			fputs(" -> ", stdout);
		}
		sa_esc_str(stdout, g->detail, mode);
	}
}

void pr_gate_text(const struct pr_gate *g)
{
	size_t i;

	fputs("slabacct --check: ", stdout);
	inputs(g, SA_ESC_TEXT);
	putchar('\n');
	for (i = 0; i < g->nnotes; i++)
		printf("note: %s\n", g->notes[i]);
	if (g->error) {
		fputs("ERROR: ", stdout);
		text(g->error);
		puts("\nthe gate could not run: no rule judged");
		return;
	}
	for (i = 0; i < g->n; i++) {
		const struct sa_result *r = &g->res[i];

		printf("%s %zu ", r->pass ? "PASS" : "FAIL", i + 1);
		text(r->rule->text);
		fputs(": ", stdout);
		text(r->summary);
		putchar('\n');
		offenders(r, "       ", SA_ESC_TEXT);
	}
	printf("%zu rule%s: %zu passed, %zu failed\n", g->n, g->n == 1 ? "" : "s",
	       g->n - failed(g), failed(g));
}

void pr_gate_ktap(const struct pr_gate *g)
{
	size_t i;

	printf("KTAP version 1\n1..%zu\n# slabacct --check: ", g->error ? 1 : g->n);
	inputs(g, SA_ESC_TEXT);
	putchar('\n');
	for (i = 0; i < g->nnotes; i++)
		printf("# note: %s\n", g->notes[i]);
	if (g->error) {	/* kselftest's ksft_test_result_error() */
		fputs("not ok 1 " RUN_NAME " # error ", stdout);
		text(g->error);
		puts("\n# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:0 error:1");
		return;
	}
	for (i = 0; i < g->n; i++) {
		const struct sa_result *r = &g->res[i];

		fputs("# ", stdout);
		text(r->rule->where);
		fputs(": ", stdout);
		text(r->summary);
		putchar('\n');
		offenders(r, "# ", SA_ESC_TEXT);
		printf("%s %zu ", r->pass ? "ok" : "not ok", i + 1);
		text(r->rule->text);
		putchar('\n');
	}
	printf("# Totals: pass:%zu fail:%zu xfail:0 xpass:0 skip:0 error:0\n", g->n - failed(g),
	       failed(g));
}

static void xml_attr(const char *name, const char *value)
{
	printf(" %s=\"", name);
	sa_esc_str(stdout, value, SA_ESC_XML);
	putchar('"');
}

static void xml_property(const char *name, const char *value)
{
	if (!value)
		return;
	fputs("      <property", stdout);
	xml_attr("name", name);
	xml_attr("value", value);
	fputs("/>\n", stdout);
}

void pr_gate_junit(const struct pr_gate *g)
{
	size_t i, k, f = failed(g), n = g->error ? 1 : g->n, e = g->error ? 1 : 0;

	printf("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	       "<testsuites name=\"slabacct --check\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n"
	       "  <testsuite name=\"slab_account\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"0\">\n"
	       "    <properties>\n", n, f, e, n, f, e);
	xml_property("current", g->current);
	xml_property("baseline", g->baseline);
	xml_property("unloads", g->unloads);
	xml_property("baseline_detail", g->baseline_detail);
	xml_property("detail", g->detail);
	for (i = 0; i < g->nnotes; i++)
		xml_property("note", g->notes[i]);
	fputs("    </properties>\n", stdout);
	if (g->error) {
		fputs("    <testcase", stdout);
		xml_attr("name", RUN_NAME);
		xml_attr("classname", "slabacct.check");
		fputs(">\n      <error", stdout);
		xml_attr("message", g->error);
		xml_attr("type", "could not run");
		putchar('>');
		sa_esc_str(stdout, g->error, SA_ESC_XML);
		fputs("</error>\n    </testcase>\n", stdout);
	}
	for (i = 0; i < g->n && !g->error; i++) {
		const struct sa_result *r = &g->res[i];

		fputs("    <testcase", stdout);
		xml_attr("name", r->rule->text);
		xml_attr("classname", "slabacct.check");
		fputs(">\n", stdout);
		if (!r->pass) {
			fputs("      <failure", stdout);
			xml_attr("message", r->summary);
			xml_attr("type", r->rule->kind == SA_R_LIMIT ? "budget" : "verdict");
			putchar('>');
			for (k = 0; k < r->noff; k++) {
				sa_esc_str(stdout, r->off[k].name, SA_ESC_XML);
				fputs(": ", stdout);
				sa_esc_str(stdout, r->off[k].detail, SA_ESC_XML);
				putchar('\n');
			}
			fputs("</failure>\n", stdout);
		}
		fputs("      <system-out>", stdout);
		sa_esc_str(stdout, r->rule->where, SA_ESC_XML);
		fputs(": ", stdout);
		sa_esc_str(stdout, r->summary, SA_ESC_XML);
		fputs("</system-out>\n    </testcase>\n", stdout);
	}
	fputs("  </testsuite>\n</testsuites>\n", stdout);
}

/* The JSON tables: the rules (one row per result) and each one's offenders. */
enum { GC_RULE, GC_WHERE, GC_RESULT, GC_SUMMARY, GC_OFFENDERS, GC_NAME, GC_DETAIL };

#define GJ 1u	/* the tables' one mode */

static const struct sa_col rule_cols[] = {
	{ "rule", NULL, 0, 0, GJ, 0, GC_RULE },
	{ "where", NULL, 0, 0, GJ, 0, GC_WHERE },
	{ "result", NULL, 0, 0, GJ, 0, GC_RESULT },
	{ "summary", NULL, 0, 0, GJ, 0, GC_SUMMARY },
	{ "offenders", NULL, 0, 0, GJ, 0, GC_OFFENDERS },
	{ NULL, NULL, 0, 0, 0, 0, 0 }
};

static const struct sa_col offender_cols[] = {
	{ "name", NULL, 0, 0, GJ, 0, GC_NAME },
	{ "detail", NULL, 0, 0, GJ, 0, GC_DETAIL },
	{ NULL, NULL, 0, 0, 0, 0, 0 }
};

/* The rules table's context: the results, and a table of offenders for each. */
struct gate_json {
	const struct pr_gate *g;
	struct sa_table *off;
};

static void offender_cell(const struct sa_table *t, size_t row, const struct sa_col *c,
			  enum sa_fmt fmt, struct sa_cell *x)
{
	const struct sa_result *r = t->ctx;

	(void)fmt;
	sa_cell_str(x, c->id == GC_NAME ? r->off[row].name : r->off[row].detail);
}

static void rule_cell(const struct sa_table *t, size_t row, const struct sa_col *c,
		      enum sa_fmt fmt, struct sa_cell *x)
{
	const struct gate_json *gj = t->ctx;
	const struct sa_result *r = &gj->g->res[row];

	(void)fmt;
	switch (c->id) {
	case GC_RULE:
		sa_cell_str(x, r->rule->text);
		break;
	case GC_WHERE:
		sa_cell_str(x, r->rule->where);
		break;
	case GC_RESULT:
		sa_cell_str(x, r->pass ? "pass" : "fail");
		break;
	case GC_SUMMARY:
		sa_cell_str(x, r->summary);
		break;
	default:
		x->kind = SA_CELL_TABLE;
		x->sub = &gj->off[row];
		break;
	}
}

int pr_gate_json(const struct pr_gate *g)
{
	struct gate_json gj = { g, calloc(g->n + 1, sizeof(*gj.off)) };
	struct sa_table rules = { rule_cols, GJ, g->error ? 0 : g->n, rule_cell, NULL, NULL, 0, 0,
				  &gj };
	struct sa_json j;
	size_t i;

	if (!gj.off)
		return -1;
	for (i = 0; i < g->n; i++) {
		struct sa_table t = { offender_cols, GJ, g->res[i].noff, offender_cell, NULL, NULL,
				      0, 0, &g->res[i] };

		gj.off[i] = t;
	}
	sa_json_begin(&j, stdout);
	sa_json_kstr(&j, "current", g->current);
	if (g->baseline)
		sa_json_kstr(&j, "baseline", g->baseline);
	if (g->unloads)
		sa_json_kstr(&j, "unloads", g->unloads);
	if (g->baseline_detail)
		sa_json_kstr(&j, "baseline_detail", g->baseline_detail);
	if (g->detail)
		sa_json_kstr(&j, "detail", g->detail);
	sa_json_key(&j, "notes");
	sa_json_open(&j, '[', 0);
	for (i = 0; i < g->nnotes; i++) {
		sa_json_key(&j, NULL);
		sa_json_str(&j, g->notes[i]);
	}
	sa_json_close(&j);
	if (g->error)	/* could not run: no rule judged */
		sa_json_kstr(&j, "error", g->error);
	sa_json_ku64(&j, "passed", g->n - failed(g));
	sa_json_ku64(&j, "failed", failed(g));
	sa_json_key(&j, "rules");
	sa_table_json(&rules, &j);
	sa_json_end(&j);
	free(gj.off);
	return 0;
}
