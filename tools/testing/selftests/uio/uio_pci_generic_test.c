// SPDX-License-Identifier: GPL-2.0
/*
 * uio_pci_generic driving QEMU's edu device (docs/specs/edu.txt in QEMU):
 * sysfs, register access through mmap, INTx masking by the handler and
 * unmasking by write() or by config space, unbind and removal while open.
 * And QEMU's VGA device for a large BAR: huge PFN entries, counted in
 * faults, and the zap, fork and ptrace with such entries.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/utsname.h>

#include "kselftest_harness.h"
#include "uio_pci_util.h"

FIXTURE(edu) {
	char addr[NAME_MAX + 1];	/* PCI address, e.g. 0000:00:04.0 */
	int minor;
	int fd;			/* O_RDWR on /dev/uioN */
	volatile uint32_t *regs;	/* BAR0, first page */
};

static int edu_find(char *addr, size_t len)
{
	return edu_find_other(addr, len, NULL);
}

/*
 * The PAT memory type registered for a range starting at phys (and ending
 * at end, unless that is 0), as the debugfs list names it
 * ("write-combining", ...); "" if none is, NULL if there is no list to
 * read.
 */
static const char *pat_memtype_range(unsigned long long phys,
				     unsigned long long end, char *buf,
				     size_t len)
{
	char line[256], start[64], *type;
	FILE *f;

	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	f = fopen("/sys/kernel/debug/x86/pat_memtype_list", "r");
	if (!f)
		return NULL;
	buf[0] = '\0';
	if (end)
		snprintf(start, sizeof(start), "[mem 0x%016llx-0x%016llx]",
			 phys, end);
	else
		snprintf(start, sizeof(start), "[mem 0x%016llx-", phys);
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, start))
			continue;
		type = strchr(line, ']');
		if (type && type[1] == ' ')
			snprintf(buf, len, "%s", type + 2);
		buf[strcspn(buf, "\n")] = '\0';
	}
	fclose(f);
	return buf;
}

static const char *pat_memtype(unsigned long long phys, char *buf,
			       size_t len)
{
	return pat_memtype_range(phys, 0, buf, len);
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
	char path[PATH_MAX];

	if (self->regs != MAP_FAILED)
		munmap((void *)self->regs, 4096);
	if (self->fd >= 0)
		close(self->fd);
	/* A failed test may leave the device unbound: give the next one it. */
	if (uio_pci_minor(self->addr) >= 0)
		return;
	uio_sysfs_write(UPG_DRIVER "/bind", self->addr);
	if (uio_pci_wait_minor(self->addr) >= 0)
		return;
	snprintf(path, sizeof(path), PCI_DEVICES "/%s/remove", self->addr);
	uio_sysfs_write(path, "1");
	uio_sysfs_write("/sys/bus/pci/rescan", "1");
	uio_pci_wait_minor(self->addr);
}

TEST_F(edu, sysfs_describes_bar0)
{
	char path[PATH_MAX], buf[64], line[128];
	unsigned long long start, end, flags;
	unsigned long long page = getpagesize();
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

	/* Linux 6.1's description: page, offset in it, named as the device. */
	uio_path(path, sizeof(path), self->minor, "maps/map0/addr");
	EXPECT_EQ((long long)(start & ~(page - 1)), uio_sysfs_num(path));
	uio_path(path, sizeof(path), self->minor, "maps/map0/offset");
	EXPECT_EQ((long long)(start & (page - 1)), uio_sysfs_num(path));
	uio_path(path, sizeof(path), self->minor, "maps/map0/size");
	EXPECT_EQ((long long)((start % page + end - start + page) / page * page),
		  uio_sysfs_num(path));
	uio_path(path, sizeof(path), self->minor, "maps/map0/name");
	ASSERT_EQ(0, uio_sysfs_read(path, buf, sizeof(buf)));
	EXPECT_STREQ(self->addr, buf);
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

/* /proc/self/mem reaches registers of a BAR mapping never touched. */
TEST_F(edu, proc_mem_reaches_untouched_bar)
{
	volatile uint32_t *p;
	uint32_t val = 0;
	int memfd;

	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	memfd = open("/proc/self/mem", O_RDWR);
	ASSERT_GE(memfd, 0);
	EXPECT_EQ(4, pread(memfd, &val, 4, (uintptr_t)p + EDU_ID))
		TH_LOG("pread: %s", strerror(errno));
	EXPECT_EQ(0xed, val & 0xff);
	val = 0x13572468;
	EXPECT_EQ(4, pwrite(memfd, &val, 4, (uintptr_t)p + EDU_LIVENESS))
		TH_LOG("pwrite: %s", strerror(errno));
	EXPECT_EQ(4, pread(memfd, &val, 4, (uintptr_t)p + EDU_LIVENESS));
	EXPECT_EQ(~0x13572468u, val);
	/* Touched: the same through the page tables. */
	EXPECT_EQ(~0x13572468u, p[EDU_LIVENESS / 4]);
	EXPECT_EQ(4, pread(memfd, &val, 4, (uintptr_t)p + EDU_LIVENESS));
	EXPECT_EQ(~0x13572468u, val);
	close(memfd);
	munmap((void *)p, 4096);
}

/*
 * A real-time program locks all its memory before it maps the device;
 * part of a BAR mapping may be unmapped, and the rest, touched only
 * afterwards, still shows its own page of the BAR.
 */
TEST_F(edu, mlockall_and_split_bar_mapping)
{
	volatile uint32_t *p, *q;
	uint32_t second;

	ASSERT_EQ(0, mlockall(MCL_CURRENT | MCL_FUTURE));
	p = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->fd, 0);
	EXPECT_EQ(0, munlockall());
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(0xed, p[EDU_ID / 4] & 0xff);
	EXPECT_EQ(0, mlock((void *)p, 2 * 4096));
	second = p[1024 + EDU_ID / 4];
	EXPECT_EQ(0, munlock((void *)p, 2 * 4096));
	munmap((void *)p, 2 * 4096);

	p = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(0, munmap((void *)p, 4096));
	q = p + 1024;
	EXPECT_EQ(second, q[EDU_ID / 4]);
	EXPECT_EQ(0, munmap((void *)q, 4096));
}

/*
 * x86 PAT, as on 6.1: a BAR mapping that huge entries cannot back is
 * mapped whole by mmap(), which reserves the memory type of the mapped
 * range (uncached-minus) until munmap(). A mapping cut in parts gives the
 * reservation back at the cut and its parts refault: no part of the range
 * stays reserved after the last munmap(), which 6.1's remap would leak.
 */
