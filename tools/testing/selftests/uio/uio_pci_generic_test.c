// SPDX-License-Identifier: GPL-2.0
/*
 * uio_pci_generic driving QEMU's edu device (docs/specs/edu.txt in QEMU):
 * sysfs, register access through mmap, INTx masking by the handler and
 * unmasking by write() or by config space, unbind and removal while open.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <stdint.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "uio_util.h"

#define PCI_DEVICES		"/sys/bus/pci/devices"
#define UPG_DRIVER		"/sys/bus/pci/drivers/uio_pci_generic"

#define EDU_ID			0x00
#define EDU_LIVENESS		0x04
#define EDU_FACTORIAL		0x08
#define EDU_STATUS		0x20
#define  EDU_STATUS_COMPUTING	0x01
#define  EDU_STATUS_IRQ_FACT	0x80
#define EDU_IRQ_STATUS		0x24
#define EDU_IRQ_RAISE		0x60
#define EDU_IRQ_ACK		0x64

#define PCI_COMMAND		0x04
#define  PCI_COMMAND_MASTER	0x0004
#define  PCI_COMMAND_INTX_OFF	0x0400

FIXTURE(edu) {
	char addr[NAME_MAX + 1];	/* PCI address, e.g. 0000:00:04.0 */
	int minor;
	int fd;			/* O_RDWR on /dev/uioN */
	volatile uint32_t *regs;	/* BAR0, first page */
};

/* The PCI address of the first edu device other than skip (may be NULL). */
static int edu_find_other(char *addr, size_t len, const char *skip)
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
		if (uio_sysfs_num(path) != 0x1234)
			continue;
		snprintf(path, sizeof(path), PCI_DEVICES "/%s/device", de->d_name);
		if (uio_sysfs_num(path) != 0x11e8)
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

static int edu_find(char *addr, size_t len)
{
	return edu_find_other(addr, len, NULL);
}

static int config_rw16(const char *addr, off_t off, uint16_t *val, bool write)
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

static uint16_t pci_command(const char *addr)
{
	uint16_t cmd = 0xffff;

	config_rw16(addr, PCI_COMMAND, &cmd, false);
	return cmd;
}

/* Wait for the next event; the new count, or -1 on timeout or error. */
static long long wait_event(int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int32_t count;

	if (poll(&pfd, 1, timeout_ms) != 1 || !(pfd.revents & POLLIN))
		return -1;
	if (read(fd, &count, sizeof(count)) != sizeof(count))
		return -1;
	return count;
}

static int irq_enable(int fd)
{
	int32_t on = 1;

	return write(fd, &on, sizeof(on)) == sizeof(on) ? 0 : -errno;
}

FIXTURE_SETUP(edu)
{
	self->fd = -1;
	self->regs = MAP_FAILED;
	ASSERT_EQ(0, edu_find(self->addr, sizeof(self->addr)));
	self->minor = uio_pci_minor(self->addr);
	ASSERT_GE(self->minor, 0);
	self->fd = uio_open_minor(self->minor, O_RDWR);
	ASSERT_GE(self->fd, 0);
	self->regs = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
			  self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->regs);
	/* Start from a quiet device with its interrupt unmasked. */
	self->regs[EDU_IRQ_ACK / 4] = 0xffffffff;
	self->regs[EDU_STATUS / 4] = 0;
	ASSERT_EQ(0, irq_enable(self->fd));
}

FIXTURE_TEARDOWN(edu)
{
	if (self->regs != MAP_FAILED)
		munmap((void *)self->regs, 4096);
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(edu, sysfs_describes_bar0)
{
	char path[PATH_MAX], buf[64], line[128];
	unsigned long long start, end, flags;
	int fields;
	FILE *f;

	uio_path(path, sizeof(path), self->minor, "name");
	ASSERT_EQ(0, uio_sysfs_read(path, buf, sizeof(buf)));
	EXPECT_STREQ("uio_pci_generic", buf);

	snprintf(path, sizeof(path), PCI_DEVICES "/%s/resource", self->addr);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(line, sizeof(line), f));
	fclose(f);
	fields = sscanf(line, "%llx %llx %llx", &start, &end, &flags);
	ASSERT_EQ(3, fields);

	uio_path(path, sizeof(path), self->minor, "maps/map0/addr");
	EXPECT_EQ((long long)start, uio_sysfs_num(path));
	uio_path(path, sizeof(path), self->minor, "maps/map0/size");
	EXPECT_EQ((long long)(end - start + 1), uio_sysfs_num(path));
	uio_path(path, sizeof(path), self->minor, "maps/map0/name");
	ASSERT_EQ(0, uio_sysfs_read(path, buf, sizeof(buf)));
	EXPECT_STREQ("BAR0", buf);
	/* Physical addresses are not secret: readable by all. */
	uio_path(path, sizeof(path), self->minor, "maps/map0/addr");
	EXPECT_EQ(0, access(path, R_OK));
	uio_path(path, sizeof(path), self->minor, "maps/map1");
	EXPECT_EQ(-1, access(path, F_OK));
}

