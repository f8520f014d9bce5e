// SPDX-License-Identifier: GPL-2.0
/*
 * Guest tests for uio_cif against QEMU's hilscher-cif model
 * (qemu/docs/specs/hilscher-cif.txt).  Needs uio.ko and uio_cif.ko loaded
 * and one card, e.g. "-device hilscher-cif,cycle-us=2000".
 *
 * Protocol under test: the stub claims the interrupt only when INT1 is
 * enabled and pending and then clears INT1 enable; user space serves the
 * card through map 1 (DPRAM) and re-arms INT1 through map 0 (BAR0).
 *
 * Every test starts from a quiet card (cycles stopped, flags clear, INT1
 * masked) and the teardown puts back the cycle settings it found, so the
 * tests can run in any order and the binary can be run again.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "uio_util.h"
#include "../../../uio/cif/cif_dpram.h"

#define CIF_DRIVER	"/sys/bus/pci/drivers/uio_cif"
#define CIF_IRQ_MS	2000	/* an interrupt that is due arrives by then */
#define CIF_QUIET_MS	300	/* no interrupt within this: none is coming */

static const char * const cif_names[] = { "CIF_Profibus", "CIF_Devicenet" };

static int cif_find_minor(void)
{
	unsigned int i;
	int minor;

	for (i = 0; i < ARRAY_SIZE(cif_names); i++) {
		minor = uio_find(cif_names[i]);
		if (minor >= 0)
			return minor;
	}
	return -ENOENT;
}

static bool cif_card_present(void)
{
	static const char * const ids[][2] = {
		{ "vendor", "0x10b5" }, { "device", "0x9030" },
		{ "subsystem_vendor", "0x1518" },
	};
	char path[PATH_MAX], buf[32];
	struct dirent *de;
	bool found = false;
	unsigned int i;
	DIR *dir;

	dir = opendir("/sys/bus/pci/devices");
	if (!dir)
		return false;
	while (!found && (de = readdir(dir))) {
		for (i = 0; i < ARRAY_SIZE(ids); i++) {
			snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s",
				 de->d_name, ids[i][0]);
			if (uio_sysfs_read(path, buf, sizeof(buf)) ||
			    strcmp(buf, ids[i][1]))
				break;
		}
		found = i == ARRAY_SIZE(ids);
	}
	closedir(dir);
	return found;
}

/*
 * Without the card on the PCI bus there is nothing to test: skip the whole
 * binary (kselftest exit code 4).  A card that is present but has no UIO
 * device is a failure, which the fixture setup reports.
 */
static void __attribute__((constructor)) cif_require_card(void)
{
	if (cif_card_present())
		return;
	printf("TAP version 13\n1..0 # SKIP no Hilscher CIF card (QEMU: -device hilscher-cif)\n");
	exit(KSFT_SKIP);
}

FIXTURE(cif) {
	int minor;			/* N of /dev/uioN */
	int fd;				/* /dev/uioN, -1 when closed */
	char pci[32];			/* PCI address of the card */
	void *map[2];			/* mmap() of maps 0 and 1, or NULL */
	size_t len[2];			/* their lengths */
	unsigned long long addr[2];	/* sysfs maps/mapN/addr */
	unsigned long long size[2];	/* sysfs maps/mapN/size */
	unsigned long long offset[2];	/* sysfs maps/mapN/offset */
	volatile uint32_t *plx;		/* BAR0 registers, inside map[0] */
	volatile uint32_t *dp;		/* DPRAM words, inside map[1] */
	bool gone;			/* the mappings above are dead */
	uint32_t cycle_us;		/* cycle settings found at setup */
	uint32_t cycle_limit;
	uint32_t cycle_run;
};

static uint32_t plx_rd(struct _test_data_cif *self, unsigned int off)
{
	return self->plx[off / 4];
}

static void plx_wr(struct _test_data_cif *self, unsigned int off, uint32_t v)
{
	self->plx[off / 4] = v;
}

static uint32_t dp_rd(struct _test_data_cif *self, unsigned int off)
{
	return self->dp[off / 4];
}

static void dp_wr(struct _test_data_cif *self, unsigned int off, uint32_t v)
{
	self->dp[off / 4] = v;
}

