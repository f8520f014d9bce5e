// SPDX-License-Identifier: GPL-2.0
/*
 * Guest tests for Linux's own platform UIO drivers over our core:
 * uio_pdrv_genirq and uio_dmem_genirq from the guest kernel's source
 * (host/pdrv.sh puts them in /modules-extra), bound to the platform
 * devices uio_pdev_mod creates (/modules/uio_pdev_mod.ko). Every test
 * loads the three modules and unloads them again.
 *
 * Both drivers run the line level-triggered: the handler disables it and
 * only irqcontrol(1) enables it again; the chip's mask state and the
 * event count show what happened. uio_dmem_genirq also allocates its
 * dynamic regions on the first open and frees them on the last close.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <linux/types.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "uio_util.h"

#define PDEV_MOD	"/modules/uio_pdev_mod.ko"
#define EXTRA_DIR	"/modules-extra"
#define PDEV_SYSFS	"/sys/kernel/uio_pdev"
#define RES_SIZE	0x2000	/* uio_pdev_mod's memory resource */
#define IRQ_MS		2000	/* a raised interrupt is an event by then */
#define QUIET_MS	300	/* no event within this: none is coming */
#define DMEM_UNSET	"0xffffffffffffffff"	/* DMEM_MAP_ERROR in sysfs */

static const char * const drivers[] = { "uio_pdrv_genirq", "uio_dmem_genirq" };

static int mod_load(const char *path)
{
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, "", 0) ? -errno : 0;
	close(fd);
	return ret;
}

static int mod_unload(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK) ? -errno : 0;
}

/* Unload the drivers and the stub; modules already gone are fine. */
static bool unload_all(void)
{
	bool ok = true;
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(drivers); i++) {
		ret = mod_unload(drivers[i]);
		ok &= !ret || ret == -ENOENT;
	}
	ret = mod_unload("uio_pdev_mod");
	return ok && (!ret || ret == -ENOENT);
}

static bool have_modules(void)
{
	char path[PATH_MAX];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(drivers); i++) {
		snprintf(path, sizeof(path), EXTRA_DIR "/%s.ko", drivers[i]);
		if (access(path, R_OK))
			return false;
	}
	return !access(PDEV_MOD, R_OK);
}

/*
 * Each test skips from its body, not from the fixture setup: the 6.1
 * harness runs the body even after a SKIP() in setup.
 */
#define NO_MODULES "no " PDEV_MOD " or drivers in " EXTRA_DIR

/* The stub first, so each driver probes its device while it loads. */
static int load_all(void)
{
	char path[PATH_MAX];
	unsigned int i;
	int ret;

	ret = mod_load(PDEV_MOD);
	for (i = 0; !ret && i < ARRAY_SIZE(drivers); i++) {
		snprintf(path, sizeof(path), EXTRA_DIR "/%s.ko", drivers[i]);
		ret = mod_load(path);
	}
	return ret;
}

static void line_path(char *buf, size_t len, const char *line,
		      const char *file)
{
	snprintf(buf, len, PDEV_SYSFS "/%s/%s", line, file);
}

static int line_raise(const char *line)
{
	char path[PATH_MAX];

	line_path(path, sizeof(path), line, "raise");
	return uio_sysfs_write(path, "1");
}

static long long line_num(const char *line, const char *file)
{
	char path[PATH_MAX];

	line_path(path, sizeof(path), line, file);
	return uio_sysfs_num(path);
}

static long long map_num(int minor, int map, const char *file)
{
	char path[PATH_MAX], name[64];

	snprintf(name, sizeof(name), "maps/map%d/%s", map, file);
	uio_path(path, sizeof(path), minor, name);
	return uio_sysfs_num(path);
}

static int map_str(int minor, int map, const char *file, char *buf,
		   size_t len)
{
	char path[PATH_MAX], name[64];

	snprintf(name, sizeof(name), "maps/map%d/%s", map, file);
	uio_path(path, sizeof(path), minor, name);
	return uio_sysfs_read(path, buf, len);
}

