// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the kmem trace parser (userspace/sa_trace.c).
 *
 * An account built from any input must hold together as the module's
 * file does: every row with slack = total - req, req <= total, live_req
 * <= live, live <= total, peak >= live, allocs - frees = objs, a type and
 * a caller; the summary's sums equal the rows' (no counter wrapped); the
 * live objects are the tracked ones.  An error names the input.  ASan and
 * UBSan report the rest.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sa_trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct sa_summary *tracked;
	struct sa_file f;
	char *err = NULL, buf[256];
	uint64_t objs = 0;

	if (sa_trace_parse_buffer(&f, (const char *)data, size, "fuzz", NULL, &err)) {
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
	sa_file_free(&f);
	return 0;
}
