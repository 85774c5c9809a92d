// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_watch - --watch: the report again every interval, on a terminal
 * redrawn in place (as slabtop), elsewhere appended (or, with -o, FILE
 * replaced each time); --delta shows the changes since the last refresh.
 */
#ifndef CMD_WATCH_H
#define CMD_WATCH_H

#include "cmd_opts.h"

/* --watch [FILE]: the exit status. */
int cmd_watch(const struct opts *o);

#endif /* CMD_WATCH_H */
