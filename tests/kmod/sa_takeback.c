// SPDX-License-Identifier: GPL-2.0
/*
 * sa_takeback: an allocation taken back on another CPU than the one that
 * counted it, while a reader of /proc/slab_account is between those two
 * CPUs' counters of the site, for sa_stress_test's
 * taken_back_on_another_cpu_mid_read.
 *
 * A krealloc() that moves its object reports the new object with its own
 * return address as the call site; slab_account's kretprobe takes it back
 * from that site at krealloc()'s return and counts it at the caller's, on
 * the CPU the return runs on.  Here a kthread (the mover) krealloc()s on
 * CPU 0, where the new object's event counts it.  A kprobe on kfree()
 * holds the mover inside krealloc() (it frees the old object after the
 * new one is counted) until a second kthread (the shifter, on CPU 1) has
 * set the mover's CPUs to CPU 1 alone: on a fully preemptible kernel the
 * mover is migrated as soon as the kprobe lets it go, and krealloc()
 * returns there, where the take-back runs.
 *
 * The reader is the task that writes "arm" to /proc/sa_takeback, on a CPU
 * other than 0 and 1.  A kprobe on the kernel's search for the next CPU
 * of a mask (what for_each_cpu() calls) holds it each time slab_account's
 * sums (sa_site_sum(), in sa_site_view()) have read CPU 0 and look for
 * the next CPU, while the mover makes one such krealloc(): the reader
 * then sees the moved object's first site on CPU 0 before its count and
 * on CPU 1 after its take-back, one allocation too few.
 *
 * Writes to /proc/sa_takeback:
 *   arm     the writing task is the reader from now on (counts zeroed)
 *   disarm  no reader
 * Reading it prints:
 *   pauses N     times the reader was held
 *   moved N      krealloc()s that returned on CPU 1 (taken back there)
 *   stayed N     krealloc()s that returned elsewhere (not preempted in
 *                time)
 *   timeouts N   holds of the reader, then moves of the mover, that
 *                waited 8 s and gave up (two numbers); after the first,
 *                no more holds nor moves until the next "arm"
 *   longest N    the longest hold of the reader, in microseconds
 *
 * It must be loaded before slab_account.  The kretprobes of a function
 * are entered newest first, and each puts its trampoline where the
 * return address was: the one entered first keeps the caller's address,
 * the others find a trampoline.  Loaded first, sa_takeback's kretprobe
 * on krealloc() (which tells the CPU krealloc() returns on) is entered
 * after slab_account's, which keeps the caller's address to recharge to.
 *
 * x86-64 and arm64 only (the return address at a function's entry); the
 * module refuses to load elsewhere and without kprobes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#define SAT_COUNT_CPU	0
#define SAT_BACK_CPU	1
/*
 * How long a hold or a move waits: far more than either takes (a few ms
 * in a QEMU guest), for a host so busy that a vCPU waits its turn for
 * seconds; less than the 10 s after which a spin with interrupts off
 * would be reported (int3 and arm64's kprobes).
 */
#define SAT_WAIT_NS	(8 * NSEC_PER_SEC)

#if defined(CONFIG_KPROBES) && (defined(CONFIG_X86_64) || defined(CONFIG_ARM64))
#define SAT_CAN 1

/* A probed function's return address, at its first instruction. */
static unsigned long sat_ret_addr(struct pt_regs *regs)
{
#ifdef CONFIG_X86_64
	return regs_get_kernel_stack_nth(regs, 0);
#else
	return regs->regs[30];
#endif
}
#else
#define SAT_CAN 0
#endif

