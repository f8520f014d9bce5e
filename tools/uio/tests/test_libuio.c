// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of libuio against fake sysfs trees built in a temporary
 * directory. Every test runs in its own child process under alarm(), in
 * its own tree, so one crash or hang is one "not ok". Output is TAP.
 *
 *   test_libuio [<substring>]	run only the tests whose name contains it
 *
 * The /dev node stand-ins: a regular file for mmap() and irqcontrol writes
 * (its contents show what was written), a FIFO for uio_wait() (the test
 * writes the s32 counts the kernel would return).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libuio.h"

/* Paths here are short temporary ones; truncation cannot happen. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

#define TEST_TIMEOUT_S	10

#define __printf(a, b)	__attribute__((format(printf, a, b)))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define TEST_SKIP	77

static char root[PATH_MAX];	/* this test's temporary directory */
static char sysroot[PATH_MAX];	/* root/sys, the fake sysfs */
static char devroot[PATH_MAX];	/* root/dev, the fake /dev */
static int failures;		/* failed checks in this test (child) */
static long page;		/* the page size */

/* Record a failed check and carry on, like EXPECT_* in kselftest. */
#define CHECK(cond) do {						\
	if (!(cond)) {							\
		printf("# %s:%d: check failed: %s\n", __FILE__, __LINE__, \
		       #cond);						\
		failures++;						\
	}								\
} while (0)

/* Compare ints and show both values when they differ. */
#define CHECK_EQ(a, b) do {						\
	long long _a = (a), _b = (b);					\
	if (_a != _b) {							\
		printf("# %s:%d: %s == %lld, expected %s == %lld\n",	\
		       __FILE__, __LINE__, #a, _a, #b, _b);		\
		failures++;						\
	}								\
} while (0)

#define CHECK_STR(a, b) do {						\
	const char *_a = (a), *_b = (b);				\
	if (strcmp(_a, _b)) {						\
		printf("# %s:%d: %s == \"%s\", expected \"%s\"\n",	\
		       __FILE__, __LINE__, #a, _a, _b);			\
		failures++;						\
	}								\
} while (0)

/* A setup step that must work, else the test cannot say anything. */
#define REQUIRE(cond) do {						\
	if (!(cond)) {							\
		printf("# %s:%d: setup failed: %s (%s)\n", __FILE__,	\
		       __LINE__, #cond, strerror(errno));		\
		exit(1);						\
	}								\
} while (0)

static void mkdirs(const char *path)
{
	char buf[PATH_MAX], *p;

	snprintf(buf, sizeof(buf), "%s", path);
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		REQUIRE(!mkdir(buf, 0755) || errno == EEXIST);
		*p = '/';
	}
	REQUIRE(!mkdir(buf, 0755) || errno == EEXIST);
}

