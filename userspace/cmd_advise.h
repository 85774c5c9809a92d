// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_advise - --advise: per call site of the main file, joined with the
 * detail file by type and caller, what to change to waste less, ranked by
 * the bytes it saves (docs/reader.md, "Advice: --advise").
 */
#ifndef CMD_ADVISE_H
#define CMD_ADVISE_H

#include "cmd_opts.h"

/* --advise [FILE]: the exit status. */
int cmd_advise(const struct opts *o);

#endif /* CMD_ADVISE_H */
