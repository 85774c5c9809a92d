// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_opts - the command line (see cmd_opts.h): getopt_long, the values
 * of the options, the usage text, and the one table that says which
 * options go together: one entry per command, per output format and per
 * option that belongs to another, each saying what it takes or refuses and
 * why.  A new command or format is one more entry.
 */
#define _POSIX_C_SOURCE 200809L

#include "cmd_opts.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_help.h"
#include "sa_detail.h"

#define MIN_INTERVAL 0.1	/* seconds, as watch(1) */
#define MIN_WIDTH 20		/* --width: columns */
#define MAX_WIDTH 10000

static void usage_error(const char *fmt, ...) SA_PRINTF(1, 2) __attribute__((noreturn));

static void usage_error(const char *fmt, ...)
{
	va_list ap;

	if (fmt) {
		fputs("slabacct: ", stderr);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	fputs("Try 'slabacct --help' for more information.\n", stderr);
	exit(EXIT_USAGE);
}

/* ---- the options and what they go with ---- */

/*
 * Every option, as a bit; then facts about the values given (P_*), which
 * the table refuses as it refuses options.
 */
enum {
	O_SORT, O_REVERSE, O_TOP, O_MIN, O_KMALLOC, O_CACHE, O_MODULE, O_GREP,
	O_MIN_SIZE, O_MAX_SIZE, O_BY, O_HUMAN, O_CSV, O_JSON, O_PROM, O_FOLDED,
	O_SVG, O_SUMMARY_ONLY, O_NO_SUMMARY, O_OUTPUT, O_MAX_INPUT, O_DIFF,
	O_ALL, O_FROM_TRACE, O_KALLSYMS, O_LEAKS, O_MIN_AGE, O_ADVISE,
	O_DETAIL, O_WATCH, O_INTERVAL, O_COUNT, O_ONCE, O_BATCH, O_DELTA,
	O_UNLOADS, O_CHECK, O_RULE, O_RULES, O_BASELINE, O_BASELINE_DETAIL,
	O_UNLOADS_FILE, O_KTAP, O_JUNIT, O_SAVE, O_WIDTH, O_FULL_SUMMARY, O_TOPK,
	O_CGROUP, O_NODE, O_TASK, O_STACKS,
	P_FILE,		/* a FILE argument */
	P_OUTPUT_FILE,	/* -o names a file (not -) */
	P_SORT_NOTNUM,	/* the first sort key is frag or caller */
	P_SORT_CALLER,	/* the first sort key is caller */
	P_KEY_SITES,	/* the sort keys have sites */
	P_COUNT_MANY,	/* --count more than 1 */
	P_LEAKS_LIVE,	/* --leaks without --once */
	P_STDIN_KALLSYMS,	/* --kallsyms - and a trace on standard input */
	P_SIZES_EMPTY,	/* --min-size more than --max-size */
	P_SAVE_ONLY,	/* --save-baseline without --check */
	P_WATCH_STDOUT,	/* --watch to standard output (no -o FILE) */
};
/*
 * Options that every command takes (they name where to look something up)
 * have no bit: parse_one() returns NO_BIT for them.
 */
#define O_CGROUP_ROOT 64
#define O_STACKS_FILE 65
#define NO_BIT (-1)
#define B(x) (1ULL << (x))
#define FORMATS (B(O_CSV) | B(O_JSON) | B(O_PROM) | B(O_FOLDED) | B(O_SVG) | B(O_KTAP) | \
		 B(O_JUNIT))
#define FILTERS (B(O_KMALLOC) | B(O_CACHE) | B(O_MODULE) | B(O_GREP) | \
		 B(O_MIN_SIZE) | B(O_MAX_SIZE))
#define WATCHING (B(O_WATCH) | B(O_COUNT) | B(O_BATCH) | B(O_DELTA))

struct why {
	uint64_t opts;		/* these ... */
	const char *msg;	/* ... are refused with this message */
};

/*
 * An entry: when option @opt was given, it needs one of @needs (if not
 * 0); of the other options it takes only @takes (0: any), and refuses
 * those of @why[] (first match) with their messages; an option it does
 * not take and no @why[] names is refused as "OPT does not go with X".
 */
struct compat {
	int opt;
	uint64_t needs;
	const char *needs_msg;
	uint64_t takes;
	struct why why[7];
};

#define LEAKS_ADVISE_TAKE (B(O_TOP) | B(O_MIN) | FILTERS | B(O_HUMAN) | B(O_CSV) | \
			   B(O_JSON) | B(O_OUTPUT) | B(O_MAX_INPUT) | B(O_DETAIL) | \
			   B(O_LEAKS) | B(O_ADVISE) | B(P_FILE) | B(P_OUTPUT_FILE))