/* Write a file below the sysfs root, creating its directories. */
static void __printf(2, 3)
put(const char *content, const char *fmt, ...)
{
	char rel[PATH_MAX], path[PATH_MAX], dir[PATH_MAX], *slash;
	va_list ap;
	int fd;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/%s", sysroot, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	*slash = '\0';
	mkdirs(dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	REQUIRE(fd >= 0);
	REQUIRE(write(fd, content, strlen(content)) == (ssize_t)strlen(content));
	close(fd);
}

static void sys_unlink(const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", sysroot, rel);
	REQUIRE(!unlink(path));
}

static void sys_symlink(const char *target, const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", sysroot, rel);
	REQUIRE(!symlink(target, path));
}

/* The sysfs directory of uioN below a parent device directory. */
static char devdir[16][PATH_MAX];

/*
 * A device as the kernel makes it: the real directory below its parent,
 * the class link, the "device" link back to the parent.
 */
static void add_device(unsigned int n, const char *parent_dir,
		       const char *name, const char *version,
		       const char *event)
{
	const char *base = strrchr(parent_dir, '/');
	char rel[PATH_MAX], target[PATH_MAX], dev[32];

	snprintf(devdir[n], sizeof(devdir[n]), "devices/%s/uio/uio%u",
		 parent_dir, n);
	snprintf(dev, sizeof(dev), "243:%u\n", n);
	put(name, "%s/name", devdir[n]);
	put(version, "%s/version", devdir[n]);
	put(event, "%s/event", devdir[n]);
	put(dev, "%s/dev", devdir[n]);
	/* uioN/device -> ../../../<parent>, as the driver core makes it */
	snprintf(rel, sizeof(rel), "%s/device", devdir[n]);
	snprintf(target, sizeof(target), "../../../%s",
		 base ? base + 1 : parent_dir);
	sys_symlink(target, rel);
	/* class/uio/uioN -> ../../devices/.../uio/uioN */
	snprintf(rel, sizeof(rel), "%s/class/uio", sysroot);
	mkdirs(rel);
	snprintf(rel, sizeof(rel), "class/uio/uio%u", n);
	snprintf(target, sizeof(target), "../../%s", devdir[n]);
	sys_symlink(target, rel);
}

static void add_map(unsigned int n, unsigned int m, const char *name,
		    const char *addr, const char *size, const char *offset)
{
	if (name)
		put(name, "%s/maps/map%u/name", devdir[n], m);
	if (addr)
		put(addr, "%s/maps/map%u/addr", devdir[n], m);
	if (size)
		put(size, "%s/maps/map%u/size", devdir[n], m);
	if (offset)
		put(offset, "%s/maps/map%u/offset", devdir[n], m);
}

/* A PCI parent bound to uio_pci_generic. */
static void add_pci_parent(const char *addr)
{
	char rel[PATH_MAX];

	mkdirs(strcat(strcpy(rel, sysroot),
		      "/bus/pci/drivers/uio_pci_generic"));
	snprintf(rel, sizeof(rel), "devices/pci0000:00/%s/vendor", addr);
	put("0x1234\n", "%s", rel);
	snprintf(rel, sizeof(rel), "devices/pci0000:00/%s/driver", addr);
	sys_symlink("../../../bus/pci/drivers/uio_pci_generic", rel);
}

/*
 * The standard tree: uio0 = edu at 0000:00:04.0 with BAR0 (map0) and a
 * map2 after a gap; uio2 = a test stub without maps on a platform device
 * without driver; uio10 to check numeric order.
 */
static void good_tree(void)
{
	add_pci_parent("0000:00:04.0");
	add_device(0, "pci0000:00/0000:00:04.0", "uio_pci_generic\n",
		   "0.01.0\n", "7\n");
	add_map(0, 0, "BAR0\n", "0xfea00000\n", "0x100000\n", "0x0\n");
	add_map(0, 2, "BAR2\n", "0xfe000000\n", "0x30\n", "16\n");
	put("port_x86\n", "%s/portio/port0/porttype", devdir[0]);
	put("BAR1\n", "%s/portio/port0/name", devdir[0]);
	put("0xc000\n", "%s/portio/port0/start", devdir[0]);
	put("0x20\n", "%s/portio/port0/size", devdir[0]);
	add_device(2, "platform/uio_test.0", "uio_test\n", "1.0\n", "0\n");
	add_device(10, "platform/uio_test.1", "uio_test\n", "1.0\n", "3\n");
}

/* A regular file standing in for /dev/uioN: pages of 32-bit patterns. */
static void dev_file(unsigned int n, unsigned int pages)
{
	char path[PATH_MAX];
	uint32_t *buf;
	size_t i, words = pages * page / 4;
	int fd;

	buf = malloc(pages * page);
	REQUIRE(buf);
	/* Word w of page p holds p << 16 | w. */
	for (i = 0; i < words; i++)
		buf[i] = (uint32_t)((i * 4 / page) << 16 | (i % (page / 4)));
	snprintf(path, sizeof(path), "%s/uio%u", devroot, n);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	REQUIRE(fd >= 0);
	REQUIRE(write(fd, buf, pages * page) == (ssize_t)(pages * page));
	close(fd);
	free(buf);
}

/* ----------------------------------------------------------------------
 * Enumeration
 */

static void test_list_is_sorted_numerically_and_skips_non_uio(void)
{
	unsigned int *list;
	size_t nr;

	good_tree();
	put("", "class/uio/uioX");
	put("", "class/uio/uio01");
	put("", "class/uio/uio");
	put("", "class/uio/foo3");
	CHECK_EQ(uio_list_devices(&list, &nr), 0);
	CHECK_EQ(nr, 3);
	if (nr == 3) {
		CHECK_EQ(list[0], 0);
		CHECK_EQ(list[1], 2);
		CHECK_EQ(list[2], 10);
	}
	free(list);
}

static void test_list_without_class_dir_is_empty(void)
{
	unsigned int *list = (unsigned int *)&list;
	size_t nr = 99;

	CHECK_EQ(uio_list_devices(&list, &nr), 0);
	CHECK_EQ(nr, 0);
	CHECK(!list);
}

/* ----------------------------------------------------------------------
 * Reading one device
 */

static void test_read_info_reads_every_field(void)
{
	struct uio_device_info info;
	const struct uio_map_info *m;
	const struct uio_port_info *p;

	good_tree();
	CHECK_EQ(uio_read_info(0, &info), 0);
	CHECK_EQ(info.number, 0);
	CHECK_STR(info.name, "uio_pci_generic");
	CHECK_STR(info.version, "0.01.0");
	CHECK_EQ(info.event, 7);
	CHECK_EQ(info.major, 243);
	CHECK_EQ(info.minor, 0);
	CHECK_STR(info.parent, "0000:00:04.0");
	CHECK_STR(info.driver, "uio_pci_generic");
	CHECK_EQ(info.nr_maps, 2);
	m = &info.maps[0];
	CHECK_EQ(m->index, 0);
	CHECK_EQ(m->err, 0);
	CHECK_STR(m->name, "BAR0");
	CHECK(m->addr_known);
	CHECK_EQ(m->addr, 0xfea00000);
	CHECK_EQ(m->size, 0x100000);
	CHECK_EQ(m->offset, 0);
	CHECK_EQ(info.nr_ports, 1);
	p = &info.ports[0];
	CHECK_EQ(p->err, 0);
	CHECK_STR(p->name, "BAR1");
	CHECK_EQ(p->start, 0xc000);
	CHECK_EQ(p->size, 0x20);
	CHECK_STR(p->porttype, "port_x86");
}

static void test_map_numbering_gaps_keep_indices(void)
{
	struct uio_device_info info;

	good_tree();
	CHECK_EQ(uio_read_info(0, &info), 0);
	CHECK_EQ(info.nr_maps, 2);
	CHECK_EQ(info.maps[1].index, 2);
	CHECK_STR(info.maps[1].name, "BAR2");
	/* offset in decimal is accepted as well as hex */
	CHECK_EQ(info.maps[1].offset, 16);
	CHECK_EQ(info.maps[1].size, 0x30);
	CHECK_EQ(info.maps[1].err, 0);
}

static void test_missing_maps_dir_means_no_maps(void)
{
	struct uio_device_info info;

	good_tree();
	CHECK_EQ(uio_read_info(2, &info), 0);
	CHECK_EQ(info.nr_maps, 0);
	CHECK_EQ(info.nr_ports, 0);
}

static void test_parent_without_driver_has_empty_driver(void)
{
	struct uio_device_info info;

	good_tree();
	CHECK_EQ(uio_read_info(2, &info), 0);
	CHECK_STR(info.parent, "uio_test.0");
	CHECK_STR(info.driver, "");
}

static void test_missing_device_link_means_no_parent(void)
{
	struct uio_device_info info;
	char rel[PATH_MAX];

	good_tree();
	snprintf(rel, sizeof(rel), "%s/device", devdir[2]);
	sys_unlink(rel);
	CHECK_EQ(uio_read_info(2, &info), 0);
	CHECK_STR(info.parent, "");
	CHECK_STR(info.driver, "");
}

static void test_unknown_device_is_enodev(void)
{
	struct uio_device_info info;

	good_tree();
	CHECK_EQ(uio_read_info(1, &info), -ENODEV);
	CHECK_EQ(uio_read_info(11, &info), -ENODEV);
}

static void test_missing_mandatory_file_is_ebadmsg(void)
{
	static const char * const files[] = { "name", "version", "event", "dev" };
	struct uio_device_info info;
	char rel[PATH_MAX];
	unsigned int i;

	good_tree();
	for (i = 0; i < 4; i++) {
		snprintf(rel, sizeof(rel), "%s/%s", devdir[0], files[i]);
		sys_unlink(rel);
		CHECK_EQ(uio_read_info(0, &info), -EBADMSG);
		put(i == 3 ? "243:0\n" : "1\n", "%s", rel);
		CHECK_EQ(uio_read_info(0, &info), 0);
	}
}

static void test_garbage_event_is_ebadmsg(void)
{
	static const char * const bad[] = {
		"", "\n", "12abc\n", "-1\n", " 5\n", "0x10\n", "4294967296\n",
		"99999999999999999999999\n", "1\n2\n",
	};
	struct uio_device_info info;
	unsigned int i;

	good_tree();
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		put(bad[i], "%s/event", devdir[0]);
		if (uio_read_info(0, &info) != -EBADMSG) {
			printf("# event \"%s\" accepted\n", bad[i]);
			failures++;
		}
	}
	put("4294967295\n", "%s/event", devdir[0]);
	CHECK_EQ(uio_read_info(0, &info), 0);
	CHECK_EQ(info.event, 4294967295u);
}

