/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What sa_bpf's BPF side (sa_bpf.bpf.c) and its user side
 * (sa_bpf.c) share: the map sizes, the value of a call site, the pointer
 * map's value and the indices of the loss counters.
 */
#ifndef SA_BPF_H
#define SA_BPF_H

#define SA_BPF_MAX_SITES	10240
#define SA_BPF_MAX_PTRS		262144

/* One call site, per CPU; live and live_bytes move on two CPUs. */
struct sa_bpf_site {
	__u64 allocs;
	__u64 frees;
	__u64 bytes_alloc;
	__u64 bytes_req;
	__s64 live;
	__s64 live_bytes;
};

/* A live pointer (pointers mode): the site that allocated it. */
struct sa_bpf_ptr {
	__u64 site;
	__u64 bytes_alloc;
};

/* Per-CPU counters of what could not be accounted. */
enum sa_bpf_loss {
	SA_BPF_DROPPED_SITES,	/* an event of a site that found no slot */
	SA_BPF_DROPPED_PTRS,	/* an allocation whose pointer found no slot */
	SA_BPF_UNKNOWN_FREES,	/* a free of a pointer not in the map */
	SA_BPF_MISSED_FREES,	/* an allocation of a pointer still live */
	SA_BPF_FAILED_ALLOCS,	/* an allocation that returned NULL */
	SA_BPF_NR_LOSSES
};

#endif /* SA_BPF_H */