#if SAT_CAN
static DEFINE_MUTEX(sat_lock);
/* The reader's pid while armed, else 0. */
static pid_t sat_reader;
static atomic_t sat_pauses, sat_moved, sat_stayed;
static atomic_t sat_hold_timeouts, sat_move_timeouts;
/* The longest hold of the reader, in ns (the reader's alone). */
static u64 sat_longest;
static struct task_struct *sat_mover, *sat_shifter;
/* The reader's holds, numbered; the last one the mover has answered. */
static unsigned long sat_request, sat_done;
/* The old object of the mover's krealloc() while it runs, else NULL. */
static void *sat_old;
/* The mover is held in krealloc(), for the shifter to move it. */
static int sat_window;
/* The CPU krealloc() last returned on, for the mover. */
static int sat_ret_cpu;
/* A hold or a move gave up: none more until the next "arm". */
static bool sat_broken;
/* The moved object, stored by sa_takeback_move(). */
static void *sat_new;

/*
 * Spins until *@flag is @want (acquire), at most SAT_WAIT_NS; how long.
 * local_clock(): this CPU's clock, which the spin does not leave.
 */
static u64 sat_wait_ul(unsigned long *flag, unsigned long want)
{
	u64 start = local_clock(), now = start;

	/* Acquire: what the mover did before its release is done. */
	while (smp_load_acquire(flag) != want) {
		now = local_clock();
		if (now - start > SAT_WAIT_NS) {
			atomic_inc(&sat_hold_timeouts);
			WRITE_ONCE(sat_broken, true);
			break;
		}
		cpu_relax();
	}
	return now - start;
}

/*
 * The search for_each_cpu() calls, and the CPU it starts from:
 * _find_next_bit(addr, size, start) where linux/find.h declares it so
 * (6.1 on), cpumask_next(n, mask) from n + 1 before (5.10).
 */
#ifdef SAT_HAVE_FIND_NEXT_BIT
#define SAT_SCAN_SYM	"_find_next_bit"
static long sat_scan_from(struct pt_regs *regs)
{
	return regs_get_kernel_argument(regs, 2);
}
#else
#define SAT_SCAN_SYM	"cpumask_next"
static long sat_scan_from(struct pt_regs *regs)
{
	return (int)regs_get_kernel_argument(regs, 0) + 1;
}
#endif

static int sat_scan_pre(struct kprobe *kp, struct pt_regs *regs)
{
	char sym[KSYM_SYMBOL_LEN];
	pid_t reader = READ_ONCE(sat_reader);
	unsigned long seq;
	u64 held;

	if (!reader || current->pid != reader || READ_ONCE(sat_broken) ||
	    fatal_signal_pending(current) ||
	    raw_smp_processor_id() <= SAT_BACK_CPU ||
	    sat_scan_from(regs) != SAT_COUNT_CPU + 1)
		return 0;
	/* sa_site_view(), or the sa_site_sum() it may not have inlined. */
	sprint_symbol_no_offset(sym, sat_ret_addr(regs));
	if (strcmp(sym, "sa_site_view [slab_account]") &&
	    strcmp(sym, "sa_site_sum [slab_account]"))
		return 0;
	atomic_inc(&sat_pauses);
	seq = READ_ONCE(sat_request) + 1;
	/* Release: the counters read so far are read before the mover runs. */
	smp_store_release(&sat_request, seq);
	held = sat_wait_ul(&sat_done, seq);
	if (held > sat_longest)
		sat_longest = held;
	return 0;
}

static struct kprobe sat_scan_kp = {
	.symbol_name = SAT_SCAN_SYM,
	.pre_handler = sat_scan_pre,
};

static int sat_free_pre(struct kprobe *kp, struct pt_regs *regs)
{
	void *old = READ_ONCE(sat_old);
	u64 start;

	if (current != sat_mover || !old || READ_ONCE(sat_broken) ||
	    (void *)regs_get_kernel_argument(regs, 0) != old)
		return 0;
	WRITE_ONCE(sat_old, NULL);
	/* Release: the new object's count is done before the shifter acts. */
	smp_store_release(&sat_window, 1);
	start = local_clock();
	while (cpumask_test_cpu(SAT_COUNT_CPU, current->cpus_ptr)) {
		if (local_clock() - start > SAT_WAIT_NS) {
			atomic_inc(&sat_move_timeouts);
			WRITE_ONCE(sat_broken, true);
			/* The shifter must not move the mover later on. */
			WRITE_ONCE(sat_window, 0);
			break;
		}
		cpu_relax();
	}
	return 0;
}