static void int1_enable(struct _test_data_cif *self, bool on)
{
	uint32_t v = plx_rd(self, CIF_PLX_INTCSR);

	v = on ? v | CIF_INTCSR_INT1_EN : v & ~CIF_INTCSR_INT1_EN;
	plx_wr(self, CIF_PLX_INTCSR, v);
}

/* 1: an event arrived (count stored), 0: none within ms, -errno. */
static int wait_event(struct _test_data_cif *self, int ms, int32_t *count)
{
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN };
	int ret;

	ret = poll(&pfd, 1, ms);
	if (ret <= 0)
		return ret < 0 ? -errno : 0;
	if (read(self->fd, count, sizeof(*count)) != sizeof(*count))
		return -errno;
	return 1;
}

/* Poll a DPRAM cell (no interrupts) until it is non-zero; false on timeout. */
static bool dp_wait_set(struct _test_data_cif *self, unsigned int off, int ms)
{
	double end = uio_now() + ms / 1000.0;

	while (uio_now() < end) {
		if (dp_rd(self, off))
			return true;
		usleep(1000);
	}
	return dp_rd(self, off) != 0;
}

static void mbx_post(struct _test_data_cif *self, uint32_t cmd, const void *buf,
		     uint32_t len)
{
	volatile uint8_t *data = (volatile uint8_t *)self->dp + CIF_DP_H2C_DATA;
	const uint8_t *src = buf;
	uint32_t i;

	/* buf may be NULL to announce a length without copying a payload. */
	for (i = 0; src && i < len && i < CIF_MBX_DATA_SIZE; i++)
		data[i] = src[i];
	dp_wr(self, CIF_DP_H2C_CMD, cmd);
	dp_wr(self, CIF_DP_H2C_LEN, len);
	__sync_synchronize();
	dp_wr(self, CIF_DP_H2C_FLAG, CIF_MBX_FULL);
}

static void cif_quiesce(struct _test_data_cif *self)
{
	int1_enable(self, false);
	dp_wr(self, CIF_DP_CYCLE_CTRL, 0);
	dp_wr(self, CIF_DP_CYCLE_FLAG, 0);
	dp_wr(self, CIF_DP_C2H_FLAG, CIF_MBX_EMPTY);
}

static int map_attr(int minor, int map, const char *field,
		    unsigned long long *val)
{
	char path[PATH_MAX], attr[64];
	long long v;

	snprintf(attr, sizeof(attr), "maps/map%d/%s", map, field);
	uio_path(path, sizeof(path), minor, attr);
	v = uio_sysfs_num(path);
	if (v == LLONG_MIN)
		return -EINVAL;
	*val = v;
	return 0;
}

static void *map_uio(int fd, int map, size_t len)
{
	return mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		    (off_t)map * getpagesize());
}

/* Find, open and map the card; also used to reopen after a rebind. */
static void cif_fx_open(struct __test_metadata *_metadata,
			struct _test_data_cif *self)
{
	size_t page = getpagesize();
	char path[PATH_MAX], link[PATH_MAX];
	ssize_t n;
	int i;

	self->fd = -1;
	self->minor = cif_find_minor();
	ASSERT_LE(0, self->minor) TH_LOG("no CIF_Profibus/CIF_Devicenet UIO device");
	uio_path(path, sizeof(path), self->minor, "device");
	n = readlink(path, link, sizeof(link) - 1);
	ASSERT_LT(0, n);
	link[n] = '\0';
	snprintf(self->pci, sizeof(self->pci), "%s", strrchr(link, '/') + 1);

	self->fd = uio_open_minor(self->minor, O_RDWR);
	ASSERT_LE(0, self->fd);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, map_attr(self->minor, i, "addr", &self->addr[i]));
		ASSERT_EQ(0, map_attr(self->minor, i, "size", &self->size[i]));
		ASSERT_EQ(0, map_attr(self->minor, i, "offset",
				      &self->offset[i]));
		self->len[i] = (self->addr[i] % page + self->size[i] + page - 1) /
			       page * page;
		self->map[i] = map_uio(self->fd, i, self->len[i]);
		ASSERT_NE(MAP_FAILED, self->map[i])
			TH_LOG("mmap of map %d (%llu bytes): %s", i,
			       self->size[i], strerror(errno));
	}
	/* addr is page aligned; the registers start offset into the page. */
	self->plx = (void *)((char *)self->map[0] + self->offset[0]);
	self->dp = (void *)((char *)self->map[1] + self->offset[1]);
	self->gone = false;
}

