// SPDX-License-Identifier: GPL-2.0
/*
 * sa_input - the reader's inputs from their paths (see sa_input.h): files
 * read whole with read() (at most --max-input bytes), the messages of
 * open and read errors, and which parser reads a path.
 */
#define _POSIX_C_SOURCE 200809L

#include "sa_input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

const char *sa_display_name(const char *path)
{
	return strcmp(path, "-") == 0 ? "<stdin>" : path;
}

/*
 * Read @fd to its end, or to @max bytes (EFBIG beyond), or (@prefix not
 * NULL) until the first bytes show that it does not start with @prefix.
 */
static int read_fd(int fd, size_t max, const char *prefix, char **bufp,
		   size_t *lenp)
{
	size_t len = 0, cap = 0, plen = prefix ? strlen(prefix) : 0;
	char *buf = NULL;

	for (;;) {
		ssize_t r;

		if (sa_grow(&buf, &cap, len + 4096, 1)) {
			free(buf);
			errno = ENOMEM;
			return -1;
		}
		r = read(fd, buf + len, cap - len - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			free(buf);
			return -1;
		}
		if (r == 0)
			break;
		len += (size_t)r;
		if (prefix && (len >= plen || memchr(buf, '\n', len)) &&
		    (len < plen || memcmp(buf, prefix, plen)))
			break;	/* the parser says what it is not */
		if (max && len > max) {
			free(buf);
			errno = EFBIG;
			return -1;
		}
	}
	buf[len] = '\0';
	*bufp = buf;
	*lenp = len;
	return 0;
}

int sa_read_fd(int fd, char **bufp, size_t *lenp)
{
	return read_fd(fd, 0, NULL, bufp, lenp);
}

int sa_read_path(const char *path, size_t max, const char *prefix,
		 const char *kind, char **bufp, size_t *lenp, char **err)
{
	int use_stdin = strcmp(path, "-") == 0;
	int fd = use_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	int e;

	if (fd >= 0 && !read_fd(fd, max, prefix, bufp, lenp)) {
		if (!use_stdin)
			close(fd);
		return 0;
	}
	e = errno;
	if (fd >= 0 && !use_stdin)
		close(fd);
	if (e == EFBIG)
		*err = sa_format("%s: more than %zu bytes: too large for a %s file (--max-input raises the limit)",
			      sa_display_name(path), max, kind);
	else
		*err = sa_io_error(path, e);
	errno = e;
	return -1;
}

char *sa_io_error(const char *path, int errnum)
{
	const char *hint = "";

	if (strncmp(path, "/proc/", 6) == 0) {
		if (errnum == EACCES || errnum == EPERM)
			hint = " (run as root: the file is mode 0600)";
		else if (errnum == ENOENT)
			hint = " (is the module loaded? insmod slab_account.ko)";
	}
	return sa_format("%s: %s%s", sa_display_name(path), strerror(errnum), hint);
}

/* What the first line of @buf (@len bytes) says the input is. */
enum kind { K_SNAPSHOT, K_DETAIL, K_UNLOADS, K_TRACE, K_UNKNOWN };

static enum kind kind_of(const char *buf, size_t len, char *line, size_t n)
{
	size_t k = len < n - 1 ? len : n - 1;
	const char *nl = memchr(buf, '\n', k);

	if (nl)
		k = (size_t)(nl - buf);
	memcpy(line, buf, k);
	line[k] = '\0';
	if (strlen(line) != k)
		return K_UNKNOWN;	/* a NUL: not text */
	if (!strncmp(line, SA_DETAIL_HEADER_PREFIX, strlen(SA_DETAIL_HEADER_PREFIX)))
		return K_DETAIL;
	if (!strncmp(line, SA_UNLOADS_HEADER_PREFIX, strlen(SA_UNLOADS_HEADER_PREFIX)))
		return K_UNLOADS;
	if (!strncmp(line, "slab_account", 12))
		return K_SNAPSHOT;	/* or a damaged header: its parser says so */
	if (line[strspn(line, " \t\r")] && sa_trace_sniff(line))
		return K_TRACE;
	return K_UNKNOWN;
}

/* @err, a slab_account parser's message, with a hint for an input of @kind. */
static char *with_hint(char *err, enum kind kind)
{
	const char *hint = kind == K_DETAIL ?
		" (a detail file: --leaks --once FILE or --advise --detail FILE reads it)" :
		kind == K_UNLOADS ? " (an unloads file: --unloads FILE reads it)" :
		kind == K_TRACE ? " (a kmem trace: --from-trace FILE reads it)" : NULL;
	char *s;

	if (!hint || !err)
		return err;
	s = sa_format("%s%s", err, hint);
	if (!s)
		return err;
	free(err);
	return s;
}

int sa_load(struct sa_file *f, const char *path, char **err)
{
	return sa_load_max(f, path, SA_MAX_INPUT, err);
}

int sa_load_max(struct sa_file *f, const char *path, size_t max, char **err)
{
	return sa_load_keep(f, path, max, NULL, NULL, err);
}

