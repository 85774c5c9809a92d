// SPDX-License-Identifier: GPL-2.0
/*
 * sa_cgroup - cgroup v2 ids to paths by walking the cgroup2 tree (see
 * sa_cgroup.h).
 */
#define _POSIX_C_SOURCE 200809L
#define _FILE_OFFSET_BITS 64

#include "sa_cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sa_base.h"

/* Deeper directories are not walked (cgroup2 allows 2^31 levels; nobody uses 64). */
#define MAX_DEPTH 64

struct walk {
	struct sa_cgroups *c;
	size_t cap;
	dev_t dev;
};

static int add(struct walk *w, uint64_t id, const char *path)
{
	struct sa_cgroup *e;

	if (sa_grow(&w->c->v, &w->cap, w->c->n + 1, sizeof(*w->c->v)))
		return -1;
	e = &w->c->v[w->c->n];
	e->id = id;
	e->path = strdup(path);
	if (!e->path)
		return -1;
	w->c->n++;
	return 0;
}

/* Add the directories under @dfd (whose path is @path) to @w; takes @dfd. */
static int walk_dir(struct walk *w, int dfd, const char *path, int depth)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de;
	int ret = 0;

	if (!d) {
		close(dfd);
		return errno == ENOMEM ? -1 : 0;
	}
	while (!ret && (de = readdir(d)) != NULL) {
		struct stat st;
		char *sub;
		int fd;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISDIR(st.st_mode) || st.st_dev != w->dev)
			continue;
		sub = sa_format("%s/%s", strcmp(path, "/") ? path : "", de->d_name);
		if (!sub || add(w, (uint64_t)st.st_ino, sub)) {
			free(sub);
			ret = -1;
			break;
		}
		if (depth < MAX_DEPTH) {
			fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
			if (fd >= 0)
				ret = walk_dir(w, fd, sub, depth + 1);
		}
		free(sub);
	}
	closedir(d);
	return ret;
}

static int id_cmp(const void *a, const void *b)
{
	const struct sa_cgroup *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

int sa_cgroups_load(struct sa_cgroups *c, const char *root, char **err)
{
	struct walk w = { c, 0, 0 };
	struct stat st;
	int fd;

	memset(c, 0, sizeof(*c));
	*err = NULL;
	fd = open(root, O_RDONLY | O_DIRECTORY);
	if (fd < 0 || fstat(fd, &st)) {
		*err = sa_format("%s: %s", root, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	w.dev = st.st_dev;
	if (add(&w, (uint64_t)st.st_ino, "/") || walk_dir(&w, fd, "/", 1)) {
		sa_cgroups_free(c);
		return -1;
	}
	qsort(c->v, c->n, sizeof(*c->v), id_cmp);
	return 0;
}

const char *sa_cgroups_path(const struct sa_cgroups *c, uint64_t id)
{
	struct sa_cgroup key = { id, NULL };
	const struct sa_cgroup *e;

	if (!c || !c->n)
		return NULL;
	e = bsearch(&key, c->v, c->n, sizeof(*c->v), id_cmp);
	return e ? e->path : NULL;
}

int sa_cgroups_id(const struct sa_cgroups *c, const char *path, uint64_t *id)
{
	size_t i, n;

	if (!c)
		return -1;
	while (path[0] == '/' && path[1] == '/')
		path++;
	if (path[0] == '/' && path[1])
		path++;
	n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	for (i = 0; i < c->n; i++) {
		const char *p = c->v[i].path;

		/* "/" is the root; the others are kept with their leading '/'. */
		if (strcmp(p, "/") ? strlen(p + 1) == n && !memcmp(p + 1, path, n) :
		    n == 1 && path[0] == '/') {
			*id = c->v[i].id;
			return 0;
		}
	}
	return -1;
}

void sa_cgroups_free(struct sa_cgroups *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->v[i].path);
	free(c->v);
	memset(c, 0, sizeof(*c));
}