TEST_F(edu, pat_reserved_while_mapped)
{
	unsigned long long bar;
	char path[PATH_MAX], type[64];
	volatile uint32_t *p;
	FILE *f;

	snprintf(path, sizeof(path), PCI_DEVICES "/%s/resource", self->addr);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(1, fscanf(f, "%llx", &bar));
	fclose(f);
	if (!pat_memtype(bar, type, sizeof(type)))
		SKIP(return, "no PAT memtype list (PAT off, or no debugfs)");
	/* The fixture's mapping of the first page would be listed too. */
	munmap((void *)self->regs, 4096);
	self->regs = MAP_FAILED;
	pat_memtype(bar, type, sizeof(type));
	EXPECT_STREQ("", type);

	p = mmap(NULL, 2 * 4096, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(0xed, p[EDU_ID / 4] & 0xff);
	pat_memtype_range(bar, bar + 2 * 4096, type, sizeof(type));
	EXPECT_STREQ("uncached-minus", type);

	/* Cut: the head goes, the tail refaults without a reservation. */
	EXPECT_EQ(0, munmap((void *)p, 4096));
	pat_memtype(bar, type, sizeof(type));
	EXPECT_STREQ("", type);
	EXPECT_NE(0, p[1024]);
	pat_memtype(bar + 4096, type, sizeof(type));
	EXPECT_STREQ("", type);
	EXPECT_EQ(0, munmap((void *)(p + 1024), 4096));
	pat_memtype(bar, type, sizeof(type));
	EXPECT_STREQ("", type);
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
	EXPECT_EQ(before + 1, uio_pci_wait_event(self->fd, 2000));
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
	ASSERT_EQ(before + 1, uio_pci_wait_event(self->fd, 2000));
	self->regs[EDU_IRQ_ACK / 4] = 0x1;
	self->regs[EDU_IRQ_RAISE / 4] = 0x2;
	/* Masked: the second request waits for user space. */
	EXPECT_EQ(-1, uio_pci_wait_event(self->fd, 300));
	ASSERT_EQ(0, irq_enable(self->fd));
	EXPECT_EQ(before + 2, uio_pci_wait_event(self->fd, 2000));
	self->regs[EDU_IRQ_ACK / 4] = 0x2;
}

TEST_F_TIMEOUT(edu, irq_reenabled_through_config_space, 10)
{
	long long before = uio_event_count(self->minor);
	uint16_t cmd;

	self->regs[EDU_IRQ_RAISE / 4] = 0x1;
	ASSERT_EQ(before + 1, uio_pci_wait_event(self->fd, 2000));
	self->regs[EDU_IRQ_ACK / 4] = 0x1;
	self->regs[EDU_IRQ_RAISE / 4] = 0x4;
	EXPECT_EQ(-1, uio_pci_wait_event(self->fd, 300));
	/* What packet frameworks do instead of write(). */
	ASSERT_EQ(0, config_rw16(self->addr, PCI_COMMAND, &cmd, false));
	cmd &= ~PCI_COMMAND_INTX_OFF;
	ASSERT_EQ(0, config_rw16(self->addr, PCI_COMMAND, &cmd, true));
	EXPECT_EQ(before + 2, uio_pci_wait_event(self->fd, 2000));
	self->regs[EDU_IRQ_ACK / 4] = 0x4;
}

TEST_F_TIMEOUT(edu, irq_count_exact, 60)
{
	long long before = uio_event_count(self->minor);
	int i, got = 0;

	for (i = 0; i < 25; i++) {
		self->regs[EDU_IRQ_RAISE / 4] = 0x1;
		got += uio_pci_wait_event(self->fd, 2000) == before + i + 1;
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
	EXPECT_EQ(before + 1, uio_pci_wait_event(self->fd, 2000));
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
	EXPECT_EQ(before + 1, uio_pci_wait_event(self->fd, 2000));
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

/*
 * A second opener closing (a DPDK secondary process, a cat of /dev/uioN)
 * must not stop the DMA of the process that drives the device: only the
 * last close clears bus mastering.
 */
TEST_F_TIMEOUT(edu, last_release_clears_bus_master, 10)
{
	long long before = uio_event_count(self->minor);
	uint16_t cmd;
	int fd;

	fd = uio_open_minor(self->minor, O_RDWR);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, config_rw16(self->addr, PCI_COMMAND, &cmd, false));
	cmd |= PCI_COMMAND_MASTER;
	ASSERT_EQ(0, config_rw16(self->addr, PCI_COMMAND, &cmd, true));
	ASSERT_TRUE(pci_command(self->addr) & PCI_COMMAND_MASTER);
	close(fd);
	EXPECT_TRUE(pci_command(self->addr) & PCI_COMMAND_MASTER);
	self->regs[EDU_IRQ_RAISE / 4] = 0x1;
	EXPECT_EQ(before + 1, uio_pci_wait_event(self->fd, 2000));
	self->regs[EDU_IRQ_ACK / 4] = 0x1;
	ASSERT_EQ(0, irq_enable(self->fd));

	munmap((void *)self->regs, 4096);
	self->regs = MAP_FAILED;
	close(self->fd);
	self->fd = -1;
	EXPECT_FALSE(pci_command(self->addr) & PCI_COMMAND_MASTER);
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
	minor = uio_pci_wait_minor(self->addr);
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
		minor = uio_pci_wait_minor(self->addr);
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
		ASSERT_GE(uio_pci_wait_minor(self->addr), 0);
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
		ASSERT_EQ(before + i + 1, uio_pci_wait_event(self->fd, 2000));
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

/* Does a kernel log record written since kmsg was opened contain s? */
static bool kmsg_has(int kmsg, const char *s)
{
	char rec[2048];
	bool found = false;
	ssize_t n;

	for (;;) {
		n = read(kmsg, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records */
		if (n <= 0)
			break;
		rec[n] = '\0';
		found |= !!strstr(rec, s);
	}
	return found;
}

/*
 * When the line last had an interrupt that no handler claimed, in ms of
 * the kernel's clock as /proc/irq/N/spurious gives it; -1 if unreadable.
 */
static long long irq_last_unhandled(long long irq)
{
	char path[PATH_MAX], text[256], *at;

	snprintf(path, sizeof(path), "/proc/irq/%lld/spurious", irq);
	if (uio_sysfs_read(path, text, sizeof(text)))
		return -1;
	at = strstr(text, "last_unhandled ");
	return at ? strtoll(at + strlen("last_unhandled "), NULL, 10) : -1;
}

/* write(1) in a loop until the device is gone; the errno that ended it. */
static void *irq_enable_loop(void *arg)
{
	int fd = *(int *)arg;

	while (!irq_enable(fd))
		;
	return (void *)(long)errno;
}

/*
 * Bug: unregister freed the interrupt before it retired the description,
 * so a write() in between unmasked INTx with no handler left. With the
 * device asserting, the shared line then screams: "irq N: nobody cared",
 * and the kernel disables the line for the other edu and the CIF card
 * too. Unbind while three threads re-enable a pending interrupt; the
 * device is unmasked only through write() (the Interrupt Disable bit set
 * before bind comes back at unbind) and acked through sysfs between
 * rounds. Nor may the line see a single unclaimed interrupt: the driver
 * masks the device before its handler goes, so the asserting device
 * never holds the line up (on PREEMPT_RT such a storm of forced irq
 * threads starved the unbind until the kernel gave up on the line).
 */
TEST_F_TIMEOUT(edu, unbind_while_enabling_irq_keeps_shared_line, 180)
{
	char other[NAME_MAX + 1], path[PATH_MAX];
	long long irq, other_before, unhandled;
	volatile uint32_t *res, *other_regs;
	int i, t, round, fd, kmsg, other_fd;
	pthread_t threads[3];
	void *err;

	if (edu_find_other(other, sizeof(other), self->addr))
		SKIP(return, "needs a second edu device");
	snprintf(path, sizeof(path), PCI_DEVICES "/%s/irq", self->addr);
	irq = uio_sysfs_num(path);
	snprintf(path, sizeof(path), PCI_DEVICES "/%s/irq", other);
	if (irq != uio_sysfs_num(path))
		SKIP(return, "the two edu devices do not share a line");
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	ASSERT_GE(kmsg, 0);
	lseek(kmsg, 0, SEEK_END);
	snprintf(path, sizeof(path), PCI_DEVICES "/%s/resource0", self->addr);
	fd = open(path, O_RDWR);
	ASSERT_GE(fd, 0);
	res = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, res);
	close(fd);

	unhandled = irq_last_unhandled(irq);
	ASSERT_GE(unhandled, 0);
	ASSERT_EQ(0, uio_sysfs_write(UPG_DRIVER "/unbind", self->addr));
	for (round = 0; round < 10; round++) {
		res[EDU_IRQ_ACK / 4] = 0xffffffff;
		ASSERT_EQ(0, intx_disable_set(self->addr, true));
		/*
		 * EBUSY: "Resources present before probing", a devres the
		 * last unbind left behind (e.g. one added by irqcontrol()).
		 */
		ASSERT_EQ(0, uio_sysfs_write(UPG_DRIVER "/bind", self->addr))
			TH_LOG("round %d", round);
		fd = uio_open_minor(uio_pci_wait_minor(self->addr), O_RDWR);
		ASSERT_GE(fd, 0);
		res[EDU_IRQ_RAISE / 4] = 0x1;	/* never acked while bound */
		for (t = 0; t < 3; t++)
			ASSERT_EQ(0, pthread_create(&threads[t], NULL,
						    irq_enable_loop, &fd));
		usleep(20 * 1000);
		ASSERT_EQ(0, uio_sysfs_write(UPG_DRIVER "/unbind", self->addr));
		for (t = 0; t < 3; t++) {
			pthread_join(threads[t], &err);
			EXPECT_EQ(EIO, (long)err);
		}
		close(fd);
	}
	res[EDU_IRQ_ACK / 4] = 0xffffffff;
	ASSERT_EQ(0, intx_disable_set(self->addr, false));
	ASSERT_EQ(0, uio_sysfs_write(UPG_DRIVER "/bind", self->addr));
	ASSERT_GE(uio_pci_wait_minor(self->addr), 0);
	munmap((void *)res, 4096);

	EXPECT_FALSE(kmsg_has(kmsg, "nobody cared"));
	close(kmsg);
	EXPECT_EQ(unhandled, irq_last_unhandled(irq));
	/* The neighbour on the line still gets its interrupts. */
	other_fd = uio_open_minor(uio_pci_minor(other), O_RDWR);
	ASSERT_GE(other_fd, 0);
	other_regs = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
			  other_fd, 0);
	ASSERT_NE(MAP_FAILED, other_regs);
	ASSERT_EQ(0, irq_enable(other_fd));
	for (i = 0; i < 3; i++) {
		other_before = uio_event_count(uio_pci_minor(other));
		other_regs[EDU_IRQ_RAISE / 4] = 0x1;
		EXPECT_EQ(other_before + 1, uio_pci_wait_event(other_fd, 2000));
		other_regs[EDU_IRQ_ACK / 4] = 0x1;
		ASSERT_EQ(0, irq_enable(other_fd));
	}
	munmap((void *)other_regs, 4096);
	close(other_fd);
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
	minor = uio_pci_wait_minor(self->addr);
	ASSERT_GE(minor, 0);
}

/*
 * A large BAR: QEMU's standard VGA (1234:1111), whose BAR0 is its video
 * memory (host/check.sh sets 64 MiB). The device is bound to
 * uio_pci_generic for each test and unbound again after it.
 */
#define VGA_DEVICE		0x1111
#define BIGBAR_MIN		(8UL << 20)
#define SZ_4K			4096UL
#define SZ_2M			(2UL << 20)

FIXTURE(bigbar) {
	char addr[NAME_MAX + 1];
	int minor;
	int fd;
	int map;		/* the map of BAR0 */
	size_t size;		/* its size */
	unsigned long long phys;	/* its bus address */
	bool huge;		/* does this kernel use PMD entries? */
};

/* The PCI address of the VGA device if its BAR0 has at least BIGBAR_MIN. */
static int vga_find(char *addr, size_t len)
{
	unsigned long long start, end;
	char path[PATH_MAX];
	int ret;
	FILE *f;

	ret = pci_find(0x1234, VGA_DEVICE, addr, len, NULL);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), PCI_DEVICES "/%s/resource", addr);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (fscanf(f, "%llx %llx", &start, &end) != 2 || end <= start ||
	    end - start + 1 < BIGBAR_MIN)
		ret = -ENOENT;
	fclose(f);
	return ret;
}

