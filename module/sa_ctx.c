// SPDX-License-Identifier: GPL-2.0
/*
 * slab_account: context rows.
 *
 * With a split chosen at load (split=cgroup|node|task), or for a site
 * under capture, an allocation is counted in a child row of its site: an
 * ordinary entry of the site table (its own counters, peak and request
 * extremes; the object's value names it, so frees, ages and verdicts
 * need nothing new), never in the site hash, found through this file's
 * lock-free table keyed by (parent, stack, context).  This file owns the
 * split= and capture= parameters and their checks at load, the context
 * of an allocation, the child table and its keys, how a child row names
 * its context, and the capture rules and their control writes (the
 * stacks themselves are sa_stacks.c's).  A site neither captured nor
 * split keeps the fast path as it was: sa_ctx_site() is one test of the
 * slow path.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cgroup.h>
#include <linux/ctype.h>
#include <linux/hardirq.h>
#include <linux/jhash.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/magic.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/namei.h>
#include <linux/nodemask.h>
#include <linux/overflow.h>
#include <linux/path.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "sa_core.h"
#include "sa_ctx.h"
#include "sa_loads.h"
#include "sa_names.h"
#include "sa_sites.h"
#include "sa_stacks.h"

static char *split = "none";
static char *capture;
module_param(capture, charp, 0444);
MODULE_PARM_DESC(capture,
		 "sites put under capture at load: SPEC[,SPEC...], each FUNCTION, FUNCTION+0xOFF, module:NAME or cache:NAME");
module_param(split, charp, 0444);
MODULE_PARM_DESC(split,
		 "rows split by one context: none, cgroup (cgroup v2 id), node (NUMA node of the object) or task (its name)");

int sa_split;

static const char *const sa_split_names[] = {
	[SA_SPLIT_NONE]		= "none",
	[SA_SPLIT_CGROUP]	= "cgroup",
	[SA_SPLIT_NODE]		= "node",
	[SA_SPLIT_TASK]		= "task",
};

/*
 * The child table: the key of every entry of the site table (zero for a
 * site that is no child), and an open-addressing hash of 1 + the index
 * of each child, 0 when vacant, twice as many slots as sites.  A slot
 * goes from 0 to an index once, by cmpxchg(), after the child's key and
 * entry are complete (a full barrier); never back.
 */
static struct sa_ctx_key *sa_ctx_keys;
static u32 *sa_ctx_hash;
static unsigned long sa_ctx_hash_mask;

const char *sa_split_name(void)
{
	return sa_split_names[sa_split];
}

/* ---- the kernel's contexts, as this kernel gives them ------------------ */

/* Outside task context: hard or soft interrupt, NMI. */
static __always_inline bool sa_ctx_in_irq(void)
{
#ifdef SA_HAVE_IN_TASK
	return !in_task();
#else
	return in_interrupt();
#endif
}

/* The cgroup v2 id of the current task (task context). */
static u64 sa_ctx_cgroup(void)
{
#if SA_CTX_HAVE_CGROUP
	u64 id;

	rcu_read_lock();
	id = cgroup_id(task_dfl_cgroup(current));
	rcu_read_unlock();
	return id;
#else
	return 0;
#endif
}

#if defined(CONFIG_CGROUPS) && defined(SA_HAVE_CGROUP_ID)
/*
 * Is a cgroup2 file system mounted where systemd and the documentation
 * put it?  The kernel exports no test of the default hierarchy's
 * visibility: its usual mount points are looked at.
 */
static bool sa_cgroup2_mounted(void)
{
	static const char *const where[] = {
		"/sys/fs/cgroup", "/sys/fs/cgroup/unified",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(where); i++) {
		struct path p;
		bool ok;

		if (kern_path(where[i], LOOKUP_FOLLOW, &p))
			continue;
		ok = p.dentry->d_sb->s_magic == CGROUP2_SUPER_MAGIC;
		path_put(&p);
		if (ok)
			return true;
	}
	return false;
}
#endif

