// SPDX-License-Identifier: GPL-2.0
/*
 * The DMA buffer pool of uio_pci_generic, driving the DMA engine of QEMU's
 * edu device (docs/specs/edu.txt in QEMU). Without an IOMMU: refused by
 * default, granted and the kernel tainted with the unsafe parameter, the
 * bus address the physical one. Behind QEMU's intel-iommu (host/check.sh
 * boots the guest so and sets UIO_EXPECT_IOMMU=1): granted, the bus
 * address an IOVA, a transfer outside every buffer blocked. Both: RAM to
 * device and back through two buffers, configuration rules, the cap,
 * RLIMIT_MEMLOCK, and unbind while mapped.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <poll.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/klog.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "uio_pci_util.h"

#define UIO_PARAMS		"/sys/module/uio/parameters"
#define UNSAFE_PARAM		UIO_PARAMS "/dma_unsafe_noiommu"
#define CAP_PARAM		UIO_PARAMS "/dma_max_pool_kib"

/* edu's DMA engine */
#define EDU_DMA_SRC		0x80
#define EDU_DMA_DST		0x88
#define EDU_DMA_COUNT		0x90
#define EDU_DMA_CMD		0x98
#define  EDU_DMA_START		0x1
#define  EDU_DMA_TO_RAM		0x2
#define  EDU_DMA_IRQ		0x4
#define EDU_IRQ_DMA		0x100
#define EDU_DMA_WINDOW		0x40000
#define EDU_DMA_MASK_BITS	28

/* An IOVA below edu's mask that the allocator, top-down, never reaches. */
#define UNMAPPED_IOVA		0x100000
#define DMAR_BEGIN		"uio_dma_test: DMAR fault expected from here"
#define DMAR_END		"uio_dma_test: no DMAR fault expected any more"

#define TAINT_USER		0x40	/* 'U' in /proc/sys/kernel/tainted */
#define NOBODY			65534
#define XFER_LEN		4000

FIXTURE(dma) {
	char addr[NAME_MAX + 1];	/* PCI address of the first edu */
	int minor;
	char dir[64];			/* /sys/class/uio/uioN/dma */
	int fd;				/* /dev/uioN, -1 while closed */
	bool translated;		/* an IOMMU translates the edu's DMA */
};

static int dma_write(const char *dir, const char *file, const char *val)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return uio_sysfs_write(path, val);
}

static int dma_read(const char *dir, const char *file, char *buf, size_t len)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return uio_sysfs_read(path, buf, len);
}

static long long dma_num(const char *dir, const char *file)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return uio_sysfs_num(path);
}

/*
 * count buffers of size bytes; without an IOMMU, granted through the
 * unsafe parameter.
 */
static int dma_configure(const char *dir, bool translated, const char *size,
			 const char *count)
{
	int ret = 0;

	if (!translated)
		ret = uio_sysfs_write(UNSAFE_PARAM, "1");
	if (!ret)
		ret = dma_write(dir, "size", size);
	if (!ret)
		ret = dma_write(dir, "count", count);
	return ret;
}

static void *dma_map(int fd, const char *dir, int buf, size_t *size)
{
	char file[32];
	long long off;

	snprintf(file, sizeof(file), "buf%d/size", buf);
	*size = dma_num(dir, file);
	snprintf(file, sizeof(file), "buf%d/offset", buf);
	off = dma_num(dir, file);
	if (off < 0 || (long long)*size <= 0)
		return MAP_FAILED;
	return mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
}

static long long dma_bus_addr(const char *dir, int buf)
{
	char file[32];

	snprintf(file, sizeof(file), "buf%d/dma_addr", buf);
	return dma_num(dir, file);
}

static long long kernel_tainted(void)
{
	return uio_sysfs_num("/proc/sys/kernel/tainted");
}