static void test_garbage_dev_is_ebadmsg(void)
{
	static const char * const bad[] = {
		"243\n", "a:b\n", "243:0x1\n", ":1\n", "243:\n", "-1:0\n",
		"243:4294967296\n",
	};
	struct uio_device_info info;
	unsigned int i;

	good_tree();
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		put(bad[i], "%s/dev", devdir[0]);
		if (uio_read_info(0, &info) != -EBADMSG) {
			printf("# dev \"%s\" accepted\n", bad[i]);
			failures++;
		}
	}
}

static void test_overlong_name_is_enametoolong(void)
{
	struct uio_device_info info;
	char name[UIO_NAME_MAX + 1];

	good_tree();
	/* The longest name that fits, with its newline. */
	memset(name, 'n', UIO_NAME_MAX - 1);
	name[UIO_NAME_MAX - 1] = '\n';
	name[UIO_NAME_MAX] = '\0';
	put(name, "%s/name", devdir[0]);
	CHECK_EQ(uio_read_info(0, &info), 0);
	CHECK_EQ(strlen(info.name), UIO_NAME_MAX - 1);
	/* One more character does not fit: rejected, never truncated. */
	name[UIO_NAME_MAX - 1] = 'n';
	put(name, "%s/name", devdir[0]);
	CHECK_EQ(uio_read_info(0, &info), -ENAMETOOLONG);
	put("ok\n", "%s/name", devdir[0]);
	put(name, "%s/version", devdir[0]);
	CHECK_EQ(uio_read_info(0, &info), -ENAMETOOLONG);
}

static void test_nul_in_name_is_ebadmsg(void)
{
	struct uio_device_info info;
	char path[PATH_MAX];
	int fd;

	good_tree();
	snprintf(path, sizeof(path), "%s/%s/name", sysroot, devdir[0]);
	fd = open(path, O_WRONLY | O_TRUNC);
	REQUIRE(fd >= 0);
	REQUIRE(write(fd, "ab\0cd\n", 6) == 6);
	close(fd);
	CHECK_EQ(uio_read_info(0, &info), -EBADMSG);
}

/* Read uio0 and return the error of its map with this index. */
static int map_err(unsigned int index)
{
	struct uio_device_info info;
	unsigned int i;
	int ret;

	ret = uio_read_info(0, &info);
	if (ret) {
		printf("# uio_read_info: %d\n", ret);
		return 1;
	}
	for (i = 0; i < info.nr_maps; i++)
		if (info.maps[i].index == index)
			return info.maps[i].err;
	return 2;
}

static void test_garbage_map_numbers_mark_the_map_bad(void)
{
	good_tree();
	add_map(0, 1, "x\n", "0x1000\n", "zz\n", "0\n");
	CHECK_EQ(map_err(1), -EBADMSG);
	add_map(0, 1, NULL, "0x1000\n", "0x1000 1\n", NULL);
	CHECK_EQ(map_err(1), -EBADMSG);
	add_map(0, 1, NULL, "0x1000\n", "\n", NULL);
	CHECK_EQ(map_err(1), -EBADMSG);
	add_map(0, 1, NULL, "0x1000\n", "0\n", NULL);
	CHECK_EQ(map_err(1), -EBADMSG);
	add_map(0, 1, NULL, "1000h\n", "0x1000\n", NULL);
	CHECK_EQ(map_err(1), -EBADMSG);
	add_map(0, 1, NULL, "0x1000\n", "0x1000\n", "-4\n");
	CHECK_EQ(map_err(1), -EBADMSG);
	/* The other maps stay usable. */
	CHECK_EQ(map_err(0), 0);
	CHECK_EQ(map_err(2), 0);
	add_map(0, 1, NULL, "0x1000\n", "0x1000\n", "0x0\n");
	CHECK_EQ(map_err(1), 0);
}