static void cif_fx_close(struct _test_data_cif *self)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (self->map[i] && self->map[i] != MAP_FAILED)
			munmap(self->map[i], self->len[i]);
		self->map[i] = NULL;
	}
	if (self->fd >= 0)
		close(self->fd);
	self->fd = -1;
}

FIXTURE_SETUP(cif)
{
	self->fd = -1;
	cif_fx_open(_metadata, self);
	ASSERT_EQ(CIF_SIGNATURE, dp_rd(self, CIF_DP_SIGNATURE));
	self->cycle_us = dp_rd(self, CIF_DP_CYCLE_US);
	self->cycle_limit = dp_rd(self, CIF_DP_CYCLE_LIMIT);
	self->cycle_run = dp_rd(self, CIF_DP_CYCLE_CTRL) & CIF_CYCLE_RUN;
	cif_quiesce(self);
	/* A message still in flight from an earlier run: let it land. */
	if (dp_rd(self, CIF_DP_H2C_FLAG) != CIF_MBX_EMPTY) {
		ASSERT_TRUE(dp_wait_set(self, CIF_DP_C2H_FLAG, CIF_IRQ_MS));
		dp_wr(self, CIF_DP_C2H_FLAG, CIF_MBX_EMPTY);
	}
	ASSERT_EQ(0, plx_rd(self, CIF_PLX_INTCSR) & CIF_INTCSR_INT1_STAT);
}

FIXTURE_TEARDOWN(cif)
{
	if (self->gone) {
		cif_fx_close(self);
		if (cif_find_minor() < 0)
			return;
		cif_fx_open(_metadata, self);
	}
	if (self->plx) {
		cif_quiesce(self);
		dp_wr(self, CIF_DP_CYCLE_US, self->cycle_us);
		dp_wr(self, CIF_DP_CYCLE_LIMIT, self->cycle_limit);
		if (self->cycle_run)
			dp_wr(self, CIF_DP_CYCLE_CTRL, CIF_CYCLE_RUN);
	}
	cif_fx_close(self);
}

/* name, version and both maps agree with the PCI device. */
TEST_F_TIMEOUT(cif, sysfs_matches_pci_device, 10)
{
	unsigned long long start, end, flags;
	char path[PATH_MAX], buf[64];
	long long subdev;
	FILE *res;
	int bar, i;

	uio_path(path, sizeof(path), self->minor, "device/subsystem_device");
	subdev = uio_sysfs_num(path);
	ASSERT_TRUE(subdev == CIF_PCI_SUBDEVICE_PROFIBUS ||
		    subdev == CIF_PCI_SUBDEVICE_DEVICENET);
	uio_path(path, sizeof(path), self->minor, "name");
	ASSERT_EQ(0, uio_sysfs_read(path, buf, sizeof(buf)));
	EXPECT_STREQ(subdev == CIF_PCI_SUBDEVICE_PROFIBUS ?
		     "CIF_Profibus" : "CIF_Devicenet", buf);
	uio_path(path, sizeof(path), self->minor, "version");
	ASSERT_EQ(0, uio_sysfs_read(path, buf, sizeof(buf)));
	EXPECT_STREQ("1.0", buf);
	uio_path(path, sizeof(path), self->minor, "maps/map0/name");
	ASSERT_EQ(0, uio_sysfs_read(path, buf, sizeof(buf)));
	EXPECT_STREQ("plx", buf);
	uio_path(path, sizeof(path), self->minor, "maps/map1/name");
	ASSERT_EQ(0, uio_sysfs_read(path, buf, sizeof(buf)));
	EXPECT_STREQ("dpram", buf);
	EXPECT_EQ(CIF_BAR0_SIZE, self->size[0] - self->offset[0]);
	EXPECT_EQ(CIF_DPRAM_SIZE, self->size[1] - self->offset[1]);

	uio_path(path, sizeof(path), self->minor, "device/resource");
	res = fopen(path, "r");
	ASSERT_NE(NULL, res);
	for (bar = 0, i = 0; bar <= 2; bar++) {
		ASSERT_EQ(3, fscanf(res, "%llx %llx %llx", &start, &end, &flags));
		if (bar == 1)
			continue;
		/* Linux 6.1's convention: page-aligned addr, offset in it. */
		EXPECT_EQ(0, self->addr[i] % getpagesize());
		EXPECT_EQ(start, self->addr[i] + self->offset[i]);
		EXPECT_EQ(end + 1, self->addr[i] + self->size[i]);
		i++;
	}
	fclose(res);
}