/*
 * The core inserts PMD entries where the kernel has
 * CONFIG_ARCH_SUPPORTS_PMD_PFNMAP: from 6.12 on, and only with THP, which
 * PREEMPT_RT kernels lack. THP's sysfs directory shows it is built in.
 */
static bool kernel_maps_huge_pfns(void)
{
	struct utsname u;
	int major, minor;

	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return false;
	if (major < 6 || (major == 6 && minor < 12))
		return false;
	return !access("/sys/kernel/mm/transparent_hugepage", F_OK);
}

static long minor_faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

/* Read one word of every page of [p, p + len); the minor faults it took. */
static long touch_pages(volatile uint32_t *p, size_t len)
{
	long before = minor_faults();
	uint32_t sum = 0;
	size_t off;

	for (off = 0; off < len; off += SZ_4K)
		sum += p[off / 4];
	(void)sum;
	return minor_faults() - before;
}

static int pci_bind(const char *addr)
{
	if (uio_pci_minor(addr) >= 0)
		return 0;
	/* EEXIST once the ID is known; then bind by hand. */
	uio_sysfs_write(UPG_DRIVER "/new_id", "1234 1111");
	if (uio_pci_minor(addr) < 0)
		uio_sysfs_write(UPG_DRIVER "/bind", addr);
	return uio_pci_wait_minor(addr) >= 0 ? 0 : -ENODEV;
}