static void test_missing_map_size_or_addr_marks_the_map_bad(void)
{
	char rel[PATH_MAX];

	good_tree();
	snprintf(rel, sizeof(rel), "%s/maps/map0/size", devdir[0]);
	sys_unlink(rel);
	CHECK_EQ(map_err(0), -EBADMSG);
	snprintf(rel, sizeof(rel), "%s/maps/map2/addr", devdir[0]);
	sys_unlink(rel);
	CHECK_EQ(map_err(2), -EBADMSG);
}

static void test_missing_map_name_and_offset_default(void)
{
	struct uio_device_info info;

	good_tree();
	add_map(0, 4, NULL, "0x2000\n", "0x10\n", NULL);
	CHECK_EQ(uio_read_info(0, &info), 0);
	CHECK_EQ(info.nr_maps, 3);
	CHECK_EQ(info.maps[2].index, 4);
	CHECK_EQ(info.maps[2].err, 0);
	CHECK_STR(info.maps[2].name, "");
	CHECK_EQ(info.maps[2].offset, 0);
}

static void test_huge_map_sizes_are_eoverflow(void)
{
	good_tree();
	/* beyond SIZE_MAX / 2 */
	add_map(0, 1, NULL, "0x0\n", "0x8000000000000000\n", NULL);
	CHECK_EQ(map_err(1), -EOVERFLOW);
	/* beyond 64 bits */
	add_map(0, 1, NULL, "0x0\n", "0x10000000000000000\n", NULL);
	CHECK_EQ(map_err(1), -EOVERFLOW);
	/* addr + size wraps around */
	add_map(0, 1, NULL, "0xfffffffffffff000\n", "0x2000\n", NULL);
	CHECK_EQ(map_err(1), -EOVERFLOW);
	/* offset + size too large */
	add_map(0, 1, NULL, "0x0\n", "0x7fffffffffffff00\n",
		"0x1000\n");
	CHECK_EQ(map_err(1), -EOVERFLOW);
	/* the last page of the address space is fine */
	add_map(0, 1, NULL, "0xfffffffffffff000\n", "0x1000\n", "0\n");
	CHECK_EQ(map_err(1), 0);
}

static void test_map_indices_beyond_the_limit_are_ignored(void)
{
	struct uio_device_info info;

	good_tree();
	add_map(0, UIO_MAX_MAPS, NULL, "0x0\n", "0x1000\n", NULL);
	add_map(0, 99999, NULL, "0x0\n", "0x1000\n", NULL);
	put("", "%s/maps/mapx", devdir[0]);
	CHECK_EQ(uio_read_info(0, &info), 0);
	CHECK_EQ(info.nr_maps, 2);
}

/* Drop to nobody (65534) so that mode bits count even for root. */
static void drop_privileges(void)
{
	if (geteuid())
		return;
	REQUIRE(!setgid(65534));
	REQUIRE(!setuid(65534));
	REQUIRE(geteuid());
}

static void test_unreadable_addr_is_unknown_not_error(void)
{
	struct uio_device_info info;
	char path[PATH_MAX];

	good_tree();
	snprintf(path, sizeof(path), "%s/%s/maps/map0/addr", sysroot,
		 devdir[0]);
	REQUIRE(!chmod(path, 0400));
	REQUIRE(!chmod(root, 0755));
	drop_privileges();
	CHECK_EQ(uio_read_info(0, &info), 0);
	CHECK_EQ(info.maps[0].err, 0);
	CHECK(!info.maps[0].addr_known);
	CHECK_EQ(info.maps[0].size, 0x100000);
	CHECK(info.maps[1].addr_known);
	CHECK_EQ(info.maps[1].addr, 0xfe000000);
}

static void test_unreadable_name_is_eacces(void)
{
	struct uio_device_info info;
	char path[PATH_MAX];

	good_tree();
	snprintf(path, sizeof(path), "%s/%s/name", sysroot, devdir[0]);
	REQUIRE(!chmod(path, 0400));
	REQUIRE(!chmod(root, 0755));
	drop_privileges();
	CHECK_EQ(uio_read_info(0, &info), -EACCES);
}

/* ----------------------------------------------------------------------
 * Finding devices
 */

static void test_find_by_name_returns_lowest_number(void)
{
	unsigned int n = 99;

	good_tree();
	CHECK_EQ(uio_find_by_name("uio_test", &n), 0);
	CHECK_EQ(n, 2);
	CHECK_EQ(uio_find_by_name("uio_pci_generic", &n), 0);
	CHECK_EQ(n, 0);
	CHECK_EQ(uio_find_by_name("uio_pci", &n), -ENODEV);
	CHECK_EQ(uio_find_by_name("", &n), -ENODEV);
}

static void test_find_by_minor_reads_dev(void)
{
	unsigned int n = 99;

	good_tree();
	put("243:5\n", "%s/dev", devdir[10]);
	CHECK_EQ(uio_find_by_minor(5, &n), 0);
	CHECK_EQ(n, 10);
	CHECK_EQ(uio_find_by_minor(10, &n), -ENODEV);
	CHECK_EQ(uio_find_by_minor(2, &n), 0);
	CHECK_EQ(n, 2);
}

static void test_find_by_parent_matches_link_basename(void)
{
	unsigned int n = 99;

	good_tree();
	CHECK_EQ(uio_find_by_parent("0000:00:04.0", &n), 0);
	CHECK_EQ(n, 0);
	CHECK_EQ(uio_find_by_parent("uio_test.1", &n), 0);
	CHECK_EQ(n, 10);
	CHECK_EQ(uio_find_by_parent("0000:00:05.0", &n), -ENODEV);
	CHECK_EQ(uio_find_by_parent("", &n), -ENODEV);
}

