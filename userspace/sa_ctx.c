// SPDX-License-Identifier: GPL-2.0
/*
 * sa_ctx - the context part of a 1.6 caller (see sa_ctx.h).
 */
#include "sa_ctx.h"

#include <string.h>

#include "sa_base.h"

size_t sa_ctx_find(const char *caller)
{
	const char *at = strstr(caller, " @");

	return at ? (size_t)(at - caller) : strlen(caller);
}

/* A decimal number of the word at @s (up to a blank or the end): 0 and *@v, or -1. */
static int word_u64(const char *s, size_t *len, uint64_t *v)
{
	*len = strcspn(s, " ");
	return *len ? sa_parse_u64(s, *len, v) : -1;
}

static int starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int sa_ctx_parse(const char *s, struct sa_ctx *c, const char **why)
{
	size_t n;

	memset(c, 0, sizeof(*c));
	if (starts(s, "@stack:")) {
		s += strlen("@stack:");
		if (word_u64(s, &n, &c->stack) || !c->stack) {
			*why = "a stack id is a decimal number, 1 or more";
			return -1;
		}
		s += n;
		if (!*s)
			return 0;
		s++;
	}
	if (starts(s, "@cgroup:")) {
		c->kind = SA_CTX_CGROUP;
		s += strlen("@cgroup:");
		if (word_u64(s, &n, &c->id)) {
			*why = "a cgroup id is a decimal number";
			return -1;
		}
		s += n;
	} else if (starts(s, "@node:")) {
		c->kind = SA_CTX_NODE;
		s += strlen("@node:");
		if (word_u64(s, &n, &c->id)) {
			*why = "a node is a decimal number";
			return -1;
		}
		s += n;
	} else if (starts(s, "@task:")) {
		/* COMM is one word (whitespace is written '_'), last on the line. */
		c->kind = SA_CTX_TASK;
		c->task = s + strlen("@task:");
		c->tlen = strcspn(c->task, " \t");
		if (!c->tlen) {
			*why = "a task name is one word, not empty";
			return -1;
		}
		s = c->task + c->tlen;
	} else if (starts(s, "@irq")) {
		c->kind = SA_CTX_IRQ;
		s += strlen("@irq");
	} else {
		*why = "expected @stack:ID, then one of @cgroup:ID, @node:N, @task:COMM or @irq";
		return -1;
	}
	if (*s) {
		*why = "nothing may follow the split context";
		return -1;
	}
	return 0;
}

const char *sa_ctx_kind_name(enum sa_ctx_kind kind)
{
	switch (kind) {
	case SA_CTX_CGROUP:
		return "cgroup";
	case SA_CTX_NODE:
		return "node";
	case SA_CTX_TASK:
		return "task";
	case SA_CTX_NONE:
	case SA_CTX_IRQ:
		break;
	}
	return "";
}