int sa_ctx_check(void)
{
	int i = sysfs_match_string(sa_split_names, split ? split : "none");

	/* Checked now, though the stack table is made by the first capture. */
	if (sa_stacks_check())
		return -EINVAL;
	if (i < 0) {
		pr_err("split=%s: not one of none, cgroup, node, task\n", split);
		return -EINVAL;
	}
	switch (i) {
	case SA_SPLIT_CGROUP:
#if !defined(CONFIG_CGROUPS) || !defined(SA_HAVE_CGROUP_ID)
		pr_err("split=cgroup: this kernel has no cgroups (CONFIG_CGROUPS) or no cgroup id of a task\n");
		return -EINVAL;
#else
		if (!sa_cgroup2_mounted()) {
			pr_err("split=cgroup: no cgroup2 file system is mounted (at /sys/fs/cgroup or /sys/fs/cgroup/unified)\n");
			return -EINVAL;
		}
		break;
#endif
	case SA_SPLIT_NODE:
		if (num_online_nodes() < 2) {
			pr_err("split=node: one NUMA node online (%d possible): nothing to split\n",
			       num_possible_nodes());
			return -EINVAL;
		}
		break;
	}
	sa_split = i;
	return 0;
}

/* ---- the child table --------------------------------------------------- */

static unsigned long sa_ctx_sites;	/* the site table's capacity */
static size_t sa_ctx_allocated;		/* bytes of the child table */

static unsigned int sa_ctx_hash_slots(unsigned long sites)
{
	return roundup_pow_of_two(sites * 2);
}

size_t sa_ctx_bytes(unsigned long sites)
{
	return sites * sizeof(struct sa_ctx_key) +
	       sa_ctx_hash_slots(sites) * sizeof(u32);
}

size_t sa_ctx_memory(void)
{
	return sa_ctx_allocated;
}

/* Process context: the child table, if not yet made; 0 or -ENOMEM. */
int sa_ctx_make(void)
{
	unsigned long mask = sa_ctx_hash_slots(sa_ctx_sites) - 1;
	struct sa_ctx_key *keys;
	u32 *hash;

	if (sa_ctx_keys)
		return 0;
	keys = sa_zalloc(array_size(sa_ctx_sites, sizeof(*keys)));
	hash = sa_zalloc(array_size(mask + 1, sizeof(u32)));
	if (!keys || !hash) {
		vfree(keys);
		vfree(hash);
		pr_err("cannot allocate %zu bytes for the context rows' table\n",
		       sa_ctx_bytes(sa_ctx_sites));
		return -ENOMEM;
	}
	sa_ctx_hash_mask = mask;
	sa_ctx_hash = hash;
	sa_ctx_allocated = sa_ctx_bytes(sa_ctx_sites);
	/*
	 * Last, by a release: a probe that sees the keys (an acquire, in
	 * sa_ctx_child()) sees the hash and its mask.
	 */
	smp_store_release(&sa_ctx_keys, keys);
	return 0;
}

int sa_ctx_alloc(unsigned long sites)
{
	sa_ctx_sites = sites;
	/* Without a split, made by the first capture (sa_ctx_make()). */
	return sa_split ? sa_ctx_make() : 0;
}

void sa_ctx_free(void)
{
	vfree(sa_ctx_keys);
	sa_ctx_keys = NULL;
	vfree(sa_ctx_hash);
	sa_ctx_hash = NULL;
	sa_ctx_allocated = 0;
}

const struct sa_ctx_key *sa_ctx_key_of(unsigned int idx)
{
	/* Pairs with the release in sa_ctx_make(). */
	const struct sa_ctx_key *keys = smp_load_acquire(&sa_ctx_keys);

	if (!keys || !READ_ONCE(keys[idx].parent))
		return NULL;
	return &sa_ctx_keys[idx];
}

void sa_ctx_forget(unsigned int idx)
{
	memset(&sa_ctx_keys[idx], 0, sizeof(sa_ctx_keys[idx]));
}

/*
 * A task's name as a key: each byte as sa_token_char() shows it, so that
 * it is one token of the file whatever bytes prctl(PR_SET_NAME) set; an
 * empty one '_'; NUL-padded.
 */
static void sa_ctx_comm(char *dst)
{
	unsigned int i;

	for (i = 0; i < SA_CTX_COMM_LEN - 1 && i < TASK_COMM_LEN - 1; i++) {
		/* Read once each: a task may rename itself meanwhile. */
		char c = READ_ONCE(current->comm[i]);

		if (!c)
			break;
		dst[i] = sa_token_char(c);
	}
	/* A name set empty (prctl()) as one the row can show. */
	if (!i)
		dst[0] = '_';
}

void sa_ctx_first_fill(struct sa_ctx_first *f)
{
	memset(f, 0, sizeof(*f));
	if (sa_ctx_in_irq()) {
		f->irq = 1;
		return;
	}
	f->pid = task_tgid_nr(current);
	f->tid = task_pid_nr(current);
	sa_ctx_comm(f->comm);
	f->cgroup = sa_ctx_cgroup();
}

