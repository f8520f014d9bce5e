// SPDX-License-Identifier: GPL-2.0
/*
 * uio_pci_generic's interrupt modes on QEMU's edu device, which has one
 * MSI vector (64-bit, no per-vector mask) and raises it instead of INTx
 * while MSI is enabled: the intr_mode parameter and device attribute,
 * one event per message, write() masking the vector, DPDK's config-space
 * re-arm, bus mastering kept until the last close, unbind under a reader.
 *
 * The second edu device is rebound in msi mode for each test and given
 * back in its old mode afterwards. QEMU's ivshmem-doorbell, which has
 * MSI-X and no interrupt pin, is bound in auto mode, which must pick
 * MSI-X.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "uio_pci_util.h"

#define UPG_INTR_MODE		"/sys/module/uio_pci_generic/parameters/intr_mode"

#define IVSHMEM_VENDOR		0x1af4
#define IVSHMEM_DEVICE		0x1110
#define NO_IVSHMEM		"needs QEMU's ivshmem-doorbell (host/with-ivshmem.sh)"

#define MSI_RAISES		10000

/* Register accesses the compiler neither drops, merges nor splits. */
static void reg_write(uint32_t *regs, unsigned int off, uint32_t val)
{
	__atomic_store_n(&regs[off / 4], val, __ATOMIC_RELAXED);
}

static uint32_t reg_read(uint32_t *regs, unsigned int off)
{
	return __atomic_load_n(&regs[off / 4], __ATOMIC_RELAXED);
}

/* The PCI address of the edu device that is not the first one found. */
static int edu_second(char *addr, size_t len)
{
	char first[NAME_MAX + 1];
	int ret;

	ret = edu_find_other(first, sizeof(first), NULL);
	return ret ? ret : edu_find_other(addr, len, first);
}

/* /sys/bus/pci/devices/<addr>/<file> into buf; -errno on error. */
static int pci_attr(const char *addr, const char *file, char *buf, size_t len)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), PCI_DEVICES "/%s/%s", addr, file);
	return uio_sysfs_read(path, buf, len);
}

/* Entries of /sys/bus/pci/devices/<addr>/msi_irqs; -errno if it is gone. */
static int msi_irq_count(const char *addr)
{
	return pci_dir_count(addr, "msi_irqs", "");
}

/* Unbind addr if bound, set intr_mode to spec, bind; the new minor. */
static int rebind(const char *addr, const char *spec)
{
	int ret;

	if (uio_pci_minor(addr) >= 0) {
		ret = uio_sysfs_write(UPG_DRIVER "/unbind", addr);
		if (ret)
			return ret;
	}
	ret = uio_sysfs_write(UPG_INTR_MODE, spec);
	if (ret)
		return ret;
	ret = uio_sysfs_write(UPG_DRIVER "/bind", addr);
	if (ret)
		return ret;
	return uio_pci_wait_minor(addr);
}

static int irq_set(int fd, int32_t on)
{
	return write(fd, &on, sizeof(on)) == sizeof(on) ? 0 : -errno;
}

FIXTURE(edu_msi) {
	char addr[NAME_MAX + 1];	/* PCI address of the second edu */
	char saved[256];		/* intr_mode before the test */
	int minor;
	int fd;				/* O_RDWR on /dev/uioN */
	uint32_t *regs;			/* BAR0, first page */
};

FIXTURE_SETUP(edu_msi)
{
	char spec[512], mode[16];

	self->fd = -1;
	self->regs = MAP_FAILED;
	self->saved[0] = '\0';
	ASSERT_EQ(0, edu_second(self->addr, sizeof(self->addr)));
	ASSERT_EQ(0, uio_sysfs_read(UPG_INTR_MODE, self->saved,
				    sizeof(self->saved)));
	snprintf(spec, sizeof(spec), "auto,%s=msi", self->addr);
	self->minor = rebind(self->addr, spec);
	ASSERT_GE(self->minor, 0);
	ASSERT_EQ(0, pci_attr(self->addr, "intr_mode", mode, sizeof(mode)));
	ASSERT_STREQ("msi", mode);
	self->fd = uio_open_minor(self->minor, O_RDWR);
	ASSERT_GE(self->fd, 0);
	self->regs = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
			  self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->regs);
	reg_write(self->regs, EDU_IRQ_ACK, 0xffffffff);
}

