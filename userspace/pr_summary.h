// SPDX-License-Identifier: GPL-2.0
/*
 * pr_summary - a file's summary lines as the reports show them: the text
 * report's (one file, or OLD -> NEW (delta) with --diff) with its
 * warnings, and JSON's "summary" (every line of the file).
 */
#ifndef PR_SUMMARY_H
#define PR_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "sa_json.h"
#include "sa_parse.h"

/* The number of summary line @key, 0 when absent or not a number. */
uint64_t pr_summary_num(const struct sa_file *f, const char *key);

/* The text summary of @f (sizes human with @human), then its warnings; the lines written. */
int pr_summary_text(const struct sa_file *f, int human);

/* The text summary OLD -> NEW (delta), then NEW's warnings; the lines written. */
int pr_summary_diff(const struct sa_file *old, const struct sa_file *new, int human);

/*
 * The summary of @new, or with @old OLD's -> NEW's, in a few lines (a
 * terminal's --watch): items "name value" (NEW's value and the change in
 * parentheses with @old) flowed into lines of @width columns, the names
 * those of the report's columns where there is one; then the warnings.
 * The lines written.
 */
int pr_summary_compact(const struct sa_file *old, const struct sa_file *new, int human,
		       size_t width);

/* JSON's "summary" member: @new's lines, or with @old {old, new, delta} per key. */
void pr_summary_json(struct sa_json *j, const struct sa_file *old,
		     const struct sa_file *new);

#endif /* PR_SUMMARY_H */