/* The physical address behind a mapped, touched page; -1 if unknown. */
static long long phys_addr_of(const void *p)
{
	long page = getpagesize();
	uint64_t entry;
	ssize_t n;
	int fd;

	fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0)
		return -1;
	n = pread(fd, &entry, sizeof(entry), (uintptr_t)p / page * 8);
	close(fd);
	if (n != sizeof(entry) || !(entry >> 63))
		return -1;
	return (long long)(entry & ((1ULL << 55) - 1)) * page;
}

static bool dma_translated(const char *dir)
{
	char buf[32];

	return !dma_read(dir, "iommu", buf, sizeof(buf)) &&
	       !strcmp(buf, "translated");
}

/* Was the guest booted behind an IOMMU (check.sh's IOMMU boot)? */
static bool iommu_expected(void)
{
	const char *e = getenv("UIO_EXPECT_IOMMU");

	return e && !strcmp(e, "1");
}

/*
 * Log a line in the kernel log; 0 or -errno. With its newline: a record
 * without one stays open for a continuation, and readers see it only
 * once the next record arrives.
 */
static int log_marker(const char *line)
{
	char buf[128];
	int fd, len;
	ssize_t n;

	len = snprintf(buf, sizeof(buf), "%s\n", line);
	fd = open("/dev/kmsg", O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	close(fd);
	return n == len ? 0 : -EIO;
}

/* Does the kernel log hold needle, within about two seconds? */
static bool klog_has(const char *needle)
{
	static char log[1 << 20];
	int i, n;

	for (i = 0; i < 20; i++) {
		n = klogctl(3, log, sizeof(log) - 1);	/* SYSLOG_ACTION_READ_ALL */
		if (n > 0) {
			log[n] = '\0';
			if (strstr(log, needle))
				return true;
		}
		usleep(100 * 1000);
	}
	return false;
}

static int bus_master_on(const char *addr)
{
	uint16_t cmd = pci_command(addr) | PCI_COMMAND_MASTER;

	return config_rw16(addr, PCI_COMMAND, &cmd, true);
}

FIXTURE_SETUP(dma)
{
	self->fd = -1;
	ASSERT_EQ(0, edu_find_other(self->addr, sizeof(self->addr), NULL));
	self->minor = uio_pci_minor(self->addr);
	ASSERT_GE(self->minor, 0);
	uio_path(self->dir, sizeof(self->dir), self->minor, "dma");
	ASSERT_EQ(0, dma_write(self->dir, "dma_mask", "28"));
	self->translated = dma_translated(self->dir);
	ASSERT_EQ(iommu_expected(), self->translated);
}

/* The parameters go back to their defaults whatever the test did. */
FIXTURE_TEARDOWN(dma)
{
	if (self->fd >= 0)
		close(self->fd);
	if (uio_pci_minor(self->addr) < 0) {
		uio_sysfs_write(UPG_DRIVER "/bind", self->addr);
		self->minor = uio_pci_wait_minor(self->addr);
		uio_path(self->dir, sizeof(self->dir), self->minor, "dma");
	}
	dma_write(self->dir, "count", "0");
	uio_sysfs_write(UNSAFE_PARAM, "0");
	uio_sysfs_write(CAP_PARAM, "16384");
}

TEST_F(dma, sysfs_shows_no_iommu_and_defaults)
{
	char buf[32];

	ASSERT_EQ(0, dma_read(self->dir, "iommu", buf, sizeof(buf)));
	EXPECT_STREQ(self->translated ? "translated" : "none", buf);
	EXPECT_EQ(0, dma_num(self->dir, "count"));
	EXPECT_EQ(getpagesize(), dma_num(self->dir, "size"));
	EXPECT_EQ(EDU_DMA_MASK_BITS, dma_num(self->dir, "dma_mask"));
}

TEST_F(dma, refused_without_iommu_eperm)
{
	if (self->translated)
		SKIP(return, "an IOMMU translates the edu's DMA");
	EXPECT_EQ(-EPERM, dma_write(self->dir, "count", "1"));
	EXPECT_EQ(0, dma_num(self->dir, "count"));
}

TEST_F(dma, over_cap_enospc)
{
	ASSERT_EQ(0, uio_sysfs_write(CAP_PARAM, "8"));
	ASSERT_EQ(0, uio_sysfs_write(UNSAFE_PARAM, self->translated ? "0" : "1"));
	ASSERT_EQ(0, dma_write(self->dir, "size", "8192"));
	EXPECT_EQ(0, dma_write(self->dir, "count", "1"));
	EXPECT_EQ(-ENOSPC, dma_write(self->dir, "count", "2"));
	EXPECT_EQ(-ENOSPC, dma_write(self->dir, "size", "12288"));
	EXPECT_EQ(1, dma_num(self->dir, "count"));
	EXPECT_EQ(-EINVAL, dma_write(self->dir, "count", "17"));
}

/* Bad values leave the configuration as it was; so does a bad mmap(). */
TEST_F(dma, bad_values_einval)
{
	long long count, size, off0;

	ASSERT_EQ(0, dma_configure(self->dir, self->translated, "8192", "1"));
	count = dma_num(self->dir, "count");
	size = dma_num(self->dir, "size");
	ASSERT_EQ(1, count);
	ASSERT_EQ(8192, size);
	EXPECT_EQ(-EINVAL, dma_write(self->dir, "count", "-1"));
	EXPECT_EQ(-EINVAL, dma_write(self->dir, "count", "two"));
	EXPECT_EQ(-EINVAL, dma_write(self->dir, "size", "0"));
	EXPECT_EQ(-EINVAL, dma_write(self->dir, "size", "0x40000001"));
	EXPECT_EQ(-EINVAL, dma_write(self->dir, "dma_mask", "23"));
	EXPECT_EQ(-EINVAL, dma_write(self->dir, "dma_mask", "65"));
	EXPECT_EQ(count, dma_num(self->dir, "count"));
	EXPECT_EQ(size, dma_num(self->dir, "size"));
	EXPECT_EQ(EDU_DMA_MASK_BITS, dma_num(self->dir, "dma_mask"));

	self->fd = uio_open_minor(self->minor, O_RDWR);
	ASSERT_GE(self->fd, 0);
	off0 = dma_num(self->dir, "buf0/offset");
	ASSERT_GT(off0, 0);
	/* Past the last buffer, and into the middle of one. */
	errno = 0;
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ, MAP_SHARED,
				   self->fd, off0 + 8192));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ, MAP_SHARED,
				   self->fd, off0 + 4096));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(dma, config_while_open_ebusy)
{
	ASSERT_EQ(0, dma_configure(self->dir, self->translated, "4096", "1"));
	self->fd = uio_open_minor(self->minor, O_RDWR);
	ASSERT_GE(self->fd, 0);
	EXPECT_EQ(-EBUSY, dma_write(self->dir, "count", "2"));
	EXPECT_EQ(-EBUSY, dma_write(self->dir, "size", "8192"));
	EXPECT_EQ(-EBUSY, dma_write(self->dir, "dma_mask", "32"));
	close(self->fd);
	self->fd = -1;
	EXPECT_EQ(0, dma_write(self->dir, "count", "2"));
}

