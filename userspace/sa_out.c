// SPDX-License-Identifier: GPL-2.0
/*
 * sa_out - standard output, or -o FILE: opened as the shell's `>` opens
 * it, then replaced atomically when it is a regular file (see sa_out.h).
 *
 * Why -o cannot be made to write where `>` would be refused:
 *
 * 1. The kernel opens FILE itself, open(FILE, O_WRONLY | O_CREAT), as `>`
 *    does but without truncating it.  Every check `>` gets is made there:
 *    write permission on the file (root passes, as with `>`), on its
 *    directory when it is created, fs.protected_symlinks for a link in a
 *    sticky world-writable directory, fs.protected_regular and
 *    protected_fifos.  A refusal stops here, with nothing changed.
 * 2. What was opened decides (fstat of that descriptor): a FIFO, a device
 *    or a regular file with other hard links is written through it, in
 *    place (a regular file truncated first, as `>` does).
 * 3. A regular file is replaced in the directory that holds it: FILE's
 *    directory, or when FILE is a symbolic link, its target's (realpath()
 *    gives a candidate, nothing more).  That directory is opened (O_PATH)
 *    and must hold, under that name and not followed, the very file the
 *    kernel opened in 1 (the same device and inode).  A temporary
 *    NAME.XXXXXX is created there (openat, O_EXCL), given the file's mode
 *    and owner, written, and renamed over NAME (renameat, both names
 *    relative to that directory).  A rename follows no link and writes
 *    into no existing file: if the name changes between the check and the
 *    rename, the most it can do is replace that name, in a directory the
 *    kernel lets this user write, where a sticky bit leaves a name to its
 *    owner, the directory's owner and root.
 *    When the directory does not hold that file any more, cannot be
 *    written, NAME.XXXXXX is too long a name, or the file's owner cannot
 *    be given to a new file (not root), the file is written in place
 *    through the descriptor of 1 (truncated first, as `>` does).
 * A new FILE is created empty by 1 (mode 0666 less the umask), as `>`
 * creates it, then replaced as in 3; it is removed again when the output
 * fails.
 *
 * The temporary file is removed on SIGHUP, SIGINT, SIGQUIT and SIGTERM:
 * their handler unlinks it (unlinkat, async-signal-safe) and the signal is
 * raised again with its default action.  The signals are blocked while
 * the temporary file is created and while it is renamed, so that it never
 * exists unknown to the handler.
 */
#define _GNU_SOURCE

#include "sa_out.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sa_base.h"

static struct {
	int dirfd;		/* the directory of the file replaced; -1 */
	char *name;		/* the file's name in it */
	char *tmp;		/* the temporary file's name in it; NULL: in place */
	int created;		/* 1 created the file: removed on a failure */
	dev_t dev;		/* the file opened by 1 */
	ino_t ino;
	int saved;		/* standard output, while redirected; -1 */
	int regular;		/* the output is a regular file (fsync it) */
} out = { -1, NULL, NULL, 0, 0, 0, -1, 0 };
static mode_t out_mode = 0644;

/* What the signal handler removes: set while a temporary file exists. */
static volatile sig_atomic_t tmp_armed;
static const int tmp_signals[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM };

void sa_out_init(void)
{
	int fd;

	/*
	 * A descriptor 0, 1 or 2 closed when slabacct started (`>&-`) gets a
	 * placeholder: an O_PATH descriptor, on which read() and write() still
	 * fail with EBADF as on a closed one, so that no file opened later
	 * (-o's FILE in step 1, an input) takes its number and is written as
	 * standard output or stderr.  Should "/" not open, the others are
	 * left as they are.
	 */
	for (fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF && open("/", O_PATH | O_CLOEXEC) < 0)
			break;
	out_mode = umask(022);
	umask(out_mode);
	out_mode = 0666 & ~out_mode;
}

/* Remove the temporary file and die of @sig as if it had no handler. */
static void on_signal(int sig)
{
	if (tmp_armed)
		unlinkat(out.dirfd, out.tmp, 0);
	raise(sig);	/* SA_RESETHAND: the default action, now */
}

/* The handlers, once; a signal ignored when slabacct started stays ignored. */
static void install_handlers(void)
{
	static int done;
	struct sigaction sa, old;
	size_t i;

	if (done)
		return;
	done = 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESETHAND | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(tmp_signals) / sizeof(tmp_signals[0]); i++)
		if (!sigaction(tmp_signals[i], NULL, &old) && old.sa_handler != SIG_IGN)
			sigaction(tmp_signals[i], &sa, NULL);
}