FIXTURE_SETUP(bigbar)
{
	char path[PATH_MAX], attr[32];
	long long v;

	self->fd = -1;
	self->addr[0] = '\0';
	if (vga_find(self->addr, sizeof(self->addr)))
		SKIP(return, "no VGA device with a BAR0 of 8 MiB or more");
	ASSERT_EQ(0, pci_bind(self->addr));
	self->minor = uio_pci_minor(self->addr);
	ASSERT_GE(self->minor, 0);
	/* Prefetchable: after the BARs mainline exposes, as "BAR0". */
	self->map = uio_map_by_name(self->minor, "BAR0");
	ASSERT_GE(self->map, 0);
	snprintf(attr, sizeof(attr), "maps/map%d/size", self->map);
	uio_path(path, sizeof(path), self->minor, attr);
	v = uio_sysfs_num(path);
	ASSERT_GE(v, (long long)BIGBAR_MIN);
	self->size = v;
	snprintf(attr, sizeof(attr), "maps/map%d/addr", self->map);
	uio_path(path, sizeof(path), self->minor, attr);
	v = uio_sysfs_num(path);
	ASSERT_GT(v, 0);
	self->phys = v;
	self->huge = kernel_maps_huge_pfns();
	self->fd = uio_open_minor(self->minor, O_RDWR);
	ASSERT_GE(self->fd, 0);
}

FIXTURE_TEARDOWN(bigbar)
{
	if (self->fd >= 0)
		close(self->fd);
	/* Leave the device as the other tests expect it: without driver. */
	if (self->addr[0] && uio_pci_minor(self->addr) >= 0)
		uio_sysfs_write(UPG_DRIVER "/unbind", self->addr);
}

/* Open the UIO device of the bound VGA device; -1 if it has none. */
static int bigbar_open(const char *addr)
{
	int minor = uio_pci_minor(addr);

	return minor < 0 ? -1 : uio_open_minor(minor, O_RDWR);
}

static volatile uint32_t *bigbar_map(struct _test_data_bigbar *self,
				     void *hint, size_t len)
{
	void *p = mmap(hint, len, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd,
		       (off_t)self->map * getpagesize());

	return p == MAP_FAILED ? NULL : p;
}

/* The naturally aligned 2 MiB blocks that [p, p + len) touches. */
static size_t blocks_spanned(volatile uint32_t *p, size_t len)
{
	uintptr_t start = (uintptr_t)p & ~(SZ_2M - 1);

	return ((uintptr_t)p + len - start + SZ_2M - 1) / SZ_2M;
}

/* Is the mapping placed so that PMD entries can back it? */
static bool pmd_congruent(volatile uint32_t *p, unsigned long long phys)
{
	return ((uintptr_t)p & (SZ_2M - 1)) == (phys & (SZ_2M - 1));
}

TEST_F_TIMEOUT(bigbar, whole_bar_in_huge_entries, 60)
{
	size_t pages = self->size / SZ_4K, blocks = self->size / SZ_2M + 1;
	volatile uint32_t *p;
	size_t off;
	long faults;

	p = bigbar_map(self, NULL, self->size);
	ASSERT_NE(NULL, p);
	faults = touch_pages(p, self->size);
	ksft_print_msg("%zu MiB BAR: %ld faults for %zu pages (%s)\n",
		       self->size >> 20, faults, pages,
		       self->huge ? "PMD entries" : "4 KiB entries");
	/* PMD entries, or blocks of 4 KiB entries filled one fault each. */
	if (self->huge)
		EXPECT_TRUE(pmd_congruent(p, self->phys));
	EXPECT_LE(faults, (long)blocks + 4);
	/* Every page reaches its own part of the BAR. */
	for (off = 0; off < self->size; off += SZ_4K)
		p[off / 4] = off ^ 0x5a5a5a5a;
	for (off = 0; off < self->size; off += SZ_4K)
		if (p[off / 4] != (off ^ 0x5a5a5a5a))
			break;
	EXPECT_EQ(self->size, off);
	munmap((void *)p, self->size);
}

TEST_F_TIMEOUT(bigbar, misaligned_and_partial_fall_back, 60)
{
	size_t len = 2 * SZ_2M, odd = SZ_2M + 257 * SZ_4K, off;
	volatile uint32_t *whole, *p;
	long faults;
	char *hint;

	whole = bigbar_map(self, NULL, self->size);
	ASSERT_NE(NULL, whole);
	for (off = 0; off < len; off += SZ_4K)
		whole[off / 4] = off ^ 0xa5a5a5a5;

	/* Find a free, aligned place, then map one page past it. */
	p = bigbar_map(self, NULL, len + SZ_2M);
	ASSERT_NE(NULL, p);
	munmap((void *)p, len + SZ_2M);
	hint = (char *)p + SZ_4K;
	if (pmd_congruent((void *)hint, self->phys))
		hint += SZ_4K;
	p = bigbar_map(self, hint, len);
	ASSERT_NE(NULL, p);
	ASSERT_FALSE(pmd_congruent(p, self->phys));
	faults = touch_pages(p, len);
	ksft_print_msg("misaligned 4 MiB: %ld faults\n", faults);
	/* No PMD entry can back it: mmap() mapped all of it. */
	EXPECT_EQ(0, faults);
	for (off = 0; off < len; off += SZ_4K)
		if (p[off / 4] != (off ^ 0xa5a5a5a5))
			break;
	EXPECT_EQ(len, off);
	munmap((void *)p, len);

	/* One PMD entry, then 257 pages that fill no block. */
	p = bigbar_map(self, NULL, odd);
	ASSERT_NE(NULL, p);
	faults = touch_pages(p, odd);
	ksft_print_msg("2 MiB + 257 pages: %ld faults\n", faults);
	EXPECT_LE(faults, (long)blocks_spanned(p, odd) + 2);
	for (off = 0; off < odd; off += SZ_4K)
		if (p[off / 4] != (off ^ 0xa5a5a5a5))
			break;
	EXPECT_EQ(odd, off);
	munmap((void *)p, odd);
	munmap((void *)whole, self->size);
}