/*
 * uio_pci_generic with several vectors: vector 1's device is a child of
 * vector 0's (its device link names uio0), linked from the PCI device.
 */
static void test_find_vector_follows_parent_link(void)
{
	unsigned int n = 99;

	good_tree();
	add_device(3, "pci0000:00/0000:00:04.0/uio/uio0",
		   "uio_pci_generic:vector1\n", "1.0\n", "0\n");
	sys_symlink("uio/uio0/uio/uio3",
		    "devices/pci0000:00/0000:00:04.0/uio_vector1");
	CHECK_EQ(uio_find_vector("0000:00:04.0", 0, &n), 0);
	CHECK_EQ(n, 0);
	CHECK_EQ(uio_find_vector("0000:00:04.0", 1, &n), 0);
	CHECK_EQ(n, 3);
	CHECK_EQ(uio_find_vector("0000:00:04.0", 2, &n), -ENODEV);
	CHECK_EQ(uio_find_vector("0000:00:05.0", 1, &n), -ENODEV);
	/* The parent's own device stays vector 0's. */
	CHECK_EQ(uio_find_by_parent("0000:00:04.0", &n), 0);
	CHECK_EQ(n, 0);
}

static void test_find_skips_unreadable_devices(void)
{
	unsigned int n = 99;

	good_tree();
	put("garbage\n", "%s/event", devdir[2]);
	CHECK_EQ(uio_find_by_name("uio_test", &n), 0);
	CHECK_EQ(n, 10);
}

/* ----------------------------------------------------------------------
 * Opening, mapping, irqcontrol
 */

static void test_open_without_node_is_enodev(void)
{
	struct uio_dev *dev = NULL;

	good_tree();
	CHECK_EQ(uio_open(0, &dev), -ENODEV);
	CHECK(!dev);
	CHECK_EQ(uio_open(5, &dev), -ENODEV);
	CHECK_EQ(uio_open_by_name("nope", &dev), -ENODEV);
}

static void test_open_by_name_and_parent_pick_the_device(void)
{
	struct uio_dev *dev;

	good_tree();
	dev_file(0, 1);
	dev_file(10, 1);
	CHECK_EQ(uio_open_by_parent("0000:00:04.0", &dev), 0);
	if (!failures) {
		CHECK_EQ(uio_info(dev)->number, 0);
		CHECK(uio_fd(dev) >= 0);
		uio_close(dev);
	}
	put("other\n", "%s/name", devdir[2]);
	CHECK_EQ(uio_open_by_name("uio_test", &dev), 0);
	if (!failures) {
		CHECK_EQ(uio_info(dev)->number, 10);
		uio_close(dev);
	}
}

/* uio0's DMA pool: two buffers of a page, at file pages 1 and 2. */
static void dma_tree(void)
{
	char off[32];

	put("2\n", "%s/dma/count", devdir[0]);
	put("0x1000\n", "%s/dma/size", devdir[0]);
	put("28\n", "%s/dma/dma_mask", devdir[0]);
	put("none\n", "%s/dma/iommu", devdir[0]);
	snprintf(off, sizeof(off), "0x%lx\n", page);
	put(off, "%s/dma/buf0/offset", devdir[0]);
	put("0x0000000001234000\n", "%s/dma/buf0/dma_addr", devdir[0]);
	snprintf(off, sizeof(off), "0x%lx\n", 2 * page);
	put(off, "%s/dma/buf1/offset", devdir[0]);
	put("0x2345000\n", "%s/dma/buf1/dma_addr", devdir[0]);
}

static void test_read_dma_reads_the_pool(void)
{
	struct uio_dma_info dma;

	good_tree();
	dma_tree();
	CHECK_EQ(uio_read_dma(0, &dma), 0);
	CHECK_EQ(dma.count, 2);
	CHECK_EQ(dma.size, 0x1000);
	CHECK_EQ(dma.mask_bits, 28);
	CHECK_STR(dma.iommu, "none");
	CHECK_EQ(dma.bufs[1].index, 1);
	CHECK(dma.bufs[0].dma_addr_known);
	CHECK_EQ(dma.bufs[0].dma_addr, 0x1234000);
	CHECK_EQ(dma.bufs[1].offset, 2 * page);
	CHECK_EQ(uio_read_dma(2, &dma), -ENOENT);
	CHECK_EQ(uio_read_dma(5, &dma), -ENODEV);
	put("17\n", "%s/dma/count", devdir[0]);
	CHECK_EQ(uio_read_dma(0, &dma), -EBADMSG);
	put("2\n", "%s/dma/count", devdir[0]);
	sys_unlink("devices/pci0000:00/0000:00:04.0/uio/uio0/dma/buf1/offset");
	CHECK_EQ(uio_read_dma(0, &dma), -EBADMSG);
}

static void test_dma_map_maps_the_buffer_offset(void)
{
	struct uio_dma_buf_info buf;
	struct uio_dev *dev;
	uint32_t *p;

	good_tree();
	dma_tree();
	dev_file(0, 3);
	REQUIRE(!uio_open(0, &dev));
	CHECK_EQ(uio_dma_map(dev, 1, (void **)&p, &buf), 0);
	if (!failures) {
		CHECK_EQ(buf.dma_addr, 0x2345000);
		CHECK_EQ(buf.size, 0x1000);
		CHECK_EQ(p[3], 0x00020003);
		munmap(p, buf.size);
	}
	CHECK_EQ(uio_dma_map(dev, 2, (void **)&p, &buf), -ENXIO);
	uio_close(dev);
}