/*
 * BAR0 is smaller than a page; it is mapped (which the fixture did) only
 * because the rest of its page is reserved for it while the card is bound.
 */
TEST_F_TIMEOUT(cif, plx_page_rest_reserved, 10)
{
	unsigned long long page = getpagesize();
	unsigned long long start = self->addr[0] + self->offset[0];
	unsigned long long end = start + CIF_BAR0_SIZE - 1;

	if (start > self->addr[0])
		EXPECT_TRUE(uio_iomem_has(self->addr[0], start - 1,
					  "uio sub-page reserve"));
	EXPECT_TRUE(uio_iomem_has(end + 1, self->addr[0] + page - 1,
				  "uio sub-page reserve"));
}

/* Map 0 is the PLX register block: read-only registers hold reset values. */
TEST_F_TIMEOUT(cif, mmap_plx_reads_reset_values, 10)
{
	EXPECT_EQ(CIF_PLX_LAS0RR_RESET, plx_rd(self, CIF_PLX_LAS0RR));
	EXPECT_EQ(CIF_PLX_LAS0BA_RESET, plx_rd(self, CIF_PLX_LAS0BA));
	plx_wr(self, CIF_PLX_LAS0RR, 0);
	EXPECT_EQ(CIF_PLX_LAS0RR_RESET, plx_rd(self, CIF_PLX_LAS0RR));
	/* The stub never touches PCI_EN/INT1_POL; setup cleared INT1_EN. */
	EXPECT_EQ(CIF_INTCSR_RESET, plx_rd(self, CIF_PLX_INTCSR));
}

/* Map 1 is the card's DPRAM, shared by every mapping of it. */
TEST_F_TIMEOUT(cif, mmap_dpram_read_write, 10)
{
	volatile uint32_t *other;
	unsigned int i, n = CIF_SCRATCH_SIZE / 4;

	EXPECT_EQ(CIF_SIGNATURE, dp_rd(self, CIF_DP_SIGNATURE));
	EXPECT_EQ(CIF_FW_VERSION, dp_rd(self, CIF_DP_FW_VERSION));
	other = map_uio(self->fd, 1, self->len[1]);
	ASSERT_NE(MAP_FAILED, other);
	for (i = 0; i < n; i++)
		dp_wr(self, CIF_DP_SCRATCH + 4 * i, 0xc1f00000 ^ (i * 0x9e3779b9));
	for (i = 0; i < n; i++)
		if (other[(CIF_DP_SCRATCH + self->offset[1]) / 4 + i] !=
		    (0xc1f00000 ^ (i * 0x9e3779b9)))
			break;
	EXPECT_EQ(n, i);
	munmap((void *)other, self->len[1]);
}

TEST_F_TIMEOUT(cif, mmap_beyond_map_or_missing_map_einval, 10)
{
	void *p;

	p = mmap(NULL, self->len[0] + getpagesize(), PROT_READ, MAP_SHARED,
		 self->fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, self->fd,
		 2 * getpagesize());
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
}

