/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Module loads as owners of call sites (sa_loads.c): a site in a module's
 * code belongs to that load; when the module unloads its sites are
 * retired (rows kept, never joined by a later load at the same
 * addresses) and the unload's verdict kept (sa_unloads.c).
 */
#ifndef SLAB_ACCOUNT_LOADS_H
#define SLAB_ACCOUNT_LOADS_H

#include <linux/types.h>

struct seq_file;

/* Module loads numbered (each a record of 72 bytes, in .bss). */
#define SA_MAX_LOADS	1024

/*
 * Under sa_ctl_lock: has load @owner's module (a site's sa_site.owner:
 * 1 + the load's index, set when the site is retired) unloaded?  Its
 * load number (1: loaded before or first seen) and name.
 */
bool sa_load_gone(u16 owner);
unsigned int sa_load_seq(u16 owner);
const char *sa_load_name(u16 owner);

/*
 * Under sa_ctl_lock, for the file's header: loads and unloads seen, and
 * a line "reloaded MODULE: N" for each module whose live load is not its
 * first since slab_account was loaded.
 */
void sa_loads_header(struct seq_file *m);

/* The text of @mod, its init text with @init: [*start, *end). */
struct module;
void sa_loads_text(const struct module *mod, bool init,
		   unsigned long *start, unsigned long *end);

/* Watch modules come and go (a module notifier); 0 or an errno. */
int sa_loads_watch(void);
void sa_loads_unwatch(void);

#endif /* SLAB_ACCOUNT_LOADS_H */