static void test_map_points_at_offset_in_map_page(void)
{
	struct uio_dev *dev;
	uint32_t *p, *again;
	size_t size = 0;

	good_tree();
	dev_file(0, 3);
	REQUIRE(!uio_open(0, &dev));
	/* map0: page 0, offset 0: word 0 of page 0 */
	CHECK_EQ(uio_map(dev, 0, (void **)&p, &size), 0);
	if (!failures) {
		CHECK_EQ(size, 0x100000);
		CHECK_EQ(p[0], 0x00000000);
		CHECK_EQ(p[5], 0x00000005);
	}
	/* map2: page 2, offset 16: word 4 of page 2 */
	CHECK_EQ(uio_map(dev, 2, (void **)&p, &size), 0);
	if (!failures) {
		CHECK_EQ(size, 0x30);
		CHECK_EQ(p[0], 0x00020004);
		CHECK_EQ((uintptr_t)p % page, 16);
		CHECK_EQ(uio_map(dev, 2, (void **)&again, NULL), 0);
		CHECK(again == p);
	}
	uio_close(dev);
}

/*
 * The first register of a region that does not start on a page boundary,
 * described both ways mainline stubs do: Linux 6.1's uio_pci_generic
 * (page-aligned addr, the region's offset in offset) and its
 * uio_pdrv_genirq (unaligned addr, no offset).
 */
static void test_map_reaches_unaligned_first_register(void)
{
	struct uio_dev *dev;
	uint32_t *p;

	good_tree();
	add_map(0, 1, "aligned\n", "0x40000000\n", "0x100\n", "0x80\n");
	add_map(0, 3, "unaligned\n", "0x40000080\n", "0x80\n", NULL);
	dev_file(0, 4);
	REQUIRE(!uio_open(0, &dev));
	CHECK_EQ(uio_map(dev, 1, (void **)&p, NULL), 0);
	if (!failures) {
		CHECK_EQ((uintptr_t)p % page, 0x80);
		CHECK_EQ(p[0], 0x00010020);
	}
	CHECK_EQ(uio_map(dev, 3, (void **)&p, NULL), 0);
	if (!failures) {
		CHECK_EQ((uintptr_t)p % page, 0x80);
		CHECK_EQ(p[0], 0x00030020);
	}
	uio_close(dev);
}

static void test_map_writes_reach_the_device(void)
{
	char path[PATH_MAX];
	struct uio_dev *dev;
	uint32_t *p, word = 0;
	int fd;

	good_tree();
	dev_file(0, 3);
	REQUIRE(!uio_open(0, &dev));
	REQUIRE(!uio_map(dev, 2, (void **)&p, NULL));
	p[1] = 0xdeadbeef;
	uio_close(dev);
	snprintf(path, sizeof(path), "%s/uio0", devroot);
	fd = open(path, O_RDONLY);
	REQUIRE(fd >= 0);
	CHECK_EQ(pread(fd, &word, 4, 2 * page + 16 + 4), 4);
	CHECK_EQ(word, 0xdeadbeef);
	close(fd);
}

/* Length of the mapping that contains addr, from /proc/self/maps. */
static unsigned long mapping_len(const void *addr)
{
	unsigned long start, end, a = (unsigned long)addr;
	char line[512];
	FILE *f;

	f = fopen("/proc/self/maps", "r");
	REQUIRE(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx", &start, &end) == 2 &&
		    a >= start && a < end) {
			fclose(f);
			return end - start;
		}
	}
	fclose(f);
	return 0;
}

/* The kernel allows the pages addr .. addr + size - 1 touches, no more. */
static void test_map_length_covers_the_pages_of_the_region(void)
{
	struct uio_dev *dev;
	char size[32], off[32];
	void *p;

	good_tree();
	/* straddles a page boundary: two pages */
	snprintf(size, sizeof(size), "0x%lx\n", page - 16 + 0x20);
	snprintf(off, sizeof(off), "0x%lx\n", page - 16);
	add_map(0, 1, NULL, "0x40000000\n", size, off);
	/* page-aligned addr, offset inside size (mainline style): one page */
	snprintf(off, sizeof(off), "0x%lx\n", page);
	add_map(0, 3, NULL, "0x40000000\n", off, "0x10\n");
	dev_file(0, 5);
	REQUIRE(!uio_open(0, &dev));
	CHECK_EQ(uio_map(dev, 1, &p, NULL), 0);
	if (!failures) {
		CHECK_EQ((uintptr_t)p % page, page - 16);
		CHECK_EQ(mapping_len(p), 2 * page);
	}
	CHECK_EQ(uio_map(dev, 3, &p, NULL), 0);
	if (!failures) {
		CHECK_EQ((uintptr_t)p % page, 16);
		CHECK_EQ(mapping_len(p), page);
	}
	CHECK_EQ(uio_map(dev, 0, &p, NULL), 0);
	if (!failures)
		CHECK_EQ(mapping_len(p), 0x100000);
	uio_close(dev);
}

static void test_map_by_name_and_missing_maps(void)
{
	struct uio_dev *dev;
	uint32_t *p;

	good_tree();
	dev_file(0, 3);
	REQUIRE(!uio_open(0, &dev));
	CHECK_EQ(uio_map_by_name(dev, "BAR2", (void **)&p, NULL), 0);
	if (!failures)
		CHECK_EQ(p[0], 0x00020004);
	CHECK_EQ(uio_map_by_name(dev, "BAR1", (void **)&p, NULL), -ENXIO);
	CHECK_EQ(uio_map(dev, 1, (void **)&p, NULL), -ENXIO);
	CHECK_EQ(uio_map(dev, UIO_MAX_MAPS, (void **)&p, NULL), -ENXIO);
	CHECK_EQ(uio_map(dev, ~0u, (void **)&p, NULL), -ENXIO);
	uio_close(dev);
}