TEST_F_TIMEOUT(bigbar, proc_mem_and_ptrace_reach_huge_entries, 60)
{
	size_t off = 3 * SZ_2M + 12 * SZ_4K + 8;
	volatile uint32_t *p;
	uint32_t val = 0;
	int memfd, status;
	long word;
	pid_t pid;

	p = bigbar_map(self, NULL, self->size);
	ASSERT_NE(NULL, p);
	touch_pages(p, self->size);
	p[off / 4] = 0xc0ffee01;

	memfd = open("/proc/self/mem", O_RDWR);
	ASSERT_GE(memfd, 0);
	EXPECT_EQ(4, pread(memfd, &val, 4, (uintptr_t)p + off));
	EXPECT_EQ(0xc0ffee01, val);
	val = 0xc0ffee02;
	EXPECT_EQ(4, pwrite(memfd, &val, 4, (uintptr_t)p + off));
	EXPECT_EQ(0xc0ffee02, p[off / 4]);
	close(memfd);

	/* A traced child with the mapping populated, as a debugger sees it. */
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		touch_pages(p, self->size);
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		raise(SIGSTOP);
		_exit(p[off / 4] == 0xc0ffee03 ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSTOPPED(status));
	errno = 0;
	word = ptrace(PTRACE_PEEKDATA, pid, (void *)((uintptr_t)p + off), NULL);
	EXPECT_EQ(0, errno);
	EXPECT_EQ(0xc0ffee02, (uint32_t)word);
	word = (word & ~0xffffffffL) | 0xc0ffee03;
	EXPECT_EQ(0, ptrace(PTRACE_POKEDATA, pid,
			    (void *)((uintptr_t)p + off), (void *)word));
	EXPECT_EQ(0, ptrace(PTRACE_CONT, pid, NULL, NULL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_EQ(0xc0ffee03, p[off / 4]);
	munmap((void *)p, self->size);
}

TEST_F_TIMEOUT(bigbar, fork_shares_huge_mapping, 60)
{
	volatile uint32_t *p;
	int status, fds[2];
	size_t off;
	long faults;
	pid_t pid;

	p = bigbar_map(self, NULL, self->size);
	ASSERT_NE(NULL, p);
	for (off = 0; off < self->size; off += SZ_2M)
		p[off / 4] = off | 1;
	ASSERT_EQ(0, pipe(fds));

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		bool ok = true;

		faults = touch_pages(p, self->size);
		for (off = 0; off < self->size; off += SZ_2M) {
			ok &= p[off / 4] == (off | 1);
			p[off / 4 + 1] = off | 2;
		}
		if (write(fds[1], &faults, sizeof(faults)) != sizeof(faults))
			ok = false;
		_exit(ok ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_EQ(sizeof(faults), read(fds[0], &faults, sizeof(faults)));
	ksft_print_msg("child after fork: %ld faults for %zu MiB\n",
		       faults, self->size >> 20);
	if (self->huge)
		EXPECT_LE(faults, (long)(self->size / SZ_2M) + 4);
	for (off = 0; off < self->size; off += SZ_2M)
		if (p[off / 4 + 1] != (off | 2))
			break;
	EXPECT_EQ(self->size, off);
	close(fds[0]);
	close(fds[1]);
	munmap((void *)p, self->size);
}

TEST_F_TIMEOUT(bigbar, unbind_zaps_huge_entries, 60)
{
	size_t offs[] = { 0, SZ_2M + SZ_4K, self->size - 4 };
	volatile uint32_t *p;
	uint32_t val;
	int memfd;
	size_t i;

	p = bigbar_map(self, NULL, self->size);
	ASSERT_NE(NULL, p);
	touch_pages(p, self->size);
	ASSERT_EQ(0, uio_sysfs_write(UPG_DRIVER "/unbind", self->addr));
	for (i = 0; i < ARRAY_SIZE(offs); i++)
		EXPECT_TRUE(uio_touch_sigbus(p + offs[i] / 4, i & 1));
	memfd = open("/proc/self/mem", O_RDONLY);
	ASSERT_GE(memfd, 0);
	EXPECT_EQ(-1, pread(memfd, &val, 4, (uintptr_t)p + SZ_2M));
	close(memfd);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, SZ_4K, PROT_READ, MAP_SHARED,
				   self->fd, 0));
	EXPECT_EQ(EIO, errno);
	munmap((void *)p, self->size);
}

/*
 * A mapping of len at an address not congruent to the BAR modulo 2 MiB,
 * so that no PMD entry can back it and every fault takes the 4 KiB path.
 */
static volatile uint32_t *bigbar_map_misaligned(struct _test_data_bigbar *self,
						size_t len)
{
	volatile uint32_t *p;
	char *hint;

	p = bigbar_map(self, NULL, len + SZ_2M);
	if (!p)
		return NULL;
	munmap((void *)p, len + SZ_2M);
	hint = (char *)p + SZ_4K;
	if (pmd_congruent((void *)hint, self->phys))
		hint += SZ_4K;
	p = bigbar_map(self, hint, len);
	if (p && pmd_congruent(p, self->phys)) {
		munmap((void *)p, len);
		return NULL;
	}
	return p;
}

static __thread sigjmp_buf sigbus_jmp;

static void sigbus_handler(int sig)
{
	siglongjmp(sigbus_jmp, 1);
}

/* Catch SIGBUS in live_pages(), or stop catching it. */
static void sigbus_catch(bool on)
{
	struct sigaction sa = {
		.sa_handler = on ? sigbus_handler : SIG_DFL,
		.sa_flags = SA_NODEFER,	/* no mask to restore on the jump */
	};

	sigaction(SIGBUS, &sa, NULL);
}

/*
 * Read a word every stride bytes of [p, p + len) in this thread, with
 * SIGBUS caught; the number of reads that did not raise it.
 */
static size_t live_every(volatile uint32_t *p, size_t len, size_t stride)
{
	volatile size_t live = 0, off = 0;

	for (; off < len; off += stride) {
		if (sigsetjmp(sigbus_jmp, 0))
			continue;
		(void)p[off / 4];
		live++;
	}
	return live;
}

/* The pages of [p, p + len) that can be read without SIGBUS. */
static size_t live_pages(volatile uint32_t *p, size_t len)
{
	return live_every(p, len, SZ_4K);
}

/*
 * Where no huge entry fits, mmap() maps the whole mapping: the first touch
 * of a small window takes no fault at all, on every kernel. Unbind zaps
 * all of it, though the zap never saw a fault.
 */
TEST_F_TIMEOUT(bigbar, small_windows_mapped_by_mmap, 60)
{
	size_t lens[] = { SZ_4K, 64 * SZ_4K, SZ_2M / 2, SZ_2M - SZ_4K };
	volatile uint32_t *whole, *p[ARRAY_SIZE(lens)];
	size_t i, off;
	uint32_t val;
	long faults;
	int memfd;

	whole = bigbar_map(self, NULL, self->size);
	ASSERT_NE(NULL, whole);
	for (off = 0; off < SZ_2M; off += SZ_4K)
		whole[off / 4] = off ^ 0x3c3c3c3c;
	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		p[i] = bigbar_map(self, NULL, lens[i]);
		ASSERT_NE(NULL, p[i]);
		faults = touch_pages(p[i], lens[i]);
		ksft_print_msg("%zu KiB window: %ld faults on first touch\n",
			       lens[i] >> 10, faults);
		EXPECT_EQ(0, faults);
		for (off = 0; off < lens[i]; off += SZ_4K)
			if (p[i][off / 4] != (off ^ 0x3c3c3c3c))
				break;
		EXPECT_EQ(lens[i], off);
	}
	munmap((void *)whole, self->size);

	ASSERT_EQ(0, uio_sysfs_write(UPG_DRIVER "/unbind", self->addr));
	sigbus_catch(true);
	for (i = 0; i < ARRAY_SIZE(lens); i++)
		EXPECT_EQ(0, live_pages(p[i], lens[i]));
	sigbus_catch(false);
	EXPECT_TRUE(uio_touch_sigbus(p[2] + SZ_4K / 4, true));
	memfd = open("/proc/self/mem", O_RDONLY);
	ASSERT_GE(memfd, 0);
	EXPECT_EQ(-1, pread(memfd, &val, 4, (uintptr_t)p[3] + SZ_4K));
	close(memfd);
	for (i = 0; i < ARRAY_SIZE(lens); i++)
		munmap((void *)p[i], lens[i]);
}

