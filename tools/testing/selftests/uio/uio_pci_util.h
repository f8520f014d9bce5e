/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the uio_pci_generic selftests: find a PCI device by
 * its IDs, access its config space through sysfs, count the entries of
 * one of its sysfs directories.
 */
#ifndef UIO_SELFTEST_PCI_UTIL_H
#define UIO_SELFTEST_PCI_UTIL_H

#include <poll.h>
#include <stdint.h>

#include "uio_util.h"

#define PCI_DEVICES		"/sys/bus/pci/devices"
#define UPG_DRIVER		"/sys/bus/pci/drivers/uio_pci_generic"

#define PCI_COMMAND		0x04
#define  PCI_COMMAND_MASTER	0x0004
#define  PCI_COMMAND_INTX_OFF	0x0400

/* QEMU's edu device (docs/specs/edu.txt in QEMU) */
#define EDU_VENDOR		0x1234
#define EDU_DEVICE		0x11e8
#define EDU_ID			0x00
#define EDU_LIVENESS		0x04
#define EDU_FACTORIAL		0x08
#define EDU_STATUS		0x20
#define  EDU_STATUS_COMPUTING	0x01
#define  EDU_STATUS_IRQ_FACT	0x80
#define EDU_IRQ_STATUS		0x24
#define EDU_IRQ_RAISE		0x60
#define EDU_IRQ_ACK		0x64

/*
 * The PCI address of the first device vendor:device other than skip (may
 * be NULL).
 */
static inline int pci_find(unsigned int vendor, unsigned int device,
			   char *addr, size_t len, const char *skip)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *dir;
	int ret = -ENOENT;

	dir = opendir(PCI_DEVICES);
	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), PCI_DEVICES "/%s/vendor", de->d_name);
		if (uio_sysfs_num(path) != vendor)
			continue;
		snprintf(path, sizeof(path), PCI_DEVICES "/%s/device", de->d_name);
		if (uio_sysfs_num(path) != device)
			continue;
		if (skip && !strcmp(skip, de->d_name))
			continue;
		snprintf(addr, len, "%s", de->d_name);
		ret = 0;
		break;
	}
	closedir(dir);
	return ret;
}

/* The PCI address of the first edu device other than skip (may be NULL). */
static inline int edu_find_other(char *addr, size_t len, const char *skip)
{
	return pci_find(EDU_VENDOR, EDU_DEVICE, addr, len, skip);
}

static inline int config_rw16(const char *addr, off_t off, uint16_t *val,
			      bool write)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), PCI_DEVICES "/%s/config", addr);
	fd = open(path, O_RDWR);
	if (fd < 0)
		return -errno;
	n = write ? pwrite(fd, val, 2, off) : pread(fd, val, 2, off);
	close(fd);
	return n == 2 ? 0 : -EIO;
}

/* The minor of addr's UIO device, waiting up to 2 s for it to appear. */
static inline int uio_pci_wait_minor(const char *addr)
{
	int i, minor = -ENOENT;

	for (i = 0; i < 100 && minor < 0; i++) {
		minor = uio_pci_minor(addr);
		if (minor < 0)
			usleep(20 * 1000);
	}
	return minor;
}

/* Wait for the next event; the new count, or -1 on timeout or error. */
static inline long long uio_pci_wait_event(int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int32_t count;

	if (poll(&pfd, 1, timeout_ms) != 1 || !(pfd.revents & POLLIN))
		return -1;
	if (read(fd, &count, sizeof(count)) != sizeof(count))
		return -1;
	return count;
}

/* The command register, all ones if it cannot be read. */
static inline uint16_t pci_command(const char *addr)
{
	uint16_t cmd = 0xffff;

	config_rw16(addr, PCI_COMMAND, &cmd, false);
	return cmd;
}

/*
 * Entries of /sys/bus/pci/devices/<addr>/<dir> whose names start with
 * prefix ("" for all); -errno if the directory is not there.
 */
static inline int pci_dir_count(const char *addr, const char *dir_name,
				const char *prefix)
{
	char path[PATH_MAX];
	struct dirent *de;
	int n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), PCI_DEVICES "/%s/%s", addr, dir_name);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((de = readdir(dir)))
		n += de->d_name[0] != '.' &&
		     !strncmp(de->d_name, prefix, strlen(prefix));
	closedir(dir);
	return n;
}

#endif /* UIO_SELFTEST_PCI_UTIL_H */
