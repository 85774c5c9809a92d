// SPDX-License-Identifier: GPL-2.0
/*
 * pr_summary - the summary lines in text (in full, or compact for a
 * terminal's --watch) and JSON (see pr_summary.h).
 */
#include "pr_summary.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sa_esc.h"
#include "sa_num.h"

/*
 * The summary lines the text report shows (JSON has them all), and their
 * names in the compact summary (NULL: the key).
 */
static const struct {
	const char *key;
	int bytes;
	int lost;	/* shown only when not zero */
	const char *brief;
} text_keys[] = {
	{ "total bytes allocated", 1, 0, "total" }, { "total bytes requested", 1, 0, "req" },
	{ "slack bytes allocated", 1, 0, "slack" }, { "current bytes allocated", 1, 0, "live" },
	{ "current bytes requested", 1, 0, "live_req" }, { "current objects", 0, 0, "objs" },
	{ "number of allocs", 0, 0, "allocs" }, { "number of frees", 0, 0, "frees" },
	{ "number of callers", 0, 0, "callers" }, { "failed allocs", 0, 1, NULL },
	{ "unknown frees", 0, 1, NULL }, { "missed frees", 0, 1, NULL },
	{ "dropped objects", 0, 1, NULL }, { "dropped sites", 0, 1, NULL },
	{ "lost events", 0, 1, NULL }, { "unmatched pointers", 0, 1, NULL },
	{ "peak bound", 1, 1, NULL },
	/* (1.6) the child rows among the callers, the sites under capture, their stacks */
	{ "context rows", 0, 1, NULL }, { "captured sites", 0, 1, NULL }, { "stacks", 0, 1, NULL },
};
#define KEY_WIDTH 25	/* "current bytes allocated: " */

uint64_t pr_summary_num(const struct sa_file *f, const char *key)
{
	const struct sa_summary *e = sa_summary_get(f, key);

	return e && e->is_num ? e->num : 0;
}

static int print_warnings(const struct sa_file *f)
{
	int lines = 0;

	uint64_t objs = pr_summary_num(f, "dropped objects");
	uint64_t sites = pr_summary_num(f, "dropped sites");

	/* (1.4) The module says what to reload with. */
	uint64_t advised = pr_summary_num(f, "advised max_objects");

	if (objs && ++lines) {
		printf("warning: %" PRIu64 " allocations not tracked: the object table was full (object capacity %" PRIu64 "; ",
		       objs, pr_summary_num(f, "object capacity"));
		if (advised)
			printf("reload with max_objects=%" PRIu64 ")\n", advised);
		else
			printf("raise max_objects)\n");
	}
	if (sites && ++lines)
		printf("warning: %" PRIu64 " allocations not tracked: the call-site table was full (call site capacity %" PRIu64 "; raise max_sites)\n",
		       sites, pr_summary_num(f, "call site capacity"));
	/* (1.6) allocations kept in their site's own row, said */
	if (pr_summary_num(f, "context rows dropped") && ++lines)
		printf("warning: %" PRIu64 " allocations counted in their site's own row: no room for their context's row (call site capacity %" PRIu64 "; raise max_sites)\n",
		       pr_summary_num(f, "context rows dropped"), pr_summary_num(f, "call site capacity"));
	if (pr_summary_num(f, "stacks dropped") && ++lines)
		printf("warning: %" PRIu64 " allocations at captured sites counted in their site's own row: the stack table was full (stack capacity %" PRIu64 "; raise max_stacks)\n",
		       pr_summary_num(f, "stacks dropped"), pr_summary_num(f, "stack capacity"));
	if (pr_summary_num(f, "lost event reports") && ++lines)
		printf("warning: the trace lost at least %" PRIu64 " events (%" PRIu64 " LOST or DROPPED lines): this account is incomplete\n",
		       pr_summary_num(f, "lost events"), pr_summary_num(f, "lost event reports"));
	if (pr_summary_num(f, "unmatched pointers") && ++lines)
		printf("warning: %" PRIu64 " events printed their pointer as (____ptrval____): not accounted\n",
		       pr_summary_num(f, "unmatched pointers"));
	return lines;
}

