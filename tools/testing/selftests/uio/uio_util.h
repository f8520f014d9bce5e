/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers shared by the UIO selftests: find a device by name, read
 * and write sysfs files, and check that touching memory raises SIGBUS.
 */
#ifndef UIO_SELFTEST_UTIL_H
#define UIO_SELFTEST_UTIL_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define UIO_CLASS	"/sys/class/uio"

/* Read a sysfs file into buf without the trailing newline; -errno on error. */
static inline int uio_sysfs_read(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd, err;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	err = errno;
	close(fd);
	if (n < 0)
		return -err;
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

/* Parse a sysfs number (decimal or 0x-hex); LLONG_MIN on any error. */
static inline long long uio_sysfs_num(const char *path)
{
	char buf[64], *end;
	long long v;

	if (uio_sysfs_read(path, buf, sizeof(buf)))
		return LLONG_MIN;
	errno = 0;
	v = strtoll(buf, &end, 0);
	if (errno || end == buf || *end)
		return LLONG_MIN;
	return v;
}

static inline int uio_sysfs_write(const char *path, const char *val)
{
	ssize_t n;
	int fd, err;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	err = errno;
	close(fd);
	return n < 0 ? -err : 0;
}

/* Minor of the first UIO device called name, or -ENOENT. */
static inline int uio_find(const char *name)
{
	char path[PATH_MAX], buf[256];
	struct dirent *de;
	int minor = -ENOENT;
	DIR *dir;

	dir = opendir(UIO_CLASS);
	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		if (strncmp(de->d_name, "uio", 3))
			continue;
		snprintf(path, sizeof(path), UIO_CLASS "/%s/name", de->d_name);
		if (uio_sysfs_read(path, buf, sizeof(buf)) == 0 &&
		    !strcmp(buf, name)) {
			minor = atoi(de->d_name + 3);
			break;
		}
	}
	closedir(dir);
	return minor;
}

/* The minor of the UIO device below PCI device addr, as DPDK finds it. */
static inline int uio_pci_minor(const char *addr)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *dir;
	int minor = -ENOENT;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/uio", addr);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((de = readdir(dir)))
		if (!strncmp(de->d_name, "uio", 3))
			minor = atoi(de->d_name + 3);
	closedir(dir);
	return minor;
}

static inline void uio_path(char *buf, size_t len, int minor, const char *file)
{
	snprintf(buf, len, UIO_CLASS "/uio%d/%s", minor, file);
}

/* Does /proc/iomem list [start, end] as name (root sees addresses)? */
static inline bool uio_iomem_has(unsigned long long start,
				 unsigned long long end, const char *name)
{
	unsigned long long s, e;
	char line[256], what[128];
	bool found = false;
	FILE *f;

	f = fopen("/proc/iomem", "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, " %llx-%llx : %127[^\n]", &s, &e, what) == 3 &&
			s == start && e == end && !strcmp(what, name);
	fclose(f);
	return found;
}

/* The number of the first map of uioN called name, or -ENOENT. */
static inline int uio_map_by_name(int minor, const char *name)
{
	char path[PATH_MAX], file[32], buf[64];
	int map;

	for (map = 0; map < 5; map++) {
		snprintf(file, sizeof(file), "maps/map%d/name", map);
		uio_path(path, sizeof(path), minor, file);
		if (!uio_sysfs_read(path, buf, sizeof(buf)) &&
		    !strcmp(buf, name))
			return map;
	}
	return -ENOENT;
}

static inline int uio_open_minor(int minor, int flags)
{
	char node[32];

	snprintf(node, sizeof(node), "/dev/uio%d", minor);
	return open(node, flags);
}

static inline long long uio_event_count(int minor)
{
	char path[PATH_MAX];

	uio_path(path, sizeof(path), minor, "event");
	return uio_sysfs_num(path);
}

/* Does reading (or writing) *addr kill a child with SIGBUS? */
static inline bool uio_touch_sigbus(volatile unsigned int *addr, bool write)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return false;
	if (pid == 0) {
		if (write)
			*addr = 0x12345678;
		else
			(void)*addr;
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return false;
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS;
}

/* Is this a PREEMPT_RT kernel, which runs every ordinary handler in a thread? */
static inline bool uio_kernel_is_rt(void)
{
	struct utsname u;

	return !uname(&u) && strstr(u.version, "PREEMPT_RT");
}

/*
 * Count the irq threads of interrupt irq ("irq/<irq>-<name>" kernel
 * threads) and add up their context switches into *switches. Returns the
 * number of threads, or -errno if /proc cannot be read.
 */
static inline int uio_irq_threads(long long irq, long long *switches)
{
	char path[PATH_MAX], line[256], prefix[32];
	int threads = 0;
	struct dirent *de;
	long long n;
	DIR *proc;
	FILE *f;

	*switches = 0;
	snprintf(prefix, sizeof(prefix), "irq/%lld-", irq);
	proc = opendir("/proc");
	if (!proc)
		return -errno;
	while ((de = readdir(proc))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		if (uio_sysfs_read(path, line, sizeof(line)) ||
		    strncmp(line, prefix, strlen(prefix)))
			continue;
		threads++;
		snprintf(path, sizeof(path), "/proc/%s/status", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "voluntary_ctxt_switches: %lld", &n) == 1 ||
			    sscanf(line, "nonvoluntary_ctxt_switches: %lld", &n) == 1)
				*switches += n;
		fclose(f);
	}
	closedir(proc);
	return threads;
}

static inline double uio_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#endif /* UIO_SELFTEST_UTIL_H */
