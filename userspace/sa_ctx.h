// SPDX-License-Identifier: GPL-2.0
/*
 * sa_ctx - the context part of a caller (format 1.6, docs/format.md): a
 * child row's caller is its site's caller followed by ` @stack:ID` (a
 * captured stack) and/or one split context, ` @cgroup:ID`, ` @node:N`,
 * ` @task:COMM` or ` @irq`.  This file finds that part, splits it into its
 * fields and names a context as the reports show it.
 */
#ifndef SA_CTX_H
#define SA_CTX_H

#include <stddef.h>
#include <stdint.h>

/* The split context of a row (the header's `split`). */
enum sa_ctx_kind { SA_CTX_NONE, SA_CTX_CGROUP, SA_CTX_NODE, SA_CTX_TASK, SA_CTX_IRQ };

struct sa_ctx {
	uint64_t stack;		/* ID of ` @stack:ID` (>= 1), 0: none */
	enum sa_ctx_kind kind;	/* the split context, SA_CTX_NONE: none */
	uint64_t id;		/* the cgroup id or the node */
	const char *task;	/* COMM of ` @task:COMM`, inside the parsed text */
	size_t tlen;
};

/*
 * The offset in @caller of the blank before its context (the first " @":
 * no %pS string, helper or " unloaded#N" holds an '@'), or strlen(@caller)
 * when it has none.
 */
size_t sa_ctx_find(const char *caller);

/*
 * Parse @s, the context without its leading blank ("@stack:3 @cgroup:42"),
 * into @c (c->task points into @s).  0, or -1 with *@why saying what is
 * wrong (a static string).
 */
int sa_ctx_parse(const char *s, struct sa_ctx *c, const char **why);

/* The split word of @kind as the header writes it ("cgroup", ...; "" for none and irq). */
const char *sa_ctx_kind_name(enum sa_ctx_kind kind);

#endif /* SA_CTX_H */
