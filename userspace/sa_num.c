// SPDX-License-Identifier: GPL-2.0
/*
 * sa_num - signed magnitudes and the ways the reports write numbers (see
 * sa_num.h).
 */
#include "sa_num.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sa_base.h"

int num_cmp(struct num a, struct num b)
{
	if (a.neg != b.neg)
		return a.neg ? -1 : 1;
	if (a.mag == b.mag)
		return 0;
	return (a.mag < b.mag) != a.neg ? -1 : 1;
}

struct num num_delta(uint64_t old, uint64_t new)
{
	struct num d = { new >= old ? new - old : old - new, new < old };

	return d;
}

void fmt_human(char *buf, size_t n, uint64_t v)
{
	static const char units[] = "KMGTPE";
	uint64_t d = 1024, tenths;
	int u = 0;

	if (v < 1024) {
		snprintf(buf, n, "%" PRIu64, v);
		return;
	}
	while (u < 5 && v / d >= 1024) {
		d *= 1024;
		u++;
	}
	tenths = v / d * 10 + (v % d * 10 + d / 2) / d;
	if (tenths >= 10240 && u < 5) {		/* 1023.95K rounds to 1.0M */
		d *= 1024;
		u++;
		tenths = v / d * 10 + (v % d * 10 + d / 2) / d;
	}
	snprintf(buf, n, "%" PRIu64 ".%" PRIu64 "%c", tenths / 10, tenths % 10,
		 units[u]);
}

void fmt_num(char *buf, size_t n, struct num v, int bytes, int hum, int plus)
{
	const char *sign = v.neg ? "-" : plus && v.mag ? "+" : "";
	char digits[32];

	if (hum && bytes)
		fmt_human(digits, sizeof(digits), v.mag);
	else
		snprintf(digits, sizeof(digits), "%" PRIu64, v.mag);
	/* (Not snprintf: some targets' gcc warns it may truncate.) */
	buf[0] = '\0';
	strncat(buf, sign, n - 1);
	strncat(buf, digits, n - 1 - strlen(buf));
}

void fmt_tenths(char *buf, size_t n, struct num t, int plus)
{
	snprintf(buf, n, "%s%" PRIu64 ".%" PRIu64, t.neg ? "-" : plus && t.mag ? "+" : "",
		 t.mag / 10, t.mag % 10);
}

struct num per_time(struct num d, uint64_t secs, uint64_t mult)
{
	uint64_t q = d.mag / secs, r = d.mag % secs, a, b;
	struct num out = { UINT64_MAX, d.neg };

	if (sa_mul_u64(q, mult, &a) || sa_mul_u64(r, mult, &b))
		return out;	/* beyond any real rate */
	b = b / secs + (b % secs >= secs - secs / 2 ? 1 : 0);
	if (sa_add_u64(&a, b))
		return out;
	out.mag = a;
	out.neg = d.neg && a;
	return out;
}

void fmt_pct(char *buf, size_t n, uint64_t part, uint64_t whole)
{
	struct num d = { part, 0 };

	fmt_tenths(buf, n, whole ? per_time(d, whole, 1000) : d, 0);
}

void fmt_age(char *buf, size_t n, uint64_t s)
{
	if (s < 60)
		snprintf(buf, n, "%" PRIu64 "s", s);
	else if (s < 3600)
		snprintf(buf, n, s % 60 ? "%" PRIu64 "m%" PRIu64 "s" : "%" PRIu64 "m",
			 s / 60, s % 60);
	else if (s < 86400)
		snprintf(buf, n, s % 3600 / 60 ? "%" PRIu64 "h%" PRIu64 "m" : "%" PRIu64 "h",
			 s / 3600, s % 3600 / 60);
	else
		snprintf(buf, n, s % 86400 / 3600 ? "%" PRIu64 "d%" PRIu64 "h" : "%" PRIu64 "d",
			 s / 86400, s % 86400 / 3600);
}