/* Block (@block) the signals above, saving the mask in @old, or restore @old. */
static void hold_signals(int block, sigset_t *old)
{
	sigset_t set;
	size_t i;

	if (!block) {
		sigprocmask(SIG_SETMASK, old, NULL);
		return;
	}
	sigemptyset(&set);
	for (i = 0; i < sizeof(tmp_signals) / sizeof(tmp_signals[0]); i++)
		sigaddset(&set, tmp_signals[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

static void out_reset(void)
{
	if (out.dirfd >= 0)
		close(out.dirfd);
	free(out.name);
	free(out.tmp);
	out.dirfd = -1;
	out.name = out.tmp = NULL;
	out.created = out.regular = 0;
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
 * The directory holding the file opened as @st (step 3): out.dirfd and
 * out.name, or -1 when @path's directory does not hold it any more.
 */
static int find_directory(const char *path, const struct stat *st)
{
	struct stat lst, here;
	char *real = NULL, *slash;
	const char *cand = path;
	int ret = -1;

	if (!lstat(path, &lst) && S_ISLNK(lst.st_mode)) {
		real = realpath(path, NULL);
		if (!real)
			return -1;
		cand = real;
	}
	slash = strrchr(cand, '/');
	if (!slash) {
		out.name = strdup(cand);
		out.dirfd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	} else {
		char *dir = slash == cand ? strdup("/") :
			    sa_format("%.*s", (int)(slash - cand), cand);

		out.name = strdup(slash + 1);
		if (dir)
			out.dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		free(dir);
	}
	if (out.name && out.dirfd >= 0 && *out.name &&
	    !fstatat(out.dirfd, out.name, &here, AT_SYMLINK_NOFOLLOW) &&
	    here.st_dev == st->st_dev && here.st_ino == st->st_ino)
		ret = 0;
	free(real);
	return ret;
}

/*
 * A temporary file beside out.name (named out.tmp), given the mode and
 * owner of @st: its descriptor.  Else out.tmp is NULL and it returns -1 on
 * an error, -2 when the file is to be written in place (the directory
 * cannot be written, NAME.XXXXXX is too long a name, or the owner cannot
 * be kept).
 */
static int temporary(const struct stat *st)
{
	static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	static unsigned long long seq;
	struct timespec ts;
	sigset_t mask;
	int fd = -1, tries, e;
	size_t len, i;

	out.tmp = sa_format("%s.XXXXXX", out.name);
	if (!out.tmp) {
		errno = ENOMEM;
		return -1;
	}
	len = strlen(out.tmp);
	install_handlers();
	hold_signals(1, &mask);
	for (tries = 0; tries < 100 && fd < 0; tries++) {
		unsigned long long v;

		clock_gettime(CLOCK_REALTIME, &ts);
		v = (unsigned long long)ts.tv_nsec * 2654435761ULL ^
		    (unsigned long long)ts.tv_sec << 20 ^ (unsigned long long)getpid() << 40 ^
		    ++seq * 0x9e3779b97f4a7c15ULL;
		/* FILE.XXXXXX: not *.prom, so node_exporter's textfile collector skips it */
		for (i = len - 6; i < len; i++, v /= sizeof(chars) - 1)
			out.tmp[i] = chars[v % (sizeof(chars) - 1)];
		fd = openat(out.dirfd, out.tmp, O_RDWR | O_CREAT | O_EXCL | O_NOCTTY | O_CLOEXEC,
			    0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	e = errno;
	if (fd >= 0)
		tmp_armed = 1;
	hold_signals(0, &mask);
	if (fd < 0) {
		free(out.tmp);	/* no file of that name is ours */
		out.tmp = NULL;
		errno = e;
		return e == EACCES || e == EPERM || e == ENAMETOOLONG ? -2 : -1;
	}
	if (fchmod(fd, st->st_mode & 07777) ||
	    ((st->st_uid != geteuid() || st->st_gid != getegid()) &&
	     fchown(fd, st->st_uid, st->st_gid))) {
		e = errno;
		hold_signals(1, &mask);
		unlinkat(out.dirfd, out.tmp, 0);
		tmp_armed = 0;
		hold_signals(0, &mask);
		close(fd);
		free(out.tmp);
		out.tmp = NULL;
		errno = e;
		return e == EPERM ? -2 : -1;
	}
	return fd;
}

/* /proc/sys/fs/@name is 1 or more (a protection of sticky directories is on). */
static int protected(const char *name)
{
	char *p = sa_format("/proc/sys/fs/%s", name);
	FILE *f = p ? fopen(p, "re") : NULL;
	int v = 0;

	if (f && fscanf(f, "%d", &v) != 1)
		v = 0;
	if (f)
		fclose(f);
	free(p);
	return v;
}

/* Say why the kernel refused to open @path (errno @e) as `>` would be refused. */
static void refused(const char *path, int e)
{
	struct stat st, dst;
	char *dir = NULL, *slash = strrchr(path, '/');
	const char *why = NULL;
	int sticky;

	dir = !slash ? strdup(".") : slash == path ? strdup("/") :
	      sa_format("%.*s", (int)(slash - path), path);
	if ((e != EACCES && e != EPERM) || !dir || stat(dir, &dst)) {
		fprintf(stderr, "slabacct: %s: %s\n", path, strerror(e));
		free(dir);
		return;
	}
	if (lstat(path, &st)) {
		if (errno == ENOENT)	/* the directory refused a new file */
			fprintf(stderr, "slabacct: %s: cannot create a file in %s: %s\n",
				path, dir, strerror(e));
		else
			fprintf(stderr, "slabacct: %s: %s\n", path, strerror(e));
		free(dir);
		return;
	}
	/* the kernel's may_follow_link() and may_create_in_sticky() */
	sticky = (dst.st_mode & S_ISVTX) && (dst.st_mode & S_IWOTH) &&
		 st.st_uid != geteuid() && st.st_uid != dst.st_uid;
	if (sticky && S_ISLNK(st.st_mode) && protected("protected_symlinks"))
		why = "fs.protected_symlinks: another user's symbolic link in a sticky world-writable directory is not followed";
	else if (sticky && S_ISREG(st.st_mode) && protected("protected_regular"))
		why = "fs.protected_regular: another user's file in a sticky world-writable directory is not written";
	else if (sticky && S_ISFIFO(st.st_mode) && protected("protected_fifos"))
		why = "fs.protected_fifos: another user's FIFO in a sticky world-writable directory is not written";
	if (why)
		fprintf(stderr, "slabacct: %s: %s (%s)\n", path, strerror(e), why);
	else
		fprintf(stderr, "slabacct: %s: %s\n", path, strerror(e));
	free(dir);
}

int sa_out_begin(const char *path)
{
	struct stat st;
	int fd, fd0, e;

	if (!path)
		return 0;
	/* 1: the kernel judges, as for `>` (O_EXCL first: was it created?) */
	fd0 = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY | O_CLOEXEC, out_mode);
	if (fd0 >= 0)
		out.created = 1;
	else if (errno == EEXIST)
		fd0 = open(path, O_WRONLY | O_CREAT | O_NOCTTY | O_CLOEXEC, out_mode);
	if (fd0 < 0) {
		refused(path, errno);
		out_reset();
		return -1;
	}
	if (fstat(fd0, &st))
		goto fail;
	out.dev = st.st_dev;
	out.ino = st.st_ino;
	out.regular = S_ISREG(st.st_mode);
	fd = fd0;
	/* 3: a regular file replaced in its directory, or 2: written in place */
	if (out.regular && st.st_nlink == 1 && !find_directory(path, &st)) {
		fd = temporary(&st);
		if (fd == -1)
			goto fail;
		if (fd == -2)
			fd = fd0;
		else
			close(fd0);
	}
	if (fd == fd0 && out.regular && !out.created && ftruncate(fd0, 0))
		goto fail;
	fd0 = -1;
	if (redirect(fd))
		goto fail;
	return 0;
fail:
	e = errno;
	fprintf(stderr, "slabacct: %s: %s\n", path, strerror(e));
	if (fd0 >= 0)
		close(fd0);
	sa_out_end(NULL, 0);
	return -1;
}

/* Remove the file 1 created, if its directory still holds it. */
static void remove_created(void)
{
	struct stat here;

	if (out.created && out.dirfd >= 0 && out.name &&
	    !fstatat(out.dirfd, out.name, &here, AT_SYMLINK_NOFOLLOW) &&
	    here.st_dev == out.dev && here.st_ino == out.ino)
		unlinkat(out.dirfd, out.name, 0);
}

int sa_out_end(const char *path, int ok)
{
	sigset_t mask;
	int err = 0;

	if (out.saved >= 0) {
		errno = 0;
		if (fflush(stdout) || ferror(stdout) ||
		    (out.regular && fsync(STDOUT_FILENO)))
			err = errno ? errno : EIO;
		clearerr(stdout);
		dup2(out.saved, STDOUT_FILENO);
		close(out.saved);
		out.saved = -1;
	} else if (!out.tmp && !out.created) {
		out_reset();
		return ok ? 0 : -1;
	}
	hold_signals(1, &mask);
	if (out.tmp && ok && !err && renameat(out.dirfd, out.tmp, out.dirfd, out.name))
		err = errno;
	if (out.tmp && (!ok || err))
		unlinkat(out.dirfd, out.tmp, 0);
	tmp_armed = 0;
	hold_signals(0, &mask);
	if (err && path)
		fprintf(stderr, "slabacct: %s: %s\n", path, strerror(err));
	if (!ok || err)
		remove_created();
	out_reset();
	return ok && !err ? 0 : -1;
}

int sa_out_flush(void)
{
	errno = 0;
	if (!fflush(stdout) && !ferror(stdout))
		return 0;
	fprintf(stderr, "slabacct: write error%s%s\n", errno ? ": " : "",
		errno ? strerror(errno) : "");
	clearerr(stdout);
	return -1;
}