#define LEAKS_ADVISE_WHY(m) \
	{ B(O_SORT) | B(O_REVERSE), m " does not go with --sort or --reverse (the ranking is fixed)" }, \
	{ B(O_DIFF) | B(O_ALL), m " does not go with --diff or --all" }, \
	{ B(O_BY), m " does not go with --by" }, \
	{ WATCHING, m " does not go with --watch, --count, --batch or --delta" }, \
	{ B(O_SUMMARY_ONLY) | B(O_NO_SUMMARY), m " does not go with --summary-only or --no-summary" }, \
	{ B(O_PROM) | B(O_FOLDED) | B(O_SVG), m " does not go with --prometheus, --folded or --svg" }

#define CHECK_TAKES (B(O_CHECK) | B(O_RULE) | B(O_RULES) | B(O_BASELINE) | B(O_BASELINE_DETAIL) | \
		     B(O_UNLOADS_FILE) | B(O_DETAIL) | B(O_MIN_AGE) | B(O_KTAP) | B(O_JUNIT) | \
		     B(O_JSON) | B(O_OUTPUT) | B(O_MAX_INPUT) | B(O_SAVE) | \
		     B(P_FILE) | B(P_OUTPUT_FILE))
#define OWN_COMMANDS (B(O_DIFF) | B(O_WATCH) | B(O_LEAKS) | B(O_ADVISE) | B(O_FROM_TRACE))
#define CTX_ONE_MSG "--cgroup, --node and --task each select rows of a file split by that context: one at a time"
#define CHECK_INPUT_MSG "--rule, --rules, --baseline, --baseline-detail and --unloads-file go with --check"