/* poll() for an event: 1 with POLLIN, 0 on timeout. */
static int wait_event(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int ret = poll(&pfd, 1, ms);

	return ret == 1 && (pfd.revents & POLLIN) ? 1 : ret;
}

static int irq_on(int fd, __s32 on)
{
	return write(fd, &on, sizeof(on));
}

static void *map_of(int fd, int map, size_t len)
{
	return mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		    (off_t)map * getpagesize());
}

FIXTURE(line) {
	int minor;
	int fd;
};

FIXTURE_VARIANT(line) {
	const char *line;	/* uio_pdev_mod's sysfs directory */
	const char *driver;
	const char *name;	/* the UIO device's name */
	const char *version;
};

FIXTURE_VARIANT_ADD(line, pdrv) {
	.line = "pdrv",
	.driver = "uio_pdrv_genirq",
	.name = "uio_pdev_pdrv",
	.version = "0.1",
};

FIXTURE_VARIANT_ADD(line, dmem) {
	.line = "dmem",
	.driver = "uio_dmem_genirq",
	.name = "uio_pdev_dmem",
	.version = "0.2",
};

FIXTURE_SETUP(line)
{
	self->fd = -1;
	if (!have_modules())
		return;
	ASSERT_TRUE(unload_all());
	ASSERT_EQ(0, load_all());
	self->minor = uio_find(variant->name);
	ASSERT_LE(0, self->minor) TH_LOG("%s did not register %s",
					 variant->driver, variant->name);
	self->fd = uio_open_minor(self->minor, O_RDWR);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(line)
{
	if (self->fd >= 0)
		close(self->fd);
	EXPECT_TRUE(unload_all());
}

TEST_F(line, sysfs_name_version_maps)
{
	char path[PATH_MAX], buf[64];
	long long addr;

	if (!have_modules())
		SKIP(return, NO_MODULES);
	uio_path(path, sizeof(path), self->minor, "name");
	ASSERT_EQ(0, uio_sysfs_read(path, buf, sizeof(buf)));
	EXPECT_STREQ(variant->name, buf);
	uio_path(path, sizeof(path), self->minor, "version");
	ASSERT_EQ(0, uio_sysfs_read(path, buf, sizeof(buf)));
	EXPECT_STREQ(variant->version, buf);
	/* map0 is the memory resource, exactly as /proc/iomem lists it. */
	addr = map_num(self->minor, 0, "addr");
	ASSERT_LT(0, addr);
	EXPECT_EQ(0, addr % getpagesize());
	EXPECT_EQ(RES_SIZE, map_num(self->minor, 0, "size"));
	EXPECT_EQ(0, map_num(self->minor, 0, "offset"));
	EXPECT_TRUE(uio_iomem_has(addr, addr + RES_SIZE - 1, variant->line));
}

TEST_F(line, mmap_map0_shows_pattern)
{
	__u32 pattern = line_num(variant->line, "pattern");
	volatile __u32 *p;
	size_t i;

	if (!have_modules())
		SKIP(return, NO_MODULES);
	p = map_of(self->fd, 0, RES_SIZE);
	ASSERT_NE(MAP_FAILED, p);
	for (i = 0; i < RES_SIZE / sizeof(*p); i++)
		if (p[i] != pattern + i)
			break;
	EXPECT_EQ(RES_SIZE / sizeof(*p), i) TH_LOG("word %zu is 0x%08x", i, p[i]);
	EXPECT_EQ(0, munmap((void *)p, RES_SIZE));
	/* Past the map: the mapping is refused. */
	EXPECT_EQ(MAP_FAILED, map_of(self->fd, 0, 2 * RES_SIZE));
}

TEST_F(line, read_blocks_until_raised)
{
	__s32 count = -1;
	double start;
	pid_t pid;
	int status;

	if (!have_modules())
		SKIP(return, NO_MODULES);
	start = uio_now();
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		usleep(QUIET_MS * 1000);
		_exit(line_raise(variant->line) ? 1 : 0);
	}
	EXPECT_EQ(sizeof(count), read(self->fd, &count, sizeof(count)));
	EXPECT_LE(QUIET_MS / 1000.0 * 0.9, uio_now() - start);
	EXPECT_EQ(1, count);
	EXPECT_EQ(1, uio_event_count(self->minor));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, status);
}

