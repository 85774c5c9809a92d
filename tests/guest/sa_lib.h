/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the slab_account selftests: a strict parser of
 * /proc/slab_account (independent of the slabacct reader, so the two check
 * each other), control writes, and module loading.
 */
#ifndef SA_LIB_H
#define SA_LIB_H

#include <stddef.h>

#define SA_PROC		"/proc/slab_account"

/*
 * The harness's timeout for a test, a guard against hangs only: every
 * test bounds its work by count or progress, never by the time a host
 * takes, which a busy machine or a slow board stretches many times (the
 * row's boot timeout is the outer guard).  TEST() takes it too.
 */
#define SA_TEST_TIMEOUT	1800
#ifdef TEST_TIMEOUT_DEFAULT
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT SA_TEST_TIMEOUT
#endif
#define SA_TEST_PROC	"/proc/sa_test"

struct sa_row {
	unsigned long long total, slack, req, live, live_req, objs, peak;
	unsigned long long allocs, frees;
	char type[64];
	char caller[256];
};

struct sa_key {
	char name[48];
	unsigned long long val;
	char text[32];		/* a word: (1.3) "unhooked PATH", (1.6) "split" */
};

struct sa_snap {
	char *text;
	size_t len;
	char state[16];
	struct sa_key keys[96];
	int nkeys;
	struct sa_row *rows;
	size_t nrows;
};

/* Whole file into a malloc'd, NUL-terminated buffer; 0 or an errno. */
int sa_read_file(const char *path, char **buf, size_t *len);
/* One write() of @len bytes; 0 or the errno. */
int sa_write(const char *path, const void *buf, size_t len);
/* sa_write() of a string. */
int sa_cmd(const char *cmd);
/*
 * sa_write() from CPU @cpu: the task pinned there for the write, its
 * affinity as it was after; 0 or the errno.
 */
int sa_write_on(int cpu, const char *path, const void *buf, size_t len);

/* Read and strictly parse; 0, or -1 with a message in @err. */
int sa_snap_read(struct sa_snap *s, char *err, size_t errlen);
void sa_snap_free(struct sa_snap *s);
/* Value of a summary key; aborts the test program if absent. */
unsigned long long sa_snap_key(const struct sa_snap *s, const char *key);
int sa_snap_has_key(const struct sa_snap *s, const char *key);
/* The summary key @key of a snapshot read now, or ~0 if none was read. */
unsigned long long sa_key_now(const char *key);
/* The word of an "unhooked PATH" key; NULL if absent. */
const char *sa_snap_text(const struct sa_snap *s, const char *key);
/*
 * The row whose caller is "@func+0x..." (of code still loaded: not a row
 * ending " unloaded#N"; a site's own row, not one of its context rows);
 * NULL if none; *count = matches.
 */
const struct sa_row *sa_snap_row(const struct sa_snap *s, const char *func,
				 int *count);
/*
 * The same, of module @mod (" [@mod]" in the caller; NULL: any) and of its
 * load @load that has unloaded (0: loaded).  Load numbers are per module:
 * two modules' unloaded#1 rows are different loads.
 */
const struct sa_row *sa_snap_row_of(const struct sa_snap *s, const char *func,
				    const char *mod, unsigned int load,
				    int *count);
/* (1.3) The load a row of unloaded code was of, " unloaded#N"; else 0. */
unsigned int sa_row_unloaded(const struct sa_row *r);
/*
 * (1.6) Every row of the call sites in @func (of code still loaded, as
 * sa_snap_row()): each site's own row and all its context rows (caller
 * "@func+0x..." followed by " @stack:ID", " @task:COMM", ...), their
 * counters added into @sum (allocs, frees, total, slack, req, live,
 * live_req, objs and peak, each the rows' sum; type and caller the first
 * row's).  Returns how many rows; *sites: how many distinct call sites
 * they are of (callers without their context), 1 for a function with one
 * allocation call.  A site's figure is its own row plus its context rows.
 */
int sa_snap_sum(const struct sa_snap *s, const char *func, struct sa_row *sum,
		int *sites);
/*
 * (1.6) Where a context row's context begins in its caller (" @stack:ID",
 * " @cgroup:ID", " @node:N", " @task:COMM" or " @irq"); NULL for a
 * site's own row.
 */