void sa_ctx_first_show(struct seq_file *m, const struct sa_ctx_first *f)
{
	if (f->irq) {
		seq_puts(m, " irq");
		return;
	}
	seq_printf(m, " pid %u tid %u comm %.*s", f->pid, f->tid,
		   SA_CTX_COMM_LEN, f->comm);
	if (SA_CTX_HAVE_CGROUP)
		seq_printf(m, " cgroup %llu", f->cgroup);
}

/*
 * The split's context of an allocation of @ptr into @k; false when it
 * has none (no split, or an object not in the kernel's direct map).
 */
static bool sa_ctx_fill(struct sa_ctx_key *k, const void *ptr)
{
	switch (sa_split) {
	case SA_SPLIT_CGROUP:
		if (sa_ctx_in_irq()) {
			k->kind = SA_CTX_IRQ;
			return true;
		}
		k->kind = SA_CTX_CGROUP;
		k->v.id = sa_ctx_cgroup();
		return true;
	case SA_SPLIT_TASK:
		if (sa_ctx_in_irq()) {
			k->kind = SA_CTX_IRQ;
			return true;
		}
		k->kind = SA_CTX_TASK;
		sa_ctx_comm(k->v.comm);
		return true;
	case SA_SPLIT_NODE:
		/* Slab memory and large kmallocs are in the direct map. */
		if (!virt_addr_valid(ptr))
			return false;
		k->kind = SA_CTX_NODE;
		k->v.id = page_to_nid(virt_to_page(ptr));
		return true;
	}
	return false;
}

/* The child of @e with key @k, added if new; @e when there is no room. */
static struct sa_site *sa_ctx_find(struct sa_site *e,
				   const struct sa_ctx_key *k)
{
	unsigned long h = jhash2((const u32 *)k, sizeof(*k) / sizeof(u32), 0) &
			  sa_ctx_hash_mask;
	struct sa_site *c = NULL;
	unsigned long tries;

	BUILD_BUG_ON(sizeof(*k) % sizeof(u32));
	/* Twice as many slots as entries: a vacant one is always found. */
	for (tries = 0; tries <= sa_ctx_hash_mask; tries++) {
		u32 v = READ_ONCE(sa_ctx_hash[h]);

		if (!v) {
			if (!c) {
				c = sa_site_new_child(e);
				if (!c) {
					sa_stat_inc(SA_STAT_CTX_DROPPED);
					return e;
				}
				sa_ctx_keys[c - sa_sites] = *k;
			}
			/* A full barrier: the key and entry are complete. */
			if (!cmpxchg(&sa_ctx_hash[h], 0, (u32)(c - sa_sites) + 1)) {
				sa_site_publish_child(e, c);
				return c;
			}
			continue;	/* lost the slot: look at the winner */
		}
		/* The key through the index read: an address dependency. */
		if (!memcmp(&sa_ctx_keys[v - 1], k, sizeof(*k))) {
			if (c) {
				sa_ctx_forget(c - sa_sites);
				sa_site_spare(c);
			}
			return sa_site_at(v - 1);
		}
		h = (h + 1) & sa_ctx_hash_mask;
	}
	if (c) {
		sa_ctx_forget(c - sa_sites);
		sa_site_spare(c);
	}
	sa_stat_inc(SA_STAT_CTX_DROPPED);
	return e;
}

struct sa_site *sa_ctx_child(struct sa_site *e, const void *ptr,
			     const struct kmem_cache *s)
{
	struct sa_ctx_key k;
	struct sa_site *c;

	/* Pairs with the release in sa_ctx_make(). */
	if (!smp_load_acquire(&sa_ctx_keys))
		return e;
	memset(&k, 0, sizeof(k));
	k.parent = (u32)(e - sa_sites) + 1;
	if (READ_ONCE(e->type) & SA_TYPE_CAPTURED) {
		/* No stack (counted): the site's own row. */
		k.stack = sa_stack_get(e->call_site);
		if (!k.stack)
			return e;
	}
	if (!sa_ctx_fill(&k, ptr) && !k.stack)
		return e;
	c = sa_ctx_find(e, &k);
	/* The child's kind as its parent notes it (sa_site_get()). */
	if (c != e &&
	    unlikely(!(READ_ONCE(c->type) & (s ? SA_TYPE_CACHE : SA_TYPE_KMALLOC)) ||
		     (s && s != READ_ONCE(c->cache))))
		sa_site_note_type(c, s);
	return c;
}

