/* SPDX-License-Identifier: GPL-2.0 */
/* /proc/slab_account_detail: ages and request sizes per site (sa_detail.c). */
#ifndef SLAB_ACCOUNT_DETAIL_H
#define SLAB_ACCOUNT_DETAIL_H

/* The kmalloc size classes, measured before any probe is registered. */
int sa_detail_measure(void);
/* The file; 0 or -ENOMEM. */
int sa_detail_create(void);
/* Gone, and no reader still in it. */
void sa_detail_remove(void);

#endif /* SLAB_ACCOUNT_DETAIL_H */
