// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the kmem trace parser (userspace/sa_trace.c).
 *
 * An account built from any input must hold together as the module's
 * file does: every row with slack = total - req, req <= total, live_req
 * <= live, live <= total, peak >= live, allocs - frees = objs, a type and
 * a caller; the summary's sums equal the rows' (no counter wrapped); the
 * live objects are the tracked ones.  The detail file's account of the
 * same input (--leaks --once) keeps the detail format's rules and has the
 * file's rows.  An error names the input.  ASan and UBSan report the rest.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sa_trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct sa_summary *tracked;
	struct sa_detail d;
	struct sa_trace_opts o = { NULL, 0, &d };
	struct sa_file f;
	char *err = NULL, buf[256];
	uint64_t objs = 0, scanned = 0;

	if (sa_trace_parse_buffer(&f, (const char *)data, size, "fuzz", &o, &err)) {
		if (!err || strncmp(err, "fuzz", 4))
			abort();
		free(err);
		return 0;
	}
	for (size_t i = 0; i < f.nrows; i++) {
		const uint64_t *v = f.rows[i].v;

		if (!f.rows[i].caller[0] || !f.rows[i].type_str[0] ||
		    v[SA_REQ] > v[SA_TOTAL] ||
		    v[SA_SLACK] != v[SA_TOTAL] - v[SA_REQ] ||
		    v[SA_LIVE_REQ] > v[SA_LIVE] || v[SA_LIVE] > v[SA_TOTAL] ||
		    v[SA_PEAK] < v[SA_LIVE] || v[SA_FREES] > v[SA_ALLOCS] ||
		    v[SA_ALLOCS] - v[SA_FREES] != v[SA_OBJS])
			abort();
		objs += v[SA_OBJS];
	}
	tracked = sa_summary_get(&f, "tracked objects");
	if (sa_check_sums(&f, buf, sizeof(buf)) || !tracked || tracked->num != objs)
		abort();
	if (d.nrows != f.nrows)
		abort();
	for (size_t i = 0; i < d.nrows; i++) {
		const uint64_t *v = d.rows[i].v;
		uint64_t ages = 0;

		for (int k = 0; k < SA_NAGES; k++)
			ages += v[SA_D_AGE + k];
		if (strcmp(d.rows[i].site.caller, f.rows[i].caller) ||
		    v[SA_D_OBJS] != f.rows[i].v[SA_OBJS] ||
		    v[SA_D_BYTES] != f.rows[i].v[SA_LIVE] ||
		    v[SA_D_REQ] > v[SA_D_BYTES] || ages != v[SA_D_OBJS] ||
		    v[SA_D_REQ_MIN] > v[SA_D_REQ_MAX] || v[SA_D_OLDEST] > d.now)
			abort();
		scanned += v[SA_D_OBJS];
	}
	if (scanned != d.objects_scanned)
		abort();
	sa_detail_free(&d);
	sa_file_free(&f);
	return 0;
}