/* ---- how a child row says its context ----------------------------------- */

void sa_ctx_suffix(struct seq_file *m, unsigned int idx)
{
	const struct sa_ctx_key *k = sa_ctx_key_of(idx);

	if (!k)
		return;
	if (k->stack)
		seq_printf(m, " @stack:%u", k->stack);
	switch (k->kind) {
	case SA_CTX_CGROUP:
		seq_printf(m, " @cgroup:%llu", k->v.id);
		break;
	case SA_CTX_NODE:
		seq_printf(m, " @node:%llu", k->v.id);
		break;
	case SA_CTX_TASK:
		seq_printf(m, " @task:%.*s", SA_CTX_COMM_LEN, k->v.comm);
		break;
	case SA_CTX_IRQ:
		seq_puts(m, " @irq");
		break;
	}
}

/* ---- capture rules ------------------------------------------------------ */

#define SA_MAX_RULES	16
#define SA_SPEC_LEN	160
/* A rule's module or cache name: a cache name is at most 63 bytes here. */
#define SA_RULE_NAME_LEN	64

enum sa_rule_kind {
	SA_RULE_FUNC,		/* every site in [start, end) */
	SA_RULE_SITE,		/* the site at start */
	SA_RULE_MODULE,		/* sites in a module's text or init text */
	SA_RULE_CACHE,		/* sites of type cache:NAME */
};

/*
 * A rule.  .used, .init and .spec are sa_ctl_lock's.  The probes read a
 * rule whose .armed they see set (an acquire) and its kind, range, name
 * and .cmp, written before it was armed; a rule is disarmed, then
 * synchronize_rcu() (probes run in an RCU read side: preemption off)
 * before any of them changes.  A module rule is armed while its module
 * is loaded, its init text in its range only until the module is live
 * (sa_capture_module()).  .name is a module rule's module, the module of
 * a function rule's function ("" for the kernel's own), a cache rule's
 * cache; .init says a function rule's function is in its module's init
 * text.  .cmp: how many bytes of a cache rule's name a row shows.
 */
struct sa_rule {
	int armed;
	bool used;
	bool init;
	enum sa_rule_kind kind;
	unsigned long start, end;
	unsigned long istart, iend;
	unsigned int cmp;
	char name[SA_RULE_NAME_LEN];
	char spec[SA_SPEC_LEN];
};

static struct sa_rule sa_rules[SA_MAX_RULES];
static unsigned int sa_nr_rules;

unsigned int sa_capture_rules(void)
{
	return sa_nr_rules;
}

static bool sa_rule_match(const struct sa_rule *r, const struct sa_site *e)
{
	unsigned long cs = e->call_site;

	switch (r->kind) {
	case SA_RULE_FUNC:
		return cs >= r->start && cs < r->end;
	case SA_RULE_SITE:
		return cs == r->start;
	case SA_RULE_MODULE:
		return (cs >= r->start && cs < r->end) ||
		       (cs >= r->istart && cs < r->iend);
	case SA_RULE_CACHE:
		/* A row shows a name's first SA_NAME_LEN - 1 bytes. */
		return (READ_ONCE(e->type) & SA_TYPE_CACHE) &&
		       !strncmp(sa_site_cold(e)->name, r->name, r->cmp) &&
		       !sa_site_cold(e)->name[r->cmp];
	}
	return false;
}

bool sa_capture_match(const struct sa_site *e)
{
	unsigned int i;

	if (!READ_ONCE(sa_nr_rules))
		return false;
	for (i = 0; i < SA_MAX_RULES; i++)
		/* Pairs with the release that armed it: its fields. */
		if (smp_load_acquire(&sa_rules[i].armed) &&
		    sa_rule_match(&sa_rules[i], e))
			return true;
	return false;
}

/*
 * Under sa_ctl_lock: each site of the hash captured as the rules say,
 * its fast path's key made again.  Context rows are never captured.
 */
static void sa_capture_apply(void)
{
	unsigned int i, n = sa_sites_seen();

	for (i = 0; i < n; i++) {
		struct sa_site *e = sa_site_at(i);
		bool want, have;

		if (!(i % 256))
			cond_resched();
		if (!sa_site_ready(e) || sa_ctx_is_child(i) || e->owner)
			continue;
		want = sa_capture_match(e);
		have = READ_ONCE(e->type) & SA_TYPE_CAPTURED;
		if (want == have)
			continue;
		if (want)
			set_bit(__ffs(SA_TYPE_CAPTURED), &e->type);
		else
			clear_bit(__ffs(SA_TYPE_CAPTURED), &e->type);
		/* The bit before the key's store (sa_site_set_fast()). */
		smp_mb__after_atomic();
		sa_site_set_fast(e);
	}
}

