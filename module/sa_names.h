/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Call sites' names, kept as they were when the site was first seen
 * (sa_names.c): the code of a module's __init section or of an unloaded
 * module has no name any more when the file is read.
 */
#ifndef SLAB_ACCOUNT_NAMES_H
#define SLAB_ACCOUNT_NAMES_H

#include <linux/types.h>

struct sa_site;

/* Room for the names of @sites sites; its bytes in *@bytes. */
int sa_names_alloc(unsigned long sites, size_t *bytes);
/* The bytes that room takes. */
size_t sa_names_bytes(unsigned long sites);
void sa_names_free(void);

/* Under sa_ctl_lock: name every site that has no name yet. */
void sa_names_resolve_all(void);
/*
 * Under sa_ctl_lock: name @e now if it has no name yet (its code is about
 * to go: sa_sites_retire()).  A context row's name is its parent's.
 */
void sa_name_keep(struct sa_site *e);

/*
 * Under sa_ctl_lock: the name of @e's caller as %pS prints it, resolved
 * now if it was not yet; NULL when the address has no symbol (the file
 * prints it with %pK then).  @buf (KSYM_SYMBOL_LEN) is used when the
 * room for names is full.
 */
const char *sa_site_name(struct sa_site *e, char *buf);

#endif /* SLAB_ACCOUNT_NAMES_H */