TEST_F(line, nonblock_read_eagain_then_event)
{
	__s32 count = -1;
	int fd;

	if (!have_modules())
		SKIP(return, NO_MODULES);
	fd = uio_open_minor(self->minor, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, read(fd, &count, sizeof(count)));
	EXPECT_EQ(EAGAIN, errno);
	ASSERT_EQ(0, line_raise(variant->line));
	ASSERT_EQ(1, wait_event(fd, IRQ_MS));
	EXPECT_EQ(sizeof(count), read(fd, &count, sizeof(count)));
	EXPECT_EQ(1, count);
	/* Read: nothing new until the next event. */
	EXPECT_EQ(-1, read(fd, &count, sizeof(count)));
	EXPECT_EQ(EAGAIN, errno);
	close(fd);
}

TEST_F(line, poll_reports_event_until_read)
{
	__s32 count;

	if (!have_modules())
		SKIP(return, NO_MODULES);
	EXPECT_EQ(0, wait_event(self->fd, 0));
	ASSERT_EQ(0, line_raise(variant->line));
	ASSERT_EQ(1, wait_event(self->fd, IRQ_MS));
	EXPECT_EQ(1, wait_event(self->fd, 0));
	ASSERT_EQ(sizeof(count), read(self->fd, &count, sizeof(count)));
	EXPECT_EQ(0, wait_event(self->fd, 0));
}

/*
 * The handler disables the line and the chip masks it at once (level:
 * no lazy disable); a second raise on the disabled line is no event, and
 * a level interrupt is not replayed when irqcontrol(1) enables it again.
 */
TEST_F(line, event_disables_line_until_irqcontrol_1)
{
	__s32 count;

	if (!have_modules())
		SKIP(return, NO_MODULES);
	EXPECT_EQ(0, line_num(variant->line, "masked"));
	ASSERT_EQ(0, line_raise(variant->line));
	ASSERT_EQ(1, wait_event(self->fd, IRQ_MS));
	ASSERT_EQ(sizeof(count), read(self->fd, &count, sizeof(count)));
	EXPECT_EQ(1, count);
	EXPECT_EQ(1, line_num(variant->line, "masked"));

	ASSERT_EQ(0, line_raise(variant->line));
	EXPECT_EQ(0, wait_event(self->fd, QUIET_MS));
	EXPECT_EQ(1, uio_event_count(self->minor));
	EXPECT_EQ(1, line_num(variant->line, "masked"));

	ASSERT_EQ(sizeof(__s32), irq_on(self->fd, 1));
	EXPECT_EQ(0, line_num(variant->line, "masked"));
	EXPECT_EQ(0, wait_event(self->fd, QUIET_MS));
	EXPECT_EQ(1, uio_event_count(self->minor));

	ASSERT_EQ(0, line_raise(variant->line));
	ASSERT_EQ(1, wait_event(self->fd, IRQ_MS));
	ASSERT_EQ(sizeof(count), read(self->fd, &count, sizeof(count)));
	EXPECT_EQ(2, count);
}