static void print_key(const char *key)
{
	printf("%s:%*s", key, (int)(KEY_WIDTH - strlen(key) - 1), "");
}

int pr_summary_text(const struct sa_file *f, int human)
{
	int lines = 0;

	const struct sa_summary *state = sa_summary_get(f, "state");
	const struct sa_summary *split = sa_summary_get(f, "split");
	char buf[32];
	size_t i;

	if (state) {
		print_key("state");
		printf("%s\n", state->value);
		lines++;
	}
	if (split && strcmp(split->value, "none")) {	/* (1.6) */
		print_key("split");
		printf("%s\n", split->value);
		lines++;
	}
	for (i = 0; i < sizeof(text_keys) / sizeof(text_keys[0]); i++) {
		const struct sa_summary *e = sa_summary_get(f, text_keys[i].key);
		struct num v;

		if (!e || (text_keys[i].lost && !e->num))
			continue;
		v.mag = e->num;
		v.neg = 0;
		fmt_num(buf, sizeof(buf), v, text_keys[i].bytes, human, 0);
		print_key(e->key);
		printf("%s", buf);
		if (strcmp(e->key, "slack bytes allocated") == 0) {
			uint64_t total = pr_summary_num(f, "total bytes allocated");

			if (total)
				printf(" (%.1f%% of total)", 100.0 * (double)e->num / (double)total);
		}
		putchar('\n');
		lines++;
	}
	return lines + print_warnings(f);
}

int pr_summary_diff(const struct sa_file *old, const struct sa_file *new, int human)
{
	int lines = 0;

	const struct sa_summary *so = sa_summary_get(old, "state");
	const struct sa_summary *sn = sa_summary_get(new, "state");
	char a[32], b[32], d[32];
	size_t i;

	if (so && sn) {
		print_key("state");
		printf("%s -> %s\n", so->value, sn->value);
		lines++;
	}
	for (i = 0; i < sizeof(text_keys) / sizeof(text_keys[0]); i++) {
		const struct sa_summary *eo = sa_summary_get(old, text_keys[i].key);
		const struct sa_summary *en = sa_summary_get(new, text_keys[i].key);
		struct num vo = { 0, 0 }, vn = { 0, 0 };
		int bytes = text_keys[i].bytes;

		if (!eo || !en || (text_keys[i].lost && !eo->num && !en->num))
			continue;
		vo.mag = eo->num;
		vn.mag = en->num;
		fmt_num(a, sizeof(a), vo, bytes, human, 0);
		fmt_num(b, sizeof(b), vn, bytes, human, 0);
		fmt_num(d, sizeof(d), num_delta(eo->num, en->num), bytes, human, 1);
		print_key(en->key);
		printf("%s -> %s (%s)\n", a, b, d);
		lines++;
	}
	if (pr_summary_num(new, "number of allocs") < pr_summary_num(old, "number of allocs") &&
	    ++lines)
		puts("note: the counters went down: the module was reset or reloaded in between");
	return lines + print_warnings(new);
}

/* Does a warning line (print_warnings()) give @f's number of @key? */
static int warned(const struct sa_file *f, const char *key)
{
	if (strcmp(key, "lost events") == 0)
		return pr_summary_num(f, "lost event reports") != 0;
	return (strcmp(key, "dropped objects") == 0 || strcmp(key, "dropped sites") == 0 ||
		strcmp(key, "unmatched pointers") == 0) && pr_summary_num(f, key);
}

/* Flowing items into lines of a width. */
struct flow {
	size_t width, col;
	int lines;
};

/* Write item @s (escaped for a terminal) on the current line, or on a new one when it does not fit. */
static void flow_item(struct flow *fl, const char *s)
{
	char *tmp;
	const char *e = sa_esc_text(s, &tmp);
	size_t w = sa_text_width(e);

	if (fl->col && fl->col + 2 + w > fl->width) {
		putchar('\n');
		fl->lines++;
		fl->col = 0;
	}
	printf("%s%s", fl->col ? "  " : "", e);
	fl->col += (fl->col ? 2 : 0) + w;
	free(tmp);
}