/*
 * A mapping mmap() mapped whole drops its page tables when it is cut, and
 * the parts refault: one fault maps its whole 2 MiB block, including pages
 * no one touched; unbind zaps all of them, not only the pages that faulted.
 */
TEST_F_TIMEOUT(bigbar, unbind_zaps_pages_mapped_in_one_go, 60)
{
	size_t len = 3 * SZ_2M, first, off;
	volatile uint32_t *p;
	uint32_t val;
	long faults;
	int memfd;

	p = bigbar_map_misaligned(self, len + SZ_4K);
	ASSERT_NE(NULL, p);
	/* The cut: the rest is mapped again by faults. */
	ASSERT_EQ(0, munmap((void *)p, SZ_4K));
	p += SZ_4K / 4;
	/* The first page of the mapping's second block. */
	first = SZ_2M - ((uintptr_t)p & (SZ_2M - 1));
	faults = touch_pages(p + first / 4, SZ_4K);
	EXPECT_EQ(1, faults);
	faults = touch_pages(p + first / 4, SZ_2M);
	ksft_print_msg("2 MiB block after one fault: %ld more faults\n",
		       faults);
	EXPECT_EQ(0, faults);

	ASSERT_EQ(0, uio_sysfs_write(UPG_DRIVER "/unbind", self->addr));
	sigbus_catch(true);
	EXPECT_EQ(0, live_pages(p, len));
	sigbus_catch(false);
	for (off = 0; off < len; off += 257 * SZ_4K)
		EXPECT_TRUE(uio_touch_sigbus(p + off / 4, off & SZ_4K));
	memfd = open("/proc/self/mem", O_RDONLY);
	ASSERT_GE(memfd, 0);
	EXPECT_EQ(-1, pread(memfd, &val, 4, (uintptr_t)p + first + SZ_4K));
	close(memfd);
	munmap((void *)p, len);
}

/* The 1 GiB-aligned ranges, one PMD table each, that [p, p + len) spans. */
static size_t tables_spanned(volatile uint32_t *p, size_t len)
{
	return (((uintptr_t)p + len - 1) >> 30) - ((uintptr_t)p >> 30) + 1;
}

/*
 * With PMD entries, the first fault maps every whole block that its PMD
 * table holds: the other blocks of the BAR load without a fault of their
 * own. Unbind zaps those entries too, though no fault ever reached them.
 */
TEST_F_TIMEOUT(bigbar, one_fault_maps_the_table_and_unbind_zaps_it, 60)
{
	size_t blocks = self->size / SZ_2M, off;
	volatile uint32_t *p;
	long first, rest;
	uint32_t val;
	int memfd;

	if (!self->huge)
		SKIP(return, "this kernel maps no huge PFN entries");
	p = bigbar_map(self, NULL, self->size);
	ASSERT_NE(NULL, p);
	ASSERT_TRUE(pmd_congruent(p, self->phys));
	first = touch_pages(p, SZ_4K);
	rest = minor_faults();
	for (off = 0; off < self->size; off += SZ_2M)
		(void)p[off / 4 + 1];
	rest = minor_faults() - rest;
	ksft_print_msg("%zu blocks: %ld fault(s), then %ld for the others\n",
		       blocks, first, rest);
	EXPECT_EQ(1, first);
	EXPECT_LE(rest, (long)tables_spanned(p, self->size) - 1);

	ASSERT_EQ(0, uio_sysfs_write(UPG_DRIVER "/unbind", self->addr));
	sigbus_catch(true);
	EXPECT_EQ(0, live_every(p, self->size, SZ_2M));
	sigbus_catch(false);
	memfd = open("/proc/self/mem", O_RDONLY);
	ASSERT_GE(memfd, 0);
	EXPECT_EQ(-1, pread(memfd, &val, 4, (uintptr_t)p + self->size / 2));
	close(memfd);
	munmap((void *)p, self->size);
}

#define RACE_THREADS	3
#define RACE_MAPS	8
#define RACE_LEN	(2 * SZ_2M)
#define RACE_STRIDE	(SZ_2M / 4)	/* faults, not loads, take the time */

struct race_thread {
	pthread_t thread;
	struct _test_data_bigbar *self;
	volatile uint32_t *maps[RACE_MAPS];	/* the last ones, a ring */
	unsigned long nmaps;
	int mmap_errno;
	size_t touched;
};

/*
 * Map and touch until mmap() fails or a touch gets SIGBUS, keeping the
 * last RACE_MAPS mappings. A few loads per block are enough to fault in
 * every block, so most of the time goes into faults.
 */
static void *race_thread_fn(void *arg)
{
	struct race_thread *t = arg;
	volatile uint32_t **slot;
	size_t live;

	for (;;) {
		slot = &t->maps[t->nmaps % RACE_MAPS];
		if (t->nmaps >= RACE_MAPS)
			munmap((void *)*slot, RACE_LEN);
		*slot = mmap(NULL, RACE_LEN, PROT_READ | PROT_WRITE,
			     MAP_SHARED, t->self->fd,
			     (off_t)t->self->map * getpagesize());
		if (*slot == MAP_FAILED) {
			t->mmap_errno = errno;
			*slot = NULL;
			break;
		}
		t->nmaps++;
		live = live_every(*slot, RACE_LEN, RACE_STRIDE);
		t->touched += live;
		if (live < RACE_LEN / RACE_STRIDE)
			break;
	}
	return NULL;
}

