// SPDX-License-Identifier: GPL-2.0
/*
 * Unloading slab_account while objects it tracks are live, loading it
 * again, and freeing those objects afterwards; loading it while a CPU is
 * offline or stopped part way up; what every load asks the kernel
 * (whether it calls tracepoint probes preemptible).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "sa_lib.h"

/* Objects sa_test still holds after "run" (tests/kmod/sa_test.c). */
#define SAT_LIVE_AFTER_RUN 16

FIXTURE(reload) {
	int unused;
};

FIXTURE_SETUP(reload)
{
	ASSERT_EQ(0, sa_test_fresh());
}

/* A CPU a test took offline (cpu_online_after_load), or -1. */
static int offline_cpu = -1;
static int cpu_set_online(int cpu, int on);

FIXTURE_TEARDOWN(reload)
{
	/* Whatever happened, every CPU online again for the next tests. */
	if (offline_cpu >= 0)
		cpu_set_online(offline_cpu, 1);
	sa_write(SA_TEST_PROC, "free", 4);
	sa_module_unload("sa_test");
	/* Whatever happened, leave slab_account loaded for the next test. */
	if (!sa_module_loaded("slab_account"))
		sa_module_load("slab_account", NULL);
}

TEST_F(reload, rmmod_with_live_objects_then_free)
{
	struct sa_truth t[32];
	unsigned long long unknown;
	char err[256];
	struct sa_snap s;
	int cpus, live = 0, n;

	ASSERT_EQ(0, sa_write(SA_TEST_PROC, "run", 3));
	n = sa_truth_read(t, 32, &cpus);
	ASSERT_LT(0, n);
	for (int i = 0; i < n; i++)
		live += t[i].objs;
	ASSERT_EQ(SAT_LIVE_AFTER_RUN, live);

	ASSERT_EQ(0, sa_module_unload("slab_account"));
	ASSERT_NE(0, access(SA_PROC, F_OK));
	ASSERT_EQ(0, sa_module_load("slab_account", NULL));

	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	unknown = sa_snap_key(&s, "unknown frees");
	sa_snap_free(&s);

	/* The new instance never saw them: their frees are unknown frees. */
	ASSERT_EQ(0, sa_write(SA_TEST_PROC, "free", 4));
	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_GE(sa_snap_key(&s, "unknown frees"), unknown + SAT_LIVE_AFTER_RUN);
	for (int i = 0; i < n; i++) {
		int count;

		EXPECT_EQ(NULL, sa_snap_row(&s, t[i].func, &count))
			TH_LOG("row for %s", t[i].func);
	}
	sa_snap_free(&s);
}