static struct kprobe sat_free_kp = {
	.symbol_name = "kfree",
	.pre_handler = sat_free_pre,
};

static int sat_krealloc_entry(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	return current != sat_mover;	/* nonzero: not this call's return */
}

/* Where krealloc() returns, and slab_account's handler takes back. */
static int sat_krealloc_ret(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	WRITE_ONCE(sat_ret_cpu, raw_smp_processor_id());
	return 0;
}

static struct kretprobe sat_krealloc_rp = {
	.entry_handler = sat_krealloc_entry,
	.handler = sat_krealloc_ret,
	.maxactive = 4,
};

/* krealloc() by the names it has had (6.10, 6.17). */
static const char * const sat_krealloc_syms[] = {
	"krealloc_node_align_noprof", "krealloc_noprof", "krealloc",
};

static noinline void *sa_takeback_alloc(void)
{
	return kmalloc(64, GFP_KERNEL);
}

/*
 * The krealloc() whose moved object is recharged here: the caller's row
 * is named sa_takeback_move (a store after the call, so no tail call
 * makes it another function's).
 */
static noinline void sa_takeback_move(void *p)
{
	WRITE_ONCE(sat_new, krealloc(p, 1024, GFP_KERNEL));
}

/* One krealloc() that moves its object, on CPU 0. */
static void sat_cycle(void)
{
	void *p = sa_takeback_alloc(), *q;

	if (!p)
		return;
	WRITE_ONCE(sat_ret_cpu, -1);
	WRITE_ONCE(sat_window, 0);
	WRITE_ONCE(sat_old, p);
	sa_takeback_move(p);
	q = READ_ONCE(sat_new);
	WRITE_ONCE(sat_old, NULL);
	if (!q) {
		kfree(p);
		return;
	}
	if (READ_ONCE(sat_ret_cpu) == SAT_BACK_CPU)
		atomic_inc(&sat_moved);
	else
		atomic_inc(&sat_stayed);
	kfree(q);
}

static int sat_mover_fn(void *unused)
{
	unsigned long seen = 0, seq;

	set_cpus_allowed_ptr(current, cpumask_of(SAT_COUNT_CPU));
	while (!kthread_should_stop()) {
		/* Acquire: pairs with the reader's release as a hold starts. */
		seq = smp_load_acquire(&sat_request);
		if (seq == seen) {
			usleep_range(20, 50);
			continue;
		}
		seen = seq;
		if (raw_smp_processor_id() == SAT_COUNT_CPU)
			sat_cycle();
		/* Release: the take-back is done before the reader goes on. */
		smp_store_release(&sat_done, seq);
		set_cpus_allowed_ptr(current, cpumask_of(SAT_COUNT_CPU));
	}
	return 0;
}

static int sat_shifter_fn(void *unused)
{
	while (!kthread_should_stop()) {
		/* Acquire: pairs with the mover's release in kfree(). */
		if (!smp_load_acquire(&sat_window)) {
			usleep_range(20, 50);
			continue;
		}
		WRITE_ONCE(sat_window, 0);
		set_cpus_allowed_ptr(sat_mover, cpumask_of(SAT_BACK_CPU));
	}
	return 0;
}

static int sat_probes_register(void)
{
	unsigned int i;
	int err = register_kprobe(&sat_scan_kp);

	if (err) {
		pr_err("no kprobe on %s(): %d\n", SAT_SCAN_SYM, err);
		return err;
	}
	err = -ENOENT;
	for (i = 0; i < ARRAY_SIZE(sat_krealloc_syms) && err; i++) {
		sat_krealloc_rp.kp.symbol_name = sat_krealloc_syms[i];
		sat_krealloc_rp.kp.addr = NULL;
		err = register_kretprobe(&sat_krealloc_rp);
	}
	if (err) {
		pr_err("no kretprobe on krealloc(): %d\n", err);
		unregister_kprobe(&sat_scan_kp);
		return err;
	}
	err = register_kprobe(&sat_free_kp);
	if (err) {
		pr_err("no kprobe on kfree(): %d\n", err);
		unregister_kretprobe(&sat_krealloc_rp);
		unregister_kprobe(&sat_scan_kp);
	}
	return err;
}

