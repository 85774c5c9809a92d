// SPDX-License-Identifier: GPL-2.0
/*
 * The user side of sa_bpf, the eBPF peer of slab_account in the bench
 * (README in this directory).  Loads and attaches sa_bpf.bpf.c's programs
 * in one of two modes, then waits for signals:
 *
 *   sa_bpf [--classic] sums|pointers
 *
 * (--classic: on the classic tracepoints instead of the raw ones);
 * prints "sa_bpf: ready" once attached; on SIGUSR1 dumps the maps, one
 * line per call site
 *   CALL_SITE allocs frees bytes_alloc bytes_req live live_bytes
 * (CALL_SITE as symbol+0xoff/0xlen [module], from /proc/kallsyms), then
 *   sa_bpf: losses dropped_sites N dropped_ptrs N unknown_frees N
 *           missed_frees N failed_allocs N recursion_misses N  (one line)
 *   sa_bpf: dump SITES sites in NS ns
 * NS being the time taken to read and sum the maps (not to print them);
 * on SIGTERM or SIGINT detaches and exits 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "sa_bpf.h"
#include "sa_bpf.skel.h"

/* The kernel's own "not supported", as a map without batch ops returns it. */
#ifndef ENOTSUPP
#define ENOTSUPP 524
#endif

static const char *const loss_names[SA_BPF_NR_LOSSES] = {
	[SA_BPF_DROPPED_SITES] = "dropped_sites",
	[SA_BPF_DROPPED_PTRS] = "dropped_ptrs",
	[SA_BPF_UNKNOWN_FREES] = "unknown_frees",
	[SA_BPF_MISSED_FREES] = "missed_frees",
	[SA_BPF_FAILED_ALLOCS] = "failed_allocs",
};

/* One call site summed over the CPUs. */
struct site_sum {
	uint64_t site;
	struct sa_bpf_site v;
};

/*
 * What a dump reads into, allocated and touched once at the start so that
 * a dump's time is the maps' reading, not page faults.
 */
#define READ_BATCH	256
struct dump_bufs {
	uint64_t keys[READ_BATCH];
	struct sa_bpf_site *vals;	/* READ_BATCH x CPUs */
	struct site_sum sums[SA_BPF_MAX_SITES];
};

/* A /proc/kallsyms symbol. */
struct ksym {
	uint64_t addr;
	char *name;	/* "name" or "name [module]" */
};

struct ksyms {
	struct ksym *syms;
	size_t n;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sa_bpf [--classic] sums|pointers\n"
		"  sums      per call site allocs, bytes allocated and requested,\n"
		"            frees counted at the site of the free\n"
		"  pointers  the same with a map of live pointers: frees charged\n"
		"            to the allocating site, live objects and bytes\n"
		"  --classic the classic kmem tracepoints (the event's record)\n"
		"            instead of the raw ones\n"
		"Prints 'sa_bpf: ready' once attached; SIGUSR1 dumps the maps to\n"
		"stdout; SIGTERM or SIGINT detaches and exits 0.\n");
}

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void ksyms_free(struct ksyms *ks)
{
	for (size_t i = 0; i < ks->n; i++)
		free(ks->syms[i].name);
	free(ks->syms);
	ks->syms = NULL;
	ks->n = 0;
}

/*
 * All symbols of /proc/kallsyms (read at each dump: modules come and go),
 * sorted by address; a symbol's length runs to the next address, as
 * kallsyms measures it.
 */
static int ksyms_load(struct ksyms *ks)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], name[256], mod[256], type;
	unsigned long long addr;
	size_t cap = 0;

	if (!f) {
		fprintf(stderr, "sa_bpf: /proc/kallsyms: %s\n", strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		int got = sscanf(line, "%llx %c %255s %255s", &addr, &type,
				 name, mod);
		struct ksym *k;

		if (got < 3 || !addr)
			continue;
		if (ks->n == cap) {
			struct ksym *p;

			cap = cap ? cap * 2 : 65536;
			p = realloc(ks->syms, cap * sizeof(*p));
			if (!p)
				goto nomem;
			ks->syms = p;
		}
		k = &ks->syms[ks->n];
		k->addr = addr;
		if (got == 4) {
			if (asprintf(&k->name, "%s %s", name, mod) < 0)
				goto nomem;
		} else {
			k->name = strdup(name);
			if (!k->name)
				goto nomem;
		}
		ks->n++;
	}
	fclose(f);
	if (!ks->n) {
		fprintf(stderr, "sa_bpf: /proc/kallsyms shows no addresses\n");
		return -1;
	}
	qsort(ks->syms, ks->n, sizeof(*ks->syms), ksym_cmp);
	return 0;
nomem:
	fclose(f);
	fprintf(stderr, "sa_bpf: out of memory reading /proc/kallsyms\n");
	return -1;
}

