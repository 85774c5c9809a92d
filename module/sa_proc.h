/* SPDX-License-Identifier: GPL-2.0 */
/* /proc/slab_account (sa_proc.c). */
#ifndef SLAB_ACCOUNT_PROC_H
#define SLAB_ACCOUNT_PROC_H

#include <linux/types.h>

/* The file, showing @table_bytes as the tables' memory; 0 or -ENOMEM. */
int sa_proc_create(size_t table_bytes);
/* Gone, and no reader or writer still in it. */
void sa_proc_remove(void);

#endif /* SLAB_ACCOUNT_PROC_H */
