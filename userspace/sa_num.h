// SPDX-License-Identifier: GPL-2.0
/*
 * sa_num - numbers as the reports show them: a sign and a magnitude (so
 * that deltas of 64-bit counters are exact), sizes with K/M/G suffixes,
 * tenths, percentages, rates per minute and ages (42s, 3m10s).
 */
#ifndef SA_NUM_H
#define SA_NUM_H

#include <stddef.h>
#include <stdint.h>

struct num {
	uint64_t mag;
	int neg;
};

int num_cmp(struct num a, struct num b);

/* @new - @old, exactly. */
struct num num_delta(uint64_t old, uint64_t new);

/* @v with K/M/G/... suffixes (1024 base, one decimal); plain below 1024. */
void fmt_human(char *buf, size_t n, uint64_t v);

/* @v as text: human if @hum and @bytes, '+' on positive values if @plus. */
void fmt_num(char *buf, size_t n, struct num v, int bytes, int hum, int plus);

/* Tenths as text: -6.0, 60.0 (with '+' if @plus and positive). */
void fmt_tenths(char *buf, size_t n, struct num t, int plus);

/* round(@d x @mult / @secs), half away from zero, in integers (saturating). */
struct num per_time(struct num d, uint64_t secs, uint64_t mult);

/* The percentage @part / @whole with one decimal, rounded half up. */
void fmt_pct(char *buf, size_t n, uint64_t part, uint64_t whole);

/* An age as people say it: 42s, 3m10s, 2h5m, 3d4h (zero parts after the first left out). */
void fmt_age(char *buf, size_t n, uint64_t s);

#endif /* SA_NUM_H */