int pr_summary_compact(const struct sa_file *old, const struct sa_file *new, int human,
		       size_t width)
{
	const struct sa_summary *so = old ? sa_summary_get(old, "state") : NULL;
	const struct sa_summary *sn = sa_summary_get(new, "state");
	struct flow fl = { width, 0, 0 };
	char item[160], a[32], d[32];
	size_t i;

	if (sn) {
		snprintf(item, sizeof(item), "state %s%s%s", so && strcmp(so->value, sn->value) ?
			 so->value : "", so && strcmp(so->value, sn->value) ? " -> " : "",
			 sn->value);
		flow_item(&fl, item);
	}
	for (i = 0; i < sizeof(text_keys) / sizeof(text_keys[0]); i++) {
		const struct sa_summary *eo = old ? sa_summary_get(old, text_keys[i].key) : NULL;
		const struct sa_summary *en = sa_summary_get(new, text_keys[i].key);
		const char *name = text_keys[i].brief ? text_keys[i].brief : text_keys[i].key;
		struct num v = { 0, 0 };
		int n;

		if (!en || (old && !eo) ||
		    (text_keys[i].lost && !en->num && !(eo && eo->num)) ||
		    warned(new, en->key))
			continue;	/* absent, zero, or its warning line says it */
		v.mag = en->num;
		fmt_num(a, sizeof(a), v, text_keys[i].bytes, human, 0);
		n = snprintf(item, sizeof(item), "%s %s", name, a);
		if (eo) {
			fmt_num(d, sizeof(d), num_delta(eo->num, en->num), text_keys[i].bytes,
				human, 1);
			snprintf(item + n, sizeof(item) - (size_t)n, " (%s)", d);
		} else if (strcmp(en->key, "slack bytes allocated") == 0) {
			uint64_t total = pr_summary_num(new, "total bytes allocated");

			if (total)
				snprintf(item + n, sizeof(item) - (size_t)n, " (%.1f%%)",
					 100.0 * (double)en->num / (double)total);
		}
		flow_item(&fl, item);
	}
	if (fl.col) {
		putchar('\n');
		fl.lines++;
	}
	if (old && pr_summary_num(new, "number of allocs") < pr_summary_num(old, "number of allocs") &&
	    ++fl.lines)
		puts("note: the counters went down: the module was reset or reloaded in between");
	return fl.lines + print_warnings(new);
}

static void json_value(struct sa_json *j, const struct sa_summary *e)
{
	if (!e)
		sa_json_raw(j, "null");
	else if (e->is_num)
		sa_json_u64(j, e->num);
	else
		sa_json_str(j, e->value);
}

void pr_summary_json(struct sa_json *j, const struct sa_file *old,
		     const struct sa_file *new)
{
	size_t i;

	sa_json_key(j, "summary");
	sa_json_open(j, '{', 1);
	for (i = 0; i < new->nsummary + (old ? old->nsummary : 0); i++) {
		const struct sa_summary *e = i < new->nsummary ? &new->summary[i] :
					     &old->summary[i - new->nsummary];
		const struct sa_summary *eo, *en;

		if (i >= new->nsummary && sa_summary_get(new, e->key))
			continue;	/* OLD's keys that NEW lacks come last */
		sa_json_key(j, e->key);
		if (!old) {
			json_value(j, e);
			continue;
		}
		eo = sa_summary_get(old, e->key);
		en = sa_summary_get(new, e->key);
		sa_json_open(j, '{', 0);
		sa_json_key(j, "old");
		json_value(j, eo);
		sa_json_key(j, "new");
		json_value(j, en);
		if (eo && en && eo->is_num && en->is_num) {
			struct num d = num_delta(eo->num, en->num);
			char buf[32];

			fmt_num(buf, sizeof(buf), d, 0, 0, 0);
			sa_json_key(j, "delta");
			sa_json_raw(j, buf);
		}
		sa_json_close(j);
	}
	sa_json_close(j);
}