TEST_F(dma, buffers_exist_while_open)
{
	char val[32];
	long long off0, off1;

	ASSERT_EQ(0, dma_configure(self->dir, self->translated, "8192", "2"));
	EXPECT_EQ(-ENODATA, dma_read(self->dir, "buf0/dma_addr", val,
				     sizeof(val)));
	self->fd = uio_open_minor(self->minor, O_RDWR);
	ASSERT_GE(self->fd, 0);
	EXPECT_GT(dma_bus_addr(self->dir, 0), 0);
	EXPECT_GT(dma_bus_addr(self->dir, 1), 0);
	EXPECT_EQ(8192, dma_num(self->dir, "buf1/size"));
	off0 = dma_num(self->dir, "buf0/offset");
	off1 = dma_num(self->dir, "buf1/offset");
	/* Far above "map N at N * page size", one buffer after the other. */
	EXPECT_GE(off0, 5LL * getpagesize());
	EXPECT_EQ(off0 + 8192, off1);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ, MAP_SHARED,
				   self->fd, off0 + 4096));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 3 * 4096, PROT_READ, MAP_SHARED,
				   self->fd, off0));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ, MAP_PRIVATE,
				   self->fd, off0));
}

/* BAR0 and buffers 0 and 1 of an open device. */
struct dma_maps {
	volatile uint32_t *regs;
	uint8_t *buf[2];
	size_t size[2];
	long long addr[2];	/* bus addresses */
};