/*
 * The extent [*start, *end) of the function named @name (in module @mod
 * when not NULL), as kallsyms names it, and in @owner the module it is
 * in ("" for the kernel's own); -ENOENT when there is none.  A kprobe
 * registered disabled (never armed) resolves the name, as sa_unwrap.c
 * does; a refusal after that (a function kprobes may not probe) still
 * gave the address.  @buf: KSYM_SYMBOL_LEN; @owner: SA_RULE_NAME_LEN.
 */
static int sa_func_extent(const char *name, const char *mod, char *buf,
			  unsigned long *start, unsigned long *end,
			  char *owner)
{
#ifdef CONFIG_KPROBES
	char sym[KSYM_NAME_LEN + MODULE_NAME_LEN + 2];
	unsigned long off, size, addr;
	struct kprobe kp = { .flags = KPROBE_FLAG_DISABLED };
	char *plus, *bracket;

	snprintf(sym, sizeof(sym), "%s%s%s", mod ? mod : "", mod ? ":" : "",
		 name);
	kp.symbol_name = sym;
	if (!register_kprobe(&kp))
		unregister_kprobe(&kp);
	if (IS_ERR_OR_NULL(kp.addr))
		return -ENOENT;
	addr = (unsigned long)kp.addr;
	/* "NAME+0xOFF/0xLEN", then " [MODULE]" for a module's. */
	sprint_symbol(buf, addr);
	owner[0] = '\0';
	bracket = strchr(buf, ' ');
	if (bracket) {
		*bracket = '\0';
		if (bracket[1] == '[') {
			strscpy(owner, bracket + 2, SA_RULE_NAME_LEN);
			owner[strcspn(owner, "] ")] = '\0';
		}
	}
	plus = strrchr(buf, '+');
	if (!plus || sscanf(plus, "+%lx/%lx", &off, &size) != 2 || !size)
		return -ENOENT;
	*plus = '\0';
	if (strcmp(buf, name))
		return -ENOENT;
	*start = addr - off;
	*end = *start + size;
	return 0;
#else
	return -ENOENT;
#endif
}

/*
 * Is @mod, an entry of the module list, a module's struct, not the list's
 * head (the kernel's own, in its data)?  A module's kobject points back
 * to it (sysfs sets it up before the module leaves MODULE_STATE_UNFORMED);
 * at the head's place, whatever the kernel's data holds there is read
 * without a fault and is not that pointer.  A kernel without sysfs sets
 * no such pointer: there each module's struct is its __this_module,
 * which module kallsyms name with CONFIG_KALLSYMS_ALL.
 */
static bool sa_module_struct(struct module *mod, char *buf)
{
	struct module *back;

	if (!copy_from_kernel_nofault(&back, &mod->mkobj.mod, sizeof(back)) &&
	    back == mod)
		return true;
	sprint_symbol(buf, (unsigned long)mod);
	return !strncmp(buf, "__this_module+0x0/", 18);
}

/*
 * Module @mod's text in @r, and its init text while it is coming: once
 * it is live, its init text is freed (or about to be, and the notifier's
 * MODULE_STATE_LIVE, which clears a rule's, has run: it set the state
 * before, and took sa_ctl_lock after, the notifier of a module seen
 * coming here runs after this rule is made).
 */
static void sa_module_ranges(const struct module *mod, int state,
			     struct sa_rule *r)
{
	sa_loads_text(mod, false, &r->start, &r->end);
	r->istart = 0;
	r->iend = 0;
	if (state == MODULE_STATE_COMING)
		sa_loads_text(mod, true, &r->istart, &r->iend);
}

/*
 * Under sa_ctl_lock: the module @name, coming or live: its text (and
 * init text while it is coming) in @r.  The module list is walked from
 * this module's entry, under RCU (entries leave it by list_del_rcu()),
 * passing over its head.  A module going is not found: its notifier may
 * have run already.
 */