FIXTURE_TEARDOWN(edu_msi)
{
	if (self->regs != MAP_FAILED)
		munmap(self->regs, 4096);
	if (self->fd >= 0)
		close(self->fd);
	if (self->saved[0])
		rebind(self->addr, self->saved);
}

/* Does /proc/interrupts list irq as an MSI of uio_pci_generic? */
static bool irq_is_uio_msi(int irq)
{
	char line[512], *end;
	bool found = false;
	FILE *f;

	f = fopen("/proc/interrupts", "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strtol(line, &end, 10) == irq && *end == ':' &&
			strstr(line, "MSI") && strstr(line, "uio_pci_generic");
	fclose(f);
	return found;
}

TEST_F(edu_msi, one_vector_and_bus_master_while_bound)
{
	char irq[32];

	EXPECT_EQ(1, msi_irq_count(self->addr));
	/* With MSI on, the device's irq is its vector: the UIO device's. */
	ASSERT_EQ(0, pci_attr(self->addr, "irq", irq, sizeof(irq)));
	EXPECT_TRUE(irq_is_uio_msi(atoi(irq)));
	EXPECT_TRUE(pci_command(self->addr) & PCI_COMMAND_MASTER);
}

TEST_F_TIMEOUT(edu_msi, every_raise_is_one_event, 300)
{
	long long before = uio_event_count(self->minor);
	int i, exact = 0;

	for (i = 0; i < MSI_RAISES; i++) {
		reg_write(self->regs, EDU_IRQ_RAISE, 0x1);
		exact += uio_pci_wait_event(self->fd, 2000) == before + i + 1;
		reg_write(self->regs, EDU_IRQ_ACK, 0x1);
	}
	EXPECT_EQ(MSI_RAISES, exact);
	EXPECT_EQ(-1, uio_pci_wait_event(self->fd, 200));
	EXPECT_EQ(before + MSI_RAISES, uio_event_count(self->minor));
}

TEST_F_TIMEOUT(edu_msi, write_0_masks_write_1_delivers_pending, 20)
{
	long long before = uio_event_count(self->minor);

	ASSERT_EQ(0, irq_set(self->fd, 0));
	reg_write(self->regs, EDU_IRQ_RAISE, 0x1);
	EXPECT_EQ(-1, uio_pci_wait_event(self->fd, 300));
	EXPECT_EQ(before, uio_event_count(self->minor));
	ASSERT_EQ(0, irq_set(self->fd, 1));
	EXPECT_EQ(before + 1, uio_pci_wait_event(self->fd, 2000));
	/* The pending message arrives once, not again. */
	EXPECT_EQ(-1, uio_pci_wait_event(self->fd, 300));
	reg_write(self->regs, EDU_IRQ_ACK, 0x1);
}

/* Repeated writes of one value do not stack: one write(1) undoes them. */
TEST_F_TIMEOUT(edu_msi, repeated_writes_stay_balanced, 20)
{
	long long before = uio_event_count(self->minor);

	ASSERT_EQ(0, irq_set(self->fd, 1));
	ASSERT_EQ(0, irq_set(self->fd, 1));
	ASSERT_EQ(0, irq_set(self->fd, 0));
	ASSERT_EQ(0, irq_set(self->fd, 0));
	ASSERT_EQ(0, irq_set(self->fd, 0));
	reg_write(self->regs, EDU_IRQ_RAISE, 0x1);
	EXPECT_EQ(-1, uio_pci_wait_event(self->fd, 300));
	ASSERT_EQ(0, irq_set(self->fd, 1));
	EXPECT_EQ(before + 1, uio_pci_wait_event(self->fd, 2000));
	reg_write(self->regs, EDU_IRQ_ACK, 0x1);
	reg_write(self->regs, EDU_IRQ_RAISE, 0x1);
	EXPECT_EQ(before + 2, uio_pci_wait_event(self->fd, 2000));
	reg_write(self->regs, EDU_IRQ_ACK, 0x1);
}

/*
 * DPDK re-arms uio_pci_generic by clearing Interrupt Disable in config
 * space after every event. With MSI on, the device sends no INTx, so
 * that changes nothing: one event per raise, nothing on the INTx line.
 */
TEST_F_TIMEOUT(edu_msi, config_space_intx_rearm_is_harmless, 60)
{
	long long before = uio_event_count(self->minor);
	int i, exact = 0;
	uint16_t cmd;

	for (i = 0; i < 100; i++) {
		ASSERT_EQ(0, config_rw16(self->addr, PCI_COMMAND, &cmd, false));
		cmd &= ~PCI_COMMAND_INTX_OFF;
		ASSERT_EQ(0, config_rw16(self->addr, PCI_COMMAND, &cmd, true));
		reg_write(self->regs, EDU_IRQ_RAISE, 0x1);
		exact += uio_pci_wait_event(self->fd, 2000) == before + i + 1;
		reg_write(self->regs, EDU_IRQ_ACK, 0x1);
	}
	EXPECT_EQ(100, exact);
	EXPECT_FALSE(pci_command(self->addr) & PCI_COMMAND_INTX_OFF);
	EXPECT_EQ(-1, uio_pci_wait_event(self->fd, 200));
	EXPECT_EQ(before + 100, uio_event_count(self->minor));
}

/*
 * A second opener (a DPDK secondary, a cat of /dev/uioN) closing leaves
 * bus mastering, and so the MSIs, to the first; the last close clears it
 * and the next open sets it again.
 */
TEST_F_TIMEOUT(edu_msi, bus_master_cleared_by_last_close_only, 20)
{
	long long before = uio_event_count(self->minor);
	int fd;

	fd = uio_open_minor(self->minor, O_RDWR);
	ASSERT_GE(fd, 0);
	close(fd);
	EXPECT_TRUE(pci_command(self->addr) & PCI_COMMAND_MASTER);
	reg_write(self->regs, EDU_IRQ_RAISE, 0x1);
	EXPECT_EQ(before + 1, uio_pci_wait_event(self->fd, 2000));
	reg_write(self->regs, EDU_IRQ_ACK, 0x1);

	/* The mapping holds the file open too. */
	munmap(self->regs, 4096);
	self->regs = MAP_FAILED;
	close(self->fd);
	self->fd = -1;
	EXPECT_FALSE(pci_command(self->addr) & PCI_COMMAND_MASTER);

	self->fd = uio_open_minor(self->minor, O_RDWR);
	ASSERT_GE(self->fd, 0);
	EXPECT_TRUE(pci_command(self->addr) & PCI_COMMAND_MASTER);
	self->regs = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
			  self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->regs);
	reg_write(self->regs, EDU_IRQ_RAISE, 0x1);
	EXPECT_EQ(before + 2, uio_pci_wait_event(self->fd, 2000));
	reg_write(self->regs, EDU_IRQ_ACK, 0x1);
}

