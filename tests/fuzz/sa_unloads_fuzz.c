// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the unloads file's parser (userspace/sa_unloads.c).
 *
 * A parsed file must hold together: version 1.x, kept records and kept <=
 * unloads, unloads in the order of their when (<= now), every module's
 * loads increasing, load >= 1, bytes >= req on every line, min(sites, 8)
 * site lines of at least one object each, no older than their unload,
 * whose callers name the unload's module and load, and whose objs, bytes
 * and req add up to at most the unload's (exactly with 8 sites or fewer).
 * An error names the file.  ASan/UBSan report the rest.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sa_caller.h"
#include "sa_unloads.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sa_unloads u;
	char *err = NULL;

	if (sa_unloads_parse_buffer(&u, (const char *)data, size, "fuzz", &err)) {
		if (!err || strncmp(err, "fuzz", 4))
			abort();
		free(err);
		return 0;
	}
	if (u.major != SA_UNLOADS_MAJOR || u.kept != u.n || u.kept > u.unloads)
		abort();
	for (size_t i = 0; i < u.n; i++) {
		const struct sa_unload *e = &u.u[i];
		uint64_t objs = 0, bytes = 0, req = 0;

		if (!e->load || e->when > u.now || (i && e->when < e[-1].when) ||
		    e->req > e->bytes || !e->module[0] ||
		    e->nsite != (e->sites < SA_UNLOAD_SITES ? e->sites : SA_UNLOAD_SITES))
			abort();
		for (size_t k = 0; k < i; k++)
			if (!strcmp(u.u[k].module, e->module) && u.u[k].load >= e->load)
				abort();
		for (size_t k = 0; k < e->nsite; k++) {
			const struct sa_usite *x = &e->site[k];
			struct sa_caller c;

			sa_caller_split(x->site.caller, &c);
			if (!x->objs || x->req > x->bytes || x->oldest > e->when ||
			    c.unloaded != e->load || !c.mod || c.mlen != strlen(e->module) ||
			    memcmp(c.mod, e->module, c.mlen) || !x->site.type_str[0])
				abort();
			objs += x->objs;	/* no wrap: each is at most the unload's */
			bytes += x->bytes;
			req += x->req;
		}
		if (objs > e->objs || bytes > e->bytes || req > e->req ||
		    (e->sites <= SA_UNLOAD_SITES &&
		     (objs != e->objs || bytes != e->bytes || req != e->req)))
			abort();
	}
	sa_unloads_free(&u);
	return 0;
}