TEST_F(edu, mmap_reads_id_register)
{
	uint32_t id = self->regs[EDU_ID / 4];

	EXPECT_EQ(0xed, id & 0xff);
	EXPECT_EQ(1, id >> 24);	/* major version of edu */
}

TEST_F(edu, mmap_liveness_register_inverts)
{
	self->regs[EDU_LIVENESS / 4] = 0x12345678;
	EXPECT_EQ(~0x12345678u, self->regs[EDU_LIVENESS / 4]);
	self->regs[EDU_LIVENESS / 4] = 0;
	EXPECT_EQ(0xffffffffu, self->regs[EDU_LIVENESS / 4]);
}

static uint32_t edu_factorial(volatile uint32_t *regs, uint32_t n)
{
	int i;

	regs[EDU_FACTORIAL / 4] = n;
	for (i = 0; i < 100000 && (regs[EDU_STATUS / 4] & EDU_STATUS_COMPUTING); i++)
		usleep(10);
	return regs[EDU_FACTORIAL / 4];
}

TEST_F(edu, mmap_factorial_computes)
{
	EXPECT_EQ(120, edu_factorial(self->regs, 5));
	EXPECT_EQ(3628800, edu_factorial(self->regs, 10));
}

TEST_F_TIMEOUT(edu, irq_round_trip_masks_intx, 10)
{
	long long before = uio_event_count(self->minor);

	ASSERT_FALSE(pci_command(self->addr) & PCI_COMMAND_INTX_OFF);
	self->regs[EDU_IRQ_RAISE / 4] = 0x1;
	EXPECT_EQ(before + 1, wait_event(self->fd, 2000));
	/* The handler masked INTx; the device still requests. */
	EXPECT_TRUE(pci_command(self->addr) & PCI_COMMAND_INTX_OFF);
	EXPECT_EQ(0x1, self->regs[EDU_IRQ_STATUS / 4]);
	self->regs[EDU_IRQ_ACK / 4] = 0x1;
	EXPECT_EQ(0, self->regs[EDU_IRQ_STATUS / 4]);
	ASSERT_EQ(0, irq_enable(self->fd));
	EXPECT_FALSE(pci_command(self->addr) & PCI_COMMAND_INTX_OFF);
}

TEST_F_TIMEOUT(edu, irq_held_until_write_reenables, 10)
{
	long long before = uio_event_count(self->minor);

	self->regs[EDU_IRQ_RAISE / 4] = 0x1;
	ASSERT_EQ(before + 1, wait_event(self->fd, 2000));
	self->regs[EDU_IRQ_ACK / 4] = 0x1;
	self->regs[EDU_IRQ_RAISE / 4] = 0x2;
	/* Masked: the second request waits for user space. */
	EXPECT_EQ(-1, wait_event(self->fd, 300));
	ASSERT_EQ(0, irq_enable(self->fd));
	EXPECT_EQ(before + 2, wait_event(self->fd, 2000));
	self->regs[EDU_IRQ_ACK / 4] = 0x2;
}

TEST_F_TIMEOUT(edu, irq_reenabled_through_config_space, 10)
{
	long long before = uio_event_count(self->minor);
	uint16_t cmd;

	self->regs[EDU_IRQ_RAISE / 4] = 0x1;
	ASSERT_EQ(before + 1, wait_event(self->fd, 2000));
	self->regs[EDU_IRQ_ACK / 4] = 0x1;
	self->regs[EDU_IRQ_RAISE / 4] = 0x4;
	EXPECT_EQ(-1, wait_event(self->fd, 300));
	/* What packet frameworks do instead of write(). */
	ASSERT_EQ(0, config_rw16(self->addr, PCI_COMMAND, &cmd, false));
	cmd &= ~PCI_COMMAND_INTX_OFF;
	ASSERT_EQ(0, config_rw16(self->addr, PCI_COMMAND, &cmd, true));
	EXPECT_EQ(before + 2, wait_event(self->fd, 2000));
	self->regs[EDU_IRQ_ACK / 4] = 0x4;
}

TEST_F_TIMEOUT(edu, irq_count_exact, 60)
{
	long long before = uio_event_count(self->minor);
	int i, got = 0;

	for (i = 0; i < 25; i++) {
		self->regs[EDU_IRQ_RAISE / 4] = 0x1;
		got += wait_event(self->fd, 2000) == before + i + 1;
		self->regs[EDU_IRQ_ACK / 4] = 0x1;
		ASSERT_EQ(0, irq_enable(self->fd));
	}
	EXPECT_EQ(25, got);
	EXPECT_EQ(before + 25, uio_event_count(self->minor));
}