static void sat_probes_unregister(void)
{
	unregister_kprobe(&sat_free_kp);
	unregister_kretprobe(&sat_krealloc_rp);
	unregister_kprobe(&sat_scan_kp);
}

static int sat_show(struct seq_file *m, void *v)
{
	seq_printf(m, "pauses %d\nmoved %d\nstayed %d\ntimeouts %d %d\nlongest %llu\n",
		   atomic_read(&sat_pauses), atomic_read(&sat_moved),
		   atomic_read(&sat_stayed), atomic_read(&sat_hold_timeouts),
		   atomic_read(&sat_move_timeouts),
		   div_u64(READ_ONCE(sat_longest), NSEC_PER_USEC));
	return 0;
}

static int sat_open(struct inode *inode, struct file *file)
{
	return single_open(file, sat_show, NULL);
}

static ssize_t sat_write(struct file *file, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	ssize_t ret = len;
	char buf[16], *cmd;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	cmd = strim(buf);
	mutex_lock(&sat_lock);
	if (!strcmp(cmd, "arm")) {
		atomic_set(&sat_pauses, 0);
		atomic_set(&sat_moved, 0);
		atomic_set(&sat_stayed, 0);
		atomic_set(&sat_hold_timeouts, 0);
		atomic_set(&sat_move_timeouts, 0);
		WRITE_ONCE(sat_longest, 0);
		WRITE_ONCE(sat_broken, false);
		WRITE_ONCE(sat_reader, current->pid);
	} else if (!strcmp(cmd, "disarm")) {
		WRITE_ONCE(sat_reader, 0);
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&sat_lock);
	return ret;
}

static const struct proc_ops sat_proc_ops = {
	.proc_open	= sat_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= single_release,
	.proc_write	= sat_write,
};

static struct proc_dir_entry *sat_proc;
#endif

static int __init sat_init(void)
{
#if SAT_CAN
	int err;

	if (!cpu_online(SAT_COUNT_CPU) || !cpu_online(SAT_BACK_CPU) ||
	    num_online_cpus() < 3) {
		pr_err("needs CPUs 0 and 1 and a third online\n");
		return -ENODEV;
	}
	sat_mover = kthread_create(sat_mover_fn, NULL, "sa_takeback_mover");
	if (IS_ERR(sat_mover))
		return PTR_ERR(sat_mover);
	sat_shifter = kthread_create(sat_shifter_fn, NULL,
				     "sa_takeback_shifter");
	if (IS_ERR(sat_shifter)) {
		kthread_stop(sat_mover);
		return PTR_ERR(sat_shifter);
	}
	kthread_bind(sat_shifter, SAT_BACK_CPU);
	err = sat_probes_register();
	if (!err) {
		sat_proc = proc_create("sa_takeback", 0600, NULL,
				       &sat_proc_ops);
		if (!sat_proc) {
			sat_probes_unregister();
			err = -ENOMEM;
		}
	}
	if (err) {
		kthread_stop(sat_shifter);
		kthread_stop(sat_mover);
		return err;
	}
	wake_up_process(sat_mover);
	wake_up_process(sat_shifter);
	return 0;
#else
	pr_err("needs kprobes on x86-64 or arm64\n");
	return -EOPNOTSUPP;
#endif
}

static void __exit sat_exit(void)
{
#if SAT_CAN
	proc_remove(sat_proc);
	WRITE_ONCE(sat_reader, 0);
	sat_probes_unregister();
	kthread_stop(sat_shifter);
	kthread_stop(sat_mover);
#endif
}

module_init(sat_init);
module_exit(sat_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("slab_account test: an allocation taken back on another CPU mid-read");