/* Mailbox round trip driven by the answer interrupt. */
TEST_F_TIMEOUT(cif, mailbox_echo_interrupts_once, 10)
{
	static const char msg[] = "hello, CIF";
	volatile uint8_t *ans = (volatile uint8_t *)self->dp + CIF_DP_C2H_DATA;
	long long before = uio_event_count(self->minor);
	int32_t count;
	unsigned int i;

	ASSERT_LE(0, before);
	int1_enable(self, true);
	mbx_post(self, CIF_CMD_ECHO, msg, sizeof(msg));
	ASSERT_EQ(1, wait_event(self, CIF_IRQ_MS, &count));
	EXPECT_EQ(before + 1, count);
	/* The stub masked INT1; the request itself is still pending. */
	EXPECT_EQ(CIF_INTCSR_INT1_STAT | CIF_INTCSR_RESET,
		  plx_rd(self, CIF_PLX_INTCSR));
	EXPECT_EQ(CIF_MBX_EMPTY, dp_rd(self, CIF_DP_H2C_FLAG));
	EXPECT_EQ(CIF_MBX_FULL, dp_rd(self, CIF_DP_C2H_FLAG));
	EXPECT_EQ(CIF_CMD_ECHO, dp_rd(self, CIF_DP_C2H_CMD));
	EXPECT_EQ(CIF_STATUS_OK, dp_rd(self, CIF_DP_C2H_STATUS));
	ASSERT_EQ(sizeof(msg), dp_rd(self, CIF_DP_C2H_LEN));
	for (i = 0; i < sizeof(msg); i++)
		if (ans[i] != (uint8_t)msg[i])
			break;
	EXPECT_EQ(sizeof(msg), i);
	dp_wr(self, CIF_DP_C2H_FLAG, CIF_MBX_EMPTY);
	EXPECT_EQ(0, plx_rd(self, CIF_PLX_INTCSR) & CIF_INTCSR_INT1_STAT);
	EXPECT_EQ(before + 1, uio_event_count(self->minor));
}

TEST_F_TIMEOUT(cif, mailbox_rejects_bad_command_and_length, 10)
{
	int32_t count;

	int1_enable(self, true);
	mbx_post(self, 0x77, "x", 1);
	ASSERT_EQ(1, wait_event(self, CIF_IRQ_MS, &count));
	EXPECT_EQ(CIF_STATUS_BAD_CMD, dp_rd(self, CIF_DP_C2H_STATUS));
	EXPECT_EQ(0, dp_rd(self, CIF_DP_C2H_LEN));
	dp_wr(self, CIF_DP_C2H_FLAG, CIF_MBX_EMPTY);

	int1_enable(self, true);
	mbx_post(self, CIF_CMD_ECHO, NULL, CIF_MBX_DATA_SIZE + 1);
	ASSERT_EQ(1, wait_event(self, CIF_IRQ_MS, &count));
	EXPECT_EQ(CIF_STATUS_BAD_LEN, dp_rd(self, CIF_DP_C2H_STATUS));
	EXPECT_EQ(0, dp_rd(self, CIF_DP_C2H_LEN));
}

/* Re-arming while the card still requests INT1 interrupts again at once. */
TEST_F_TIMEOUT(cif, rearm_int1_redelivers_until_acked, 15)
{
	long long before = uio_event_count(self->minor);
	int32_t count;

	ASSERT_LE(0, before);
	int1_enable(self, true);
	mbx_post(self, CIF_CMD_ECHO, "a", 1);
	ASSERT_EQ(1, wait_event(self, CIF_IRQ_MS, &count));
	EXPECT_EQ(before + 1, count);
	EXPECT_EQ(0, plx_rd(self, CIF_PLX_INTCSR) & CIF_INTCSR_INT1_EN);

	int1_enable(self, true);
	ASSERT_EQ(1, wait_event(self, CIF_IRQ_MS, &count));
	EXPECT_EQ(before + 2, count);

	dp_wr(self, CIF_DP_C2H_FLAG, CIF_MBX_EMPTY);
	int1_enable(self, true);
	EXPECT_EQ(0, wait_event(self, CIF_QUIET_MS, &count));
	EXPECT_EQ(before + 2, uio_event_count(self->minor));
}

/*
 * With INT1 masked the card's request must not be counted (the line stays
 * low, and the stub answers IRQ_NONE to anything else on a shared line);
 * arming it afterwards delivers it, so the request was real.
 */