int sa_load_keep(struct sa_file *f, const char *path, size_t max, char **keep, size_t *keep_len,
		 char **err)
{
	size_t len;
	char *buf;
	int ret;

	memset(f, 0, sizeof(*f));
	if (sa_read_path(path, max, SA_HEADER_PREFIX, "slab_account", &buf, &len,
			 err))
		return -1;
	ret = sa_parse_buffer(f, buf, len, sa_display_name(path), err);
	if (ret) {
		char line[256];

		*err = with_hint(*err, kind_of(buf, len, line, sizeof(line)));
	}
	if (keep && !ret) {
		*keep = buf;
		*keep_len = len;
	} else {
		free(buf);
	}
	return ret;
}

int sa_detail_load(struct sa_detail *d, const char *path, size_t max, char **err)
{
	size_t len;
	char *buf;
	int ret;

	memset(d, 0, sizeof(*d));
	if (sa_read_path(path, max, SA_DETAIL_HEADER_PREFIX, "slab_account detail", &buf,
			 &len, err))
		return -1;
	ret = sa_detail_parse_buffer(d, buf, len, sa_display_name(path), err);
	free(buf);
	return ret;
}

int sa_stacks_load(struct sa_stacks *s, const char *path, size_t max, char **err)
{
	size_t len;
	char *buf;
	int ret;

	memset(s, 0, sizeof(*s));
	if (sa_read_path(path, max, SA_STACKS_HEADER_PREFIX, "slab_account stacks", &buf, &len,
			 err))
		return -1;
	ret = sa_stacks_parse_buffer(s, buf, len, sa_display_name(path), err);
	free(buf);
	return ret;
}

int sa_unloads_load(struct sa_unloads *u, const char *path, size_t max, char **err)
{
	size_t len;
	char *buf;
	int ret;

	memset(u, 0, sizeof(*u));
	if (sa_read_path(path, max, SA_UNLOADS_HEADER_PREFIX, "slab_account unloads", &buf,
			 &len, err))
		return -1;
	ret = sa_unloads_parse_buffer(u, buf, len, sa_display_name(path), err);
	free(buf);
	return ret;
}

static int open_input(const char *path, char **err)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;

	if (fd < 0)
		*err = sa_io_error(path, errno);
	return fd;
}

int sa_trace_load(struct sa_file *f, const char *path,
		  const struct sa_trace_opts *o, char **err)
{
	int fd = open_input(path, err);
	int ret;

	memset(f, 0, sizeof(*f));
	if (fd < 0)
		return -1;
	ret = sa_trace_fd(f, fd, "", 0, sa_display_name(path), o, err);
	if (fd != STDIN_FILENO)
		close(fd);
	return ret;
}

#define FIRST_LINE 4096	/* of a --diff input, read to tell what it is */

int sa_load_any(struct sa_file *f, const char *path, size_t max,
		const struct sa_trace_opts *o, int *is_trace, char **err)
{
	int fd = open_input(path, err), ret = -1;
	char *buf = NULL, *rest = NULL, line[256], q[SA_QUOTE_MAX + 4];
	size_t len = 0, rlen;
	enum kind kind;

	memset(f, 0, sizeof(*f));
	*is_trace = 0;
	if (fd < 0)
		return -1;
	buf = malloc(FIRST_LINE + 1);
	if (!buf) {
		*err = strdup("out of memory");
		goto out;
	}
	/* The first line (or its first 4 KiB): what the input is. */
	while (len < FIRST_LINE && !memchr(buf, '\n', len)) {
		ssize_t r = read(fd, buf + len, FIRST_LINE - len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			*err = sa_io_error(path, errno);
			goto out;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	kind = len ? kind_of(buf, len, line, sizeof(line)) : K_TRACE;
	if (kind == K_TRACE) {
		*is_trace = 1;
		ret = sa_trace_fd(f, fd, buf, len, sa_display_name(path), o, err);
		goto out;
	}
	if (kind == K_UNKNOWN) {
		sa_quote(q, line, strlen(line));
		*err = sa_format("%s:1: neither a slab_account file nor a kmem trace: expected '%s1.x' or a trace's lines, got '%s'",
				 sa_display_name(path), SA_HEADER_PREFIX, q);
		goto out;
	}
	if (sa_read_fd(fd, &rest, &rlen)) {
		*err = sa_io_error(path, errno);
		goto out;
	}
	if (max && len + rlen > max) {
		*err = sa_format("%s: more than %zu bytes: too large for a slab_account file (--max-input raises the limit)",
				 sa_display_name(path), max);
		goto out;
	}
	if (rlen) {
		char *all = realloc(buf, len + rlen + 1);

		if (!all) {
			*err = strdup("out of memory");
			goto out;
		}
		buf = all;
		memcpy(buf + len, rest, rlen);
		len += rlen;
	}
	ret = sa_parse_buffer(f, buf, len, sa_display_name(path), err);
	if (ret)
		*err = with_hint(*err, kind);
out:
	free(rest);
	free(buf);
	if (fd != STDIN_FILENO)
		close(fd);
	return ret;
}