/* ADDR as %pS would print it: name+0xoff/0xlen [module]. */
static void ksym_print(const struct ksyms *ks, uint64_t addr, FILE *out)
{
	size_t lo = 0, hi = ks->n;
	const struct ksym *k;
	const char *mod;
	uint64_t next;
	int nlen;

	while (hi - lo > 1) {	/* the last symbol at or below addr */
		size_t mid = lo + (hi - lo) / 2;

		if (ks->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	k = &ks->syms[lo];
	if (!ks->n || k->addr > addr) {
		fprintf(out, "0x%llx", (unsigned long long)addr);
		return;
	}
	/* The next symbol at a higher address ends this one. */
	for (hi = lo + 1; hi < ks->n && ks->syms[hi].addr == k->addr; hi++)
		;
	next = hi < ks->n ? ks->syms[hi].addr : addr + 1;
	mod = strchr(k->name, ' ');
	nlen = mod ? (int)(mod - k->name) : (int)strlen(k->name);
	fprintf(out, "%.*s+0x%llx/0x%llx%s", nlen, k->name,
		(unsigned long long)(addr - k->addr),
		(unsigned long long)(next - k->addr), mod ? mod : "");
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Reads the per-CPU hash of call sites with the batch operation (one
 * system call per batch), summing each site's CPUs; falls back to one
 * key at a time where the kernel has no batch for it.  Returns the number
 * of sites or -1.
 */
static long read_sites(int fd, int ncpu, struct dump_bufs *b)
{
	struct site_sum *out = b->sums;
	struct sa_bpf_site *vals = b->vals;
	uint64_t *keys = b->keys, in_batch, out_batch, key, next;
	size_t batch = READ_BATCH, cap = SA_BPF_MAX_SITES, n = 0, i;
	bool first = true;
	int err = 0;

	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	while (n < cap) {
		__u32 count = batch;

		err = bpf_map_lookup_batch(fd, first ? NULL : &in_batch,
					   &out_batch, keys, vals, &count,
					   &opts);
		if (err && errno != ENOENT)
			break;
		for (i = 0; i < count && n < cap; i++, n++) {
			struct site_sum *s = &out[n];

			memset(s, 0, sizeof(*s));
			s->site = keys[i];
			for (int c = 0; c < ncpu; c++) {
				const struct sa_bpf_site *v =
					&vals[i * (size_t)ncpu + c];

				s->v.allocs += v->allocs;
				s->v.frees += v->frees;
				s->v.bytes_alloc += v->bytes_alloc;
				s->v.bytes_req += v->bytes_req;
				s->v.live += v->live;
				s->v.live_bytes += v->live_bytes;
			}
		}
		if (err)	/* ENOENT: that was the last batch */
			break;
		in_batch = out_batch;
		first = false;
	}
	if (!err || errno == ENOENT)
		return (long)n;
	if (errno != EINVAL && errno != ENOTSUPP && errno != EOPNOTSUPP) {
		fprintf(stderr, "sa_bpf: reading the sites: %s\n",
			strerror(errno));
		return -1;
	}
	/* No batch operations: one key at a time. */
	n = 0;
	for (err = bpf_map_get_next_key(fd, NULL, &key); !err && n < cap;
	     err = bpf_map_get_next_key(fd, &key, &next), key = next) {
		struct site_sum *s = &out[n];

		if (bpf_map_lookup_elem(fd, &key, vals))
			continue;	/* deleted meanwhile */
		memset(s, 0, sizeof(*s));
		s->site = key;
		for (int c = 0; c < ncpu; c++) {
			s->v.allocs += vals[c].allocs;
			s->v.frees += vals[c].frees;
			s->v.bytes_alloc += vals[c].bytes_alloc;
			s->v.bytes_req += vals[c].bytes_req;
			s->v.live += vals[c].live;
			s->v.live_bytes += vals[c].live_bytes;
		}
		n++;
	}
	return (long)n;
}

static int read_losses(int fd, int ncpu, uint64_t *sum)
{
	uint64_t *v = calloc((size_t)ncpu, sizeof(*v));

	if (!v)
		return -1;
	for (__u32 i = 0; i < SA_BPF_NR_LOSSES; i++) {
		sum[i] = 0;
		if (bpf_map_lookup_elem(fd, &i, v)) {
			fprintf(stderr, "sa_bpf: reading the losses: %s\n",
				strerror(errno));
			free(v);
			return -1;
		}
		for (int c = 0; c < ncpu; c++)
			sum[i] += v[c];
	}
	free(v);
	return 0;
}

/*
 * Events the kernel did not give the programs: one of them already
 * running on that CPU (an interrupt's allocation or free in the middle
 * of it; on the classic tracepoints any BPF program running there).
 */
static uint64_t recursion_misses(const struct bpf_object *obj)
{
	struct bpf_program *prog;
	uint64_t n = 0;

	bpf_object__for_each_program(prog, obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);

		if (!bpf_program__autoload(prog))
			continue;
		memset(&info, 0, sizeof(info));
		if (!bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
			n += info.recursion_misses;
	}
	return n;
}

static int dump(struct sa_bpf_bpf *skel, int ncpu, struct dump_bufs *buf)
{
	uint64_t losses[SA_BPF_NR_LOSSES], t0, t1, misses;
	struct ksyms ks = { 0 };
	long n;

	t0 = now_ns();
	n = read_sites(bpf_map__fd(skel->maps.sites), ncpu, buf);
	if (n < 0 || read_losses(bpf_map__fd(skel->maps.losses), ncpu,
				 losses))
		return -1;
	t1 = now_ns();
	misses = recursion_misses(skel->obj);
	if (ksyms_load(&ks)) {
		ksyms_free(&ks);
		return -1;
	}
	for (long i = 0; i < n; i++) {
		const struct site_sum *s = &buf->sums[i];

		ksym_print(&ks, s->site, stdout);
		printf(" %llu %llu %llu %llu %lld %lld\n",
		       (unsigned long long)s->v.allocs,
		       (unsigned long long)s->v.frees,
		       (unsigned long long)s->v.bytes_alloc,
		       (unsigned long long)s->v.bytes_req,
		       (long long)s->v.live, (long long)s->v.live_bytes);
	}
	ksyms_free(&ks);
	printf("sa_bpf: losses");
	for (int i = 0; i < SA_BPF_NR_LOSSES; i++)
		printf(" %s %llu", loss_names[i],
		       (unsigned long long)losses[i]);
	printf(" recursion_misses %llu", (unsigned long long)misses);
	printf("\nsa_bpf: dump %ld sites in %llu ns\n", n,
	       (unsigned long long)(t1 - t0));
	return fflush(stdout) ? -1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "classic", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct dump_bufs *buf = NULL;
	struct sa_bpf_bpf *skel;
	bool pointers, classic = false;
	int ncpu, c, err, ret = 1;
	sigset_t set;

	while ((c = getopt_long(argc, argv, "ch", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			classic = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[optind], "sums")) {
		pointers = false;
	} else if (!strcmp(argv[optind], "pointers")) {
		pointers = true;
	} else {
		fprintf(stderr, "sa_bpf: unknown mode '%s' (sums or pointers)\n",
			argv[optind]);
		return 2;
	}

	/* The signals are taken with sigwaitinfo() only. */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	if (sigprocmask(SIG_BLOCK, &set, NULL)) {
		fprintf(stderr, "sa_bpf: sigprocmask: %s\n", strerror(errno));
		return 1;
	}

	ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0) {
		fprintf(stderr, "sa_bpf: number of possible CPUs: %s\n",
			strerror(-ncpu));
		return 1;
	}
	buf = malloc(sizeof(*buf));
	if (buf)
		buf->vals = malloc(READ_BATCH * (size_t)ncpu *
				   sizeof(*buf->vals));
	if (!buf || !buf->vals) {
		fprintf(stderr, "sa_bpf: out of memory\n");
		goto out;
	}
	memset(buf->keys, 0, sizeof(buf->keys));
	memset(buf->sums, 0, sizeof(buf->sums));
	memset(buf->vals, 0, READ_BATCH * (size_t)ncpu * sizeof(*buf->vals));
	skel = sa_bpf_bpf__open();
	if (!skel) {
		fprintf(stderr, "sa_bpf: opening the BPF object: %s\n",
			strerror(errno));
		goto out;
	}
	skel->rodata->track_ptrs = pointers;
	/* One set of programs is loaded and attached, the other not. */
	bpf_program__set_autoload(skel->progs.sa_kmalloc, !classic);
	bpf_program__set_autoload(skel->progs.sa_kmem_cache_alloc, !classic);
	bpf_program__set_autoload(skel->progs.sa_kfree, !classic);
	bpf_program__set_autoload(skel->progs.sa_kmem_cache_free, !classic);
	bpf_program__set_autoload(skel->progs.sa_tp_kmalloc, classic);
	bpf_program__set_autoload(skel->progs.sa_tp_kmem_cache_alloc, classic);
	bpf_program__set_autoload(skel->progs.sa_tp_kfree, classic);
	bpf_program__set_autoload(skel->progs.sa_tp_kmem_cache_free, classic);
	if (!pointers)
		bpf_map__set_max_entries(skel->maps.ptrs, 1);
	err = sa_bpf_bpf__load(skel);
	if (err) {
		fprintf(stderr, "sa_bpf: loading the BPF programs: %s\n",
			strerror(-err));
		goto out_destroy;
	}
	err = sa_bpf_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "sa_bpf: attaching to the kmem tracepoints: %s\n",
			strerror(-err));
		goto out_destroy;
	}
	printf("sa_bpf: ready\n");
	if (fflush(stdout))
		goto out_destroy;

	for (;;) {
		int sig = sigwaitinfo(&set, NULL);

		if (sig < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "sa_bpf: sigwaitinfo: %s\n",
				strerror(errno));
			break;
		}
		if (sig == SIGUSR1) {
			if (dump(skel, ncpu, buf))
				break;
			continue;
		}
		ret = 0;	/* SIGTERM, SIGINT */
		break;
	}
out_destroy:
	sa_bpf_bpf__destroy(skel);
out:
	if (buf)
		free(buf->vals);
	free(buf);
	return ret;
}
