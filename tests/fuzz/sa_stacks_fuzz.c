// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the stacks file's parser (userspace/sa_stacks.c).
 *
 * A parsed file must hold together: version 1.x or 2.x, stack ids of 1 or
 * more in increasing order, each record with 1 to 1024 frames, each frame
 * a non-empty string that neither starts nor ends with a blank, every
 * stack found again by its id, and a first context in each record of a
 * 2.x file only (`irq` with nothing else, or a pid and tid of 32 bits and
 * a name of 1 to 15 bytes).  An error names the file.  ASan/UBSan report
 * the rest.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sa_stacks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sa_stacks s;
	char *err = NULL;

	if (sa_stacks_parse_buffer(&s, (const char *)data, size, "fuzz", &err)) {
		if (!err || strncmp(err, "fuzz", 4) || s.v || s.n)
			abort();
		free(err);
		return 0;
	}
	if (s.major < SA_STACKS_MAJOR_MIN || s.major > SA_STACKS_MAJOR)
		abort();
	for (size_t i = 0; i < s.n; i++) {
		const struct sa_stack *st = &s.v[i];
		const struct sa_stack_first *f = &st->first;

		if (!st->id || (i && st->id <= st[-1].id) || !st->n || st->n > 1024 ||
		    sa_stacks_get(&s, st->id) != st)
			abort();
		if (f->have != (s.major >= 2))
			abort();
		if (f->have && f->irq && (f->comm || f->pid || f->tid || f->has_cgroup))
			abort();
		if (f->have && !f->irq && (!f->comm || !*f->comm || strlen(f->comm) > 15 ||
					   strchr(f->comm, ' ') || f->pid > UINT32_MAX ||
					   f->tid > UINT32_MAX))
			abort();
		for (size_t k = 0; k < st->n; k++) {
			size_t n = strlen(st->frames[k]);

			if (!n || st->frames[k][0] == ' ' || st->frames[k][n - 1] == ' ' ||
			    st->frames[k][n - 1] == '\t')
				abort();
		}
	}
	sa_stacks_free(&s);
	return 0;
}
