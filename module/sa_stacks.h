/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stack table (sa_stacks.c): the stacks that reached captured sites,
 * each stored once, named by a small id, and /proc/slab_account_stacks.
 */
#ifndef SLAB_ACCOUNT_STACKS_H
#define SLAB_ACCOUNT_STACKS_H

#include <linux/seq_file.h>
#include <linux/types.h>

/* Frames a stack keeps: the call site and the callers before it. */
#define SA_STACK_DEPTH		16

/* Can this kernel walk stacks (CONFIG_STACKTRACE)? */
bool sa_stacks_usable(void);
/* At load: is max_stacks in range?  0, or -EINVAL with a log line. */
int sa_stacks_check(void);
/* Process context: the table, if not yet made; 0, -ENOMEM or -EOPNOTSUPP. */
int sa_stacks_make(void);
void sa_stacks_free(void);

/*
 * Any context: the id (>= 1) of the stack that reached @call_site now,
 * stored if new; 0 when it did not fit or the walk did not show
 * @call_site (each counted).
 */
u32 sa_stack_get(unsigned long call_site);

/* Under sa_ctl_lock: the header's stack keys. */
void sa_stacks_header(struct seq_file *m, u64 dropped, u64 unseen);
/* The bytes of the table now (part of the header's table memory). */
size_t sa_stacks_memory(void);

/* /proc/slab_account_stacks; 0 or -ENOMEM. */
int sa_stacks_create(void);
void sa_stacks_remove(void);

#endif /* SLAB_ACCOUNT_STACKS_H */