/* Checked in this order; the first refusal found is the message. */
static const struct compat compat[] = {
	{ O_CHECK, 0, NULL, CHECK_TAKES, {
		{ OWN_COMMANDS | B(O_UNLOADS), "--check is a command of its own: not with --diff, --watch, --leaks, --advise, --from-trace or --unloads" } } },
	{ O_UNLOADS, 0, NULL, B(O_UNLOADS) | B(O_MODULE) | B(O_HUMAN) | B(O_CSV) | B(O_JSON) |
	  B(O_OUTPUT) | B(O_MAX_INPUT) | B(P_FILE) | B(P_OUTPUT_FILE), {
		{ OWN_COMMANDS, "--unloads is a command of its own: not with --diff, --watch, --leaks, --advise or --from-trace" } } },
	{ P_SAVE_ONLY, 0, NULL, 0, {
		{ ~(B(O_SAVE) | B(O_MAX_INPUT) | B(P_FILE) | B(P_SAVE_ONLY)),
		  "--save-baseline FILE [SNAPSHOT] saves a snapshot: alone it takes only --max-input (with --check, the check's options)" } } },
	{ O_RULE, B(O_CHECK), CHECK_INPUT_MSG, 0, { { 0, NULL } } },
	{ O_RULES, B(O_CHECK), CHECK_INPUT_MSG, 0, { { 0, NULL } } },
	{ O_BASELINE, B(O_CHECK), CHECK_INPUT_MSG, 0, { { 0, NULL } } },
	{ O_BASELINE_DETAIL, B(O_CHECK), CHECK_INPUT_MSG, 0, { { 0, NULL } } },
	{ O_UNLOADS_FILE, B(O_CHECK), CHECK_INPUT_MSG, 0, { { 0, NULL } } },
	{ O_KTAP, B(O_CHECK), "--ktap and --junit are the outputs of --check", 0, { { 0, NULL } } },
	{ O_JUNIT, B(O_CHECK), "--ktap and --junit are the outputs of --check", 0, { { 0, NULL } } },
	{ O_FROM_TRACE, 0, NULL, 0, {
		{ B(O_ADVISE), "--advise needs the running kernel's size classes: not with --from-trace" },
		{ B(P_LEAKS_LIVE), "--leaks with --from-trace takes --once (the ages at the trace's end)" },
		{ B(O_DETAIL), "--from-trace is the input: not with --detail" },
		{ B(O_WATCH), "--from-trace reads a trace once: not with --watch" },
		{ B(O_DIFF), "--diff takes traces as OLD or NEW (told by content): not with --from-trace" },
		{ B(P_FILE), "--from-trace names the input: no FILE besides it" } } },
	{ O_KALLSYMS, B(O_FROM_TRACE) | B(O_DIFF),
	  "--kallsyms names the call sites of a trace: with --from-trace or --diff", 0, {
		{ B(P_STDIN_KALLSYMS), "--kallsyms and the trace cannot both be standard input" } } },
	{ O_LEAKS, 0, NULL, LEAKS_ADVISE_TAKE | B(O_MIN_AGE) | B(O_INTERVAL) | B(O_ONCE) |
	  B(O_FROM_TRACE) | B(O_KALLSYMS) | B(P_LEAKS_LIVE), {
		{ B(O_ADVISE), "--leaks and --advise exclude each other" },
		LEAKS_ADVISE_WHY("--leaks") } },
	{ O_ADVISE, 0, NULL, LEAKS_ADVISE_TAKE, {
		LEAKS_ADVISE_WHY("--advise"),
		{ B(O_ONCE) | B(O_INTERVAL) | B(O_MIN_AGE), "--once, --interval and --leaks-min-age go with --leaks" } } },
	{ O_DETAIL, B(O_LEAKS) | B(O_ADVISE) | B(O_CHECK) | B(O_STACKS), "--detail goes with --leaks, --advise, --check or --stacks", 0, { { 0, NULL } } },
	{ O_MIN_AGE, B(O_LEAKS) | B(O_ADVISE) | B(O_CHECK), "--detail and --leaks-min-age go with --leaks, --advise or --check", 0, { { 0, NULL } } },
	{ O_INTERVAL, B(O_WATCH) | B(O_LEAKS), "--interval, --count, --batch and --delta go with --watch", 0, { { 0, NULL } } },
	{ O_COUNT, B(O_WATCH), "--interval, --count, --batch and --delta go with --watch", 0, { { 0, NULL } } },
	{ O_BATCH, B(O_WATCH), "--interval, --count, --batch and --delta go with --watch", 0, { { 0, NULL } } },
	{ O_DELTA, B(O_WATCH), "--interval, --count, --batch and --delta go with --watch", 0, { { 0, NULL } } },
	{ O_MIN, 0, NULL, 0, { { B(P_SORT_CALLER), "--min needs a numeric first sort key (not caller)" } } },
	{ O_MIN_SIZE, 0, NULL, 0, { { B(P_SIZES_EMPTY), "--min-size is more than --max-size: no call site can pass both" } } },
	{ O_ALL, B(O_DIFF), "--all goes with --diff", 0, { { 0, NULL } } },
	{ O_CGROUP, 0, NULL, 0, { { B(O_NODE) | B(O_TASK), CTX_ONE_MSG } } },
	{ O_STACKS, 0, NULL, 0, {
		{ B(O_BY), "--stacks nests each captured site's stacks: not with --by" },
		{ B(O_DIFF) | WATCHING, "--stacks shows one file: not with --diff or --watch" },
		{ FORMATS & ~B(O_JSON), "--stacks is a text or JSON view: not with another format" },
		{ B(O_SUMMARY_ONLY) | B(O_NO_SUMMARY), "--stacks has trees only: --summary-only and --no-summary do not go with it" },
		{ B(P_SORT_NOTNUM), "--stacks orders the branches by the first sort key: a number of bytes or a count (not frag or caller)" } } },
	{ O_NODE, 0, NULL, 0, { { B(O_CGROUP) | B(O_TASK), CTX_ONE_MSG } } },
	{ P_KEY_SITES, B(O_BY), "--sort: the key sites goes with --by", 0, { { 0, NULL } } },
	{ O_BY, 0, NULL, 0, {
		{ B(O_SUMMARY_ONLY), "--by groups the rows: --summary-only does not go with it" },
		{ B(O_FOLDED) | B(O_SVG), "--by does not go with --folded or --svg: they nest call sites in functions in modules already" },
		{ B(O_PROM), "--by does not go with --prometheus: its series carry module and function labels (sum by (module) in PromQL)" } } },
	{ O_WATCH, 0, NULL, 0, {
		{ B(O_DIFF) | B(O_JSON), "--watch shows the text or CSV report of one file, or its Prometheus metrics with -o FILE (no --diff or --json)" } } },
	{ O_SVG, 0, NULL, 0, {
		{ B(P_OUTPUT_FILE), "--svg FILE names its file: not with -o" },
		{ B(O_DIFF) | B(O_WATCH), "--svg draws one file: not with --diff or --watch" },
		{ B(P_SORT_NOTNUM), "--svg sizes the areas by the first sort key: a number of bytes or a count (not frag or caller)" },
		{ B(O_SUMMARY_ONLY), "--svg draws rows: --summary-only does not go with it" } } },
	{ O_FOLDED, 0, NULL, 0, {
		{ B(O_DIFF) | B(O_WATCH), "--folded writes one file's stacks: not with --diff or --watch" },
		{ B(P_SORT_NOTNUM), "--folded weighs the stacks by the first sort key: a number of bytes or a count (not frag or caller)" },
		{ B(O_SUMMARY_ONLY), "--folded has rows only: --summary-only does not go with it" } } },
	{ O_PROM, 0, NULL, 0, {
		{ B(O_DIFF), "--prometheus writes one file's metrics: not with --diff" },
		{ B(O_DELTA), "--prometheus has counters: --delta does not go with it" },
		{ B(P_WATCH_STDOUT), "--watch --prometheus replaces -o FILE at each refresh: give it a file (expositions appended to standard output are not one exposition)" } } },
	{ O_TOPK, B(O_PROM), "--top-k bounds the series of --prometheus: use -n for the other formats", 0, { { 0, NULL } } },
	{ O_CSV, 0, NULL, 0, {
		{ B(O_SUMMARY_ONLY), "--csv has rows only: --summary-only does not go with it" } } },
	{ O_WIDTH, 0, NULL, 0, {
		{ FORMATS, "--width fits the text report: not with another format" } } },
	{ O_FULL_SUMMARY, B(O_WATCH), "--full-summary goes with --watch (the report's summary is full)", 0, {
		{ FORMATS, "--full-summary goes with the text --watch: not with another format" },
		{ B(O_SUMMARY_ONLY) | B(O_NO_SUMMARY), "--full-summary does not go with --summary-only or --no-summary" } } },
};