/* irqcontrol(0) masks at once, twice is once: one irqcontrol(1) undoes it. */
TEST_F(line, irqcontrol_0_disables_line)
{
	__s32 count;

	if (!have_modules())
		SKIP(return, NO_MODULES);
	ASSERT_EQ(sizeof(__s32), irq_on(self->fd, 0));
	EXPECT_EQ(1, line_num(variant->line, "masked"));
	ASSERT_EQ(sizeof(__s32), irq_on(self->fd, 0));
	ASSERT_EQ(0, line_raise(variant->line));
	EXPECT_EQ(0, wait_event(self->fd, QUIET_MS));
	EXPECT_EQ(0, uio_event_count(self->minor));

	ASSERT_EQ(sizeof(__s32), irq_on(self->fd, 1));
	EXPECT_EQ(0, line_num(variant->line, "masked"));
	ASSERT_EQ(0, line_raise(variant->line));
	ASSERT_EQ(1, wait_event(self->fd, IRQ_MS));
	ASSERT_EQ(sizeof(count), read(self->fd, &count, sizeof(count)));
	EXPECT_EQ(1, count);
}

/*
 * Unbinding the driver takes the device away from the open file: a blocked
 * reader wakes with EIO, every operation fails, the mapping faults. The
 * file still pins the driver module, as on mainline, until it is closed.
 */
TEST_F(line, unbind_while_open_eio_sigbus)
{
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN };
	char path[PATH_MAX];
	volatile __u32 *p;
	__s32 count;
	int status;
	pid_t pid;

	if (!have_modules())
		SKIP(return, NO_MODULES);
	p = map_of(self->fd, 0, RES_SIZE);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ((__u32)line_num(variant->line, "pattern"), p[0]);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(read(self->fd, &count, sizeof(count)) == -1 &&
		      errno == EIO ? 0 : 1);
	usleep(QUIET_MS * 1000);
	snprintf(path, sizeof(path), "/sys/bus/platform/drivers/%s/unbind",
		 variant->driver);
	ASSERT_EQ(0, uio_sysfs_write(path, variant->driver));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, status) TH_LOG("the blocked reader did not get EIO");
	EXPECT_EQ(-ENOENT, uio_find(variant->name));

	EXPECT_EQ(-1, read(self->fd, &count, sizeof(count)));
	EXPECT_EQ(EIO, errno);
	EXPECT_EQ(-1, irq_on(self->fd, 1));
	EXPECT_EQ(EIO, errno);
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_TRUE(pfd.revents & POLLERR);
	EXPECT_TRUE(uio_touch_sigbus((volatile unsigned int *)p, false));
	EXPECT_EQ(MAP_FAILED, map_of(self->fd, 0, RES_SIZE));
	EXPECT_EQ(0, munmap((void *)p, RES_SIZE));

	EXPECT_EQ(-EWOULDBLOCK, mod_unload(variant->driver));
	close(self->fd);
	self->fd = -1;
	EXPECT_EQ(0, mod_unload(variant->driver));
}

/* Removing the platform device (its module) while open: the same. */
TEST_F(line, device_removed_while_open_eio_sigbus)
{
	volatile __u32 *p;
	__s32 count;

	if (!have_modules())
		SKIP(return, NO_MODULES);
	p = map_of(self->fd, 0, RES_SIZE);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ((__u32)line_num(variant->line, "pattern"), p[0]);
	ASSERT_EQ(0, mod_unload("uio_pdev_mod"));
	EXPECT_EQ(-1, read(self->fd, &count, sizeof(count)));
	EXPECT_EQ(EIO, errno);
	EXPECT_TRUE(uio_touch_sigbus((volatile unsigned int *)p, true));
	EXPECT_EQ(0, munmap((void *)p, RES_SIZE));
}

FIXTURE(dmem) {
	int minor;
};

FIXTURE_SETUP(dmem)
{
	if (!have_modules())
		return;
	ASSERT_TRUE(unload_all());
	ASSERT_EQ(0, load_all());
	self->minor = uio_find("uio_pdev_dmem");
	ASSERT_LE(0, self->minor);
}

FIXTURE_TEARDOWN(dmem)
{
	EXPECT_TRUE(unload_all());
}

/* Map 1 and 2 are uio_pdev_mod's dynamic regions of one and three pages. */
static bool dmem_allocated(struct __test_metadata *_metadata, int minor)
{
	char buf[64];
	bool one, two;

	EXPECT_EQ(0, map_str(minor, 1, "addr", buf, sizeof(buf)));
	one = strcmp(buf, DMEM_UNSET);
	EXPECT_EQ(0, map_str(minor, 2, "addr", buf, sizeof(buf)));
	two = strcmp(buf, DMEM_UNSET);
	EXPECT_EQ(one, two);
	return one;
}

