// SPDX-License-Identifier: GPL-2.0
/*
 * sabench: the user-space side of `make bench`, run in the guest.
 *
 *   sabench mix ITER        ITER rounds of a syscall mix: create, stat and
 *                           unlink a file on tmpfs (/tmp), a pipe and a
 *                           socketpair each created, written, read and
 *                           closed, a fork whose child exits at once.
 *     -> mix ITER OPS NS CREATE STAT UNLINK PIPE SOCKET FORK
 *        (OPS = 6 * ITER operations in NS; then the ns spent per kind)
 *   sabench read FILE REPS  read FILE whole REPS times (128 KiB reads)
 *     -> read REPS BYTES ROWS MIN_NS MEDIAN_NS
 *        (ROWS: lines after the first line starting with '#')
 *
 * Times come from CLOCK_MONOTONIC: under QEMU's -icount shift=0 it counts
 * guest instructions.  Exit status 1 when a system call fails.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { K_CREATE, K_STAT, K_UNLINK, K_PIPE, K_SOCKET, K_FORK, K_NR };

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void fail(const char *what)
{
	fprintf(stderr, "sabench: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Write a byte into fds[1], read it from fds[0], close both. */
static void churn(int fds[2], const char *what)
{
	char c = 'x';

	if (write(fds[1], &c, 1) != 1 || read(fds[0], &c, 1) != 1)
		fail(what);
	if (close(fds[0]) || close(fds[1]))
		fail(what);
}

static int mix(unsigned long iter)
{
	uint64_t ns[K_NR] = { 0 }, t0, t, total = 0;
	char path[64];
	struct stat st;
	unsigned long i;
	int fd, fds[2], k, status;
	pid_t pid;

	snprintf(path, sizeof(path), "/tmp/sabench.%ld", (long)getpid());
	for (i = 0; i < iter; i++) {
		t0 = now_ns();
		fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0600);
		if (fd < 0 || close(fd))
			fail("create");
		t = now_ns();
		ns[K_CREATE] += t - t0;
		t0 = t;
		if (stat(path, &st))
			fail("stat");
		t = now_ns();
		ns[K_STAT] += t - t0;
		t0 = t;
		if (unlink(path))
			fail("unlink");
		t = now_ns();
		ns[K_UNLINK] += t - t0;
		t0 = t;
		if (pipe(fds))
			fail("pipe");
		churn(fds, "pipe");
		t = now_ns();
		ns[K_PIPE] += t - t0;
		t0 = t;
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds))
			fail("socketpair");
		churn(fds, "socketpair");
		t = now_ns();
		ns[K_SOCKET] += t - t0;
		t0 = t;
		pid = fork();
		if (pid < 0)
			fail("fork");
		if (!pid)
			_exit(0);
		if (waitpid(pid, &status, 0) != pid)
			fail("waitpid");
		t = now_ns();
		ns[K_FORK] += t - t0;
	}
	for (k = 0; k < K_NR; k++)
		total += ns[k];
	printf("mix %lu %lu %llu", iter, iter * K_NR, (unsigned long long)total);
	for (k = 0; k < K_NR; k++)
		printf(" %llu", (unsigned long long)ns[k]);
	printf("\n");
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int readfile(const char *file, unsigned long reps)
{
	static char buf[128 * 1024];
	uint64_t *ns, t0;
	unsigned long r, bytes = 0, rows = 0;
	int legend, at_bol;
	ssize_t n;
	ssize_t i;
	int fd;

	if (!reps)
		reps = 1;
	ns = calloc(reps, sizeof(*ns));
	if (!ns)
		fail("calloc");
	for (r = 0; r < reps; r++) {
		bytes = 0;
		rows = 0;
		legend = 0;
		at_bol = 1;
		t0 = now_ns();
		fd = open(file, O_RDONLY);
		if (fd < 0)
			fail(file);
		while ((n = read(fd, buf, sizeof(buf))) > 0) {
			bytes += (unsigned long)n;
			for (i = 0; i < n; i++) {
				if (at_bol && buf[i] == '#' && !legend)
					legend = -1;	/* the legend line */
				if (buf[i] == '\n') {
					if (legend > 0)
						rows++;
					else if (legend < 0)
						legend = 1;
					at_bol = 1;
				} else {
					at_bol = 0;
				}
			}
		}
		if (n < 0)
			fail(file);
		close(fd);
		ns[r] = now_ns() - t0;
	}
	qsort(ns, reps, sizeof(*ns), cmp_u64);
	printf("read %lu %lu %lu %llu %llu\n", reps, bytes, rows,
	       (unsigned long long)ns[0], (unsigned long long)ns[reps / 2]);
	free(ns);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "mix"))
		return mix(strtoul(argv[2], NULL, 0));
	if (argc == 4 && !strcmp(argv[1], "read"))
		return readfile(argv[2], strtoul(argv[3], NULL, 0));
	fprintf(stderr, "usage: sabench mix ITER | sabench read FILE REPS\n");
	return 2;
}