struct blocked_read {
	int fd;
	int ret;	/* read()'s return value */
	int err;	/* its errno */
};

static void *read_blocking(void *arg)
{
	struct blocked_read *r = arg;
	int32_t count;

	r->ret = read(r->fd, &count, sizeof(count));
	r->err = errno;
	return NULL;
}

/*
 * Unbind addr while a thread blocks in read() on fd: the read ends with
 * EIO and the device's vectors are freed.
 */
static void unbind_under_reader(struct __test_metadata *_metadata, int fd,
				const char *addr)
{
	struct blocked_read r = { .fd = fd, .ret = 0 };
	pthread_t thread;

	ASSERT_EQ(0, pthread_create(&thread, NULL, read_blocking, &r));
	usleep(200 * 1000);
	ASSERT_EQ(0, uio_sysfs_write(UPG_DRIVER "/unbind", addr));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	EXPECT_EQ(-1, r.ret);
	EXPECT_EQ(EIO, r.err);
	EXPECT_EQ(-ENOENT, msi_irq_count(addr));
}

TEST_F_TIMEOUT(edu_msi, unbind_wakes_reader_and_frees_vector, 30)
{
	/* Masked too: unbind must not trip over the disabled vector. */
	ASSERT_EQ(0, irq_set(self->fd, 0));
	unbind_under_reader(_metadata, self->fd, self->addr);
	EXPECT_TRUE(uio_touch_sigbus(self->regs, false));
}