TEST_F_TIMEOUT(cif, masked_int1_counts_no_event, 15)
{
	long long before = uio_event_count(self->minor);
	int32_t count;

	ASSERT_LE(0, before);
	mbx_post(self, CIF_CMD_ECHO, "m", 1);
	ASSERT_TRUE(dp_wait_set(self, CIF_DP_C2H_FLAG, CIF_IRQ_MS));
	EXPECT_EQ(CIF_INTCSR_INT1_STAT,
		  plx_rd(self, CIF_PLX_INTCSR) & CIF_INTCSR_INT1_STAT);
	EXPECT_EQ(0, wait_event(self, CIF_QUIET_MS, &count));
	EXPECT_EQ(before, uio_event_count(self->minor));

	int1_enable(self, true);
	ASSERT_EQ(1, wait_event(self, CIF_IRQ_MS, &count));
	EXPECT_EQ(before + 1, count);
}

/* An edu device (1234:11e8) bound to uio_pci_generic on the CIF's line. */
static int edu_on_line(int cif_minor)
{
	char path[PATH_MAX], buf[64];
	long long irq, other;
	int minor;

	uio_path(path, sizeof(path), cif_minor, "device/irq");
	irq = uio_sysfs_num(path);
	for (minor = 0; minor < 64; minor++) {
		uio_path(path, sizeof(path), minor, "name");
		if (uio_sysfs_read(path, buf, sizeof(buf)) ||
		    strcmp(buf, "uio_pci_generic"))
			continue;
		uio_path(path, sizeof(path), minor, "device/device");
		if (uio_sysfs_num(path) != 0x11e8)
			continue;
		uio_path(path, sizeof(path), minor, "device/irq");
		other = uio_sysfs_num(path);
		if (other == irq && irq > 0)
			return minor;
	}
	return -ENOENT;
}

#define EDU_IRQ_STATUS	0x24
#define EDU_IRQ_RAISE	0x60
#define EDU_IRQ_ACK	0x64

/*
 * The IRQ_NONE path: another device raises the shared line while the card
 * requests INT1 with INT1 masked.  The stub must neither claim it (no CIF
 * event) nor touch INTCSR.
 */
TEST_F_TIMEOUT(cif, shared_line_irq_none_when_int1_masked, 15)
{
	long long before, edu_before;
	volatile uint32_t *edu;
	int32_t on = 1, count;
	int edu_minor, edu_fd;
	uint32_t intcsr;
	struct pollfd pfd;

	edu_minor = edu_on_line(self->minor);
	if (edu_minor < 0)
		SKIP(return,
		     "no edu on uio_pci_generic sharing the CIF's interrupt");
	edu_fd = uio_open_minor(edu_minor, O_RDWR);
	ASSERT_LE(0, edu_fd);
	edu = map_uio(edu_fd, 0, getpagesize());
	ASSERT_NE(MAP_FAILED, edu);

	mbx_post(self, CIF_CMD_ECHO, "s", 1);
	ASSERT_TRUE(dp_wait_set(self, CIF_DP_C2H_FLAG, CIF_IRQ_MS));
	intcsr = plx_rd(self, CIF_PLX_INTCSR);
	ASSERT_EQ(CIF_INTCSR_RESET | CIF_INTCSR_INT1_STAT, intcsr);
	before = uio_event_count(self->minor);
	edu_before = uio_event_count(edu_minor);
	ASSERT_LE(0, before);

	ASSERT_EQ(sizeof(on), write(edu_fd, &on, sizeof(on)));
	edu[EDU_IRQ_RAISE / 4] = 0x1;
	pfd = (struct pollfd){ .fd = edu_fd, .events = POLLIN };
	ASSERT_EQ(1, poll(&pfd, 1, CIF_IRQ_MS)) TH_LOG("edu never interrupted");
	ASSERT_EQ(sizeof(count), read(edu_fd, &count, sizeof(count)));
	EXPECT_EQ(edu_before + 1, count);
	edu[EDU_IRQ_ACK / 4] = 0x1;

	EXPECT_EQ(intcsr, plx_rd(self, CIF_PLX_INTCSR));
	EXPECT_EQ(0, wait_event(self, CIF_QUIET_MS, &count));
	EXPECT_EQ(before, uio_event_count(self->minor));
	munmap((void *)edu, getpagesize());
	close(edu_fd);
}