TEST_F_TIMEOUT(edu, irq_on_factorial_completion, 10)
{
	long long before = uio_event_count(self->minor);

	self->regs[EDU_STATUS / 4] = EDU_STATUS_IRQ_FACT;
	self->regs[EDU_FACTORIAL / 4] = 6;
	EXPECT_EQ(before + 1, wait_event(self->fd, 2000));
	EXPECT_EQ(720, self->regs[EDU_FACTORIAL / 4]);
	EXPECT_EQ(0x1, self->regs[EDU_IRQ_STATUS / 4]);
	self->regs[EDU_IRQ_ACK / 4] = 0x1;
	self->regs[EDU_STATUS / 4] = 0;
}

/* Does /proc/interrupts list two uio_pci_generic handlers on irq? */
static bool irq_has_two_uio_handlers(long long irq)
{
	char line[512], *first;
	bool found = false;
	FILE *f;

	f = fopen("/proc/interrupts", "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (strtoll(line, NULL, 10) != irq || !strchr(line, ':'))
			continue;
		first = strstr(line, "uio_pci_generic");
		found = first && strstr(first + 1, "uio_pci_generic");
		break;
	}
	fclose(f);
	return found;
}

TEST_F_TIMEOUT(edu, shared_line_claimed_by_owner_only, 10)
{
	char other[NAME_MAX + 1], path[PATH_MAX];
	long long before, other_before, irq;
	int other_minor;

	if (edu_find_other(other, sizeof(other), self->addr))
		SKIP(return, "needs a second edu device");
	snprintf(path, sizeof(path), PCI_DEVICES "/%s/irq", self->addr);
	irq = uio_sysfs_num(path);
	snprintf(path, sizeof(path), PCI_DEVICES "/%s/irq", other);
	if (irq != uio_sysfs_num(path))
		SKIP(return, "the two edu devices do not share a line");
	other_minor = uio_pci_minor(other);
	ASSERT_GE(other_minor, 0);

	before = uio_event_count(self->minor);
	other_before = uio_event_count(other_minor);
	self->regs[EDU_IRQ_RAISE / 4] = 0x1;
	EXPECT_EQ(before + 1, wait_event(self->fd, 2000));
	self->regs[EDU_IRQ_ACK / 4] = 0x1;
	ASSERT_EQ(0, irq_enable(self->fd));
	/* The other stub saw the interrupt too, and returned IRQ_NONE. */
	EXPECT_EQ(other_before, uio_event_count(other_minor));
	EXPECT_TRUE(irq_has_two_uio_handlers(irq));
}

TEST_F(edu, mmap_beyond_bar_einval)
{
	char path[PATH_MAX];
	long long size;

	uio_path(path, sizeof(path), self->minor, "maps/map0/size");
	size = uio_sysfs_num(path);
	ASSERT_GT(size, 0);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, size + 4096, PROT_READ, MAP_SHARED,
				   self->fd, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ, MAP_SHARED,
				   self->fd, 4096));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(edu, release_clears_bus_master)
{
	uint16_t cmd;
	int fd;

	fd = uio_open_minor(self->minor, O_RDWR);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, config_rw16(self->addr, PCI_COMMAND, &cmd, false));
	cmd |= PCI_COMMAND_MASTER;
	ASSERT_EQ(0, config_rw16(self->addr, PCI_COMMAND, &cmd, true));
	ASSERT_TRUE(pci_command(self->addr) & PCI_COMMAND_MASTER);
	close(fd);
	EXPECT_FALSE(pci_command(self->addr) & PCI_COMMAND_MASTER);
}

static int wait_for_minor(const char *addr)
{
	int i, minor = -ENOENT;

	for (i = 0; i < 100 && minor < 0; i++) {
		minor = uio_pci_minor(addr);
		if (minor < 0)
			usleep(20 * 1000);
	}
	return minor;
}

TEST_F_TIMEOUT(edu, unbind_while_open_and_mapped, 20)
{
	int32_t count;
	int minor, fd;

	ASSERT_EQ(0x1, 0x1 & self->regs[EDU_ID / 4]);
	ASSERT_EQ(0, uio_sysfs_write(UPG_DRIVER "/unbind", self->addr));
	EXPECT_EQ(-1, read(self->fd, &count, sizeof(count)));
	EXPECT_EQ(EIO, errno);
	EXPECT_TRUE(uio_touch_sigbus(self->regs, false));
	EXPECT_EQ(-ENOENT, uio_pci_minor(self->addr));

	ASSERT_EQ(0, uio_sysfs_write(UPG_DRIVER "/bind", self->addr));
	minor = wait_for_minor(self->addr);
	ASSERT_GE(minor, 0);
	fd = uio_open_minor(minor, O_RDWR);
	ASSERT_GE(fd, 0);
	close(fd);
}

