/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Context rows (sa_ctx.c): the rows of a site split by one context chosen
 * at load (split=: cgroup, node or task) and, for a site under capture,
 * by the stack that reached it.  A context row is a site of the table
 * (its own counters, peak and objects), a child of the site it splits;
 * the allocation's context picks the child before anything is counted,
 * so the object's value names the child and every free path, age and
 * verdict works unchanged.
 */
#ifndef SLAB_ACCOUNT_CTX_H
#define SLAB_ACCOUNT_CTX_H

#include <linux/seq_file.h>
#include <linux/types.h>

#include "sa_core.h"

/* The split chosen at load (split=): one context for every site. */
enum sa_split {
	SA_SPLIT_NONE,
	SA_SPLIT_CGROUP,
	SA_SPLIT_NODE,
	SA_SPLIT_TASK,
};

/* Set at load before any probe runs, never changed after. */
extern int sa_split;

/* Which context a child row has, besides its stack. */
enum sa_ctx_kind {
	SA_CTX_NONE,		/* a stack only (capture, no split) */
	SA_CTX_CGROUP,		/* .v.id: a cgroup v2 id */
	SA_CTX_NODE,		/* .v.id: a NUMA node */
	SA_CTX_TASK,		/* .v.comm: a task's name, printable */
	SA_CTX_IRQ,		/* outside task context (cgroup and task splits) */
};

#define SA_CTX_COMM_LEN	16

/*
 * What a child row is the row of: its parent (1 + the index of the site
 * it splits; 0 for a site that is no child), its stack (the stack table's
 * id, 0 for none) and its context.  Compared whole: padding zeroed.
 */
struct sa_ctx_key {
	u32 parent;
	u32 stack;
	u32 kind;
	u32 pad;
	union {
		u64 id;
		char comm[SA_CTX_COMM_LEN];
	} v;
};

/*
 * The task context of an allocation, as a stored stack keeps that of the
 * allocation that first stored it: outside task context (.irq) nothing
 * else; in task context the thread group's id (.pid, getpid()'s) and the
 * thread's (.tid, gettid()'s), as the initial pid namespace numbers them,
 * the task's name as a split=task row writes it (NUL-padded), and its
 * cgroup v2 id where this kernel has one (SA_CTX_HAVE_CGROUP; else 0).
 */
struct sa_ctx_first {
	u32 irq;
	u32 pid;
	u32 tid;
	u32 pad;
	u64 cgroup;
	char comm[SA_CTX_COMM_LEN];
};

#if defined(CONFIG_CGROUPS) && defined(SA_HAVE_CGROUP_ID)
#define SA_CTX_HAVE_CGROUP	1
#else
#define SA_CTX_HAVE_CGROUP	0
#endif

/* Any context: the current allocation's task context into @f, whole. */
void sa_ctx_first_fill(struct sa_ctx_first *f);
/*
 * @f as a stacks file's record line ends: " pid P tid T comm C[ cgroup
 * ID]" or " irq".
 */
void sa_ctx_first_show(struct seq_file *m, const struct sa_ctx_first *f);

/*
 * At load, before the tables: check the split= and max_stacks parameters
 * against this kernel (-EINVAL with a log line naming what is missing or
 * out of range).
 */
int sa_ctx_check(void);
/* The bytes of the child table for @sites sites. */
size_t sa_ctx_bytes(unsigned long sites);
/*
 * At load: the child table for @sites sites, made now with a split, else
 * by the first capture (sa_ctx_make(), process context); 0 or -ENOMEM.
 */
int sa_ctx_alloc(unsigned long sites);
int sa_ctx_make(void);
void sa_ctx_free(void);
/* The bytes it takes now (part of the header's table memory). */
size_t sa_ctx_memory(void);

/* Any context: the child of @e for an allocation of @ptr, or @e itself. */
struct sa_site *sa_ctx_child(struct sa_site *e, const void *ptr,
			     const struct kmem_cache *s);

/*
 * The row an allocation of @ptr at @e (a site of the hash) is counted
 * in: @e itself when nothing splits it (the common case, one test), else
 * its child for the allocation's context.
 */
static __always_inline struct sa_site *sa_ctx_site(struct sa_site *e,
						   const void *ptr,
						   const struct kmem_cache *s)
{
	if (likely(!sa_split) &&
	    likely(!(READ_ONCE(e->type) & SA_TYPE_CAPTURED)))
		return e;
	return sa_ctx_child(e, ptr, s);
}

/* The key of the site at index @idx, or NULL when it is no child. */
const struct sa_ctx_key *sa_ctx_key_of(unsigned int idx);

/* Is the site at index @idx a child row? */
static inline bool sa_ctx_is_child(unsigned int idx)
{
	return sa_ctx_key_of(idx);
}

/* Any context: an unpublished entry given back, its key cleared. */
void sa_ctx_forget(unsigned int idx);

/* A row's context, as its caller's last part: " @stack:ID @cgroup:ID"... */
void sa_ctx_suffix(struct seq_file *m, unsigned int idx);

/* Under sa_ctl_lock: capture rules in force. */
unsigned int sa_capture_rules(void);
/*
 * Under sa_ctl_lock: a control write "capture SPEC", "uncapture SPEC" or
 * "uncapture all"; 0 or an errno (a kernel log line says why).
 */
int sa_capture_cmd(const char *cmd);
/* At load, before any probe: the capture= parameter's rules; 0 or -EINVAL. */
int sa_capture_load(void);
/*
 * Under sa_ctl_lock, from the module notifier: module @name (@mod) is in
 * @state now: coming (its text and init text are where a module rule of
 * that name captures), live (its init text is freed next: no rule
 * captures there any more) or going (its module rules wait for its next
 * load, its function rules are dropped).
 */
struct module;
void sa_capture_module(const char *name, const struct module *mod,
		       int state);

/* The split's name as the header says it. */
const char *sa_split_name(void);

#endif /* SLAB_ACCOUNT_CTX_H */