/* Surprise removal as the PCI core sees it, then the device comes back. */
TEST_F_TIMEOUT(edu_msi, remove_wakes_reader_and_rescan_rebinds, 30)
{
	struct blocked_read r = { .fd = self->fd, .ret = 0 };
	char path[PATH_MAX], mode[16];
	pthread_t thread;

	ASSERT_EQ(0, pthread_create(&thread, NULL, read_blocking, &r));
	usleep(200 * 1000);
	snprintf(path, sizeof(path), PCI_DEVICES "/%s/remove", self->addr);
	ASSERT_EQ(0, uio_sysfs_write(path, "1"));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	EXPECT_EQ(-1, r.ret);
	EXPECT_EQ(EIO, r.err);
	EXPECT_TRUE(uio_touch_sigbus(self->regs, false));

	ASSERT_EQ(0, uio_sysfs_write("/sys/bus/pci/rescan", "1"));
	ASSERT_GE(uio_pci_wait_minor(self->addr), 0);
	ASSERT_EQ(0, pci_attr(self->addr, "intr_mode", mode, sizeof(mode)));
	EXPECT_STREQ("msi", mode);
	EXPECT_EQ(1, msi_irq_count(self->addr));
}

/* Without an override, edu binds as before MSI support existed. */
TEST(auto_keeps_intx_on_a_maskable_pin)
{
	char addr[NAME_MAX + 1], mode[16], saved[256];

	ASSERT_EQ(0, edu_second(addr, sizeof(addr)));
	ASSERT_EQ(0, uio_sysfs_read(UPG_INTR_MODE, saved, sizeof(saved)));
	ASSERT_GE(rebind(addr, "auto"), 0);
	ASSERT_EQ(0, pci_attr(addr, "intr_mode", mode, sizeof(mode)));
	EXPECT_STREQ("intx", mode);
	EXPECT_EQ(-ENOENT, msi_irq_count(addr));
	ASSERT_GE(rebind(addr, saved), 0);
}

/*
 * QEMU's ivshmem-doorbell has MSI-X and no interrupt pin: auto must pick
 * MSI-X. Its doorbell register (BAR0 offset 12, ID << 16 | vector) rings
 * a vector of any peer, the device's own included (ID in IVPosition,
 * offset 8); host/ivshmem-server.py serves it.
 */
#define IVSHMEM_IVPOSITION	0x08
#define IVSHMEM_DOORBELL	0x0c

FIXTURE(ivshmem) {
	char addr[NAME_MAX + 1];	/* its PCI address */
	char saved[256];		/* intr_mode before the test */
	int minor;
	int fd;				/* O_RDWR on /dev/uioN */
	void *map;			/* map 0 (BAR0) as mapped */
	uint32_t *regs;			/* BAR0 in it */
	uint32_t ring;			/* doorbell value for own vector 0 */
};

/* Let uio_pci_generic (and only it) bind addr, by driver_override. */
static int pci_override(const char *addr, const char *driver)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), PCI_DEVICES "/%s/driver_override", addr);
	return uio_sysfs_write(path, driver);
}

/*
 * Save intr_mode into saved and make uio_pci_generic the only driver that
 * may bind the ivshmem device at addr.
 */
static int ivshmem_take(const char *addr, char *saved, size_t len)
{
	int ret = uio_sysfs_read(UPG_INTR_MODE, saved, len);

	return ret ? ret : pci_override(addr, "uio_pci_generic");
}

FIXTURE_SETUP(ivshmem)
{
	char path[PATH_MAX], mode[16];
	long long offset;

	self->fd = -1;
	self->map = MAP_FAILED;
	self->saved[0] = '\0';
	/* The 6.1 harness runs the test after a SKIP() here: skip there. */
	if (pci_find(IVSHMEM_VENDOR, IVSHMEM_DEVICE, self->addr,
		     sizeof(self->addr), NULL)) {
		self->addr[0] = '\0';
		return;
	}
	ASSERT_EQ(0, ivshmem_take(self->addr, self->saved,
				  sizeof(self->saved)));
	self->minor = rebind(self->addr, "auto");
	ASSERT_GE(self->minor, 0);
	ASSERT_EQ(0, pci_attr(self->addr, "intr_mode", mode, sizeof(mode)));
	ASSERT_STREQ("msix", mode);
	self->fd = uio_open_minor(self->minor, O_RDWR);
	ASSERT_GE(self->fd, 0);
	uio_path(path, sizeof(path), self->minor, "maps/map0/offset");
	offset = uio_sysfs_num(path);
	ASSERT_GE(offset, 0);
	self->map = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE,
			 MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->map);
	self->regs = (uint32_t *)((char *)self->map + offset);
	self->ring = reg_read(self->regs, IVSHMEM_IVPOSITION) << 16;
}