static int intx_disable_set(const char *addr, bool disable)
{
	uint16_t cmd;
	int ret;

	ret = config_rw16(addr, PCI_COMMAND, &cmd, false);
	if (ret)
		return ret;
	cmd &= ~PCI_COMMAND_INTX_OFF;
	if (disable)
		cmd |= PCI_COMMAND_INTX_OFF;
	return config_rw16(addr, PCI_COMMAND, &cmd, true);
}

TEST_F_TIMEOUT(edu, unbind_restores_intx_disable_bit, 30)
{
	static const bool before_bind[] = { false, true };
	int32_t off = 0;
	unsigned int i;
	int minor, fd;

	for (i = 0; i < ARRAY_SIZE(before_bind); i++) {
		ASSERT_EQ(0, uio_sysfs_write(UPG_DRIVER "/unbind", self->addr));
		ASSERT_EQ(0, intx_disable_set(self->addr, before_bind[i]));
		ASSERT_EQ(0, uio_sysfs_write(UPG_DRIVER "/bind", self->addr));
		minor = wait_for_minor(self->addr);
		ASSERT_GE(minor, 0);

		/* User space masks INTx and leaves it so. */
		fd = uio_open_minor(minor, O_RDWR);
		ASSERT_GE(fd, 0);
		ASSERT_EQ(0, irq_enable(fd));
		ASSERT_EQ(sizeof(off), write(fd, &off, sizeof(off)));
		close(fd);
		ASSERT_TRUE(pci_command(self->addr) & PCI_COMMAND_INTX_OFF);

		ASSERT_EQ(0, uio_sysfs_write(UPG_DRIVER "/unbind", self->addr));
		EXPECT_EQ(before_bind[i],
			  !!(pci_command(self->addr) & PCI_COMMAND_INTX_OFF)) {
			TH_LOG("Interrupt Disable was %d before bind",
			       before_bind[i]);
		}
		ASSERT_EQ(0, uio_sysfs_write(UPG_DRIVER "/bind", self->addr));
		ASSERT_GE(wait_for_minor(self->addr), 0);
	}
	ASSERT_EQ(0, intx_disable_set(self->addr, false));
}

/*
 * The core counts in the hard handler and asks for no irq thread, so
 * interrupts wake none: there is no "irq/N-..." thread at all. PREEMPT_RT
 * force-threads every ordinary handler; there the thread must exist and
 * run for each interrupt, which also proves the lookup finds such threads.
 */
TEST_F_TIMEOUT(edu, irq_wakes_no_irq_thread, 30)
{
	long long before = uio_event_count(self->minor), irq, sw0, sw1;
	char path[PATH_MAX];
	int i, threads;

	snprintf(path, sizeof(path), PCI_DEVICES "/%s/irq", self->addr);
	irq = uio_sysfs_num(path);
	ASSERT_GT(irq, 0);
	threads = uio_irq_threads(irq, &sw0);
	ASSERT_GE(threads, 0);
	for (i = 0; i < 10; i++) {
		self->regs[EDU_IRQ_RAISE / 4] = 0x1;
		ASSERT_EQ(before + i + 1, wait_event(self->fd, 2000));
		self->regs[EDU_IRQ_ACK / 4] = 0x1;
		ASSERT_EQ(0, irq_enable(self->fd));
	}
	EXPECT_EQ(threads, uio_irq_threads(irq, &sw1));
	if (uio_kernel_is_rt()) {
		EXPECT_GT(threads, 0);
		EXPECT_GE(sw1 - sw0, 10);
	} else {
		EXPECT_EQ(0, threads);
	}
}

TEST_F_TIMEOUT(edu, remove_and_rescan_while_open, 30)
{
	char path[PATH_MAX];
	int32_t count;
	int minor;

	snprintf(path, sizeof(path), PCI_DEVICES "/%s/remove", self->addr);
	ASSERT_EQ(0, uio_sysfs_write(path, "1"));
	EXPECT_EQ(-1, read(self->fd, &count, sizeof(count)));
	EXPECT_EQ(EIO, errno);
	EXPECT_TRUE(uio_touch_sigbus(self->regs, true));

	ASSERT_EQ(0, uio_sysfs_write("/sys/bus/pci/rescan", "1"));
	/* new_id still matches, so the driver binds the new device. */
	minor = wait_for_minor(self->addr);
	ASSERT_GE(minor, 0);
}

TEST_HARNESS_MAIN
