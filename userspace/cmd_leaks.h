// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_leaks - --leaks: which call sites hold old objects and, given two
 * snapshots of the detail file, grow (docs/reader.md, "Leaks").
 */
#ifndef CMD_LEAKS_H
#define CMD_LEAKS_H

#include "cmd_opts.h"

/* --leaks [OLD NEW | --once [FILE]] (or --once --from-trace): the exit status. */
int cmd_leaks(const struct opts *o);

#endif /* CMD_LEAKS_H */
