// SPDX-License-Identifier: GPL-2.0
/*
 * sa_stacks - parser for /proc/slab_account_stacks, formats 1.x and 2.x
 * (docs/format.md): the stacks that reached captured call sites, each
 * `stack ID N` followed by N frame lines (two spaces, then a %pS string),
 * innermost first: frame 1 is the call site itself.  A 1.6 child row's
 * ` @stack:ID` names one.  Records come in id order, each id once; every
 * error names the file and line.  In 2.x a record line ends with the
 * task context of the allocation that stored the stack (FIRST: `pid P tid
 * T comm COMM[ cgroup ID]` or `irq`); 1.x records have none.  A record
 * line of 1.0 or 2.0 has nothing more; words after it in a later minor
 * are ignored.
 */
#ifndef SA_STACKS_H
#define SA_STACKS_H

#include <stddef.h>
#include <stdint.h>

#define SA_STACKS_PATH "/proc/slab_account_stacks"
#define SA_STACKS_HEADER_PREFIX "slab_account stacks - version: "
/* The majors this reader reads: 1, and 2 (records with FIRST). */
#define SA_STACKS_MAJOR_MIN 1
#define SA_STACKS_MAJOR 2

/* (2.0) The task context of the allocation that stored a stack. */
struct sa_stack_first {
	int have;		/* the record has one (a 2.x file) */
	int irq;		/* outside task context: nothing else */
	int has_cgroup;		/* the kernel has cgroups: .cgroup is its id */
	uint64_t pid, tid, cgroup;
	char *comm;		/* one word, as the file writes it */
};

struct sa_stack {
	uint64_t id;		/* >= 1 */
	struct sa_stack_first first;
	char **frames;		/* innermost first */
	size_t n;
};

struct sa_stacks {
	char *name;		/* file name used in messages */
	uint64_t major, minor;
	struct sa_stack *v;	/* by id, increasing */
	size_t n;
};

/*
 * Parse @len bytes at @buf into @s (free it with sa_stacks_free()).  0,
 * or -1 with @s empty and *@err a malloc()ed "NAME:LINE: what".
 */
int sa_stacks_parse_buffer(struct sa_stacks *s, const char *buf, size_t len, const char *name,
			   char **err);

/* The stack of id @id, or NULL. */
const struct sa_stack *sa_stacks_get(const struct sa_stacks *s, uint64_t id);

void sa_stacks_free(struct sa_stacks *s);

#endif /* SA_STACKS_H */
