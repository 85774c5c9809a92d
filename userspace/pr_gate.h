// SPDX-License-Identifier: GPL-2.0
/*
 * pr_gate - the gate's results (sa_gate.h) for people and for CI systems:
 * text (each rule PASS or FAIL, what was measured, the offenders), KTAP
 * (kselftest's format: each rule a test, `#` diagnostic lines naming the
 * offenders), JUnit XML (testsuites, testsuite, a testcase per rule, a
 * failure element with the offenders) and JSON.  A gate that could not
 * run (@error) is one test in error: KTAP `not ok 1 ... # error`, JUnit
 * an error element (errors="1"), JSON an "error" member.
 */
#ifndef PR_GATE_H
#define PR_GATE_H

#include <stddef.h>

#include "sa_gate.h"

#define PR_GATE_SHOWN 10	/* offenders listed per rule in text, KTAP and JUnit */

struct pr_gate {
	const char *current, *baseline;	/* the files' names (baseline NULL: none) */
	const char *unloads, *detail, *baseline_detail;	/* NULL: not read */
	const char *const *notes;	/* what the inputs say about each other */
	size_t nnotes;
	const struct sa_result *res;
	size_t n;
	const char *error;	/* why the gate could not run (then no result), or NULL */
};

void pr_gate_text(const struct pr_gate *g);
void pr_gate_ktap(const struct pr_gate *g);
void pr_gate_junit(const struct pr_gate *g);
/* JSON: 0, or -1 without memory (nothing written). */
int pr_gate_json(const struct pr_gate *g);

#endif /* PR_GATE_H */
