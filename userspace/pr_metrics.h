// SPDX-License-Identifier: GPL-2.0
/*
 * pr_metrics - --prometheus: the summary and the call sites as metrics in
 * the Prometheus text exposition format 0.0.4 (what node_exporter's
 * textfile collector and `promtool check metrics` read).
 */
#ifndef PR_METRICS_H
#define PR_METRICS_H

#include "sa_rows.h"

/*
 * The metrics of @r's file: slab_account_up 1 and its summary (unless
 * !@summary), and @r's rows
 * with the rest of the file's call sites as site="other" (unless !@rows);
 * (1.6) of a file split by cgroup, node or task, those series per context,
 * labelled with it, the bound within each.
 * 0, or -1 with *@err a malloc()ed message (NULL: no memory).
 */
int pr_metrics(const struct sa_rows *r, int summary, int rows, char **err);

/* The metrics of a file that could not be read: slab_account_up 0. */
void pr_metrics_down(void);

#endif /* PR_METRICS_H */