static bool sa_module_find(const char *name, struct sa_rule *r, char *buf)
{
	struct module *mod;
	bool found = false;

	if (!strcmp(THIS_MODULE->name, name)) {
		sa_module_ranges(THIS_MODULE, READ_ONCE(THIS_MODULE->state), r);
		return true;
	}
	rcu_read_lock();
	list_for_each_entry_rcu(mod, &THIS_MODULE->list, list) {
		int state;

		if (!sa_module_struct(mod, buf))
			continue;	/* the list's head */
		state = READ_ONCE(mod->state);
		if (state == MODULE_STATE_UNFORMED ||
		    state == MODULE_STATE_GOING || strcmp(mod->name, name))
			continue;
		sa_module_ranges(mod, state, r);
		found = true;
		break;
	}
	rcu_read_unlock();
	return found;
}

/*
 * Is there the cache of cache rule @r: its sysfs directory (SLUB), or a
 * site that shows its name?
 */
static bool sa_cache_exists(const struct sa_rule *r)
{
	char path[32 + SA_RULE_NAME_LEN];
	unsigned int i, n = sa_sites_seen();
	struct path p;

	if (!strchr(r->name, '/')) {
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s", r->name);
		if (!kern_path(path, LOOKUP_FOLLOW, &p)) {
			path_put(&p);
			return true;
		}
	}
	for (i = 0; i < n; i++) {
		struct sa_site *e = sa_site_at(i);

		if (sa_site_ready(e) && sa_rule_match(r, e))
			return true;
	}
	return false;
}

/* A word: letters, digits, '_', '.', '-' (a symbol, module or cache). */
static bool sa_word(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (!n || n >= max)
		return false;
	for (; *s; s++)
		if (!isalnum(*s) && *s != '_' && *s != '.' && *s != '-' &&
		    *s != ':')
			return false;
	return true;
}

/*
 * @spec (FUNCTION[+0xOFF[/0xLEN]][ [MODULE]], module:NAME, cache:NAME)
 * made into @r; 0, -EINVAL (malformed) or -ENOENT (no such thing), with
 * a log line.  @buf: KSYM_SYMBOL_LEN.
 */
static int sa_rule_parse(const char *spec, struct sa_rule *r, char *buf)
{
	static struct sa_rule owner;	/* sa_ctl_lock */
	char fn[KSYM_NAME_LEN], mod[MODULE_NAME_LEN] = "", *plus;
	unsigned long off = 0, len = 0, start, end;
	const char *p;
	int ret;

	memset(r, 0, sizeof(*r));
	/* Kept whole, so that uncapture finds it by the same words. */
	if (strscpy(r->spec, spec, sizeof(r->spec)) < 0) {
		pr_err("capture %.32s...: longer than %d bytes\n", spec,
		       SA_SPEC_LEN - 1);
		return -EINVAL;
	}
	if (!strncmp(spec, "module:", 7)) {
		r->kind = SA_RULE_MODULE;
		if (!sa_word(spec + 7, MODULE_NAME_LEN) || strchr(spec + 7, ':'))
			goto bad;
		strscpy(r->name, spec + 7, sizeof(r->name));
		/* The kernel names a module with '_' where its file has '-'. */
		strreplace(r->name, '-', '_');
		if (!sa_module_find(r->name, r, buf)) {
			pr_err("capture %s: module %s is not loaded\n", spec,
			       r->name);
			return -ENOENT;
		}
		return 0;
	}
	if (!strncmp(spec, "cache:", 6)) {
		r->kind = SA_RULE_CACHE;
		if (!spec[6] || strpbrk(spec + 6, " \t\n"))
			goto bad;
		if (strscpy(r->name, spec + 6, sizeof(r->name)) < 0) {
			pr_err("capture %s: a cache name of more than %d bytes is refused\n",
			       spec, SA_RULE_NAME_LEN - 1);
			return -EINVAL;
		}
		/* A row shows its first SA_NAME_LEN - 1 bytes (sa_rule_match()). */
		r->cmp = min_t(unsigned int, strlen(r->name), SA_NAME_LEN - 1);
		if (!sa_cache_exists(r)) {
			pr_err("capture %s: no cache %s (/sys/kernel/slab/%s, or a site of it)\n",
			       spec, r->name, r->name);
			return -ENOENT;
		}
		return 0;
	}
	/* FUNCTION[+0xOFF[/0xLEN]][ [MODULE]] */
	p = strchr(spec, ' ');
	if (p) {
		size_t n = strlen(p);

		if (n < 4 || p[1] != '[' || p[n - 1] != ']' ||
		    n - 3 >= sizeof(mod))
			goto bad;
		memcpy(mod, p + 2, n - 3);
		mod[n - 3] = '\0';
		if (!sa_word(mod, sizeof(mod)) || strchr(mod, ':'))
			goto bad;
		strreplace(mod, '-', '_');
	} else {
		p = spec + strlen(spec);
	}
	if (p - spec >= sizeof(fn))
		goto bad;
	memcpy(fn, spec, p - spec);
	fn[p - spec] = '\0';
	plus = strchr(fn, '+');
	if (plus) {
		char *slash = strchr(plus, '/');

		if (slash) {
			*slash = '\0';
			if (strncmp(slash + 1, "0x", 2) ||
			    kstrtoul(slash + 3, 16, &len) || !len)
				goto bad;
		}
		if (strncmp(plus, "+0x", 3) || kstrtoul(plus + 3, 16, &off))
			goto bad;
		*plus = '\0';
		r->kind = SA_RULE_SITE;
	} else {
		r->kind = SA_RULE_FUNC;
	}
	if (!sa_word(fn, sizeof(fn)) || strchr(fn, ':'))
		goto bad;
	ret = sa_func_extent(fn, mod[0] ? mod : NULL, buf, &start, &end,
			     r->name);
	if (ret) {
		pr_err("capture %s: no function %s%s%s%s\n", spec, fn,
		       mod[0] ? " in module " : "", mod, IS_ENABLED(CONFIG_KPROBES) ?
		       "" : " (functions are found by name through kprobes: CONFIG_KPROBES)");
		return ret;
	}
	/*
	 * A module's function: the rule is dropped when its code goes
	 * (sa_capture_module()), and so made only while the module is not
	 * going (its notifier, which waits for sa_ctl_lock, is yet to run).
	 */
	if (r->name[0]) {
		if (!sa_module_find(r->name, &owner, buf)) {
			pr_err("capture %s: module %s is going\n", spec,
			       r->name);
			return -ENOENT;
		}
		r->init = start >= owner.istart && start < owner.iend;
	}
	if (r->kind == SA_RULE_SITE) {
		if ((len && len != end - start) || off >= end - start) {
			pr_err("capture %s: %s is 0x%lx bytes long\n", spec, fn,
			       end - start);
			return -ENOENT;
		}
		start += off;
		end = start + 1;
	}
	r->start = start;
	r->end = end;
	return 0;
bad:
	pr_err("capture %s: not FUNCTION, FUNCTION+0xOFF[/0xLEN][ [MODULE]], module:NAME or cache:NAME\n",
	       spec);
	return -EINVAL;
}

