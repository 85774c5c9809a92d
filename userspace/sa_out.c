// SPDX-License-Identifier: GPL-2.0
/*
 * sa_out - standard output, or -o FILE replaced atomically (see sa_out.h).
 */
#define _POSIX_C_SOURCE 200809L

#include "sa_out.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *out_tmp;
static int out_saved = -1;
static mode_t out_mode = 0644;

int sa_out_begin(const char *path)
{
	int fd;

	if (!path)
		return 0;
	out_tmp = malloc(strlen(path) + 8);
	if (!out_tmp) {
		fprintf(stderr, "slabacct: out of memory\n");
		return -1;
	}
	/* FILE.XXXXXX: not *.prom, so node_exporter's textfile collector skips it */
	sprintf(out_tmp, "%s.XXXXXX", path);
	fd = mkstemp(out_tmp);
	if (fd < 0 || fchmod(fd, out_mode) || fflush(stdout) ||
	    (out_saved = dup(STDOUT_FILENO)) < 0 || dup2(fd, STDOUT_FILENO) < 0) {
		fprintf(stderr, "slabacct: %s: %s\n", path, strerror(errno));
		if (fd >= 0) {
			unlink(out_tmp);
			close(fd);
		}
		if (out_saved >= 0)
			close(out_saved);
		out_saved = -1;
		free(out_tmp);
		out_tmp = NULL;
		return -1;
	}
	close(fd);
	return 0;
}

int sa_out_end(const char *path, int ok)
{
	int err = 0;

	if (!out_tmp)
		return ok ? 0 : -1;
	errno = 0;
	if (fflush(stdout) || ferror(stdout) || fsync(STDOUT_FILENO))
		err = errno ? errno : EIO;
	clearerr(stdout);
	dup2(out_saved, STDOUT_FILENO);
	close(out_saved);
	out_saved = -1;
	if (ok && !err && rename(out_tmp, path))
		err = errno;
	if (err)
		fprintf(stderr, "slabacct: %s: %s\n", path, strerror(err));
	if (!ok || err)
		unlink(out_tmp);
	free(out_tmp);
	out_tmp = NULL;
	return ok && !err ? 0 : -1;
}

void sa_out_init(void)
{
	out_mode = umask(022);
	umask(out_mode);
	out_mode = 0666 & ~out_mode;
}
