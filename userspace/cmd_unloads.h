// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_unloads - --unloads [UNLOADS [SNAPSHOT]]: what each module load left
 * live at its unload, and, joined with a later snapshot, what of it was
 * freed since (docs/reader.md, "Unloads").
 */
#ifndef CMD_UNLOADS_H
#define CMD_UNLOADS_H

#include "cmd_opts.h"

/* --unloads: the exit status. */
int cmd_unloads(const struct opts *o);

#endif /* CMD_UNLOADS_H */