/* Map BAR0 and buffers 0 and 1 of fd; 0, or -1 with nothing mapped. */
static int dma_map_two(int fd, const char *dir, struct dma_maps *m)
{
	int i;

	m->regs = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m->regs == MAP_FAILED)
		return -1;
	for (i = 0; i < 2; i++) {
		m->buf[i] = dma_map(fd, dir, i, &m->size[i]);
		m->addr[i] = dma_bus_addr(dir, i);
		if (m->buf[i] == MAP_FAILED || m->addr[i] <= 0)
			break;
	}
	if (i == 2)
		return 0;
	while (i--)
		munmap(m->buf[i], m->size[i]);
	munmap((void *)m->regs, 4096);
	return -1;
}

static void dma_unmap_two(struct dma_maps *m)
{
	munmap(m->buf[1], m->size[1]);
	munmap(m->buf[0], m->size[0]);
	munmap((void *)m->regs, 4096);
}

/* Run one DMA transfer and wait for its interrupt; 0 or -1. */
static int edu_dma(int fd, volatile uint32_t *regs, uint64_t src,
		   uint64_t dst, uint32_t len, uint32_t dir)
{
	int32_t on = 1;

	*(volatile uint64_t *)&regs[EDU_DMA_SRC / 4] = src;
	*(volatile uint64_t *)&regs[EDU_DMA_DST / 4] = dst;
	*(volatile uint64_t *)&regs[EDU_DMA_COUNT / 4] = len;
	*(volatile uint64_t *)&regs[EDU_DMA_CMD / 4] =
		EDU_DMA_START | EDU_DMA_IRQ | dir;
	if (uio_pci_wait_event(fd, 5000) < 0)
		return -1;
	if (regs[EDU_DMA_CMD / 4] & EDU_DMA_START)
		return -1;
	if (!(regs[EDU_IRQ_STATUS / 4] & EDU_IRQ_DMA))
		return -1;
	regs[EDU_IRQ_ACK / 4] = EDU_IRQ_DMA;
	return write(fd, &on, sizeof(on)) == sizeof(on) ? 0 : -1;
}

/* Let the device master the bus and interrupt; 0 or -1. */
static int edu_dma_ready(int fd, const char *addr, volatile uint32_t *regs)
{
	int32_t on = 1;

	if (bus_master_on(addr))
		return -1;
	regs[EDU_IRQ_ACK / 4] = 0xffffffff;
	return write(fd, &on, sizeof(on)) == sizeof(on) ? 0 : -1;
}

TEST_F_TIMEOUT(dma, unsafe_round_trip_through_edu, 30)
{
	struct dma_maps m;
	size_t i;

	ASSERT_EQ(0, dma_configure(self->dir, self->translated, "4096", "2"));
	self->fd = uio_open_minor(self->minor, O_RDWR);
	ASSERT_GE(self->fd, 0);
	EXPECT_TRUE(self->translated || (kernel_tainted() & TAINT_USER));
	ASSERT_EQ(0, dma_map_two(self->fd, self->dir, &m));
	EXPECT_LE(m.addr[0] + m.size[0], 1LL << EDU_DMA_MASK_BITS);
	EXPECT_LE(m.addr[1] + m.size[1], 1LL << EDU_DMA_MASK_BITS);

	for (i = 0; i < XFER_LEN; i++)
		m.buf[0][i] = i * 7 + 3;
	memset(m.buf[1], 0, m.size[1]);
	ASSERT_EQ(0, edu_dma_ready(self->fd, self->addr, m.regs));
	ASSERT_EQ(0, edu_dma(self->fd, m.regs, m.addr[0], EDU_DMA_WINDOW,
			     XFER_LEN, 0));
	ASSERT_EQ(0, edu_dma(self->fd, m.regs, EDU_DMA_WINDOW, m.addr[1],
			     XFER_LEN, EDU_DMA_TO_RAM));
	EXPECT_EQ(0, memcmp(m.buf[0], m.buf[1], XFER_LEN));
	EXPECT_EQ(0, m.buf[1][XFER_LEN]);
	dma_unmap_two(&m);
}

