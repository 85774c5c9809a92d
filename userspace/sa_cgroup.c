// SPDX-License-Identifier: GPL-2.0
/*
 * sa_cgroup - cgroup v2 ids to paths by walking the cgroup2 tree (see
 * sa_cgroup.h).
 */
#define _GNU_SOURCE	/* name_to_handle_at() */
#define _FILE_OFFSET_BITS 64

#include "sa_cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "sa_base.h"

/* Deeper directories are not walked (cgroup2 allows 2^31 levels; nobody uses 64). */
#define MAX_DEPTH 64

/* statfs()'s f_type of a cgroup2 file system (linux/magic.h). */
#define CGROUP2_MAGIC 0x63677270

struct walk {
	struct sa_cgroups *c;
	size_t cap;
	dev_t dev;
	int cgroup2;	/* the tree is a cgroup2 file system */
};

/*
 * The id of directory @name under @dfd ("" for @dfd itself), whose stat
 * is @st.  On cgroup2 it is the kernel's 64-bit cgroup id, which the file
 * handle holds whole: the inode number is its low 32 bits on a 32-bit
 * kernel (the high 32 are a generation).  Elsewhere (a tree of plain
 * directories, for tests) the inode number.
 */
static uint64_t dir_id(const struct walk *w, int dfd, const char *name,
		       const struct stat *st)
{
	union {
		struct file_handle fh;
		char room[sizeof(struct file_handle) + 16];
	} h;
	uint64_t id;
	int mnt;

	if (!w->cgroup2)
		return (uint64_t)st->st_ino;
	h.fh.handle_bytes = 16;
	if (name_to_handle_at(dfd, name, &h.fh, &mnt,
			      *name ? 0 : AT_EMPTY_PATH) ||
	    h.fh.handle_bytes != sizeof(id))
		return (uint64_t)st->st_ino;
	memcpy(&id, h.fh.f_handle, sizeof(id));
	return id;
}

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
		if (!sub || add(w, dir_id(w, dirfd(d), de->d_name, &st), sub)) {
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
	struct walk w = { c, 0, 0, 0 };
	struct statfs sf;
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
	w.cgroup2 = !fstatfs(fd, &sf) && sf.f_type == CGROUP2_MAGIC;
	if (add(&w, dir_id(&w, fd, "", &st), "/") || walk_dir(&w, fd, "/", 1)) {
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
