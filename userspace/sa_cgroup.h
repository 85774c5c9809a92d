// SPDX-License-Identifier: GPL-2.0
/*
 * sa_cgroup - cgroup v2 ids to paths: a cgroup's id (what a 1.6 file's
 * ` @cgroup:ID` holds) is the 64-bit id its directory's file handle holds
 * under the cgroup2 mount (the inode number on a 64-bit kernel, its low
 * 32 bits on a 32-bit one), so walking that tree (default /sys/fs/cgroup)
 * and keeping each directory's id names every cgroup that exists now.  A
 * tree that is not cgroup2 (tests) is keyed by inode number.
 */
#ifndef SA_CGROUP_H
#define SA_CGROUP_H

#include <stddef.h>
#include <stdint.h>

#define SA_CGROUP_ROOT "/sys/fs/cgroup"

struct sa_cgroup {
	uint64_t id;		/* the directory's cgroup id (above) */
	char *path;		/* "/" for the root, "/a/b" below it */
};

struct sa_cgroups {
	struct sa_cgroup *v;	/* sorted by id */
	size_t n;
};

/*
 * Walk the directories under @root (not following symbolic links, not
 * crossing into another file system) into @c.  0; or -1 with *@err a
 * malloc()ed message (NULL: no memory): @root cannot be opened, or no memory.
 */
int sa_cgroups_load(struct sa_cgroups *c, const char *root, char **err);

/* The path of cgroup @id, or NULL when no directory has it. */
const char *sa_cgroups_path(const struct sa_cgroups *c, uint64_t id);

/*
 * The id of @path ("/a/b", "a/b" or "/" for the root; a trailing '/' is
 * allowed): 0 and *@id, or -1 when no directory has that path.
 */
int sa_cgroups_id(const struct sa_cgroups *c, const char *path, uint64_t *id);

void sa_cgroups_free(struct sa_cgroups *c);

#endif /* SA_CGROUP_H */