FIXTURE_TEARDOWN(ivshmem)
{
	if (self->map != MAP_FAILED)
		munmap(self->map, getpagesize());
	if (self->fd >= 0)
		close(self->fd);
	if (!self->saved[0])
		return;
	uio_sysfs_write(UPG_DRIVER "/unbind", self->addr);
	pci_override(self->addr, "\n");
	uio_sysfs_write(UPG_INTR_MODE, self->saved);
}

TEST_F_TIMEOUT(ivshmem, auto_picks_msix_every_ring_one_event, 120)
{
	long long before = uio_event_count(self->minor);
	int i, exact = 0;

	if (!self->addr[0])
		SKIP(return, NO_IVSHMEM);
	EXPECT_EQ(1, msi_irq_count(self->addr));
	EXPECT_TRUE(pci_command(self->addr) & PCI_COMMAND_MASTER);
	for (i = 0; i < 1000; i++) {
		reg_write(self->regs, IVSHMEM_DOORBELL, self->ring);
		exact += uio_pci_wait_event(self->fd, 2000) == before + i + 1;
	}
	EXPECT_EQ(1000, exact);
	EXPECT_EQ(-1, uio_pci_wait_event(self->fd, 200));
}

/* MSI-X vector control masks in the device, which holds the message. */
TEST_F_TIMEOUT(ivshmem, write_0_masks_the_msix_vector, 20)
{
	long long before = uio_event_count(self->minor);

	if (!self->addr[0])
		SKIP(return, NO_IVSHMEM);
	ASSERT_EQ(0, irq_set(self->fd, 0));
	reg_write(self->regs, IVSHMEM_DOORBELL, self->ring);
	EXPECT_EQ(-1, uio_pci_wait_event(self->fd, 300));
	ASSERT_EQ(0, irq_set(self->fd, 1));
	EXPECT_EQ(before + 1, uio_pci_wait_event(self->fd, 2000));
	EXPECT_EQ(-1, uio_pci_wait_event(self->fd, 300));
}

TEST_F_TIMEOUT(ivshmem, unbind_wakes_reader_and_frees_vector, 30)
{
	if (!self->addr[0])
		SKIP(return, NO_IVSHMEM);
	unbind_under_reader(_metadata, self->fd, self->addr);
}

/*
 * Several vectors, opt-in: "<addr>=msix:4" gives vector 0 the UIO device
 * DPDK finds under the PCI device, and vectors 1..3 UIO devices of their
 * own, linked from the PCI device as uio_vector<K>. The ivshmem-doorbell
 * of host/check.sh has four vectors.
 */
#define IVSHMEM_VECTORS		4

FIXTURE(ivshmem_vectors) {
	char addr[NAME_MAX + 1];	/* its PCI address */
	char saved[256];		/* intr_mode before the test */
	int minor[IVSHMEM_VECTORS];	/* the UIO device of each vector */
	int fd[IVSHMEM_VECTORS];	/* O_RDWR on each */
	void *map;			/* map 0 (BAR0) of vector 0's device */
	uint32_t *regs;			/* BAR0 in it */
	uint32_t id;			/* the device's own ivshmem ID */
};

/* The minor of the UIO device the PCI device links as uio_vector<k>. */
static int vector_minor(const char *addr, int k)
{
	char path[PATH_MAX], target[PATH_MAX], *base;
	ssize_t n;

	snprintf(path, sizeof(path), PCI_DEVICES "/%s/uio_vector%d", addr, k);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	base = strrchr(target, '/');
	if (!base || strncmp(base + 1, "uio", 3))
		return -EINVAL;
	return atoi(base + 4);
}

/* Entries of /sys/bus/pci/devices/<addr>/uio: the UIO devices DPDK sees. */
static int pci_uio_entries(const char *addr)
{
	return pci_dir_count(addr, "uio", "uio");
}

