// SPDX-License-Identifier: GPL-2.0
/*
 * Guest test of libuio and lsuio against QEMU's edu device (1234:11e8)
 * bound to uio_pci_generic. Built static, run as root in the busybox
 * initramfs. Every test runs in its own child under alarm(); output is TAP.
 *
 *   guest_libuio_test [<substring>]
 *
 * lsuio is looked up in $LSUIO, next to this binary, then in /bin, /sbin,
 * /usr/sbin; the lsuio tests SKIP when it is nowhere.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libuio.h"
#include "cif/cif_dpram.h"

#define TEST_TIMEOUT_S	20
#define TEST_SKIP	4

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define EDU_ID		0x00
#define EDU_LIVENESS	0x04
#define EDU_FACTORIAL	0x08
#define EDU_STATUS	0x20
#define EDU_IRQ_STATUS	0x24
#define EDU_IRQ_RAISE	0x60
#define EDU_IRQ_ACK	0x64

static char edu_addr[64];	/* PCI address of the first edu, "" if none */
static char lsuio_path[PATH_MAX];	/* lsuio binary, "" if not found */
static char edu_uio_path[PATH_MAX];	/* the example, "" if not found */
static char edu_dma_path[PATH_MAX];	/* the DMA example, "" if not found */
static int failures;		/* failed checks of the running test */

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		printf("# %s:%d: check failed: %s\n", __FILE__, __LINE__, \
		       #cond);						\
		failures++;						\
	}								\
} while (0)

#define CHECK_EQ(a, b) do {						\
	long long _a = (a), _b = (b);					\
	if (_a != _b) {							\
		printf("# %s:%d: %s == %lld (0x%llx), expected %s == %lld\n", \
		       __FILE__, __LINE__, #a, _a, _a, #b, _b);		\
		failures++;						\
	}								\
} while (0)

/* A step without which the test cannot go on: fail it now. */
#define REQUIRE_OK(expr) do {						\
	int _r = (expr);						\
	if (_r) {							\
		printf("# %s:%d: %s: %s\n", __FILE__, __LINE__, #expr,	\
		       uio_strerror(_r));				\
		exit(1);						\
	}								\
} while (0)

static void skip(const char *why)
{
	printf("# SKIP %s\n", why);
	fflush(stdout);
	_exit(TEST_SKIP);
}

static bool read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, len, f);
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

static void find_edu(void)
{
	char path[PATH_MAX], vendor[16], device[16];
	struct dirent *de;
	DIR *d;

	d = opendir("/sys/bus/pci/devices");
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    strlen(de->d_name) >= sizeof(edu_addr))
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/vendor",
			 de->d_name);
		if (!read_line(path, vendor, sizeof(vendor)))
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/device",
			 de->d_name);
		if (!read_line(path, device, sizeof(device)))
			continue;
		/* the lowest address, for a stable choice */
		if (!strcmp(vendor, "0x1234") && !strcmp(device, "0x11e8") &&
		    (!edu_addr[0] || strcmp(de->d_name, edu_addr) < 0))
			strcpy(edu_addr, de->d_name);
	}
	closedir(d);
}

/* Find a tool: $<ENV>, next to this binary, then /bin, /sbin, /usr/sbin. */
static void find_tool(const char *name, const char *env, char *out,
		      size_t len)
{
	static const char * const dirs[] = { "/bin", "/sbin", "/usr/sbin" };
	char self[PATH_MAX], *slash;
	unsigned int i;
	ssize_t n;

	if (getenv(env) && !access(getenv(env), X_OK)) {
		snprintf(out, len, "%s", getenv(env));
		return;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			slash[1] = '\0';
			snprintf(out, len, "%s%s", self, name);
			if (!access(out, X_OK))
				return;
		}
	}
	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(out, len, "%s/%s", dirs[i], name);
		if (!access(out, X_OK))
			return;
	}
	out[0] = '\0';
}

/* Open the edu's UIO device and map BAR0; skip without an edu. */
static struct uio_dev *edu_open(void **bar0)
{
	struct uio_dev *dev;

