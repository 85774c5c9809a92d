/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The unload verdicts (sa_unloads.c): what a module left live when it
 * unloaded, logged and kept for /proc/slab_account_unloads.
 */
#ifndef SLAB_ACCOUNT_UNLOADS_H
#define SLAB_ACCOUNT_UNLOADS_H

#include <linux/types.h>

/*
 * Under sa_ctl_lock, when load @owner's module has gone and its sites are
 * retired (@first: the first of them, as sa_sites_retire() lists them):
 * keep its verdict (the last SA_UNLOADS_KEPT are kept) and, if it left
 * objects live, say so in the kernel log.
 */
void sa_unload_verdict(u16 owner, u32 first);

/* The file; 0 or -ENOMEM.  Gone, and no reader still in it. */
int sa_unloads_create(void);
void sa_unloads_remove(void);
/* The verdicts kept (at unload of slab_account). */
void sa_unloads_free(void);

#endif /* SLAB_ACCOUNT_UNLOADS_H */