FIXTURE_SETUP(ivshmem_vectors)
{
	char path[PATH_MAX], spec[512], mode[16];
	long long offset;
	int k;

	for (k = 0; k < IVSHMEM_VECTORS; k++)
		self->fd[k] = -1;
	self->map = MAP_FAILED;
	self->saved[0] = '\0';
	/* The 6.1 harness runs the test after a SKIP() here: skip there. */
	if (pci_find(IVSHMEM_VENDOR, IVSHMEM_DEVICE, self->addr,
		     sizeof(self->addr), NULL)) {
		self->addr[0] = '\0';
		return;
	}
	ASSERT_EQ(0, ivshmem_take(self->addr, self->saved,
				  sizeof(self->saved)));
	snprintf(spec, sizeof(spec), "auto,%s=msix:%d", self->addr,
		 IVSHMEM_VECTORS);
	self->minor[0] = rebind(self->addr, spec);
	ASSERT_GE(self->minor[0], 0);
	ASSERT_EQ(0, pci_attr(self->addr, "intr_mode", mode, sizeof(mode)));
	ASSERT_STREQ("msix:4", mode);
	for (k = 1; k < IVSHMEM_VECTORS; k++) {
		self->minor[k] = vector_minor(self->addr, k);
		ASSERT_GE(self->minor[k], 0);
	}
	for (k = 0; k < IVSHMEM_VECTORS; k++) {
		self->fd[k] = uio_open_minor(self->minor[k], O_RDWR);
		ASSERT_GE(self->fd[k], 0);
	}
	uio_path(path, sizeof(path), self->minor[0], "maps/map0/offset");
	offset = uio_sysfs_num(path);
	ASSERT_GE(offset, 0);
	self->map = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE,
			 MAP_SHARED, self->fd[0], 0);
	ASSERT_NE(MAP_FAILED, self->map);
	self->regs = (uint32_t *)((char *)self->map + offset);
	self->id = reg_read(self->regs, IVSHMEM_IVPOSITION);
}

FIXTURE_TEARDOWN(ivshmem_vectors)
{
	int k;

	if (self->map != MAP_FAILED)
		munmap(self->map, getpagesize());
	for (k = 0; k < IVSHMEM_VECTORS; k++)
		if (self->fd[k] >= 0)
			close(self->fd[k]);
	if (!self->saved[0])
		return;
	uio_sysfs_write(UPG_DRIVER "/unbind", self->addr);
	pci_override(self->addr, "\n");
	uio_sysfs_write(UPG_INTR_MODE, self->saved);
}

/* Is an event pending on fd right now? */
static bool event_pending(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 0) == 1;
}

TEST_F(ivshmem_vectors, vector_0_alone_where_dpdk_looks)
{
	char path[PATH_MAX], name[64];
	int k;

	if (!self->addr[0])
		SKIP(return, NO_IVSHMEM);
	EXPECT_EQ(1, pci_uio_entries(self->addr));
	EXPECT_EQ(self->minor[0], uio_pci_minor(self->addr));
	EXPECT_EQ(IVSHMEM_VECTORS, msi_irq_count(self->addr));
	uio_path(path, sizeof(path), self->minor[0], "name");
	ASSERT_EQ(0, uio_sysfs_read(path, name, sizeof(name)));
	EXPECT_STREQ("uio_pci_generic", name);
	for (k = 1; k < IVSHMEM_VECTORS; k++) {
		char want[64];

		uio_path(path, sizeof(path), self->minor[k], "name");
		ASSERT_EQ(0, uio_sysfs_read(path, name, sizeof(name)));
		snprintf(want, sizeof(want), "uio_pci_generic:vector%d", k);
		EXPECT_STREQ(want, name);
	}
}

TEST_F_TIMEOUT(ivshmem_vectors, each_vector_on_its_own_file, 60)
{
	long long before[IVSHMEM_VECTORS];
	int k, j, round;

	if (!self->addr[0])
		SKIP(return, NO_IVSHMEM);
	for (k = 0; k < IVSHMEM_VECTORS; k++)
		before[k] = uio_event_count(self->minor[k]);
	for (round = 1; round <= 25; round++) {
		for (k = IVSHMEM_VECTORS - 1; k >= 0; k--) {
			reg_write(self->regs, IVSHMEM_DOORBELL,
				  self->id << 16 | k);
			EXPECT_EQ(before[k] + round, uio_pci_wait_event(self->fd[k], 2000));
			for (j = 0; j < IVSHMEM_VECTORS; j++)
				if (j != k)
					EXPECT_FALSE(event_pending(self->fd[j]));
		}
	}
}