/* Under sa_ctl_lock: put the sites @spec names under capture. */
static int sa_capture_add(const char *spec)
{
	static char buf[KSYM_SYMBOL_LEN];	/* sa_ctl_lock */
	static struct sa_rule r;		/* sa_ctl_lock */
	unsigned int i, slot = SA_MAX_RULES;
	int ret;

	lockdep_assert_held(&sa_ctl_lock);
	if (!sa_stacks_usable()) {
		pr_err("capture %s: this kernel cannot walk stacks (CONFIG_STACKTRACE)\n",
		       spec);
		return -EOPNOTSUPP;
	}
	ret = sa_rule_parse(spec, &r, buf);
	if (ret)
		return ret;
	for (i = 0; i < SA_MAX_RULES; i++) {
		if (sa_rules[i].used && !strcmp(sa_rules[i].spec, r.spec))
			return 0;	/* already a rule */
		if (!sa_rules[i].used && slot == SA_MAX_RULES)
			slot = i;
	}
	if (slot == SA_MAX_RULES) {
		pr_err("capture %s: %u rules already (uncapture one)\n", spec,
		       SA_MAX_RULES);
		return -ENOSPC;
	}
	ret = sa_ctx_make();
	if (!ret)
		ret = sa_stacks_make();
	if (ret)
		return ret;
	sa_rules[slot] = r;
	sa_rules[slot].used = true;
	WRITE_ONCE(sa_nr_rules, sa_nr_rules + 1);
	/* Its fields before it is seen armed. */
	smp_store_release(&sa_rules[slot].armed, 1);
	/*
	 * A site being added meanwhile that missed the rule is published
	 * once no probe is in the RCU read side it was in: then the walk
	 * sees it.
	 */
	synchronize_rcu();
	sa_capture_apply();
	return 0;
}

/* Under sa_ctl_lock: rule @i gone, after no probe reads it. */
static void sa_rule_drop(unsigned int i)
{
	WRITE_ONCE(sa_rules[i].armed, 0);
	sa_rules[i].used = false;
	WRITE_ONCE(sa_nr_rules, sa_nr_rules - 1);
}

