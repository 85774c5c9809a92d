// SPDX-License-Identifier: GPL-2.0
/*
 * sa_atomics: what slab_account's counter updates cost on this machine's
 * own CPUs (no QEMU): per iteration, the five counter updates of an
 * allocation done as
 *   shared  five locked adds to one cache line (the counters of one site
 *           in one place),
 *   percpu  one locked add to the shared line (live bytes) and four plain
 *           adds to a line of the thread's own (per-CPU counters),
 *   plain   five plain adds to a line of the thread's own,
 * by one thread, then by two threads on two CPUs at once (both on the
 * same site).  Prints nanoseconds per iteration and thread; part of
 * `make bench`, never a pass/fail figure.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define LINE 64

struct line {
	_Alignas(LINE) long v[LINE / sizeof(long)];
};

enum mode { SHARED, PERCPU, PLAIN, NR_MODES };

static const char *const mode_name[NR_MODES] = {
	"shared: 5 locked adds to one shared line",
	"percpu: 1 locked add shared + 4 plain adds own line",
	"plain: 5 plain adds to an own line",
};

static struct line shared_line;
static struct line own_line[2];
static unsigned long iters = 20000000;

struct job {
	int id;
	int cpu;
	enum mode mode;
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static void *run(void *arg)
{
	const struct job *j = arg;
	volatile long *own = own_line[j->id].v;
	long *sh = shared_line.v;
	unsigned long i;
	cpu_set_t set;
	int k;

	CPU_ZERO(&set);
	CPU_SET(j->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	for (i = 0; i < iters; i++) {
		switch (j->mode) {
		case SHARED:
			for (k = 0; k < 5; k++)
				__atomic_fetch_add(&sh[k], 1, __ATOMIC_RELAXED);
			break;
		case PERCPU:
			__atomic_fetch_add(&sh[0], 1, __ATOMIC_RELAXED);
			for (k = 1; k < 5; k++)
				own[k]++;
			break;
		default:
			for (k = 0; k < 5; k++)
				own[k]++;
			break;
		}
	}
	return NULL;
}

static int usage(FILE *f, int ret)
{
	fprintf(f, "usage: sa_atomics [-n ITERATIONS]\n"
		"Times slab_account's kinds of counter updates on this machine's CPUs.\n");
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "iterations", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	cpu_set_t avail;
	int cpus[2], ncpu = 0, c, m, nt;
	char *end;

	while ((c = getopt_long(argc, argv, "n:h", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			iters = strtoul(optarg, &end, 10);
			if (*end || !iters || optarg[0] == '-') {
				fprintf(stderr, "sa_atomics: bad iteration count '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			return usage(stdout, 0);
		default:
			return usage(stderr, 2);
		}
	}
	if (optind != argc)
		return usage(stderr, 2);
	if (sched_getaffinity(0, sizeof(avail), &avail)) {
		perror("sa_atomics: sched_getaffinity");
		return 1;
	}
	for (c = 0; c < CPU_SETSIZE && ncpu < 2; c++)
		if (CPU_ISSET(c, &avail))
			cpus[ncpu++] = c;
	for (m = 0; m < NR_MODES; m++) {
		for (nt = 1; nt <= ncpu; nt++) {
			struct job jobs[2];
			pthread_t t[2];
			double t0 = now();
			int i;

			for (i = 0; i < nt; i++) {
				jobs[i] = (struct job){ i, cpus[i], (enum mode)m };
				if (pthread_create(&t[i], NULL, run, &jobs[i])) {
					fprintf(stderr, "sa_atomics: cannot start a thread\n");
					return 1;
				}
			}
			for (i = 0; i < nt; i++)
				pthread_join(t[i], NULL);
			printf("%-52s %d thread%s: %6.2f ns per iteration and thread\n",
			       mode_name[m], nt, nt > 1 ? "s" : " ",
			       (now() - t0) * 1e9 / iters);
		}
	}
	return 0;
}