static void test_map_refuses_a_bad_map(void)
{
	struct uio_dev *dev;
	void *p = NULL;

	good_tree();
	add_map(0, 1, NULL, "0x0\n", "0x8000000000000000\n", NULL);
	add_map(0, 3, NULL, "0x0\n", "0x10\n", "0x10000\n");
	dev_file(0, 4);
	REQUIRE(!uio_open(0, &dev));
	CHECK_EQ(uio_map(dev, 1, &p, NULL), -EOVERFLOW);
	/* offset beyond the first page cannot be mapped */
	CHECK_EQ(uio_map(dev, 3, &p, NULL), -EOVERFLOW);
	CHECK(!p);
	uio_close(dev);
}

static void test_unmap_twice_is_enxio(void)
{
	struct uio_dev *dev;
	void *p;

	good_tree();
	dev_file(0, 1);
	REQUIRE(!uio_open(0, &dev));
	REQUIRE(!uio_map(dev, 0, &p, NULL));
	CHECK_EQ(uio_unmap(dev, 0), 0);
	CHECK_EQ(uio_unmap(dev, 0), -ENXIO);
	CHECK_EQ(uio_unmap(dev, 2), -ENXIO);
	uio_close(dev);
}

static void test_irq_control_writes_s32(void)
{
	char path[PATH_MAX];
	struct uio_dev *dev;
	int32_t words[2] = { -1, -1 };
	int fd;

	good_tree();
	dev_file(0, 1);
	REQUIRE(!uio_open(0, &dev));
	CHECK_EQ(uio_irq_control(dev, true), 0);
	CHECK_EQ(uio_irq_control(dev, false), 0);
	uio_close(dev);
	snprintf(path, sizeof(path), "%s/uio0", devroot);
	fd = open(path, O_RDONLY);
	REQUIRE(fd >= 0);
	CHECK_EQ(read(fd, words, 8), 8);
	CHECK_EQ(words[0], 1);
	CHECK_EQ(words[1], 0);
	close(fd);
}

/* A FIFO for /dev/uio0 and a writer end for the test. */
static int fifo_dev(void)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/uio0", devroot);
	REQUIRE(!mkfifo(path, 0600));
	fd = open(path, O_RDWR | O_NONBLOCK);
	REQUIRE(fd >= 0);
	return fd;
}

static void fire(int fd, int32_t count)
{
	REQUIRE(write(fd, &count, 4) == 4);
}

static void test_wait_times_out_without_event(void)
{
	struct timespec t0, t1;
	struct uio_dev *dev;
	uint32_t count = 42;
	long ms;
	int wfd;

	good_tree();
	wfd = fifo_dev();
	REQUIRE(!uio_open(0, &dev));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_EQ(uio_wait(dev, 200, &count, NULL), -ETIMEDOUT);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 +
	     (t1.tv_nsec - t0.tv_nsec) / 1000000;
	CHECK(ms >= 190 && ms < 2000);
	CHECK_EQ(count, 42);
	CHECK_EQ(uio_wait(dev, 0, NULL, NULL), -ETIMEDOUT);
	uio_close(dev);
	close(wfd);
}

static void test_wait_reports_count_and_missed(void)
{
	struct uio_dev *dev;
	uint32_t count, missed;
	int wfd;

	good_tree();		/* uio0's sysfs event count is 7 */
	wfd = fifo_dev();
	REQUIRE(!uio_open(0, &dev));
	fire(wfd, 10);
	CHECK_EQ(uio_wait(dev, 1000, &count, &missed), 0);
	CHECK_EQ(count, 10);
	CHECK_EQ(missed, 2);
	fire(wfd, 11);
	CHECK_EQ(uio_wait(dev, 1000, &count, &missed), 0);
	CHECK_EQ(count, 11);
	CHECK_EQ(missed, 0);
	/* the s32 counter wraps; the difference still counts */
	fire(wfd, -1);
	CHECK_EQ(uio_wait(dev, 1000, &count, &missed), 0);
	fire(wfd, 1);
	CHECK_EQ(uio_wait(dev, -1, &count, &missed), 0);
	CHECK_EQ(count, 1);
	CHECK_EQ(missed, 1);
	uio_close(dev);
	close(wfd);
}

static void test_wait_short_read_is_ebadmsg(void)
{
	struct uio_dev *dev;
	int wfd;

	good_tree();
	wfd = fifo_dev();
	REQUIRE(!uio_open(0, &dev));
	REQUIRE(write(wfd, "ab", 2) == 2);
	CHECK_EQ(uio_wait(dev, 1000, NULL, NULL), -EBADMSG);
	uio_close(dev);
	close(wfd);
}

/* ----------------------------------------------------------------------
 * Roots and messages
 */

static void test_roots_come_from_environment(void)
{
	char sys[PATH_MAX + 16];

	REQUIRE(!setenv("UIO_SYSFS_ROOT", "/x/sys", 1));
	REQUIRE(!setenv("UIO_DEV_ROOT", "/x/dev", 1));
	CHECK_EQ(uio_set_root(NULL, NULL), 0);
	CHECK_STR(uio_sysfs_root(), "/x/sys");
	CHECK_STR(uio_dev_root(), "/x/dev");
	CHECK_EQ(uio_set_root("/a", NULL), 0);
	CHECK_STR(uio_sysfs_root(), "/a");
	CHECK_STR(uio_dev_root(), "/x/dev");
	REQUIRE(!unsetenv("UIO_SYSFS_ROOT"));
	REQUIRE(!unsetenv("UIO_DEV_ROOT"));
	CHECK_EQ(uio_set_root(NULL, NULL), 0);
	CHECK_STR(uio_sysfs_root(), "/sys");
	CHECK_STR(uio_dev_root(), "/dev");
	/* an overlong root is refused and changes nothing */
	memset(sys, 'a', sizeof(sys) - 1);
	sys[sizeof(sys) - 1] = '\0';
	CHECK_EQ(uio_set_root(sys, "/d"), -ENAMETOOLONG);
	CHECK_STR(uio_dev_root(), "/dev");
}