/* Load and unload in a loop while the system allocates. */
TEST_F(reload, cycles)
{
	char err[256];
	struct sa_snap s;

	for (int i = 0; i < 20; i++) {
		int p[2];

		ASSERT_EQ(0, sa_module_unload("slab_account")) TH_LOG("cycle %d", i);
		ASSERT_EQ(0, pipe(p));
		ASSERT_EQ(0, sa_module_load("slab_account", NULL)) TH_LOG("cycle %d", i);
		close(p[0]);
		close(p[1]);
	}
	ASSERT_EQ(0, sa_snap_read(&s, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_STREQ("active", s.state);
	sa_snap_free(&s);
}

static int cpu_set_online(int cpu, int on)
{
	int err = sa_cpu_online(cpu, on);

	if (!err)
		offline_cpu = on ? -1 : cpu;
	return err;
}

/*
 * The rows of sa_test's first @n sites in @s (each found by its function's
 * name) equal its books @t: allocs, frees, total, req, live and objs, each
 * exactly.  A site without a row fails the ASSERT, which ends the whole
 * test here as in the test's body (the 5.10 harness aborts the test's
 * process, 6.1's and 6.12's longjmp out of the test, 7.2's runs the
 * teardown and aborts).
 */
static void rows_match_truth(struct __test_metadata *_metadata,
			     const struct sa_snap *s, const struct sa_truth *t,
			     int n)
{
	for (int i = 0; i < n; i++) {
		int count;
		const struct sa_row *r = sa_snap_row(s, t[i].func, &count);

		ASSERT_NE(NULL, r) TH_LOG("no row for %s", t[i].func);
		EXPECT_EQ(t[i].allocs, r->allocs) TH_LOG("%s", t[i].func);
		EXPECT_EQ(t[i].frees, r->frees) TH_LOG("%s", t[i].func);
		EXPECT_EQ(t[i].total, r->total) TH_LOG("%s", t[i].func);
		EXPECT_EQ(t[i].req, r->req) TH_LOG("%s", t[i].func);
		EXPECT_EQ(t[i].live, r->live) TH_LOG("%s", t[i].func);
		EXPECT_EQ(t[i].objs, r->objs) TH_LOG("%s", t[i].func);
	}
}

/* The highest CPU online ("0-1", "0,2-3": the last number), or -1. */
static int last_online_cpu(void)
{
	char buf[256], *p;
	int fd = open("/sys/devices/system/cpu/online", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = buf + n;
	while (p > buf && !isdigit((unsigned char)p[-1]))
		*--p = '\0';
	while (p > buf && isdigit((unsigned char)p[-1]))
		p--;
	return atoi(p);
}

/*
 * A CPU offline at load, but present, has counters from the load (so has
 * a CPU parked part way up, which would not run the prepare step of a
 * state installed meanwhile); none for CPUs that only may come.  Brought
 * online, what it counts is exact; taken offline again, its counts stay
 * in the rows and its counters stay.
 */
TEST_F(reload, cpu_online_after_load)
{
	unsigned long long cpus, mem, per_cpu;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	int cpu = last_online_cpu(), n, count;
	struct sa_truth t[32];
	struct sa_snap a, b;
	char path[64], err[256];

	sa_cpu_online_path(path, sizeof(path), cpu);
	if (online < 2 || cpu < 1)
		SKIP(return, "no CPU to take offline (%ld online)", online);
	if (access(path, W_OK))
		SKIP(return, "no CPU hotplug in this kernel (no %s)", path);
	ASSERT_EQ(0, cpu_set_online(cpu, 0)) TH_LOG("CPU %d offline", cpu);
	if (sa_module_unload("slab_account") ||
	    sa_module_load("slab_account", NULL)) {
		cpu_set_online(cpu, 1);
		ASSERT_TRUE(0) TH_LOG("reload with CPU %d offline", cpu);
	}
	cpus = sa_key_now("counter cpus");
	mem = sa_key_now("counter memory");
	EXPECT_EQ(0, cpu_set_online(cpu, 1));
	ASSERT_EQ((unsigned long long)online, cpus);
	ASSERT_LT(0, cpus);
	per_cpu = mem / cpus;
	EXPECT_EQ(cpus * per_cpu, mem);
	EXPECT_EQ(cpus, sa_key_now("counter cpus"));
	EXPECT_EQ(mem, sa_key_now("counter memory"));

	/* Counted on the CPU that came online: exact. */
	ASSERT_EQ(0, sa_write_on(cpu, SA_TEST_PROC, "run", 3));
	n = sa_truth_read(t, 32, &count);
	ASSERT_LT(0, n);
	ASSERT_EQ(0, sa_snap_read(&a, err, sizeof(err))) TH_LOG("%s", err);
	/*
	 * The first two sites of the "run" pattern (tests/kmod/sa_test.c)
	 * allocate in the writer's task, on the CPU it is pinned to.
	 */
	ASSERT_LE(2, n);
	ASSERT_STREQ("sa_test_alloc_kmalloc100", t[0].func);
	ASSERT_STREQ("sa_test_alloc_cache", t[1].func);
	ASSERT_EQ(0, sa_truth_to_stride(&t[0], NULL));
	ASSERT_EQ(0, sa_truth_to_stride(&t[1], "sa_test_cache"));
	n = 2;
	rows_match_truth(_metadata, &a, t, n);

	/* Offline again: its counts and counters stay. */
	ASSERT_EQ(0, cpu_set_online(cpu, 0));
	ASSERT_EQ(0, sa_snap_read(&b, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(0, cpu_set_online(cpu, 1));
	EXPECT_EQ(cpus, sa_snap_key(&b, "counter cpus"));
	EXPECT_EQ(mem, sa_snap_key(&b, "counter memory"));
	for (int i = 0; i < n; i++) {
		const struct sa_row *ra = sa_snap_row(&a, t[i].func, &count);
		const struct sa_row *rb = sa_snap_row(&b, t[i].func, &count);

		ASSERT_NE(NULL, rb) TH_LOG("no row for %s", t[i].func);
		EXPECT_EQ(ra->allocs, rb->allocs) TH_LOG("%s", t[i].func);
		EXPECT_EQ(ra->frees, rb->frees) TH_LOG("%s", t[i].func);
		EXPECT_EQ(ra->total, rb->total) TH_LOG("%s", t[i].func);
		EXPECT_EQ(ra->live, rb->live) TH_LOG("%s", t[i].func);
	}
	ksft_print_msg("report: counters: %llu CPUs at load (CPU %d offline, present), %llu bytes, %llu per CPU; CPU %d online then offline: %llu CPUs\n",
		       cpus, cpu, mem, per_cpu, cpu,
		       sa_snap_key(&b, "counter cpus"));
	sa_snap_free(&a);
	sa_snap_free(&b);
}

/*
 * The number of the hotplug state named @name (a line "%3d: NAME" of
 * /sys/devices/system/cpu/hotplug/states), or -1.
 */
static int hotplug_state(const char *name)
{
	FILE *f = fopen("/sys/devices/system/cpu/hotplug/states", "r");
	char line[128], *p;
	int state = -1;

	if (!f)
		return -1;
	while (state < 0 && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		p = strchr(line, ':');
		if (p && !strcmp(p + 1 + strspn(p + 1, " "), name))
			state = atoi(line);
	}
	fclose(f);
	return state;
}

/* CPU @cpu's hotplug state (its hotplug/state file), or -1. */
static int cpu_hotplug_state(int cpu)
{
	char path[80], *buf;
	size_t len;
	int state;

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/hotplug/state", cpu);
	if (sa_read_file(path, &buf, &len))
		return -1;
	state = atoi(buf);
	free(buf);
	return state;
}

/* CPU @cpu taken up or down to hotplug state @state: 0 or the errno. */
static int cpu_hotplug_target(int cpu, int state)
{
	char path[80], num[16];

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/hotplug/target", cpu);
	snprintf(num, sizeof(num), "%d", state);
	return sa_write(path, num, strlen(num));
}

/*
 * A CPU stopped on its way up past slab_account's prepare state's slot
 * while slab_account is loaded again: a CPU the load must give counters
 * (it is present, not online), since going on up it runs only the states
 * after the one it is stopped at.  The stop is sa_test's "sa_test:park"
 * state, installed while slab_account holds its slot, so that it takes a
 * later one, as a subsystem's prepare state installed after slab_account
 * would; only a kernel with CPU_HOTPLUG_STATE_CONTROL stops a CPU at a
 * state between offline and online.  Brought online, the CPU's counts
 * are exact.
 */
TEST_F(reload, cpu_parked_at_load)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	int cpu = last_online_cpu(), sa, park, bringup, full, n, count, err;
	unsigned long long cpus;
	struct sa_truth t[32];
	struct sa_snap a;
	char path[64], err_msg[256];

	sa_cpu_online_path(path, sizeof(path), cpu);
	if (online < 2 || cpu < 1)
		SKIP(return, "no CPU to take offline (%ld online)", online);
	if (access(path, W_OK))
		SKIP(return, "no CPU hotplug in this kernel (no %s)", path);
	ASSERT_EQ(0, sa_write(SA_TEST_PROC, "park", 4));
	park = hotplug_state("sa_test:park");
	ASSERT_LT(0, park);

	ASSERT_EQ(0, cpu_set_online(cpu, 0)) TH_LOG("CPU %d offline", cpu);
	err = cpu_hotplug_target(cpu, park);
	if (err == EINVAL) {
		cpu_set_online(cpu, 1);
		SKIP(return, "this kernel stops no CPU between offline and online (no CPU_HOTPLUG_STATE_CONTROL): state %d refused",
		     park);
	}
	ASSERT_EQ(0, err) TH_LOG("CPU %d to state %d", cpu, park);
	sa = hotplug_state("slab_account:counters");
	bringup = hotplug_state("cpu:bringup");
	full = hotplug_state("online");
	/* Prepare states, slab_account's first, both before the bringup. */
	ASSERT_LT(0, sa);
	ASSERT_LT(sa, park);
	ASSERT_LT(park, bringup);
	ASSERT_LT(bringup, full);
	ASSERT_EQ(park, cpu_hotplug_state(cpu));
	ASSERT_EQ(online - 1, sysconf(_SC_NPROCESSORS_ONLN));

	if (sa_module_unload("slab_account") ||
	    sa_module_load("slab_account", NULL)) {
		cpu_set_online(cpu, 1);
		ASSERT_TRUE(0) TH_LOG("reload with CPU %d at state %d", cpu,
				      park);
	}
	/* The load took the lowest slot free: before the CPU's. */
	sa = hotplug_state("slab_account:counters");
	ASSERT_LT(0, sa);
	ASSERT_LT(sa, park);
	cpus = sa_key_now("counter cpus");
	if (cpus != (unsigned long long)online) {
		/*
		 * The CPU would come online with no counters, its probes
		 * writing through a NULL array: slab_account goes first.
		 */
		sa_module_unload("slab_account");
		cpu_set_online(cpu, 1);
		ASSERT_EQ((unsigned long long)online, cpus)
			TH_LOG("counters at load with CPU %d at state %d",
			       cpu, park);
	}
	ASSERT_EQ(0, cpu_set_online(cpu, 1)) TH_LOG("CPU %d online", cpu);
	ASSERT_EQ(full, cpu_hotplug_state(cpu));
	ASSERT_EQ(online, sysconf(_SC_NPROCESSORS_ONLN));
	EXPECT_EQ(cpus, sa_key_now("counter cpus"));

	/* Counted on the CPU that came up: exact (as cpu_online_after_load). */
	ASSERT_EQ(0, sa_write_on(cpu, SA_TEST_PROC, "run", 3));
	n = sa_truth_read(t, 32, &count);
	ASSERT_LE(2, n);
	ASSERT_EQ(0, sa_snap_read(&a, err_msg, sizeof(err_msg)))
		TH_LOG("%s", err_msg);
	ASSERT_STREQ("sa_test_alloc_kmalloc100", t[0].func);
	ASSERT_STREQ("sa_test_alloc_cache", t[1].func);
	ASSERT_EQ(0, sa_truth_to_stride(&t[0], NULL));
	ASSERT_EQ(0, sa_truth_to_stride(&t[1], "sa_test_cache"));
	rows_match_truth(_metadata, &a, t, 2);
	ksft_print_msg("report: parked: CPU %d stopped at state %d (sa_test:park), slab_account's state %d, loaded again: counters for %llu CPUs; online: %s %llu allocs, %llu bytes, %llu live exact\n",
		       cpu, park, sa, cpus, t[0].func, t[0].allocs, t[0].total,
		       t[0].live);
	sa_snap_free(&a);
	EXPECT_EQ(0, sa_write(SA_TEST_PROC, "unpark", 6));
}

/*
 * Whether the kernel calls tracepoint probes preemptible is asked of its
 * own code at every load (sa_tracepoints.c: a kfree() seen by a probe),
 * not read from its headers: the question must get an answer, and every
 * load of a boot the same one.
 */
TEST_F(reload, tracepoint_preemption_asked)
{
	const char *yes = "slab_account: tracepoint probes are called preemptible";
	int before = sa_logged_times(yes), after;

	if (sa_module_loaded("slab_account"))
		ASSERT_EQ(0, sa_module_unload("slab_account"));
	ASSERT_EQ(0, sa_module_load("slab_account", NULL));
	after = sa_logged_times(yes);
	EXPECT_EQ(0, sa_logged_times("slab_account: cannot tell whether tracepoint probes"));
	if (before) {
		EXPECT_EQ(before + 1, after);
	} else {
		EXPECT_LE(after, 1);
	}
	ksft_print_msg("report: reload: tracepoint probes called %s\n",
		       after ? "preemptible (the probes turn preemption off)" :
			       "with preemption off");
}

SA_SELFTEST_MAIN(1)