TEST_F(dmem, dynamic_regions_sized_and_unallocated_while_closed)
{
	if (!have_modules())
		SKIP(return, NO_MODULES);
	EXPECT_EQ(getpagesize(), map_num(self->minor, 1, "size"));
	EXPECT_EQ(3 * getpagesize(), map_num(self->minor, 2, "size"));
	EXPECT_FALSE(dmem_allocated(_metadata, self->minor));
	EXPECT_EQ(LLONG_MIN, map_num(self->minor, 3, "size"));
}

/* Allocated zeroed on the first open; the memory is shared by all maps. */
TEST_F(dmem, first_open_allocates_mmap_works)
{
	size_t len = 3 * getpagesize(), i;
	volatile __u32 *p, *q;
	int fd, fd2;

	if (!have_modules())
		SKIP(return, NO_MODULES);
	fd = uio_open_minor(self->minor, O_RDWR);
	ASSERT_LE(0, fd);
	EXPECT_TRUE(dmem_allocated(_metadata, self->minor));
	p = map_of(fd, 2, len);
	ASSERT_NE(MAP_FAILED, p);
	for (i = 0; i < len / sizeof(*p); i++)
		if (p[i])
			break;
	EXPECT_EQ(len / sizeof(*p), i);
	for (i = 0; i < len / sizeof(*p); i++)
		p[i] = 0xc0de0000 + i;
	/* A second open sees the same region, not a new one. */
	fd2 = uio_open_minor(self->minor, O_RDWR);
	ASSERT_LE(0, fd2);
	q = map_of(fd2, 2, len);
	ASSERT_NE(MAP_FAILED, q);
	EXPECT_EQ(0xc0de0000 + 5, q[5]);
	EXPECT_EQ(0xc0de0000 + len / sizeof(*p) - 1, q[len / sizeof(*p) - 1]);
	/* Past the one-page region: refused. */
	EXPECT_EQ(MAP_FAILED, map_of(fd, 1, 2 * getpagesize()));
	EXPECT_EQ(0, munmap((void *)q, len));
	EXPECT_EQ(0, munmap((void *)p, len));
	close(fd2);
	close(fd);
}

/*
 * Freed when the last file goes: not while another is open, nor while a
 * mapping still holds the closed file. A new first open gets new memory.
 */
TEST_F(dmem, last_close_frees)
{
	size_t len = getpagesize();
	volatile __u32 *p;
	int fd, fd2;

	if (!have_modules())
		SKIP(return, NO_MODULES);
	fd = uio_open_minor(self->minor, O_RDWR);
	ASSERT_LE(0, fd);
	fd2 = uio_open_minor(self->minor, O_RDWR);
	ASSERT_LE(0, fd2);
	close(fd);
	EXPECT_TRUE(dmem_allocated(_metadata, self->minor));

	p = map_of(fd2, 1, len);
	ASSERT_NE(MAP_FAILED, p);
	p[0] = 0x600dcafe;
	close(fd2);
	EXPECT_TRUE(dmem_allocated(_metadata, self->minor));
	EXPECT_EQ(0x600dcafe, p[0]);
	EXPECT_EQ(0, munmap((void *)p, len));
	EXPECT_FALSE(dmem_allocated(_metadata, self->minor));

	fd = uio_open_minor(self->minor, O_RDWR);
	ASSERT_LE(0, fd);
	EXPECT_TRUE(dmem_allocated(_metadata, self->minor));
	p = map_of(fd, 1, len);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(0, p[0]);
	EXPECT_EQ(0, munmap((void *)p, len));
	close(fd);
	EXPECT_FALSE(dmem_allocated(_metadata, self->minor));
}

TEST_HARNESS_MAIN
