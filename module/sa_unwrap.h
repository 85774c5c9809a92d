/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Allocation helpers (sa_unwrap.c): functions that allocate on behalf of
 * their caller without passing its address on.  A site inside one is
 * charged to the helper's caller, found on the stack.
 */
#ifndef SLAB_ACCOUNT_UNWRAP_H
#define SLAB_ACCOUNT_UNWRAP_H

#include <linux/types.h>

/* Process context, before any probe runs: find the helpers by name. */
void sa_unwrap_init(void);

/* Any context: 1 + the index of the helper @ret_addr returns into, or 0. */
unsigned int sa_helper_of(unsigned long ret_addr);

/* How many helpers were found at load. */
unsigned int sa_unwrap_helpers(void);

/* The name of helper @helper (1-based), as the rows show it. */
const char *sa_helper_name(unsigned int helper);

/*
 * Any context: the return address into the first function outside the
 * helpers above the frame of @helper on the current stack, and in *@via
 * the last helper passed (the one that caller called) that is not a
 * kmalloc entry point, or 0; 0 when the stack does not show the frame of
 * @helper followed by such a caller.
 */
unsigned long sa_unwrap_caller(unsigned int helper, unsigned int *via);

#endif /* SLAB_ACCOUNT_UNWRAP_H */
