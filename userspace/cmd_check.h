// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_check - the gate: slabacct --check judges rules (sa_rules.h) over a
 * snapshot, or a baseline and a current snapshot, with the unloads file
 * and two detail files when rules need them, and exits 0 when all hold, 1
 * when one fails, 2 when it could not run (a usage error, a bad rule, an
 * input that cannot be read, is malformed or cut short); --save-baseline
 * saves the snapshot read as a baseline (docs/reader.md, "The gate").
 */
#ifndef CMD_CHECK_H
#define CMD_CHECK_H

#include "cmd_opts.h"

/* --check: the exit status. */
int cmd_check(const struct opts *o);

/* --save-baseline FILE [SNAPSHOT] alone: the exit status. */
int cmd_save(const struct opts *o);

#endif /* CMD_CHECK_H */