/* Open as nobody with RLIMIT_MEMLOCK 0: the errno, or 0 if it opened. */
static int open_as_nobody_without_memlock(int minor)
{
	struct rlimit none = { 0, 0 };
	int status, fd;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (setrlimit(RLIMIT_MEMLOCK, &none) || setgroups(0, NULL) ||
		    setgid(NOBODY) || setuid(NOBODY))
			_exit(255);
		fd = uio_open_minor(minor, O_RDWR);
		_exit(fd < 0 ? errno : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

TEST_F(dma, memlock_limit_enomem)
{
	char node[32];

	snprintf(node, sizeof(node), "/dev/uio%d", self->minor);
	ASSERT_EQ(0, chmod(node, 0666));
	ASSERT_EQ(0, dma_configure(self->dir, self->translated, "4096", "1"));
	EXPECT_EQ(ENOMEM, open_as_nobody_without_memlock(self->minor));
	/* Without buffers there is nothing to charge. */
	ASSERT_EQ(0, dma_write(self->dir, "count", "0"));
	EXPECT_EQ(0, open_as_nobody_without_memlock(self->minor));
	chmod(node, 0600);
}

TEST_F(dma, unsafe_param_off_refuses_open_eperm)
{
	if (self->translated)
		SKIP(return, "an IOMMU translates the edu's DMA");
	ASSERT_EQ(0, dma_configure(self->dir, self->translated, "4096", "1"));
	ASSERT_EQ(0, uio_sysfs_write(UNSAFE_PARAM, "0"));
	self->fd = uio_open_minor(self->minor, O_RDWR);
	EXPECT_EQ(-1, self->fd);
	EXPECT_EQ(EPERM, errno);
}

/*
 * Granted without the unsafe parameter, and the bus address is an IOVA,
 * not the physical address of the buffer's first page. (pagemap shows
 * the page behind an IOMMU's mapping of the buffer; it cannot see into
 * the PFN mapping the direct path makes without one.)
 */
TEST_F(dma, iommu_grants_without_unsafe_param_iova)
{
	long long phys;
	uint8_t *buf;
	size_t size;

	if (!self->translated)
		SKIP(return, "no IOMMU translates the edu's DMA");
	ASSERT_EQ(0, uio_sysfs_write(UNSAFE_PARAM, "0"));
	ASSERT_EQ(0, dma_write(self->dir, "count", "2"));
	self->fd = uio_open_minor(self->minor, O_RDWR);
	ASSERT_GE(self->fd, 0);
	EXPECT_EQ(0, kernel_tainted() & TAINT_USER);
	buf = dma_map(self->fd, self->dir, 0, &size);
	ASSERT_NE(MAP_FAILED, buf);
	buf[0] = 1;
	phys = phys_addr_of(buf);
	ASSERT_GT(phys, 0);
	EXPECT_NE(phys, dma_bus_addr(self->dir, 0));
	munmap(buf, size);
}

/*
 * The device writes to an IOVA outside every buffer: the IOMMU blocks it
 * and reports a DMAR fault, which the host's report accepts only between
 * the two markers; the buffers stay as they were.
 */
TEST_F_TIMEOUT(dma, iommu_blocks_transfer_outside_buffers, 30)
{
	struct dma_maps m;
	char fault[64];
	size_t i;

	if (!self->translated)
		SKIP(return, "no IOMMU translates the edu's DMA");
	ASSERT_EQ(0, dma_configure(self->dir, self->translated, "4096", "2"));
	self->fd = uio_open_minor(self->minor, O_RDWR);
	ASSERT_GE(self->fd, 0);
	ASSERT_EQ(0, dma_map_two(self->fd, self->dir, &m));
	ASSERT_GT(m.addr[0], UNMAPPED_IOVA + XFER_LEN);
	ASSERT_GT(m.addr[1], UNMAPPED_IOVA + XFER_LEN);

	for (i = 0; i < XFER_LEN; i++)
		m.buf[0][i] = i * 5 + 1;
	memset(m.buf[1], 0x5a, m.size[1]);
	ASSERT_EQ(0, edu_dma_ready(self->fd, self->addr, m.regs));
	ASSERT_EQ(0, edu_dma(self->fd, m.regs, m.addr[0], EDU_DMA_WINDOW,
			     XFER_LEN, 0));
	ASSERT_EQ(0, log_marker(DMAR_BEGIN));
	ASSERT_EQ(0, edu_dma(self->fd, m.regs, EDU_DMA_WINDOW, UNMAPPED_IOVA,
			     XFER_LEN, EDU_DMA_TO_RAM));
	snprintf(fault, sizeof(fault), "fault addr 0x%x ", UNMAPPED_IOVA);
	EXPECT_TRUE(klog_has(fault));
	EXPECT_EQ(0, log_marker(DMAR_END));
	for (i = 0; i < m.size[1] && m.buf[1][i] == 0x5a; i++)
		;
	EXPECT_EQ(m.size[1], i);
	for (i = 0; i < XFER_LEN && m.buf[0][i] == (uint8_t)(i * 5 + 1); i++)
		;
	EXPECT_EQ(XFER_LEN, i);
	dma_unmap_two(&m);
}

TEST_F_TIMEOUT(dma, unbind_while_mapped_and_pending_sigbus, 30)
{
	volatile uint32_t *regs;
	uint32_t *buf;
	long long a0;
	size_t size;

	ASSERT_EQ(0, dma_configure(self->dir, self->translated, "4096", "1"));
	self->fd = uio_open_minor(self->minor, O_RDWR);
	ASSERT_GE(self->fd, 0);
	regs = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, regs);
	buf = dma_map(self->fd, self->dir, 0, &size);
	ASSERT_NE(MAP_FAILED, buf);
	a0 = dma_bus_addr(self->dir, 0);
	ASSERT_GT(a0, 0);
	buf[0] = 0x5a5a5a5a;
	EXPECT_FALSE(uio_touch_sigbus(buf, true));

	/* A device-to-RAM transfer still pending when the device goes. */
	ASSERT_EQ(0, bus_master_on(self->addr));
	*(volatile uint64_t *)&regs[EDU_DMA_SRC / 4] = EDU_DMA_WINDOW;
	*(volatile uint64_t *)&regs[EDU_DMA_DST / 4] = a0;
	*(volatile uint64_t *)&regs[EDU_DMA_COUNT / 4] = 1024;
	*(volatile uint64_t *)&regs[EDU_DMA_CMD / 4] =
		EDU_DMA_START | EDU_DMA_TO_RAM;
	ASSERT_EQ(0, uio_sysfs_write(UPG_DRIVER "/unbind", self->addr));
	EXPECT_EQ(0, pci_command(self->addr) & PCI_COMMAND_MASTER);
	EXPECT_TRUE(uio_touch_sigbus(buf, false));
	EXPECT_TRUE(uio_touch_sigbus((void *)regs, false));
	usleep(300 * 1000);	/* edu's DMA timer fires after 100 ms */
	ASSERT_EQ(0, uio_sysfs_write(UPG_DRIVER "/bind", self->addr));
	ASSERT_GE(uio_pci_wait_minor(self->addr), 0);
}

TEST_HARNESS_MAIN
