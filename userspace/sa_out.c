// SPDX-License-Identifier: GPL-2.0
/*
 * sa_out - standard output, or -o FILE replaced atomically when it is a
 * regular file (its mode and owner kept), written in place when it is not
 * (see sa_out.h).
 */
#define _DEFAULT_SOURCE

#include "sa_out.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sa_base.h"

static struct {
	char *tmp;		/* the temporary file; NULL: written in place */
	char *target;		/* what it is renamed over */
	int saved;		/* standard output, while redirected; -1 */
	int regular;		/* the output is a regular file (fsync it) */
} out = { NULL, NULL, -1, 0 };
static mode_t out_mode = 0644;

void sa_out_init(void)
{
	out_mode = umask(022);
	umask(out_mode);
	out_mode = 0666 & ~out_mode;
}

static void out_reset(void)
{
	free(out.tmp);
	free(out.target);
	out.tmp = out.target = NULL;
	out.regular = 0;
}

/* Standard output to @fd (closed here); 0 or -1. */
static int redirect(int fd)
{
	int ret = -1;

	if (!fflush(stdout) && (out.saved = dup(STDOUT_FILENO)) >= 0 &&
	    dup2(fd, STDOUT_FILENO) >= 0)
		ret = 0;
	else if (out.saved >= 0)
		close(out.saved), out.saved = -1;
	close(fd);
	return ret;
}

/*
 * A temporary file beside @target (a regular file with @st, or new when
 * @st is NULL) with its mode and owner: its fd, -1 on an error, -2 when
 * its owner cannot be kept.
 */
static int temporary(const char *target, const struct stat *st)
{
	int fd;

	out.tmp = sa_format("%s.XXXXXX", target);
	out.target = strdup(target);
	if (!out.tmp || !out.target) {
		errno = ENOMEM;
		return -1;
	}
	/* FILE.XXXXXX: not *.prom, so node_exporter's textfile collector skips it */
	fd = mkstemp(out.tmp);
	if (fd < 0)
		return -1;
	if (fchmod(fd, st ? st->st_mode & 07777 : out_mode) ||
	    (st && (st->st_uid != geteuid() || st->st_gid != getegid()) &&
	     fchown(fd, st->st_uid, st->st_gid))) {
		int e = errno;

		unlink(out.tmp);
		close(fd);
		errno = e;
		return e == EPERM ? -2 : -1;
	}
	return fd;
}

int sa_out_begin(const char *path)
{
	const char *target = path;
	char *real = NULL;
	struct stat st;
	int fd = -1, have = lstat(path ? path : "", &st) == 0;

	if (!path)
		return 0;
	if (have && S_ISLNK(st.st_mode)) {	/* write the link's target */
		real = realpath(path, NULL);
		if (real) {
			target = real;
			have = stat(real, &st) == 0;
		} else if (errno != ENOENT) {
			goto fail;
		}
	}
	if (!have && errno != ENOENT)
		goto fail;
	if (have && S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		goto fail;
	}
	if (!real && have && S_ISLNK(st.st_mode)) {
		/* a dangling link: its target is created where it points */
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, out_mode);
		out.regular = 1;
	} else if (!have || (S_ISREG(st.st_mode) && st.st_nlink == 1)) {
		fd = temporary(target, have ? &st : NULL);
		out.regular = 1;
		if (fd == -2) {		/* its owner cannot be kept: in place */
			out_reset();
			fd = open(target, O_WRONLY | O_TRUNC | O_CLOEXEC);
			out.regular = 1;
		}
	} else {
		/* a FIFO, a device, a hard link: written, never replaced */
		out.regular = S_ISREG(st.st_mode);
		fd = open(target, O_WRONLY | O_CLOEXEC | (out.regular ? O_TRUNC : 0));
	}
	if (fd < 0 || redirect(fd))
		goto fail;
	free(real);
	return 0;
fail:
	fprintf(stderr, "slabacct: %s: %s\n", path, strerror(errno));
	if (out.tmp && fd >= 0)
		unlink(out.tmp);
	out_reset();
	free(real);
	return -1;
}

int sa_out_end(const char *path, int ok)
{
	int err = 0;

	if (out.saved < 0)
		return ok ? 0 : -1;
	errno = 0;
	if (fflush(stdout) || ferror(stdout) || (out.regular && fsync(STDOUT_FILENO)))
		err = errno ? errno : EIO;
	clearerr(stdout);
	dup2(out.saved, STDOUT_FILENO);
	close(out.saved);
	out.saved = -1;
	if (out.tmp && ok && !err && rename(out.tmp, out.target))
		err = errno;
	if (err)
		fprintf(stderr, "slabacct: %s: %s\n", path, strerror(err));
	if (out.tmp && (!ok || err))
		unlink(out.tmp);
	out_reset();
	return ok && !err ? 0 : -1;
}