static void test_strerror_names_each_failure(void)
{
	static const int codes[] = {
		ENODEV, ENXIO, EACCES, EIO, EBADMSG, EOVERFLOW, ENAMETOOLONG,
		ETIMEDOUT, ENOSYS,
	};
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(codes); i++) {
		CHECK(uio_strerror(-codes[i]));
		CHECK_STR(uio_strerror(-codes[i]), uio_strerror(codes[i]));
		for (j = 0; j < i; j++)
			CHECK(strcmp(uio_strerror(-codes[i]),
				     uio_strerror(-codes[j])));
	}
	CHECK_STR(uio_strerror(-ENODEV), "no such UIO device");
	CHECK_STR(uio_strerror(-ENXIO), "no such map");
	CHECK_STR(uio_strerror(-EACCES), "permission denied");
	CHECK(strstr(uio_strerror(-EIO), "gone"));
	CHECK(strstr(uio_strerror(-EBADMSG), "malformed"));
	CHECK(uio_strerror(-12345));
}

/* ----------------------------------------------------------------------
 * Runner
 */

struct test {
	const char *name;
	void (*fn)(void);
};

#define T(fn)	{ #fn + 5, fn }

static const struct test tests[] = {
	T(test_list_is_sorted_numerically_and_skips_non_uio),
	T(test_list_without_class_dir_is_empty),
	T(test_read_info_reads_every_field),
	T(test_map_numbering_gaps_keep_indices),
	T(test_missing_maps_dir_means_no_maps),
	T(test_parent_without_driver_has_empty_driver),
	T(test_missing_device_link_means_no_parent),
	T(test_unknown_device_is_enodev),
	T(test_missing_mandatory_file_is_ebadmsg),
	T(test_garbage_event_is_ebadmsg),
	T(test_garbage_dev_is_ebadmsg),
	T(test_overlong_name_is_enametoolong),
	T(test_nul_in_name_is_ebadmsg),
	T(test_garbage_map_numbers_mark_the_map_bad),
	T(test_missing_map_size_or_addr_marks_the_map_bad),
	T(test_missing_map_name_and_offset_default),
	T(test_huge_map_sizes_are_eoverflow),
	T(test_map_indices_beyond_the_limit_are_ignored),
	T(test_unreadable_addr_is_unknown_not_error),
	T(test_unreadable_name_is_eacces),
	T(test_find_by_name_returns_lowest_number),
	T(test_find_by_minor_reads_dev),
	T(test_find_by_parent_matches_link_basename),
	T(test_find_vector_follows_parent_link),
	T(test_find_skips_unreadable_devices),
	T(test_open_without_node_is_enodev),
	T(test_open_by_name_and_parent_pick_the_device),
	T(test_read_dma_reads_the_pool),
	T(test_dma_map_maps_the_buffer_offset),
	T(test_map_points_at_offset_in_map_page),
	T(test_map_reaches_unaligned_first_register),
	T(test_map_writes_reach_the_device),
	T(test_map_length_covers_the_pages_of_the_region),
	T(test_map_by_name_and_missing_maps),
	T(test_map_refuses_a_bad_map),
	T(test_unmap_twice_is_enxio),
	T(test_irq_control_writes_s32),
	T(test_wait_times_out_without_event),
	T(test_wait_reports_count_and_missed),
	T(test_wait_short_read_is_ebadmsg),
	T(test_roots_come_from_environment),
	T(test_strerror_names_each_failure),
};

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Run one test in a child with its own tree; return its verdict. */
static bool run_one(const struct test *t)
{
	int status;
	pid_t pid;

	snprintf(root, sizeof(root), "/tmp/test_libuio.XXXXXX");
	if (!mkdtemp(root)) {
		printf("# mkdtemp: %s\n", strerror(errno));
		return false;
	}
	snprintf(sysroot, sizeof(sysroot), "%s/sys", root);
	snprintf(devroot, sizeof(devroot), "%s/dev", root);
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		printf("# fork: %s\n", strerror(errno));
		return false;
	}
	if (!pid) {
		alarm(TEST_TIMEOUT_S);
		mkdirs(sysroot);
		mkdirs(devroot);
		REQUIRE(!uio_set_root(sysroot, devroot));
		t->fn();
		fflush(stdout);
		_exit(failures ? 1 : 0);
	}
	REQUIRE(waitpid(pid, &status, 0) == pid);
	nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	if (WIFSIGNALED(status)) {
		printf("# killed by signal %d%s\n", WTERMSIG(status),
		       WTERMSIG(status) == SIGALRM ? " (timeout)" : "");
		return false;
	}
	return WIFEXITED(status) && !WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	const char *filter = argc > 1 ? argv[1] : NULL;
	unsigned int i, n = 0, planned = 0, failed = 0;
	const unsigned int nr = ARRAY_SIZE(tests);

	page = sysconf(_SC_PAGESIZE);
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < nr; i++)
		if (!filter || strstr(tests[i].name, filter))
			planned++;
	printf("TAP version 13\n1..%u\n", planned);
	for (i = 0; i < nr; i++) {
		bool ok;

		if (filter && !strstr(tests[i].name, filter))
			continue;
		ok = run_one(&tests[i]);
		failed += !ok;
		printf("%sok %u - %s\n", ok ? "" : "not ", ++n, tests[i].name);
	}
	printf("# %u passed, %u failed\n", planned - failed, failed);
	return failed ? 1 : 0;
}