/*
 * Threads map and touch (one fault per block) while the device unbinds:
 * each mapping was either zapped or never populated, so once unbind
 * returns, no page of any of them is reachable any more.
 */
TEST_F_TIMEOUT(bigbar, unbind_races_block_faults, 120)
{
	struct race_thread t[RACE_THREADS] = { 0 };
	size_t live = 0, touched = 0;
	unsigned long j, n;
	int i;

	sigbus_catch(true);
	for (i = 0; i < RACE_THREADS; i++) {
		t[i].self = self;
		ASSERT_EQ(0, pthread_create(&t[i].thread, NULL,
					    race_thread_fn, &t[i]));
	}
	usleep(200000);
	ASSERT_EQ(0, uio_sysfs_write(UPG_DRIVER "/unbind", self->addr));
	for (i = 0; i < RACE_THREADS; i++) {
		pthread_join(t[i].thread, NULL);
		touched += t[i].touched;
		n = t[i].nmaps < RACE_MAPS ? t[i].nmaps : RACE_MAPS;
		for (j = 0; j < n; j++)
			if (t[i].maps[j])
				live += live_pages(t[i].maps[j], RACE_LEN);
		if (t[i].mmap_errno)
			EXPECT_EQ(EIO, t[i].mmap_errno);
		for (j = 0; j < n; j++)
			if (t[i].maps[j])
				munmap((void *)t[i].maps[j], RACE_LEN);
	}
	sigbus_catch(false);
	ksft_print_msg("loads before the unbind: %zu, pages live after: %zu\n",
		       touched, live);
	EXPECT_LT(0, touched);
	EXPECT_EQ(0, live);
}

#define POP_THREADS	3
#define POP_MAPS	16
#define POP_LEN		(16 * SZ_4K)
#define POP_CYCLES	6

struct pop_thread {
	pthread_t thread;
	int fd;
	int map;
	volatile uint32_t *maps[POP_MAPS];	/* the last ones, a ring */
	unsigned long nmaps;
	int mmap_errno;
};

/*
 * mmap() small windows, which mmap() maps whole, until it fails; touch
 * nothing, so that the time goes into mmap() and the page tables of every
 * mapping are filled before its VMA can be seen by the zap.
 */
static void *pop_thread_fn(void *arg)
{
	struct pop_thread *t = arg;
	volatile uint32_t **slot;

	for (;;) {
		slot = &t->maps[t->nmaps % POP_MAPS];
		if (t->nmaps >= POP_MAPS)
			munmap((void *)*slot, POP_LEN);
		*slot = mmap(NULL, POP_LEN, PROT_READ | PROT_WRITE,
			     MAP_SHARED, t->fd, (off_t)t->map * getpagesize());
		if (*slot == MAP_FAILED) {
			t->mmap_errno = errno;
			*slot = NULL;
			return NULL;
		}
		t->nmaps++;
	}
}

/* Run the calling thread under SCHED_FIFO, or back under SCHED_OTHER. */
static int set_fifo(bool on)
{
	struct sched_param sp = { .sched_priority = on ? 1 : 0 };

	return pthread_setschedparam(pthread_self(),
				     on ? SCHED_FIFO : SCHED_OTHER, &sp);
}

/*
 * Threads mmap() windows that mmap() maps whole while the device unbinds,
 * over several bind/unbind cycles with different timing. mmap() maps the
 * pages before the VMA is linked where the zap finds it; unregister must
 * wait for such an mmap() to link it. Once unbind returns, no page of any
 * mapping that mmap() returned may be reachable.
 *
 * To hit the window between ->mmap and the link rather than hope for it,
 * everything runs on one CPU and the unbind under SCHED_FIFO: unregister
 * waits for the description that an mmap() holds while it fills the page
 * tables, and gets the CPU back at the first preemption point after that
 * mmap() has let go of it, before the link (vma_link() takes a sleeping
 * lock). Without the wait for that mmap(), its mapping survives.
 */
TEST_F_TIMEOUT(bigbar, unbind_races_populating_mmaps, 180)
{
	struct pop_thread t[POP_THREADS];
	unsigned long maps = 0, j, n;
	int cycle, i, fd;
	size_t live = 0;
	cpu_set_t cpu;

	CPU_ZERO(&cpu);
	CPU_SET(0, &cpu);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(cpu), &cpu));
	sigbus_catch(true);
	for (cycle = 0; cycle < POP_CYCLES; cycle++) {
		ASSERT_EQ(0, pci_bind(self->addr));
		fd = bigbar_open(self->addr);
		ASSERT_GE(fd, 0);
		memset(t, 0, sizeof(t));
		for (i = 0; i < POP_THREADS; i++) {
			t[i].fd = fd;
			t[i].map = self->map;
			ASSERT_EQ(0, pthread_create(&t[i].thread, NULL,
						    pop_thread_fn, &t[i]));
		}
		usleep(20000 + 15000 * cycle);
		ASSERT_EQ(0, set_fifo(true));
		ASSERT_EQ(0, uio_sysfs_write(UPG_DRIVER "/unbind",
					     self->addr));
		ASSERT_EQ(0, set_fifo(false));
		for (i = 0; i < POP_THREADS; i++) {
			pthread_join(t[i].thread, NULL);
			maps += t[i].nmaps;
			EXPECT_EQ(EIO, t[i].mmap_errno);
			n = t[i].nmaps < POP_MAPS ? t[i].nmaps : POP_MAPS;
			for (j = 0; j < n; j++) {
				if (!t[i].maps[j])
					continue;
				live += live_pages(t[i].maps[j], POP_LEN);
				munmap((void *)t[i].maps[j], POP_LEN);
			}
		}
		close(fd);
	}
	sigbus_catch(false);
	ksft_print_msg("%d cycles: %lu mmaps before the unbinds, pages live after: %zu\n",
		       cycle, maps, live);
	EXPECT_LT(0, maps);
	EXPECT_EQ(0, live);
}

#define EXIT_CHILDREN	4
#define EXIT_CYCLES	10

/*
 * One child of unbind_races_munmap_and_exit on the given CPU: mmap() and
 * munmap() windows that mmap() maps whole, keeping the last POP_MAPS,
 * until mmap() fails; then exit with them mapped. Exit status 0 if that
 * failure was EIO.
 */