	if (!edu_addr[0])
		skip("no edu device (1234:11e8) in this guest");
	REQUIRE_OK(uio_open_by_parent(edu_addr, &dev));
	if (bar0)
		REQUIRE_OK(uio_map(dev, 0, bar0, NULL));
	return dev;
}

#define RD(bar, reg)		uio_read32(bar, reg)
#define WR(bar, reg, val)	uio_write32(bar, reg, val)

static void test_find_by_name_finds_the_edu(void)
{
	struct uio_device_info info;
	unsigned int n;

	if (!edu_addr[0])
		skip("no edu device");
	CHECK_EQ(uio_find_by_name("uio_pci_generic", &n), 0);
	if (failures)
		return;
	CHECK_EQ(uio_read_info(n, &info), 0);
	CHECK(!strcmp(info.name, "uio_pci_generic"));
	CHECK(!strcmp(info.driver, "uio_pci_generic"));
}

static void test_find_by_parent_matches_pci_address(void)
{
	struct uio_device_info info;
	unsigned int n;

	if (!edu_addr[0])
		skip("no edu device");
	CHECK_EQ(uio_find_by_parent(edu_addr, &n), 0);
	if (failures)
		return;
	CHECK_EQ(uio_read_info(n, &info), 0);
	CHECK(!strcmp(info.parent, edu_addr));
	CHECK_EQ(uio_find_by_parent("0000:ff:1f.7", &n), -ENODEV);
}

static void test_map0_matches_bar0_resource(void)
{
	char path[PATH_MAX], line[128];
	unsigned long long start, end, flags;
	const struct uio_device_info *info;
	struct uio_dev *dev;
	int fields;

	dev = edu_open(NULL);
	info = uio_info(dev);
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource",
		 edu_addr);
	CHECK(read_line(path, line, sizeof(line)));
	fields = sscanf(line, "%llx %llx %llx", &start, &end, &flags);
	CHECK_EQ(fields, 3);
	CHECK(info->nr_maps >= 1);
	if (failures)
		goto close;
	CHECK_EQ(info->maps[0].index, 0);
	CHECK_EQ(info->maps[0].err, 0);
	CHECK_EQ(info->maps[0].size, end - start + 1);
	CHECK(info->maps[0].addr_known);
	CHECK_EQ(info->maps[0].addr + info->maps[0].offset, start);
close:
	uio_close(dev);
}

static void test_bar0_reads_edu_id_and_liveness(void)
{
	void *bar;
	struct uio_dev *dev;

	dev = edu_open(&bar);
	CHECK_EQ(RD(bar, EDU_ID) & 0xff, 0xed);
	WR(bar, EDU_LIVENESS, 0x12345678);
	CHECK_EQ(RD(bar, EDU_LIVENESS), (uint32_t)~0x12345678u);
	WR(bar, EDU_LIVENESS, 0);
	CHECK_EQ(RD(bar, EDU_LIVENESS), 0xffffffffu);
	uio_close(dev);
}

/*
 * The CIF card's 128-byte PLX block through uio_cif: the pointer libuio
 * returns is the first register (LAS0RR, a read-only reset value)
 * wherever in its page the BAR sits.
 */
static void test_cif_map0_reaches_first_plx_register(void)
{
	const struct uio_map_info *m;
	struct uio_dev *dev;
	void *plx;

	if (uio_open_by_name("CIF_Profibus", &dev) &&
	    uio_open_by_name("CIF_Devicenet", &dev))
		skip("no uio_cif device in this guest");
	REQUIRE_OK(uio_map(dev, 0, &plx, NULL));
	m = &uio_info(dev)->maps[0];
	CHECK_EQ(m->index, 0);
	CHECK(m->addr_known);
	CHECK_EQ(m->addr % getpagesize(), 0);
	CHECK_EQ((uintptr_t)plx % getpagesize(), m->offset);
	CHECK_EQ(RD(plx, CIF_PLX_LAS0RR), CIF_PLX_LAS0RR_RESET);
	uio_close(dev);
}

