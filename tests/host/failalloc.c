// SPDX-License-Identifier: GPL-2.0
/*
 * failalloc - an LD_PRELOAD library for tests/host: with SA_FAIL_AT=N in
 * the environment, the Nth call of malloc, calloc or realloc and every
 * later one fail (ENOMEM), as when memory runs out.  The test runs the
 * reader for N = 1, 2, ... and checks each run ends with exit status 0
 * or 1 and a message, never a crash, and leaves no temporary file.
 * SA_FAIL_COUNT=FILE: the number of calls is written there at exit.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);

static unsigned long calls, fail_at;
static int ready;

static int fail(void)
{
	if (!ready) {
		const char *s = getenv("SA_FAIL_AT");

		fail_at = s ? strtoul(s, NULL, 10) : 0;
		ready = 1;
	}
	if (fail_at && ++calls >= fail_at) {
		errno = ENOMEM;
		return 1;
	}
	if (!fail_at)
		calls++;
	return 0;
}

void *malloc(size_t n)
{
	return fail() ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	return fail() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	return fail() ? NULL : __libc_realloc(p, n);
}

__attribute__((destructor)) static void report(void)
{
	const char *path = getenv("SA_FAIL_COUNT");
	FILE *fp;

	if (path && (fp = fopen(path, "w"))) {
		fprintf(fp, "%lu\n", calls);
		fclose(fp);
	}
}