TEST_F_TIMEOUT(ivshmem_vectors, write_masks_one_vector_only, 20)
{
	long long before1 = uio_event_count(self->minor[1]);
	long long before2 = uio_event_count(self->minor[2]);

	if (!self->addr[0])
		SKIP(return, NO_IVSHMEM);
	ASSERT_EQ(0, irq_set(self->fd[2], 0));
	reg_write(self->regs, IVSHMEM_DOORBELL, self->id << 16 | 2);
	EXPECT_EQ(-1, uio_pci_wait_event(self->fd[2], 300));
	reg_write(self->regs, IVSHMEM_DOORBELL, self->id << 16 | 1);
	EXPECT_EQ(before1 + 1, uio_pci_wait_event(self->fd[1], 2000));
	ASSERT_EQ(0, irq_set(self->fd[2], 1));
	EXPECT_EQ(before2 + 1, uio_pci_wait_event(self->fd[2], 2000));
}

/* A second file closing, here another vector's, keeps bus mastering. */
TEST_F_TIMEOUT(ivshmem_vectors, bus_master_until_last_vector_file, 20)
{
	int k;

	if (!self->addr[0])
		SKIP(return, NO_IVSHMEM);
	for (k = 1; k < IVSHMEM_VECTORS; k++) {
		close(self->fd[k]);
		self->fd[k] = -1;
	}
	EXPECT_TRUE(pci_command(self->addr) & PCI_COMMAND_MASTER);
	munmap(self->map, getpagesize());
	self->map = MAP_FAILED;
	close(self->fd[0]);
	self->fd[0] = -1;
	EXPECT_FALSE(pci_command(self->addr) & PCI_COMMAND_MASTER);
}

TEST_F_TIMEOUT(ivshmem_vectors, unbind_wakes_every_vector_and_frees_them, 30)
{
	struct blocked_read r[IVSHMEM_VECTORS];
	pthread_t thread[IVSHMEM_VECTORS];
	char path[PATH_MAX];
	int k;

	if (!self->addr[0])
		SKIP(return, NO_IVSHMEM);
	ASSERT_EQ(0, irq_set(self->fd[3], 0));
	for (k = 0; k < IVSHMEM_VECTORS; k++) {
		r[k] = (struct blocked_read){ .fd = self->fd[k] };
		ASSERT_EQ(0, pthread_create(&thread[k], NULL, read_blocking,
					    &r[k]));
	}
	usleep(200 * 1000);
	ASSERT_EQ(0, uio_sysfs_write(UPG_DRIVER "/unbind", self->addr));
	for (k = 0; k < IVSHMEM_VECTORS; k++) {
		ASSERT_EQ(0, pthread_join(thread[k], NULL));
		EXPECT_EQ(-1, r[k].ret);
		EXPECT_EQ(EIO, r[k].err);
	}
	EXPECT_EQ(-ENOENT, msi_irq_count(self->addr));
	snprintf(path, sizeof(path), PCI_DEVICES "/%s/uio_vector1", self->addr);
	EXPECT_NE(0, access(path, F_OK));
}

/* A bad value is refused and leaves the parameter as it was. */
TEST(intr_mode_rejects_malformed_values)
{
	static const char * const bad[] = {
		"bogus", "msi,,intx", "=msi", "0000:00:08.0=", "0000:00:08.0=none",
		"intx:2", "auto:2", "msix:0", "msix:33", "msix:", "msi:x",
	};
	char before[256], after[256];
	unsigned int i;

	ASSERT_EQ(0, uio_sysfs_read(UPG_INTR_MODE, before, sizeof(before)));
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		EXPECT_EQ(-EINVAL, uio_sysfs_write(UPG_INTR_MODE, bad[i]));
	ASSERT_EQ(0, uio_sysfs_read(UPG_INTR_MODE, after, sizeof(after)));
	EXPECT_STREQ(before, after);
}

TEST_HARNESS_MAIN
