/* SPDX-License-Identifier: GPL-2.0 */
/* /proc/slab_account (sa_proc.c). */
#ifndef SLAB_ACCOUNT_PROC_H
#define SLAB_ACCOUNT_PROC_H

#include <linux/seq_file.h>
#include <linux/types.h>

struct sa_site;

/* The file, showing @table_bytes as the tables' memory; 0 or -ENOMEM. */
int sa_proc_create(size_t table_bytes);
/* Gone, and no reader or writer still in it. */
void sa_proc_remove(void);

/*
 * @v in decimal, right-aligned in @width columns, then a space, at @p
 * (room for 21 bytes at least); returns the end.
 */
char *sa_proc_put_num(char *p, u64 v, unsigned int width);

/* A row's end in either file: "type caller\n"; @sym: KSYM_SYMBOL_LEN. */
void sa_proc_site_id(struct seq_file *m, struct sa_site *e, char *sym);

#endif /* SLAB_ACCOUNT_PROC_H */