const char *sa_row_context(const struct sa_row *r);

/* sa_test's own books for one site. */
struct sa_truth {
	char func[64];
	unsigned long long allocs, frees, total, req, live, live_req, objs;
};

/* Parse /proc/sa_test into @t (up to @max); returns count or -1. */
int sa_truth_read(struct sa_truth *t, int max, int *online_cpus);
/* The same from another module's file of that format (sa_stress). */
int sa_truth_read_file(const char *path, struct sa_truth *t, int max,
		       int *online_cpus);

/*
 * The kmem tracepoints report as bytes allocated the stride of the
 * object's cache (/sys/kernel/slab/<cache>/slab_size): ksize() plus the
 * metadata the slab keeps by each object under KASAN or slub_debug, and
 * ksize() itself otherwise.  sa_slab_metadata(): does this kernel keep
 * such metadata (kmalloc-128's stride is not 128)?
 * sa_truth_to_stride(): turns the ksize() books of a site whose objects
 * all have one size (each of sa_test's) into the tracepoints' figures;
 * @cache is its kmem_cache's name, NULL for kmalloc.  0, or -1 if the
 * site's objects do not all have one size.
 */
int sa_slab_metadata(void);
int sa_truth_to_stride(struct sa_truth *t, const char *cache);

/* Directory holding slab_account.ko and sa_test.ko ($SA_KO_DIR). */
const char *sa_ko_dir(void);
/* finit_module() of @name.ko from sa_ko_dir(); 0 or an errno. */
int sa_module_load(const char *name, const char *params);
/*
 * delete_module(); 0 or an errno.  A module in transition (still in its
 * init, or going) is waited for, a bounded number of times.
 */
int sa_module_unload(const char *name);
/*
 * What every test program starts from: slab_account loaded (from
 * sa_ko_dir(), with $SA_LOAD_PARAMS) when it is not, or not whole (a test
 * killed before: its insmod or rmmod went on).  0 or an errno.
 */
int sa_restore(void);
/* Is a module of that name loaded? */
int sa_module_loaded(const char *name);
/* A freshly loaded sa_test (a loaded one frees its objects and goes). */
int sa_test_fresh(void);
/* The kernel command line (/proc/cmdline); "" if unreadable. */
const char *sa_cmdline(void);
/*
 * Where tracefs is (in @root, @n bytes): the first of /sys/kernel/tracing
 * and /sys/kernel/debug/tracing that has @need (e.g. "instances"), else
 * tracefs mounted at the first.  0, or -1 when @need is not there.
 */
int sa_tracefs(char *root, size_t n, const char *need);
/* Sum of "KEY N" over the per-CPU stats files of the trace directory @dir. */
unsigned long long sa_trace_stat_sum(const char *dir, const char *key);



/*
 * main() of every selftest program: skip (exit 4) when not root or when
 * slab_account is not loaded and cannot be (sa_restore()); with
 * @need_sa_test also when sa_test.ko is not in sa_ko_dir().  Expanded
 * after kselftest_harness.h.
 */
#define SA_SELFTEST_MAIN(need_sa_test)					\
int main(int argc, char **argv)						\
{									\
	char ko[4096];							\
									\
	/* Tests run in forked children that leave with _exit(). */	\
	setvbuf(stdout, NULL, _IOLBF, 0);				\
	if (geteuid())							\
		ksft_exit_skip("needs root\n");				\
	sa_restore();							\
	if (access(SA_PROC, F_OK))					\
		ksft_exit_skip("no %s: load slab_account.ko first\n",	\
			       SA_PROC);				\
	snprintf(ko, sizeof(ko), "%s/sa_test.ko", sa_ko_dir());		\
	if ((need_sa_test) && access(ko, R_OK))				\
		ksft_exit_skip("no %s (set SA_KO_DIR)\n", ko);		\
	return test_harness_run(argc, argv);				\
}

/* The path of CPU @cpu's online switch in sysfs, into @buf. */
void sa_cpu_online_path(char *buf, size_t len, int cpu);
/* CPU @cpu offline (@on 0) or online again: 0 or an errno. */
int sa_cpu_online(int cpu, int on);

/* How many times the kernel log holds @what (0 when it cannot be read). */
int sa_logged_times(const char *what);

#endif /* SA_LIB_H */