/* Options of which one at most may be given. */
static const struct why exclusive[] = {
	{ FORMATS, "--csv, --json, --prometheus, --folded, --svg, --ktap and --junit exclude each other" },
	{ B(O_SUMMARY_ONLY) | B(O_NO_SUMMARY), "--summary-only and --no-summary exclude each other" },
	{ B(O_ONCE) | B(P_COUNT_MANY), "--once and --count exclude each other" },
	{ B(O_KMALLOC) | B(O_CACHE), "--kmalloc and --cache exclude each other" },
	{ B(O_TOP) | B(O_TOPK), "--top and --top-k exclude each other (with --prometheus they are the same bound)" },
};

static const struct option long_opts[] = {
	{ "sort", required_argument, NULL, 's' },
	{ "reverse", no_argument, NULL, 'r' },
	{ "top", required_argument, NULL, 'n' },
	{ "top-k", required_argument, NULL, 256 + O_TOPK },
	{ "kmalloc", no_argument, NULL, 256 + O_KMALLOC },
	{ "cache", optional_argument, NULL, 256 + O_CACHE },
	{ "module", required_argument, NULL, 'm' },
	{ "grep", required_argument, NULL, 'g' },
	{ "human", no_argument, NULL, 'H' },
	{ "csv", no_argument, NULL, 256 + O_CSV },
	{ "json", no_argument, NULL, 256 + O_JSON },
	{ "prometheus", no_argument, NULL, 256 + O_PROM },
	{ "openmetrics", no_argument, NULL, 256 + O_PROM },	/* its former name */
	{ "folded", no_argument, NULL, 256 + O_FOLDED },
	{ "svg", required_argument, NULL, 256 + O_SVG },
	{ "summary-only", no_argument, NULL, 256 + O_SUMMARY_ONLY },
	{ "no-summary", no_argument, NULL, 256 + O_NO_SUMMARY },
	{ "diff", no_argument, NULL, 'd' },
	{ "all", no_argument, NULL, 'a' },
	{ "by", required_argument, NULL, 'b' },
	{ "watch", no_argument, NULL, 'w' },
	{ "interval", required_argument, NULL, 'i' },
	{ "count", required_argument, NULL, 256 + O_COUNT },
	{ "once", no_argument, NULL, 256 + O_ONCE },
	{ "batch", no_argument, NULL, 256 + O_BATCH },
	{ "delta", no_argument, NULL, 256 + O_DELTA },
	{ "min", required_argument, NULL, 256 + O_MIN },
	{ "min-size", required_argument, NULL, 'z' },
	{ "max-size", required_argument, NULL, 'Z' },
	{ "output", required_argument, NULL, 'o' },
	{ "max-input", required_argument, NULL, 256 + O_MAX_INPUT },
	{ "leaks", no_argument, NULL, 256 + O_LEAKS },
	{ "advise", no_argument, NULL, 256 + O_ADVISE },
	{ "detail", required_argument, NULL, 256 + O_DETAIL },
	{ "leaks-min-age", required_argument, NULL, 256 + O_MIN_AGE },
	{ "from-trace", required_argument, NULL, 256 + O_FROM_TRACE },
	{ "kallsyms", required_argument, NULL, 256 + O_KALLSYMS },
	{ "unloads", no_argument, NULL, 256 + O_UNLOADS },
	{ "check", no_argument, NULL, 256 + O_CHECK },
	{ "rule", required_argument, NULL, 'R' },
	{ "rules", required_argument, NULL, 256 + O_RULES },
	{ "baseline", required_argument, NULL, 256 + O_BASELINE },
	{ "baseline-detail", required_argument, NULL, 256 + O_BASELINE_DETAIL },
	{ "unloads-file", required_argument, NULL, 256 + O_UNLOADS_FILE },
	{ "ktap", no_argument, NULL, 256 + O_KTAP },
	{ "junit", no_argument, NULL, 256 + O_JUNIT },
	{ "save-baseline", required_argument, NULL, 256 + O_SAVE },
	{ "width", required_argument, NULL, 256 + O_WIDTH },
	{ "full-summary", no_argument, NULL, 256 + O_FULL_SUMMARY },
	{ "cgroup", required_argument, NULL, 256 + O_CGROUP },
	{ "node", required_argument, NULL, 256 + O_NODE },
	{ "task", required_argument, NULL, 256 + O_TASK },
	{ "cgroup-root", required_argument, NULL, 256 + O_CGROUP_ROOT },
	{ "stacks", no_argument, NULL, 256 + O_STACKS },
	{ "stacks-file", required_argument, NULL, 256 + O_STACKS_FILE },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* The short options' bits. */
static const struct {
	int c, opt;
} short_opts[] = {
	{ 's', O_SORT }, { 'r', O_REVERSE }, { 'n', O_TOP }, { 'm', O_MODULE },
	{ 'g', O_GREP }, { 'H', O_HUMAN }, { 'd', O_DIFF }, { 'a', O_ALL },
	{ 'b', O_BY }, { 'w', O_WATCH }, { 'i', O_INTERVAL }, { 'z', O_MIN_SIZE },
	{ 'Z', O_MAX_SIZE }, { 'o', O_OUTPUT }, { 'R', O_RULE },
};

/* The name of option bit @opt, for messages: --long. */
static const char *opt_name(int opt)
{
	const struct option *l;

	for (l = long_opts; l->name; l++) {
		size_t i;
		int bit = l->val >= 256 ? l->val - 256 : -1;

		for (i = 0; bit < 0 && i < sizeof(short_opts) / sizeof(short_opts[0]); i++)
			if (short_opts[i].c == l->val)
				bit = short_opts[i].opt;
		if (bit == opt)
			return l->name;
	}
	return "?";
}

/* Refuse what @given holds against the table (usage error, exit 2). */
static void check_compat(uint64_t given)
{
	size_t i, k;

	for (i = 0; i < sizeof(exclusive) / sizeof(exclusive[0]); i++) {
		uint64_t m = given & exclusive[i].opts;

		if (m & (m - 1))
			usage_error("%s", exclusive[i].msg);
	}
	for (i = 0; i < sizeof(compat) / sizeof(compat[0]); i++) {
		const struct compat *e = &compat[i];
		uint64_t bad;

		if (!(given & B(e->opt)))
			continue;
		if (e->needs && !(given & e->needs))
			usage_error("%s", e->needs_msg);
		bad = given & ~B(e->opt) & (e->takes ? ~e->takes : 0);
		for (k = 0; k < sizeof(e->why) / sizeof(e->why[0]) && e->why[k].msg; k++) {
			if (given & e->why[k].opts)
				usage_error("%s", e->why[k].msg);
		}
		for (k = 0; k < 64 && bad; k++)
			if (bad & B(k))
				usage_error("--%s does not go with --%s", opt_name(e->opt), opt_name((int)k));
	}
}

/* ---- the values ---- */

static uint64_t positive(const char *opt, const char *arg)
{
	uint64_t v;

	if (sa_parse_u64(arg, strlen(arg), &v) || v == 0)
		usage_error("%s: '%s' is not a positive whole number", opt, arg);
	return v;
}

/* -s KEY[,KEY...] */
static void parse_sort_keys(struct sa_select *s, const char *arg)
{
	const char *p = arg;

	s->nkeys = 0;
	for (;;) {
		size_t len = strcspn(p, ",");

		if (s->nkeys == SA_MAX_KEYS)
			usage_error("--sort: at most %d keys", SA_MAX_KEYS);
		if (sa_key_parse(p, len, &s->keys[s->nkeys++]))
			usage_error("unknown sort key '%.*s' (%s)", (int)len, p, sa_key_list);
		if (!p[len])
			break;
		p += len + 1;
	}
}

/* A size: digits, then optionally K, M, G, T, P or E (1024 based). */
static uint64_t parse_size(const char *opt, const char *arg)
{
	uint64_t v;

	if (sa_parse_size(arg, strlen(arg), &v))
		usage_error("%s: '%s' is not a size (a whole number, optionally with K, M, G, T, P or E)",
			    opt, arg);
	return v;
}

/* --by KEY */
static enum sa_by parse_by(const char *arg)
{
	int i;

	for (i = SA_BY_MODULE; i <= SA_BY_STACK; i++)
		if (strcmp(arg, sa_by_names[i]) == 0)
			return (enum sa_by)i;
	usage_error("--by: unknown key '%s' (module, function, cache, type, cgroup, node, task or stack)",
		    arg);
}

static const enum fmt fmt_of[] = {
	[O_CSV] = FMT_CSV, [O_JSON] = FMT_JSON, [O_PROM] = FMT_PROM,
	[O_FOLDED] = FMT_FOLDED, [O_SVG] = FMT_SVG, [O_KTAP] = FMT_KTAP, [O_JUNIT] = FMT_JUNIT,
};

/* One option's value into @o; its bit. */
static int parse_one(struct opts *o, int c, const char *arg, const char **svg)
{
	size_t i;
	char *end;
	uint64_t v;

	for (i = 0; i < sizeof(short_opts) / sizeof(short_opts[0]); i++)
		if (short_opts[i].c == c)
			c = 256 + short_opts[i].opt;
	switch (c - 256) {
	case O_SORT:
		parse_sort_keys(&o->sel, arg);
		break;
	case O_REVERSE:
		o->sel.reverse = 1;
		break;
	case O_TOP:
		o->sel.top = positive("--top", arg);
		break;
	case O_TOPK:
		o->sel.top = positive("--top-k", arg);
		break;
	case O_MIN:
		o->sel.min = parse_size("--min", arg);
		o->sel.min_set = 1;
		break;
	case O_KMALLOC:
		o->sel.filter.only_kmalloc = 1;
		break;
	case O_CACHE:
		o->sel.filter.only_cache = 1;
		free(o->cache_name);
		o->cache_name = NULL;
		if (arg && !*arg)
			usage_error("--cache=: an empty cache name (--cache alone keeps every kmem_cache row)");
		if (arg) {
			/* the file writes whitespace in names as '_' */
			o->cache_name = strdup(arg);
			if (!o->cache_name)
				usage_error("out of memory");
			for (i = 0; o->cache_name[i]; i++)
				if (o->cache_name[i] == ' ' || o->cache_name[i] == '\t')
					o->cache_name[i] = '_';
		}
		o->sel.filter.cache_name = o->cache_name;
		break;
	case O_MODULE:
		o->sel.filter.module = arg;
		break;
	case O_GREP:
		o->sel.filter.grep = arg;
		break;
	case O_MIN_SIZE:
		o->sel.filter.min_size = parse_size("--min-size", arg);
		break;
	case O_MAX_SIZE:
		o->sel.filter.max_size = parse_size("--max-size", arg);
		break;
	case O_BY:
		o->sel.by = parse_by(arg);
		break;
	case O_HUMAN:
		o->human = 1;
		break;
	case O_SVG:
		*svg = arg;
		/* fall through */
	case O_CSV:
	case O_JSON:
	case O_PROM:
	case O_FOLDED:
	case O_KTAP:
	case O_JUNIT:
		o->fmt = fmt_of[c - 256];
		break;
	case O_UNLOADS:
		o->cmd = CMD_UNLOADS;
		break;
	case O_CHECK:
		o->cmd = CMD_CHECK;
		break;
	case O_SAVE:
		o->save = arg;
		if (o->cmd != CMD_CHECK)
			o->cmd = CMD_SAVE;
		break;
	case O_RULE:	/* room for every argument, at the first */
		if (!o->rules && !(o->rules = calloc((size_t)o->argc + 1, sizeof(*o->rules)))) {
			fputs("slabacct: out of memory\n", stderr);
			exit(EXIT_USAGE);	/* --rule is --check's: it could not run */
		}
		o->rules[o->nrules++] = arg;
		break;
	case O_RULES:
		o->rules_file = arg;
		break;
	case O_BASELINE:
		o->baseline = arg;
		break;
	case O_BASELINE_DETAIL:
		o->baseline_detail = arg;
		break;
	case O_UNLOADS_FILE:
		o->unloads = arg;
		break;
	case O_SUMMARY_ONLY:
		o->summary = SUM_ONLY;
		break;
	case O_NO_SUMMARY:
		o->summary = SUM_NONE;
		break;
	case O_OUTPUT:
		if (arg[0] == '-' && arg[1])
			usage_error("--output: '%s' is not a file name (slabtop's -o is --once here)",
				    arg);
		o->output = arg[0] == '-' ? NULL : arg;	/* '-': standard output */
		break;
	case O_MAX_INPUT:
		o->max_input = parse_size("--max-input", arg);
		if (!o->max_input)
			usage_error("--max-input: '%s' is not a positive size", arg);
		break;
	case O_DIFF:
		o->cmd = o->cmd > CMD_DIFF ? o->cmd : CMD_DIFF;
		break;
	case O_ALL:
		o->sel.all = 1;
		break;
	case O_FROM_TRACE:
		o->from_trace = arg;
		break;
	case O_KALLSYMS:
		o->kallsyms = arg;
		break;
	case O_LEAKS:
		o->cmd = o->cmd > CMD_ADVISE ? o->cmd : CMD_LEAKS;
		break;
	case O_ADVISE:
		o->cmd = o->cmd == CMD_LEAKS || o->cmd > CMD_ADVISE ? o->cmd : CMD_ADVISE;
		break;
	case O_MIN_AGE:
		if (sa_parse_u64(arg, strlen(arg), &o->min_age))
			usage_error("--leaks-min-age: '%s' is not a whole number of seconds", arg);
		break;
	case O_DETAIL:
		o->detail = arg;
		break;
	case O_WATCH:
		o->cmd = o->cmd > CMD_WATCH ? o->cmd : CMD_WATCH;
		break;
	case O_INTERVAL:
		errno = 0;
		o->interval = strtod(arg, &end);
		if (errno || end == arg || *end || !isfinite(o->interval) ||
		    o->interval < MIN_INTERVAL || o->interval > 86400)
			usage_error("--interval: '%s' is not a number of seconds (%g <= SECS <= 86400)",
				    arg, MIN_INTERVAL);
		break;
	case O_COUNT:
		o->count = positive("--count", arg);
		break;
	case O_ONCE:
		o->once = 1;
		break;
	case O_BATCH:
		o->batch = 1;
		break;
	case O_DELTA:
		o->delta = 1;
		break;
	case O_WIDTH:
		if (sa_parse_u64(arg, strlen(arg), &v) || (v && (v < MIN_WIDTH || v > MAX_WIDTH)))
			usage_error("--width: '%s' is not a number of columns (0: not fitted, or %d to %d)",
				    arg, MIN_WIDTH, MAX_WIDTH);
		o->width = (size_t)v;
		o->width_set = 1;
		break;
	case O_FULL_SUMMARY:
		o->full_summary = 1;
		break;
	case O_CGROUP:
		o->cgroup = arg;
		o->sel.filter.cgroup_set = 1;
		break;
	case O_NODE:
		if (sa_parse_u64(arg, strlen(arg), &o->sel.filter.node))
			usage_error("--node: '%s' is not a node number", arg);
		o->sel.filter.node_set = 1;
		break;
	case O_TASK:
		if (!*arg)
			usage_error("--task: an empty task name");
		/* the file writes whitespace in names as '_' */
		free(o->task);
		o->task = strdup(arg);
		if (!o->task)
			usage_error("out of memory");
		for (i = 0; o->task[i]; i++)
			if (o->task[i] == ' ' || o->task[i] == '\t')
				o->task[i] = '_';
		o->sel.filter.task = o->task;
		break;
	case O_CGROUP_ROOT:
		o->cgroup_root = arg;
		return NO_BIT;
	case O_STACKS:
		o->stacks = 1;
		break;
	case O_STACKS_FILE:
		o->stacks_file = arg;
		return NO_BIT;
	default:
		if (c == 'h') {
			opts_usage(stdout);
			exit(fflush(stdout) ? 1 : 0);
		}
		if (c == 'V') {
			printf("slabacct " SLABACCT_VERSION " (reads /proc/slab_account format %d.x)\n",
			       SA_FORMAT_MAJOR);
			exit(fflush(stdout) ? 1 : 0);
		}
		usage_error(NULL);
	}
	return c - 256;
}

static int is_stdin(const char *path)
{
	return path && strcmp(path, "-") == 0;
}

/* The FILE arguments each command takes (after the table). */
static void check_args(struct opts *o, int interval_set)
{
	int n = o->nargs;
	char **a = o->args;

	switch (o->cmd) {
	case CMD_ADVISE:
		if (n > 1)
			usage_error("--advise reads one FILE (the detail file is --detail's)");
		if (n && is_stdin(a[0]) && is_stdin(o->detail))
			usage_error("--advise: FILE and --detail cannot both be standard input");
		break;
	case CMD_LEAKS:
		if (n > 2 || (o->once && n > 1) || (!o->once && n == 1))
			usage_error("--leaks takes two snapshots OLD NEW, none (it reads the detail file twice), or --once [FILE]");
		if (n && strcmp(o->detail, SA_DETAIL_PATH))
			usage_error("--detail names the file --leaks reads when no FILE is given");
		if (n == 2 && is_stdin(a[0]) && is_stdin(a[1]))
			usage_error("--leaks: OLD and NEW cannot both be standard input");
		if (interval_set && (n || o->once))
			usage_error("--interval goes with a live --leaks (no FILE, no --once)");
		if (interval_set && o->interval < 1.0)
			usage_error("--leaks: --interval is at least 1 second (the module's clock counts seconds)");
		if (!n && !o->once && is_stdin(o->detail))
			usage_error("--leaks reads the detail file twice: it cannot read standard input");
		break;
	case CMD_DIFF:
		if (n != 2)
			usage_error("--diff needs two files, OLD and NEW");
		if (is_stdin(a[0]) && is_stdin(a[1]))
			usage_error("--diff: OLD and NEW cannot both be standard input");
		break;
	case CMD_REPORT:
	case CMD_WATCH:
		if (n > 1)
			usage_error("one FILE at most (or --diff OLD NEW)");
		if (o->cmd == CMD_WATCH && n && is_stdin(a[0]))
			usage_error("--watch rereads the file: it cannot read standard input");
		break;
	case CMD_UNLOADS:
		if (n > 2)
			usage_error("--unloads reads [UNLOADS [SNAPSHOT]]: the unloads file, and a later snapshot to tell what was freed since");
		if (n == 2 && is_stdin(a[0]) && is_stdin(a[1]))
			usage_error("--unloads: UNLOADS and SNAPSHOT cannot both be standard input");
		break;
	case CMD_CHECK:
		if (n > 2 || (n == 2 && o->baseline))
			usage_error("--check reads [BASELINE] CURRENT (or --baseline FILE and [CURRENT])");
		if (n == 2)
			o->baseline = a[0];
		if (!o->nrules && !o->rules_file)
			usage_error("--check needs rules: --rule RULE (repeated) or --rules FILE");
		if ((n && is_stdin(a[n - 1])) + is_stdin(o->baseline) + is_stdin(o->rules_file) +
		    is_stdin(o->unloads) + is_stdin(o->detail) + is_stdin(o->baseline_detail) > 1)
			usage_error("--check: standard input can be one of its inputs only");
		break;
	case CMD_SAVE:
		if (n > 1)
			usage_error("--save-baseline FILE saves one SNAPSHOT (default " SA_DEFAULT_PATH ")");
		break;
	case CMD_N:
		break;
	}
}

void opts_parse(struct opts *o, int argc, char **argv)
{
	uint64_t given = 0;
	const char *svg = NULL;
	int c, i;

	memset(o, 0, sizeof(*o));
	o->sel.keys[0] = SA_TOTAL;
	o->sel.nkeys = 1;
	o->interval = 2.0;
	o->max_input = SA_MAX_INPUT;
	argv[0] = (char *)"slabacct";	/* getopt's messages name the program */
	o->argc = argc;
	while ((c = getopt_long(argc, argv, "s:rn:m:g:Hdab:wi:hVz:Z:o:R:", long_opts, NULL)) != -1) {
		int bit = parse_one(o, c, optarg, &svg);

		if (bit != NO_BIT)
			given |= B(bit);
	}
	o->nargs = argc - optind;
	o->args = argv + optind;
	if (o->nargs)
		given |= B(P_FILE);
	if (o->output)
		given |= B(P_OUTPUT_FILE);
	if (o->sel.keys[0] == SA_KEY_FRAG || o->sel.keys[0] == SA_KEY_CALLER)
		given |= B(P_SORT_NOTNUM);
	if (o->sel.keys[0] == SA_KEY_CALLER)
		given |= B(P_SORT_CALLER);
	for (i = 0; i < (int)o->sel.nkeys; i++)
		if (o->sel.keys[i] == SA_KEY_SITES)
			given |= B(P_KEY_SITES);
	if (o->count > 1)
		given |= B(P_COUNT_MANY);
	if (o->sel.filter.max_size && o->sel.filter.min_size > o->sel.filter.max_size)
		given |= B(P_SIZES_EMPTY);
	if (o->cmd == CMD_LEAKS && !o->once)
		given |= B(P_LEAKS_LIVE);
	if (o->save && o->cmd != CMD_CHECK)
		given |= B(P_SAVE_ONLY);
	if ((given & B(O_WATCH)) && !o->output)
		given |= B(P_WATCH_STDOUT);
	if (is_stdin(o->kallsyms) &&
	    (is_stdin(o->from_trace) ||
	     ((given & B(O_DIFF)) && o->nargs == 2 && (is_stdin(o->args[0]) || is_stdin(o->args[1])))))
		given |= B(P_STDIN_KALLSYMS);
	if (o->once)
		o->count = 1;
	check_compat(given);
	if (o->cmd == CMD_LEAKS || o->cmd == CMD_ADVISE) {
		if (!o->detail)
			o->detail = SA_DETAIL_PATH;
	}
	if ((o->cmd == CMD_LEAKS || o->cmd == CMD_CHECK) && !(given & B(O_MIN_AGE)))
		o->min_age = 10;
	if (!o->from_trace)
		check_args(o, (given & B(O_INTERVAL)) != 0);
	if (o->cmd == CMD_LEAKS && !(given & B(O_INTERVAL)))
		o->interval = 10.0;
	if (svg) {
		o->output = strcmp(svg, "-") ? svg : NULL;
		if (!(given & B(O_SORT)))
			o->sel.keys[0] = SA_LIVE;	/* what holds memory now */
	}
	if (o->fmt == FMT_PROM && !o->sel.top)
		o->sel.top = METRICS_TOP;
}

void opts_free(struct opts *o)
{
	sa_cgroups_free(&o->cg);
	free(o->task);
	o->task = NULL;
	free(o->cache_name);
	o->cache_name = NULL;
	free(o->rules);
	o->rules = NULL;
}
