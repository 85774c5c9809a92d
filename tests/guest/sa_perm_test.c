// SPDX-License-Identifier: GPL-2.0
/*
 * Who may read and write: only root reads (mode 0600); writes need
 * CAP_SYS_ADMIN, both in the opener and in the writer.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "sa_lib.h"

#define NOBODY 65534

/* Run @fn in a child; returns its exit status (0 = as expected). */
static int in_child(int (*fn)(int), int arg)
{
	int status;
	pid_t pid = fork();

	if (!pid)
		_exit(fn(arg));
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 100;
	return WEXITSTATUS(status);
}

static int become_nobody(void)
{
	return setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY);
}

static int nobody_open(int unused)
{
	if (become_nobody())
		return 1;
	if (open(SA_PROC, O_RDONLY) >= 0 || errno != EACCES)
		return 2;
	if (open(SA_PROC, O_WRONLY) >= 0 || errno != EACCES)
		return 3;
	return 0;
}

TEST(nobody_cannot_open)
{
	EXPECT_EQ(0, in_child(nobody_open, 0));
}

static int nobody_write_root_fd(int fd)
{
	if (become_nobody())
		return 1;
	if (write(fd, "stop", 4) >= 0 || errno != EPERM)
		return 2;
	return 0;
}

/* A root-opened descriptor handed to an unprivileged process. */
TEST(nobody_cannot_write_through_root_fd)
{
	int fd = open(SA_PROC, O_WRONLY);
	char *t;

	ASSERT_LE(0, fd);
	EXPECT_EQ(0, in_child(nobody_write_root_fd, fd));
	close(fd);
	ASSERT_EQ(0, sa_read_file(SA_PROC, &t, NULL));
	EXPECT_NE(NULL, strstr(t, "\nstate: active\n"));
	free(t);
}

static int drop_sys_admin(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -1;
	d[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective &= ~CAP_TO_MASK(CAP_SYS_ADMIN);
	d[CAP_TO_INDEX(CAP_SYS_ADMIN)].permitted &= ~CAP_TO_MASK(CAP_SYS_ADMIN);
	d[CAP_TO_INDEX(CAP_SYS_ADMIN)].inheritable &= ~CAP_TO_MASK(CAP_SYS_ADMIN);
	return syscall(SYS_capset, &h, d) ? -1 : 0;
}

static int root_without_sys_admin(int unused)
{
	char buf[64];
	int fd;

	if (drop_sys_admin())
		return 1;
	fd = open(SA_PROC, O_RDONLY);		/* reading needs no capability */
	if (fd < 0 || read(fd, buf, sizeof(buf)) <= 0)
		return 2;
	close(fd);
	fd = open(SA_PROC, O_WRONLY);		/* CAP_DAC_OVERRIDE is kept */
	if (fd < 0)
		return 3;
	if (write(fd, "stop", 4) >= 0 || errno != EPERM)
		return 4;
	if (write(fd, "reset", 5) >= 0 || errno != EPERM)
		return 5;
	close(fd);
	return 0;
}

TEST(root_without_cap_sys_admin_cannot_write)
{
	char *t;

	EXPECT_EQ(0, in_child(root_without_sys_admin, 0));
	ASSERT_EQ(0, sa_read_file(SA_PROC, &t, NULL));
	EXPECT_NE(NULL, strstr(t, "\nstate: active\n"));
	free(t);
}

SA_SELFTEST_MAIN(0)