static void test_factorial_register_computes_5(void)
{
	void *bar;
	struct uio_dev *dev;
	int spins = 0;

	dev = edu_open(&bar);
	WR(bar, EDU_FACTORIAL, 5);
	while ((RD(bar, EDU_STATUS) & 0x01) && spins++ < 100000000)
		;
	CHECK_EQ(RD(bar, EDU_STATUS) & 0x01, 0);
	CHECK_EQ(RD(bar, EDU_FACTORIAL), 120);
	uio_close(dev);
}

/* Raise, wait, ack, re-enable; the count must step by exactly one. */
static void test_irq_round_trip_counts_each_interrupt(void)
{
	uint32_t count, missed, prev = 0;
	void *bar;
	struct uio_dev *dev;
	int i;

	dev = edu_open(&bar);
	REQUIRE_OK(uio_irq_control(dev, true));
	/* nothing pending: a short wait must time out */
	CHECK_EQ(uio_wait(dev, 100, NULL, NULL), -ETIMEDOUT);
	for (i = 0; i < 5; i++) {
		WR(bar, EDU_IRQ_RAISE, 0x100u << i);
		CHECK_EQ(uio_wait(dev, 2000, &count, &missed), 0);
		CHECK_EQ(missed, 0);
		if (i)
			CHECK_EQ(count, prev + 1);
		prev = count;
		CHECK_EQ(RD(bar, EDU_IRQ_STATUS), 0x100u << i);
		WR(bar, EDU_IRQ_ACK, RD(bar, EDU_IRQ_STATUS));
		CHECK_EQ(RD(bar, EDU_IRQ_STATUS), 0);
		CHECK_EQ(uio_irq_control(dev, true), 0);
		if (failures)
			break;
	}
	/* acked: no further event */
	CHECK_EQ(uio_wait(dev, 200, NULL, NULL), -ETIMEDOUT);
	uio_close(dev);
}

/* A disabled interrupt stays pending and arrives on enable. */
static void test_irq_disable_holds_event_until_enable(void)
{
	void *bar;
	struct uio_dev *dev;
	uint32_t count;

	dev = edu_open(&bar);
	REQUIRE_OK(uio_irq_control(dev, false));
	WR(bar, EDU_IRQ_RAISE, 0x1);
	CHECK_EQ(uio_wait(dev, 300, NULL, NULL), -ETIMEDOUT);
	CHECK_EQ(uio_irq_control(dev, true), 0);
	CHECK_EQ(uio_wait(dev, 2000, &count, NULL), 0);
	WR(bar, EDU_IRQ_ACK, 0x1);
	CHECK_EQ(uio_irq_control(dev, true), 0);
	CHECK_EQ(uio_wait(dev, 200, NULL, NULL), -ETIMEDOUT);
	uio_close(dev);
}