static int sa_capture_remove(const char *spec)
{
	unsigned int i, found = 0;

	lockdep_assert_held(&sa_ctl_lock);
	for (i = 0; i < SA_MAX_RULES; i++) {
		if (!sa_rules[i].used ||
		    (strcmp(spec, "all") && strcmp(sa_rules[i].spec, spec)))
			continue;
		sa_rule_drop(i);
		found++;
	}
	if (!found && strcmp(spec, "all")) {
		pr_err("uncapture %s: no such capture rule\n", spec);
		return -ENOENT;
	}
	/* No probe reads a dropped rule any more, nor adds a site by it. */
	synchronize_rcu();
	sa_capture_apply();
	return 0;
}

int sa_capture_cmd(const char *cmd)
{
	lockdep_assert_held(&sa_ctl_lock);
	if (!strncmp(cmd, "capture ", 8) && cmd[8])
		return sa_capture_add(cmd + 8);
	if (!strncmp(cmd, "uncapture ", 10) && cmd[10])
		return sa_capture_remove(cmd + 10);
	return -EINVAL;
}

int sa_capture_load(void)
{
	char *list, *p, *spec;
	int ret = 0;

	if (!capture || !capture[0])
		return 0;
	list = kstrdup(capture, GFP_KERNEL);
	if (!list)
		return -ENOMEM;
	p = list;
	mutex_lock(&sa_ctl_lock);
	while ((spec = strsep(&p, ",")) && !ret)
		if (*spec)
			ret = sa_capture_add(spec);
	mutex_unlock(&sa_ctl_lock);
	kfree(list);
	if (ret)
		pr_err("capture=%s: refused (%d)\n", capture, ret);
	return ret ? -EINVAL : 0;
}

/*
 * Does module @name's event @state change rule @r?  A module rule of that
 * name takes the module's text (and init text) when it comes, drops its
 * init text when it goes live, and waits, disarmed, while it is away; a
 * function rule in that module is dropped when its function's code goes
 * (the module goes, or goes live for a function of its init text).
 */
static bool sa_rule_moves(const struct sa_rule *r, const char *name,
			  int state)
{
	if (!r->used || strcmp(r->name, name))
		return false;
	switch (r->kind) {
	case SA_RULE_MODULE:
		/* One made while the module was coming has its range. */
		if (state == MODULE_STATE_COMING)
			return !r->armed;
		if (state == MODULE_STATE_LIVE)
			return r->istart < r->iend;
		return r->armed;
	case SA_RULE_FUNC:
	case SA_RULE_SITE:
		return state == MODULE_STATE_GOING ||
		       (state == MODULE_STATE_LIVE && r->init);
	default:
		return false;
	}
}

void sa_capture_module(const char *name, const struct module *mod,
		       int state)
{
	unsigned long moved = 0;
	bool rearmed = false;
	unsigned int i;

	lockdep_assert_held(&sa_ctl_lock);
	BUILD_BUG_ON(SA_MAX_RULES > BITS_PER_LONG);
	for (i = 0; i < SA_MAX_RULES; i++) {
		if (!sa_rule_moves(&sa_rules[i], name, state))
			continue;
		moved |= BIT(i);
		WRITE_ONCE(sa_rules[i].armed, 0);
	}
	if (!moved)
		return;
	/*
	 * No probe reads those rules any more (a module rule is disarmed
	 * already when its module comes: since its last unload, or since
	 * it was made, when it did not find the module).
	 */
	if (state != MODULE_STATE_COMING)
		synchronize_rcu();
	for (i = 0; i < SA_MAX_RULES; i++) {
		struct sa_rule *r = &sa_rules[i];

		if (!(moved & BIT(i)))
			continue;
		if (r->kind != SA_RULE_MODULE) {
			pr_info("capture %s: dropped, the code of module %s is %s\n",
				r->spec, name, state == MODULE_STATE_GOING ?
				"unloaded" : "freed (init text)");
			sa_rule_drop(i);
			continue;
		}
		if (state == MODULE_STATE_GOING)
			continue;	/* until it comes again */
		sa_module_ranges(mod, state, r);
		/* Its range before it is seen armed. */
		smp_store_release(&r->armed, 1);
		if (state == MODULE_STATE_LIVE)
			rearmed = true;
	}
	/*
	 * A site of the module's text added while its rule was disarmed
	 * (the module running after its init) is published once no probe
	 * is in the RCU read side it was in: then the walk captures it.
	 */
	if (rearmed) {
		synchronize_rcu();
		sa_capture_apply();
	}
}