/* The cycle-us property starts the cyclic update from reset. */
TEST_F_TIMEOUT(cif, cycle_us_property_runs_cycles, 15)
{
	int32_t count;

	if (!self->cycle_us)
		SKIP(return, "card booted without cycle-us");
	EXPECT_EQ(CIF_CYCLE_RUN, self->cycle_run);
	dp_wr(self, CIF_DP_CYCLE_US, self->cycle_us);
	dp_wr(self, CIF_DP_CYCLE_LIMIT, 0);
	dp_wr(self, CIF_DP_CYCLE_CTRL, CIF_CYCLE_RUN);
	int1_enable(self, true);
	ASSERT_EQ(1, wait_event(self, CIF_IRQ_MS, &count));
	EXPECT_EQ(1, dp_rd(self, CIF_DP_CYCLE_FLAG));
	EXPECT_LE(1, dp_rd(self, CIF_DP_CYCLE_COUNT));
	EXPECT_EQ(dp_rd(self, CIF_DP_CYCLE_COUNT), dp_rd(self, CIF_DP_PI_IN));
}

/* N cycles started through the DPRAM give exactly N interrupts. */
TEST_F_TIMEOUT(cif, cycles_counted_exactly, 30)
{
	const uint32_t n = 10, period_us = 5000;
	long long before = uio_event_count(self->minor);
	int32_t count;
	uint32_t i, w;

	ASSERT_LE(0, before);
	dp_wr(self, CIF_DP_CYCLE_US, period_us);
	dp_wr(self, CIF_DP_CYCLE_LIMIT, n);
	dp_wr(self, CIF_DP_CYCLE_CTRL, CIF_CYCLE_RUN);
	for (i = 1; i <= n; i++) {
		int1_enable(self, true);
		ASSERT_EQ(1, wait_event(self, CIF_IRQ_MS, &count))
			TH_LOG("cycle %u never interrupted", i);
		ASSERT_EQ(before + i, count);
		ASSERT_EQ(i, dp_rd(self, CIF_DP_CYCLE_COUNT));
		for (w = 0; w < CIF_PI_WORDS; w++)
			if (dp_rd(self, CIF_DP_PI_IN + 4 * w) != i + w)
				break;
		EXPECT_EQ(CIF_PI_WORDS, w);
		dp_wr(self, CIF_DP_CYCLE_FLAG, 0);
	}
	int1_enable(self, true);
	EXPECT_EQ(0, wait_event(self, CIF_QUIET_MS + 4 * period_us / 1000,
				&count));
	EXPECT_EQ(0, dp_rd(self, CIF_DP_CYCLE_CTRL));
	EXPECT_EQ(n, dp_rd(self, CIF_DP_CYCLE_COUNT));
	EXPECT_EQ(before + n, uio_event_count(self->minor));
}

/* After unbind the open file fails with EIO and the mappings are dead. */
TEST_F_TIMEOUT(cif, unbind_while_open_and_mapped, 20)
{
	int32_t count = 1;
	double end;

	ASSERT_EQ(CIF_SIGNATURE, dp_rd(self, CIF_DP_SIGNATURE));
	ASSERT_EQ(0, uio_sysfs_write(CIF_DRIVER "/unbind", self->pci));
	self->gone = true;
	errno = 0;
	EXPECT_EQ(-1, read(self->fd, &count, sizeof(count)));
	EXPECT_EQ(EIO, errno);
	errno = 0;
	EXPECT_EQ(-1, write(self->fd, &count, sizeof(count)));
	EXPECT_EQ(EIO, errno);
	EXPECT_TRUE(uio_touch_sigbus((volatile unsigned int *)self->plx, false));
	EXPECT_TRUE(uio_touch_sigbus((volatile unsigned int *)self->dp, true));
	EXPECT_GT(0, cif_find_minor());

	ASSERT_EQ(0, uio_sysfs_write(CIF_DRIVER "/bind", self->pci));
	end = uio_now() + 2;
	while (cif_find_minor() < 0 && uio_now() < end)
		usleep(20 * 1000);
	ASSERT_LE(0, cif_find_minor());
}

TEST_HARNESS_MAIN