/* Run a tool with up to two arguments; its stdout goes to buf. */
static int run_tool(const char *path, const char *arg1, const char *arg2,
		    char *buf, size_t len)
{
	size_t got = 0;
	int pfd[2], status;
	ssize_t n;
	pid_t pid;

	if (!path[0])
		skip("tool not found");
	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		execl(path, path, arg1, arg2, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	while (got < len - 1 && (n = read(pfd[0], buf + got,
					  len - 1 - got)) > 0)
		got += n;
	buf[got] = '\0';
	close(pfd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static void test_lsuio_json_lists_the_edu(void)
{
	char out[16384], want[256];
	unsigned int n;

	if (!edu_addr[0])
		skip("no edu device");
	REQUIRE_OK(uio_find_by_parent(edu_addr, &n));
	CHECK_EQ(run_tool(lsuio_path, "--json", NULL, out, sizeof(out)), 0);
	CHECK(!strncmp(out, "{\"lsuio_json_version\":1,\"devices\":[", 35));
	snprintf(want, sizeof(want),
		 "{\"device\":\"uio%u\",\"number\":%u,\"name\":\"uio_pci_generic\",",
		 n, n);
	CHECK(strstr(out, want));
	snprintf(want, sizeof(want),
		 "\"parent\":\"%s\",\"driver\":\"uio_pci_generic\"", edu_addr);
	CHECK(strstr(out, want));
	CHECK(strstr(out, "\"maps\":[{\"index\":0,"));
	if (failures)
		printf("# lsuio --json said:\n%s", out);
}

static void test_lsuio_plain_line_names_device(void)
{
	char out[16384], want[256];
	unsigned int n;

	if (!edu_addr[0])
		skip("no edu device");
	REQUIRE_OK(uio_find_by_parent(edu_addr, &n));
	CHECK_EQ(run_tool(lsuio_path, "-m", NULL, out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "uio%u uio_pci_generic ", n);
	CHECK(strstr(out, want));
	snprintf(want, sizeof(want), " parent=%s driver=uio_pci_generic\n",
		 edu_addr);
	CHECK(strstr(out, want));
	CHECK(strstr(out, "\tmap0: "));
	if (failures)
		printf("# lsuio -m said:\n%s", out);
}

static bool write_str(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");
	bool ok;

	if (!f)
		return false;
	ok = fputs(s, f) >= 0;
	return !fclose(f) && ok;
}

/* The example driver runs through ID, liveness, 5! and interrupts. */
static void test_edu_example_runs_to_completion(void)
{
	char out[4096];

	if (!edu_addr[0])
		skip("no edu device");
	CHECK_EQ(run_tool(edu_uio_path, edu_addr, "4", out, sizeof(out)), 0);
	CHECK(strstr(out, "5! = 120\n"));
	CHECK(strstr(out, "irq 3: status 0x8, "));
	if (failures)
		printf("# edu_uio said:\n%s", out);
}

/* Write "<uio sysfs dir>/dma/<file>" of the edu's UIO device. */
static bool edu_dma_set(unsigned int number, const char *file,
			const char *val)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/sys/class/uio/uio%u/dma/%s", number,
		 file);
	return write_str(path, val);
}

/*
 * The DMA example copies through two buffers; lsuio lists them. No IOMMU
 * in this guest: the unsafe parameter grants them, and goes back off.
 */
static void test_edu_dma_example_copies_and_lsuio_shows_buffers(void)
{
	const char *unsafe = "/sys/module/uio/parameters/dma_unsafe_noiommu";
	struct uio_dma_info dma;
	unsigned int n;
	char out[4096];

	if (!edu_addr[0] || !edu_dma_path[0])
		skip("no edu device or no edu_dma");
	REQUIRE_OK(uio_find_by_parent(edu_addr, &n));
	CHECK(write_str(unsafe, "1"));
	CHECK(edu_dma_set(n, "dma_mask", "28"));
	CHECK(edu_dma_set(n, "size", "4096"));
	CHECK(edu_dma_set(n, "count", "2"));
	CHECK_EQ(uio_read_dma(n, &dma), 0);
	CHECK_EQ(dma.count, 2);
	CHECK(!dma.bufs[1].dma_addr_known);
	CHECK_EQ(run_tool(edu_dma_path, edu_addr, "4000", out, sizeof(out)), 0);
	CHECK(strstr(out, "4000 bytes: RAM 0x"));
	CHECK(strstr(out, ": equal\n"));
	if (failures)
		printf("# edu_dma said:\n%s", out);
	if (lsuio_path[0]) {
		CHECK_EQ(run_tool(lsuio_path, "-m", NULL, out, sizeof(out)), 0);
		CHECK(strstr(out, "\tdma: buffers=2 size=0x1000 mask=28 iommu=none\n"));
		CHECK(strstr(out, "\tbuf1: dma_addr=unallocated size=0x1000 offset=0x"));
		if (failures)
			printf("# lsuio -m said:\n%s", out);
	}
	CHECK(edu_dma_set(n, "count", "0"));
	CHECK(write_str(unsafe, "0"));
}

/*
 * Unbinding removes the UIO device under an open file and a live mapping:
 * wait and irqcontrol fail with EIO, sysfs lookups with ENODEV, touching
 * the mapping raises SIGBUS. Rebinding brings the device back. Last test,
 * so that a failed rebind cannot hide other results.
 */
static void test_unbind_makes_the_device_gone(void)
{
	const char *drv = "/sys/bus/pci/drivers/uio_pci_generic";
	struct uio_device_info info;
	void *bar;
	char path[PATH_MAX];
	struct uio_dev *dev;
	unsigned int n, m;
	int status;
	pid_t pid;

	dev = edu_open(&bar);
	n = uio_info(dev)->number;
	snprintf(path, sizeof(path), "%s/unbind", drv);
	if (!write_str(path, edu_addr)) {
		printf("# unbind: %s\n", strerror(errno));
		exit(1);
	}
	CHECK_EQ(uio_wait(dev, 1000, NULL, NULL), -EIO);
	CHECK_EQ(uio_irq_control(dev, true), -EIO);
	CHECK_EQ(uio_read_info(n, &info), -ENODEV);
	CHECK_EQ(uio_find_by_parent(edu_addr, &m), -ENODEV);
	fflush(stdout);
	pid = fork();
	if (!pid) {
		(void)RD(bar, EDU_ID);
		_exit(0);
	}
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS);
	uio_close(dev);

	snprintf(path, sizeof(path), "%s/bind", drv);
	CHECK(write_str(path, edu_addr));
	CHECK_EQ(uio_find_by_parent(edu_addr, &m), 0);
}

struct test {
	const char *name;
	void (*fn)(void);
};

#define T(fn)	{ #fn + 5, fn }

static const struct test tests[] = {
	T(test_find_by_name_finds_the_edu),
	T(test_find_by_parent_matches_pci_address),
	T(test_map0_matches_bar0_resource),
	T(test_bar0_reads_edu_id_and_liveness),
	T(test_factorial_register_computes_5),
	T(test_cif_map0_reaches_first_plx_register),
	T(test_irq_round_trip_counts_each_interrupt),
	T(test_irq_disable_holds_event_until_enable),
	T(test_lsuio_json_lists_the_edu),
	T(test_lsuio_plain_line_names_device),
	T(test_edu_example_runs_to_completion),
	T(test_edu_dma_example_copies_and_lsuio_shows_buffers),
	T(test_unbind_makes_the_device_gone),
};

int main(int argc, char **argv)
{
	const char *filter = argc > 1 ? argv[1] : NULL;
	unsigned int i, n = 0, planned = 0, failed = 0;
	const unsigned int nr = ARRAY_SIZE(tests);
	int status;
	pid_t pid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	find_edu();
	find_tool("lsuio", "LSUIO", lsuio_path, sizeof(lsuio_path));
	find_tool("edu_uio", "EDU_UIO", edu_uio_path, sizeof(edu_uio_path));
	find_tool("edu_dma", "EDU_DMA", edu_dma_path, sizeof(edu_dma_path));
	for (i = 0; i < nr; i++)
		if (!filter || strstr(tests[i].name, filter))
			planned++;
	printf("TAP version 13\n1..%u\n", planned);
	printf("# edu at %s, lsuio at %s, edu_uio at %s\n",
	       edu_addr[0] ? edu_addr : "-", lsuio_path[0] ? lsuio_path : "-",
	       edu_uio_path[0] ? edu_uio_path : "-");
	for (i = 0; i < nr; i++) {
		const char *verdict = "not ok", *extra = "";

		if (filter && !strstr(tests[i].name, filter))
			continue;
		fflush(stdout);
		pid = fork();
		if (!pid) {
			alarm(TEST_TIMEOUT_S);
			tests[i].fn();
			fflush(stdout);
			_exit(failures ? 1 : 0);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid) {
			printf("# fork/wait: %s\n", strerror(errno));
			status = -1;
		}
		if (WIFEXITED(status) && !WEXITSTATUS(status)) {
			verdict = "ok";
		} else if (WIFEXITED(status) &&
			   WEXITSTATUS(status) == TEST_SKIP) {
			verdict = "ok";
			extra = " # SKIP";
		} else {
			failed++;
			if (WIFSIGNALED(status))
				printf("# killed by signal %d%s\n",
				       WTERMSIG(status),
				       WTERMSIG(status) == SIGALRM ?
				       " (timeout)" : "");
		}
		printf("%s %u - %s%s\n", verdict, ++n, tests[i].name, extra);
	}
	printf("# %u of %u failed\n", failed, planned);
	return failed ? 1 : 0;
}
