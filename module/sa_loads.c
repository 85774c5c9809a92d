// SPDX-License-Identifier: GPL-2.0
/*
 * slab_account: module loads as the owners of call sites.
 *
 * A call site in a module's code belongs to that load of the module.  The
 * module notifier numbers the loads (a record per load, in order, never
 * reused: a module's Nth load since slab_account's, a module already
 * loaded then being load 1) and, when a load's code goes away, retires
 * its sites: at LIVE the sites in its init text (freed just after), at
 * GOING those in its text (sa_sites_retire()): their hash slots are
 * taken, so that a later allocation at those addresses -- the module
 * loaded again, or another one put there -- makes a fresh site, while
 * the retired rows keep their names, numbers and live objects (their
 * frees still charged to them) and say which load they were of.  At
 * GOING the load's verdict is kept (sa_unloads.c).  A module's text is
 * found from struct module, whose layout changed in 6.4 (Kbuild's
 * SA_HAVE_MOD_MEM).  A retired site is named as it is retired, while its
 * code is still there (the other sites' code stays: they are named when
 * a file is read).  Everything here runs in process context under
 * sa_ctl_lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/seq_file.h>
#include <linux/string.h>

#include "sa_core.h"
#include "sa_ctx.h"
#include "sa_loads.h"
#include "sa_sites.h"
#include "sa_unloads.h"

struct sa_load {
	const struct module *mod;	/* while it is loaded, else NULL */
	char name[MODULE_NAME_LEN];
	unsigned int seq;		/* its load number since our load */
	/* Its retired sites: the first's index + 1 (sa_sites_retire()). */
	u32 sites;
};

static struct sa_load sa_loads[SA_MAX_LOADS];
static unsigned int sa_nr_loads;	/* records used */
static unsigned long sa_nr_unloads;	/* GOING seen */
static unsigned long sa_loads_lost;	/* loads with no room for a record */

/*
 * The loads that found no record share this one: their sites are retired
 * all the same (` unloaded#0`), their unloads give no verdict, and the
 * header counts them.  Its list of retired sites holds all of theirs
 * (each site is on it once), which nothing walks.
 */
#define SA_LOAD_LOST	(SA_MAX_LOADS + 1)
static struct sa_load sa_load_lost = { .name = "?" };

static struct sa_load *sa_load_at(u16 owner)
{
	if (owner == SA_LOAD_LOST)
		return &sa_load_lost;
	return owner && owner <= sa_nr_loads ? &sa_loads[owner - 1] : NULL;
}

/* The record of @mod (loaded), made if it has none: its owner. */
static u16 sa_load_of(const struct module *mod)
{
	unsigned int i, seq = 1;
	struct sa_load *l;

	lockdep_assert_held(&sa_ctl_lock);
	for (i = 0; i < sa_nr_loads; i++) {
		if (sa_loads[i].mod == mod)
			return i + 1;
		seq += !strcmp(sa_loads[i].name, mod->name);
	}
	if (sa_nr_loads == SA_MAX_LOADS)
		return SA_LOAD_LOST;
	l = &sa_loads[sa_nr_loads++];
	l->mod = mod;
	strscpy(l->name, mod->name, sizeof(l->name));
	l->seq = seq;
	l->sites = 0;
	return sa_nr_loads;
}

bool sa_load_gone(u16 owner)
{
	const struct sa_load *l = sa_load_at(owner);

	return l && !l->mod;
}

unsigned int sa_load_seq(u16 owner)
{
	const struct sa_load *l = sa_load_at(owner);

	return l ? l->seq : 0;
}

const char *sa_load_name(u16 owner)
{
	const struct sa_load *l = sa_load_at(owner);

	return l ? l->name : "?";
}

void sa_loads_header(struct seq_file *m)
{
	unsigned int i;

	lockdep_assert_held(&sa_ctl_lock);
	seq_printf(m, "module loads: %u\n", sa_nr_loads);
	seq_printf(m, "module loads lost: %lu\n", sa_loads_lost);
	seq_printf(m, "module unloads: %lu\n", sa_nr_unloads);
	for (i = 0; i < sa_nr_loads; i++)
		if (sa_loads[i].mod && sa_loads[i].seq > 1)
			seq_printf(m, "reloaded %s: %u\n", sa_loads[i].name,
				   sa_loads[i].seq);
}

void sa_loads_text(const struct module *mod, bool init,
		   unsigned long *start, unsigned long *end)
{
#ifdef SA_HAVE_MOD_MEM
	const struct module_memory *mem = &mod->mem[init ? MOD_INIT_TEXT :
						   MOD_TEXT];

	*start = (unsigned long)mem->base;
	*end = *start + mem->size;
#else
	const struct module_layout *layout = init ? &mod->init_layout :
						    &mod->core_layout;

	*start = (unsigned long)layout->base;
	*end = *start + layout->text_size;
#endif
}

/* Retire the sites in @mod's text (or init text) as load @owner's. */
static void sa_load_retire(const struct module *mod, u16 owner, bool init)
{
	unsigned long start, end;

	sa_loads_text(mod, init, &start, &end);
	if (start < end)
		sa_sites_retire(start, end, owner, &sa_load_at(owner)->sites);
}

static int sa_loads_event(struct notifier_block *nb, unsigned long state,
			  void *data)
{
	struct module *mod = data;
	u16 owner;

	mutex_lock(&sa_ctl_lock);
	switch (state) {
	case MODULE_STATE_COMING:
		/* Numbered before any of its code runs. */
		if (sa_load_of(mod) == SA_LOAD_LOST)
			sa_loads_lost++;
		/* A capture rule of its name captures its sites. */
		sa_capture_module(mod->name, mod, MODULE_STATE_COMING);
		break;
	case MODULE_STATE_LIVE:
		/* Its init text is freed next: its sites are done with. */
		sa_load_retire(mod, sa_load_of(mod), true);
		/* Nor does a capture rule capture there any more. */
		sa_capture_module(mod->name, mod, MODULE_STATE_LIVE);
		break;
	case MODULE_STATE_GOING:
		sa_nr_unloads++;
		owner = sa_load_of(mod);
		/* Its init text too, when it failed before going live. */
		sa_load_retire(mod, owner, true);
		sa_load_retire(mod, owner, false);
		sa_capture_module(mod->name, mod, MODULE_STATE_GOING);
		if (owner == SA_LOAD_LOST)
			break;
		sa_loads[owner - 1].mod = NULL;
		sa_unload_verdict(owner, sa_loads[owner - 1].sites);
		break;
	}
	mutex_unlock(&sa_ctl_lock);
	return NOTIFY_DONE;
}

static struct notifier_block sa_loads_nb = {
	.notifier_call = sa_loads_event,
};

int sa_loads_watch(void)
{
	sa_nr_loads = 0;
	sa_nr_unloads = 0;
	sa_loads_lost = 0;
	return register_module_notifier(&sa_loads_nb);
}

void sa_loads_unwatch(void)
{
	unregister_module_notifier(&sa_loads_nb);
}
