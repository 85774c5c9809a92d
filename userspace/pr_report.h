// SPDX-License-Identifier: GPL-2.0
/*
 * pr_report - the report's table: the columns of the rows model's items
 * (one file, --diff, --by, --by with --diff), which the text, CSV and JSON
 * printers of sa_table print.
 */
#ifndef PR_REPORT_H
#define PR_REPORT_H

#include "sa_rows.h"
#include "sa_table.h"

/*
 * The report's table of @r: its columns in every format (the caller column
 * titled after --by's key), @human for -H.
 */
void pr_report_table(const struct sa_rows *r, int human, struct sa_table *t);

#endif /* PR_REPORT_H */