static void exit_child(int fd, int map, int cpu)
{
	void *ring[POP_MAPS] = { NULL };
	cpu_set_t set;
	unsigned long i;
	void **slot;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	for (i = 0;; i++) {
		slot = &ring[i % POP_MAPS];
		if (*slot)
			munmap(*slot, POP_LEN);
		*slot = mmap(NULL, POP_LEN, PROT_READ | PROT_WRITE, MAP_SHARED,
			     fd, (off_t)map * getpagesize());
		if (*slot == MAP_FAILED)
			_exit(errno == EIO ? 0 : 1);
	}
}

/*
 * x86 PAT reserves the memory type of a whole mapping that mmap() maps
 * whole, and the first zap of the whole mapping releases the reservation.
 * Unbind zaps every mapping while munmap() and exit release their own:
 * processes on both CPUs map, unmap and exit while the device unbinds,
 * over several cycles. The reservation must be released exactly once:
 * no complaint about it in the kernel log, and no type left registered
 * for the BAR once it is unbound.
 */
TEST_F_TIMEOUT(bigbar, unbind_races_munmap_and_exit, 180)
{
	pid_t pid[EXIT_CHILDREN];
	int cycle, i, fd, status, kmsg;
	char type[64];

	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	ASSERT_GE(kmsg, 0);
	lseek(kmsg, 0, SEEK_END);
	for (cycle = 0; cycle < EXIT_CYCLES; cycle++) {
		ASSERT_EQ(0, pci_bind(self->addr));
		fd = bigbar_open(self->addr);
		ASSERT_GE(fd, 0);
		for (i = 0; i < EXIT_CHILDREN; i++) {
			pid[i] = fork();
			ASSERT_GE(pid[i], 0);
			if (!pid[i])
				exit_child(fd, self->map, i % 2);
		}
		close(fd);
		usleep(10000 + 5000 * cycle);
		ASSERT_EQ(0, uio_sysfs_write(UPG_DRIVER "/unbind",
					     self->addr));
		for (i = 0; i < EXIT_CHILDREN; i++) {
			ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
			EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
		}
		if (pat_memtype(self->phys, type, sizeof(type)))
			EXPECT_STREQ("", type);
	}
	/* "x86/PAT: ... freeing invalid memtype", a WARN in pat/memtype.c */
	EXPECT_FALSE(kmsg_has(kmsg, "memtype"));
	close(kmsg);
}

/*
 * The prefetchable BAR0 is write-combining while the device is bound: its
 * whole range is registered so with x86 PAT, which decides the caching of
 * every PFN entry. A window mmap() maps whole reserves its own range with
 * the same type. The register BAR2 (map 0) is mapped uncached-minus, the
 * type of unregistered device memory, reserved while mapped. Unbind frees
 * the registration.
 */
TEST_F(bigbar, prefetchable_bar_write_combining)
{
	char type[64];
	volatile uint32_t *p, *regs, *win;
	long long bar2;
	char path[PATH_MAX];

	if (!pat_memtype(self->phys, type, sizeof(type)))
		SKIP(return, "no PAT memtype list (PAT off, or no debugfs)");
	uio_path(path, sizeof(path), self->minor, "maps/map0/addr");
	bar2 = uio_sysfs_num(path);
	ASSERT_GT(bar2, 0);

	p = bigbar_map(self, NULL, SZ_2M);
	ASSERT_NE(NULL, p);
	regs = mmap(NULL, SZ_4K, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd,
		    0);
	ASSERT_NE(MAP_FAILED, regs);
	win = bigbar_map(self, NULL, 16 * SZ_4K);
	ASSERT_NE(NULL, win);
	p[0] = 0x12345678;
	EXPECT_EQ(0x12345678, p[0]);
	EXPECT_EQ(0x12345678, win[0]);
	(void)regs[0];

	pat_memtype(self->phys, type, sizeof(type));
	TH_LOG("BAR0 0x%llx: '%s'", self->phys, type);
	EXPECT_STREQ("write-combining", type);
	pat_memtype_range(self->phys, self->phys + 16 * SZ_4K, type,
			  sizeof(type));
	EXPECT_STREQ("write-combining", type);
	pat_memtype(bar2, type, sizeof(type));
	TH_LOG("BAR2 0x%llx: '%s'", bar2, type);
	EXPECT_STREQ("uncached-minus", type);

	munmap((void *)regs, SZ_4K);
	pat_memtype(bar2, type, sizeof(type));
	EXPECT_STREQ("", type);
	munmap((void *)win, 16 * SZ_4K);
	munmap((void *)p, SZ_2M);
	ASSERT_EQ(0, uio_sysfs_write(UPG_DRIVER "/unbind", self->addr));
	pat_memtype(self->phys, type, sizeof(type));
	EXPECT_STREQ("", type);
}

/*
 * Map numbers and names as on Linux 6.1, which exposes only 32-bit
 * non-prefetchable memory BARs, named after the device: the VGA's
 * register BAR2 is map 0 and its prefetchable BAR0 follows as map 1,
 * "BAR0". Each map's page-aligned addr plus offset is its BAR's start.
 */
TEST_F(bigbar, maps_numbered_as_mainline)
{
	unsigned long long start[3], end, flags;
	char path[PATH_MAX], buf[64];
	long long addr, offset, size;
	size_t page = getpagesize();
	int bar, map, bars[2] = { 2, 0 };
	FILE *f;

	snprintf(path, sizeof(path), PCI_DEVICES "/%s/resource", self->addr);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	for (bar = 0; bar < 3; bar++)
		ASSERT_EQ(3, fscanf(f, "%llx %llx %llx", &start[bar], &end,
				    &flags));
	fclose(f);

	for (map = 0; map < 2; map++) {
		bar = bars[map];
		snprintf(buf, sizeof(buf), "maps/map%d/name", map);
		uio_path(path, sizeof(path), self->minor, buf);
		ASSERT_EQ(0, uio_sysfs_read(path, buf, sizeof(buf)));
		EXPECT_STREQ(bar == 2 ? self->addr : "BAR0", buf);
		snprintf(buf, sizeof(buf), "maps/map%d/addr", map);
		uio_path(path, sizeof(path), self->minor, buf);
		addr = uio_sysfs_num(path);
		snprintf(buf, sizeof(buf), "maps/map%d/offset", map);
		uio_path(path, sizeof(path), self->minor, buf);
		offset = uio_sysfs_num(path);
		snprintf(buf, sizeof(buf), "maps/map%d/size", map);
		uio_path(path, sizeof(path), self->minor, buf);
		size = uio_sysfs_num(path);
		EXPECT_EQ(0, addr % page);
		EXPECT_EQ(start[bar], (unsigned long long)(addr + offset));
		EXPECT_EQ(0, size % page);
	}
	EXPECT_EQ(self->map, 1);
	uio_path(path, sizeof(path), self->minor, "maps/map2");
	EXPECT_EQ(-1, access(path, F_OK));
}

TEST_HARNESS_MAIN
