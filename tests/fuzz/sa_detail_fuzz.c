// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the detail file's parser (userspace/sa_detail.c).
 *
 * A parsed file must hold together: version 1.x, the header's lists
 * ascending, every row with a type and a caller and the format's rules
 * (bytes >= req, the age counts add up to objs, objs = 0 leaves bytes,
 * oldest and byte_secs 0, req_min <= req_max, oldest <= now), the rows'
 * objs adding up to `objects scanned`; sa_detail_alloc_size() is at least
 * the request.  An error names the file.  ASan/UBSan report the rest.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sa_detail.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sa_detail d;
	char *err = NULL;
	uint64_t sum = 0;

	if (sa_detail_parse_buffer(&d, (const char *)data, size, "fuzz", &err)) {
		if (!err || strncmp(err, "fuzz", 4))
			abort();
		free(err);
		return 0;
	}
	if (d.major != SA_DETAIL_MAJOR || !d.nclasses)
		abort();
	for (size_t i = 1; i < d.nclasses; i++)
		if (d.classes[i] <= d.classes[i - 1])
			abort();
	for (size_t i = 0; i < d.nrows; i++) {
		const uint64_t *v = d.rows[i].v;
		uint64_t ages = 0;

		for (int k = 0; k < SA_NAGES; k++)
			ages += v[SA_D_AGE + k];
		if (!d.rows[i].site.caller[0] || !d.rows[i].site.type_str[0] ||
		    v[SA_D_REQ] > v[SA_D_BYTES] || ages != v[SA_D_OBJS] ||
		    v[SA_D_REQ_MIN] > v[SA_D_REQ_MAX] || v[SA_D_OLDEST] > d.now ||
		    (!v[SA_D_OBJS] && (v[SA_D_BYTES] || v[SA_D_OLDEST] || v[SA_D_BYTE_SECS])))
			abort();
		sum += v[SA_D_OBJS];
		if (v[SA_D_REQ_MAX]) {
			uint64_t a = sa_detail_alloc_size(&d, v[SA_D_REQ_MAX]);

			if (a && a < v[SA_D_REQ_MAX])
				abort();
		}
	}
	if (sum != d.objects_scanned)
		abort();
	sa_detail_free(&d);
	return 0;
}
