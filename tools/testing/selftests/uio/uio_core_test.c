// SPDX-License-Identifier: GPL-2.0
/*
 * The /dev/uioN ABI and the core's lifetime rules, checked against the
 * uio_test_mod stub: sysfs, read, poll, write, mmap (LOGICAL, VIRTUAL and
 * DMA_COHERENT maps), open/release hooks, module pinning, unregister while
 * files and mappings are in use, and events from a nested-thread interrupt.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>

#include "kselftest_harness.h"
#include "uio_util.h"

#define STUB		"/sys/devices/platform/uio_test/"
#define LOGICAL_SIZE	(4 * 4096)
#define VIRTUAL_SIZE	(3 * 4096)
#define DMA_SIZE	(2 * 4096)
#define LOGICAL_SEED	0x5a
#define VIRTUAL_SEED	0xa5
#define DMA_SEED	0x3c
#define HOOK_MAGIC	0x686f6f6bU

static long page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

/* The byte the stub wrote at offset i of a buffer seeded with seed. */
static uint8_t pattern(size_t i, uint8_t seed)
{
	return seed ^ (uint8_t)i ^ (uint8_t)(i >> 8);
}

/* An address no access may succeed at. */
static void *inaccessible(void)
{
	return mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

/* Write n to the stub's attribute attr: fire, fire_nested, ... */
static int stub_raise(const char *attr, unsigned int n)
{
	char path[PATH_MAX], buf[16];

	snprintf(path, sizeof(path), STUB "%s", attr);
	snprintf(buf, sizeof(buf), "%u", n);
	return uio_sysfs_write(path, buf);
}

static int stub_fire(unsigned int n)
{
	return stub_raise("fire", n);
}

static long long stub_counter(const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), STUB "%s", name);
	return uio_sysfs_num(path);
}

static int stub_register(bool on)
{
	return uio_sysfs_write(STUB "registered", on ? "1" : "0");
}

/* Fire events from another thread after a delay. */
struct delayed_fire {
	pthread_t	thread;
	unsigned int	delay_ms;
	unsigned int	count;
	bool		unregister;	/* unregister instead of firing */
	const char	*attr;		/* stub attribute to fire, NULL: "fire" */
	int		result;
};

static void *delayed_fire_fn(void *arg)
{
	struct delayed_fire *df = arg;

	usleep(df->delay_ms * 1000);
	df->result = df->unregister ? stub_register(false) :
				      stub_raise(df->attr ?: "fire", df->count);
	return NULL;
}

static int delayed_fire_start(struct delayed_fire *df)
{
	return pthread_create(&df->thread, NULL, delayed_fire_fn, df);
}

FIXTURE(uio) {
	int minor;		/* uio_test */
	int noirq_minor;	/* uio_test_noirq */
	int fd;			/* O_RDWR on uio_test */
};

FIXTURE_SETUP(uio)
{
	self->fd = -1;
	/* A failed lifecycle test may have left the stub unregistered. */
	ASSERT_EQ(0, stub_register(true));
	self->minor = uio_find("uio_test");
	ASSERT_GE(self->minor, 0);
	self->noirq_minor = uio_find("uio_test_noirq");
	ASSERT_GE(self->noirq_minor, 0);
	self->fd = uio_open_minor(self->minor, O_RDWR);
	ASSERT_GE(self->fd, 0);
}

FIXTURE_TEARDOWN(uio)
{
	if (self->fd >= 0)
		close(self->fd);
	uio_sysfs_write(STUB "open_error", "0");
	uio_sysfs_write(STUB "irq_none", "0");
	stub_register(true);
}

/* --- sysfs ---------------------------------------------------------- */

TEST_F(uio, sysfs_name_and_version)
{
	char path[PATH_MAX], buf[64];

	uio_path(path, sizeof(path), self->minor, "name");
	ASSERT_EQ(0, uio_sysfs_read(path, buf, sizeof(buf)));
	EXPECT_STREQ("uio_test", buf);
	uio_path(path, sizeof(path), self->minor, "version");
	ASSERT_EQ(0, uio_sysfs_read(path, buf, sizeof(buf)));
	EXPECT_STREQ("1.0", buf);
}

TEST_F(uio, sysfs_event_counts_notifications)
{
	long long before = uio_event_count(self->minor);

	ASSERT_GE(before, 0);
	ASSERT_EQ(0, stub_fire(3));
	EXPECT_EQ(before + 3, uio_event_count(self->minor));
}

TEST_F(uio, sysfs_maps_describe_regions)
{
	char path[PATH_MAX], buf[64];

	uio_path(path, sizeof(path), self->minor, "maps/map0/size");
	EXPECT_EQ(LOGICAL_SIZE, uio_sysfs_num(path));
	uio_path(path, sizeof(path), self->minor, "maps/map1/size");
	EXPECT_EQ(VIRTUAL_SIZE, uio_sysfs_num(path));
	uio_path(path, sizeof(path), self->minor, "maps/map2/size");
	EXPECT_EQ(DMA_SIZE, uio_sysfs_num(path));
	uio_path(path, sizeof(path), self->minor, "maps/map0/name");
	ASSERT_EQ(0, uio_sysfs_read(path, buf, sizeof(buf)));
	EXPECT_STREQ("logical", buf);
	uio_path(path, sizeof(path), self->minor, "maps/map1/name");
	ASSERT_EQ(0, uio_sysfs_read(path, buf, sizeof(buf)));
	EXPECT_STREQ("virtual", buf);
	uio_path(path, sizeof(path), self->minor, "maps/map2/name");
	ASSERT_EQ(0, uio_sysfs_read(path, buf, sizeof(buf)));
	EXPECT_STREQ("dma", buf);
	uio_path(path, sizeof(path), self->minor, "maps/map0/offset");
	EXPECT_EQ(0, uio_sysfs_num(path));
	uio_path(path, sizeof(path), self->minor, "maps/map3");
	EXPECT_EQ(-1, access(path, F_OK));
	uio_path(path, sizeof(path), self->minor, "portio");
	EXPECT_EQ(-1, access(path, F_OK));
}

/* The type strings are mainline's, "port_none" included. */
TEST_F(uio, sysfs_porttype_names_as_mainline)
{
	char path[PATH_MAX], buf[64];

	uio_path(path, sizeof(path), self->noirq_minor,
		 "portio/port0/porttype");
	ASSERT_EQ(0, uio_sysfs_read(path, buf, sizeof(buf)));
	EXPECT_STREQ("port_none", buf);
	uio_path(path, sizeof(path), self->noirq_minor,
		 "portio/port1/porttype");
	ASSERT_EQ(0, uio_sysfs_read(path, buf, sizeof(buf)));
	EXPECT_STREQ("port_x86", buf);
	uio_path(path, sizeof(path), self->noirq_minor, "portio/port1/start");
	EXPECT_EQ(0x200, uio_sysfs_num(path));
}

TEST_F(uio, sysfs_kernel_addresses_root_only)
{
	char path[PATH_MAX], buf[64];
	struct stat st;
	int status;
	pid_t pid;

	uio_path(path, sizeof(path), self->minor, "maps/map0/addr");
	ASSERT_EQ(0, stat(path, &st));
	EXPECT_EQ(0400, st.st_mode & 0777);
	uio_path(path, sizeof(path), self->minor, "maps/map2/addr");
	ASSERT_EQ(0, stat(path, &st));
	EXPECT_EQ(0400, st.st_mode & 0777);
	uio_path(path, sizeof(path), self->minor, "maps/map1/addr");
	ASSERT_EQ(0, stat(path, &st));
	EXPECT_EQ(0400, st.st_mode & 0777);
	ASSERT_EQ(0, uio_sysfs_read(path, buf, sizeof(buf)));

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(2);
		/* Unprivileged: the address is unreadable, the size is not. */
		if (uio_sysfs_read(path, buf, sizeof(buf)) != -EACCES)
			_exit(3);
		uio_path(path, sizeof(path), self->minor, "maps/map1/size");
		_exit(-uio_sysfs_read(path, buf, sizeof(buf)));
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_F(uio, sysfs_dev_matches_node)
{
	char path[PATH_MAX], buf[32], node[32];
	struct stat st;
	unsigned int maj, min;
	int fields;

	uio_path(path, sizeof(path), self->minor, "dev");
	ASSERT_EQ(0, uio_sysfs_read(path, buf, sizeof(buf)));
	fields = sscanf(buf, "%u:%u", &maj, &min);
	ASSERT_EQ(2, fields);
	snprintf(node, sizeof(node), "/dev/uio%d", self->minor);
	ASSERT_EQ(0, stat(node, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(maj, major(st.st_rdev));
	EXPECT_EQ(min, minor(st.st_rdev));
	EXPECT_EQ(self->minor, (int)min);
	/* Not for everybody: the node gives access to the device. */
	EXPECT_EQ(0, st.st_mode & 0077);
}

TEST_F(uio, sysfs_parent_is_stub_device)
{
	char path[PATH_MAX], target[PATH_MAX];
	ssize_t n;

	uio_path(path, sizeof(path), self->minor, "device");
	n = readlink(path, target, sizeof(target) - 1);
	ASSERT_GT(n, 0);
	target[n] = '\0';
	EXPECT_NE(NULL, strstr(target, "uio_test"));
}

TEST_F(uio, unprivileged_open_refused)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		char path[PATH_MAX], buf[64];

		if (setgid(65534) || setuid(65534))
			_exit(2);
		/* Proves the refusal below is not a sysfs or /dev lookup one. */
		uio_path(path, sizeof(path), self->minor, "name");
		if (uio_sysfs_read(path, buf, sizeof(buf)))
			_exit(5);
		if (uio_open_minor(self->minor, O_RDWR) >= 0)
			_exit(3);
		_exit(errno == EACCES ? 0 : 4);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* --- read ----------------------------------------------------------- */

TEST_F(uio, read_wrong_size_einval)
{
	char buf[8];

	ASSERT_EQ(0, stub_fire(1));
	EXPECT_EQ(-1, read(self->fd, buf, 2));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, read(self->fd, buf, 8));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(4, read(self->fd, buf, 4));
}

TEST_F(uio, read_nonblock_without_event_eagain)
{
	int32_t count;
	int fd, err;

	fd = uio_open_minor(self->minor, O_RDONLY | O_NONBLOCK);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(-1, read(fd, &count, sizeof(count)));
	err = errno;
	EXPECT_EQ(EAGAIN, err);
	close(fd);
}

TEST_F(uio, read_returns_event_count)
{
	int32_t count;

	ASSERT_EQ(0, stub_fire(1));
	ASSERT_EQ(sizeof(count), read(self->fd, &count, sizeof(count)));
	EXPECT_EQ(uio_event_count(self->minor), (uint32_t)count);
}

TEST_F_TIMEOUT(uio, read_blocks_until_event, 10)
{
	struct delayed_fire df = { .delay_ms = 300, .count = 1 };
	long long before = uio_event_count(self->minor);
	int32_t count;
	double t0;

	ASSERT_EQ(0, delayed_fire_start(&df));
	t0 = uio_now();
	ASSERT_EQ(sizeof(count), read(self->fd, &count, sizeof(count)));
	EXPECT_GE(uio_now() - t0, 0.2);
	EXPECT_EQ(before + 1, count);
	pthread_join(df.thread, NULL);
	EXPECT_EQ(0, df.result);
}

TEST_F(uio, read_coalesces_pending_events)
{
	long long before = uio_event_count(self->minor);
	int32_t count;
	int fd;

	fd = uio_open_minor(self->minor, O_RDONLY | O_NONBLOCK);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, stub_fire(5));
	ASSERT_EQ(sizeof(count), read(fd, &count, sizeof(count)));
	EXPECT_EQ(before + 5, count);
	EXPECT_EQ(-1, read(fd, &count, sizeof(count)));
	EXPECT_EQ(EAGAIN, errno);
	close(fd);
}

TEST_F(uio, read_listeners_are_independent)
{
	int32_t a, b;
	int fd2;

	fd2 = uio_open_minor(self->minor, O_RDONLY | O_NONBLOCK);
	ASSERT_GE(fd2, 0);
	ASSERT_EQ(0, stub_fire(2));
	ASSERT_EQ(sizeof(a), read(self->fd, &a, sizeof(a)));
	/* The first reader consumed nothing the second has not seen. */
	ASSERT_EQ(sizeof(b), read(fd2, &b, sizeof(b)));
	EXPECT_EQ(a, b);
	EXPECT_EQ(-1, read(fd2, &b, sizeof(b)));
	EXPECT_EQ(EAGAIN, errno);
	close(fd2);
}

TEST_F(uio, read_new_file_ignores_old_events)
{
	int32_t count;
	int fd;

	ASSERT_EQ(0, stub_fire(4));
	fd = uio_open_minor(self->minor, O_RDONLY | O_NONBLOCK);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(-1, read(fd, &count, sizeof(count)));
	EXPECT_EQ(EAGAIN, errno);
	close(fd);
}

static void on_sigusr1(int sig)
{
}

struct delayed_signal {
	pthread_t	target;
	unsigned int	delay_ms;
};

static void *delayed_signal_fn(void *arg)
{
	struct delayed_signal *ds = arg;

	usleep(ds->delay_ms * 1000);
	pthread_kill(ds->target, SIGUSR1);
	return NULL;
}

TEST_F_TIMEOUT(uio, read_interrupted_by_signal, 10)
{
	struct delayed_signal ds = { .target = pthread_self(), .delay_ms = 200 };
	struct sigaction sa = { .sa_handler = on_sigusr1 };	/* no SA_RESTART */
	pthread_t thread;
	int32_t count;

	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	ASSERT_EQ(0, pthread_create(&thread, NULL, delayed_signal_fn, &ds));
	EXPECT_EQ(-1, read(self->fd, &count, sizeof(count)));
	EXPECT_EQ(EINTR, errno);
	pthread_join(thread, NULL);
}

TEST_F(uio, read_without_irq_eio)
{
	int32_t count;
	int fd;

	fd = uio_open_minor(self->noirq_minor, O_RDWR);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(-1, read(fd, &count, sizeof(count)));
	EXPECT_EQ(EIO, errno);
	close(fd);
}

TEST_F(uio, read_bad_buffer_efault)
{
	int32_t count;
	void *bad = inaccessible();

	ASSERT_NE(MAP_FAILED, bad);
	ASSERT_EQ(0, stub_fire(1));
	EXPECT_EQ(-1, read(self->fd, bad, sizeof(count)));
	EXPECT_EQ(EFAULT, errno);
	/* The event was not consumed by the failed read. */
	EXPECT_EQ(sizeof(count), read(self->fd, &count, sizeof(count)));
}

/* --- poll ----------------------------------------------------------- */

TEST_F(uio, poll_times_out_without_event)
{
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN };

	EXPECT_EQ(0, poll(&pfd, 1, 100));
}

TEST_F(uio, poll_readable_until_read)
{
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN };
	int32_t count;

	ASSERT_EQ(0, stub_fire(1));
	ASSERT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_TRUE(pfd.revents & POLLIN);
	ASSERT_EQ(sizeof(count), read(self->fd, &count, sizeof(count)));
	EXPECT_EQ(0, poll(&pfd, 1, 0));
}

TEST_F_TIMEOUT(uio, epoll_wakes_on_event, 10)
{
	struct delayed_fire df = { .delay_ms = 200, .count = 1 };
	struct epoll_event ev = { .events = EPOLLIN }, out;
	int ep;

	ep = epoll_create1(0);
	ASSERT_GE(ep, 0);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, self->fd, &ev));
	ASSERT_EQ(0, delayed_fire_start(&df));
	EXPECT_EQ(1, epoll_wait(ep, &out, 1, 5000));
	EXPECT_TRUE(out.events & EPOLLIN);
	pthread_join(df.thread, NULL);
	close(ep);
}

TEST_F(uio, poll_without_irq_reports_error)
{
	struct pollfd pfd = { .events = POLLIN };

	pfd.fd = uio_open_minor(self->noirq_minor, O_RDWR);
	ASSERT_GE(pfd.fd, 0);
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_TRUE(pfd.revents & POLLERR);
	EXPECT_FALSE(pfd.revents & POLLIN);
	close(pfd.fd);
}

/* --- write ---------------------------------------------------------- */

TEST_F(uio, write_reaches_irqcontrol)
{
	long long calls = stub_counter("irqcontrol_calls");
	int32_t val = 1;

	ASSERT_EQ(sizeof(val), write(self->fd, &val, sizeof(val)));
	EXPECT_EQ(1, stub_counter("irqcontrol_last"));
	val = 0;
	ASSERT_EQ(sizeof(val), write(self->fd, &val, sizeof(val)));
	EXPECT_EQ(0, stub_counter("irqcontrol_last"));
	EXPECT_EQ(calls + 2, stub_counter("irqcontrol_calls"));
}

TEST_F(uio, write_wrong_size_einval)
{
	long long calls = stub_counter("irqcontrol_calls");
	char buf[8] = { 1 };

	EXPECT_EQ(-1, write(self->fd, buf, 2));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, write(self->fd, buf, 8));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(calls, stub_counter("irqcontrol_calls"));
}

TEST_F(uio, write_without_irqcontrol_enosys)
{
	int32_t val = 1;
	int minor, fd;

	minor = uio_find("uio_test_nested");
	ASSERT_GE(minor, 0);
	fd = uio_open_minor(minor, O_RDWR);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(-1, write(fd, &val, sizeof(val)));
	EXPECT_EQ(ENOSYS, errno);
	close(fd);
}

/* As in mainline, EIO comes before ENOSYS: no events, nothing to control. */
TEST_F(uio, write_without_irq_eio)
{
	int32_t val = 1;
	int fd;

	fd = uio_open_minor(self->noirq_minor, O_RDWR);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(-1, write(fd, &val, sizeof(val)));
	EXPECT_EQ(EIO, errno);
	close(fd);
}

/* A stub may drop its event source at run time, as uio_hv_generic does. */
TEST_F(uio, irq_none_at_run_time_fails_read_poll_write)
{
	long long calls = stub_counter("irqcontrol_calls");
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN };
	int32_t val = 1;

	ASSERT_EQ(0, stub_fire(1));	/* a pending event must not leak out */
	ASSERT_EQ(0, uio_sysfs_write(STUB "irq_none", "1"));
	EXPECT_EQ(-1, read(self->fd, &val, sizeof(val)));
	EXPECT_EQ(EIO, errno);
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_TRUE(pfd.revents & POLLERR);
	EXPECT_FALSE(pfd.revents & POLLIN);
	EXPECT_EQ(-1, write(self->fd, &val, sizeof(val)));
	EXPECT_EQ(EIO, errno);
	EXPECT_EQ(calls, stub_counter("irqcontrol_calls"));

	/* Given back, the event is pending again. */
	ASSERT_EQ(0, uio_sysfs_write(STUB "irq_none", "0"));
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_EQ(POLLIN, pfd.revents);
}

/* uio_hv_generic's rescind: irq becomes UIO_IRQ_NONE, then one last event. */
static void *rescind_fn(void *arg)
{
	usleep(300 * 1000);
	*(int *)arg = uio_sysfs_write(STUB "irq_none", "1") ?:
		      stub_fire(1);
	return NULL;
}

TEST_F_TIMEOUT(uio, irq_none_at_run_time_wakes_reader_eio, 10)
{
	pthread_t thread;
	int32_t count;
	int result;

	ASSERT_EQ(0, pthread_create(&thread, NULL, rescind_fn, &result));
	EXPECT_EQ(-1, read(self->fd, &count, sizeof(count)));
	EXPECT_EQ(EIO, errno);
	pthread_join(thread, NULL);
	EXPECT_EQ(0, result);
}

TEST_F(uio, write_bad_buffer_efault)
{
	void *bad = inaccessible();

	ASSERT_NE(MAP_FAILED, bad);
	EXPECT_EQ(-1, write(self->fd, bad, sizeof(int32_t)));
	EXPECT_EQ(EFAULT, errno);
}

/* --- mmap ----------------------------------------------------------- */

TEST_F(uio, mmap_logical_shows_kernel_buffer)
{
	uint8_t *p;
	size_t i, bad = 0;

	p = mmap(NULL, LOGICAL_SIZE, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	for (i = 0; i < LOGICAL_SIZE; i++)
		bad += p[i] != pattern(i, LOGICAL_SEED);
	EXPECT_EQ(0, bad);
	munmap(p, LOGICAL_SIZE);
}

TEST_F(uio, mmap_virtual_shows_kernel_buffer)
{
	uint8_t *p;
	size_t i, bad = 0;

	p = mmap(NULL, VIRTUAL_SIZE, PROT_READ, MAP_SHARED, self->fd,
		 1 * page_size());
	ASSERT_NE(MAP_FAILED, p);
	for (i = 0; i < VIRTUAL_SIZE; i++)
		bad += p[i] != pattern(i, VIRTUAL_SEED);
	EXPECT_EQ(0, bad);
	munmap(p, VIRTUAL_SIZE);
}

TEST_F(uio, mmap_dma_coherent_shows_kernel_buffer)
{
	uint8_t *p;
	size_t i, bad = 0;

	p = mmap(NULL, DMA_SIZE, PROT_READ, MAP_SHARED, self->fd,
		 2 * page_size());
	ASSERT_NE(MAP_FAILED, p);
	for (i = 0; i < DMA_SIZE; i++)
		bad += p[i] != pattern(i, DMA_SEED);
	EXPECT_EQ(0, bad);
	munmap(p, DMA_SIZE);
}

TEST_F(uio, mmap_writes_reach_kernel)
{
	volatile uint32_t *logical, *virtual, *dma;
	char buf[64], want[64];
	uint32_t old_l, old_v, old_d;

	logical = mmap(NULL, page_size(), PROT_READ | PROT_WRITE, MAP_SHARED,
		       self->fd, 0);
	ASSERT_NE(MAP_FAILED, logical);
	virtual = mmap(NULL, page_size(), PROT_READ | PROT_WRITE, MAP_SHARED,
		       self->fd, page_size());
	ASSERT_NE(MAP_FAILED, virtual);
	dma = mmap(NULL, page_size(), PROT_READ | PROT_WRITE, MAP_SHARED,
		   self->fd, 2 * page_size());
	ASSERT_NE(MAP_FAILED, dma);
	old_l = *logical;
	old_v = *virtual;
	old_d = *dma;
	*logical = 0xdeadbeef;
	*virtual = 0xcafef00d;
	*dma = 0x0ddba115;
	ASSERT_EQ(0, uio_sysfs_read(STUB "backing", buf, sizeof(buf)));
	snprintf(want, sizeof(want), "0xdeadbeef 0xcafef00d 0x%08x 0x0ddba115",
		 HOOK_MAGIC);
	EXPECT_STREQ(want, buf);
	*logical = old_l;
	*virtual = old_v;
	*dma = old_d;
	munmap((void *)logical, page_size());
	munmap((void *)virtual, page_size());
	munmap((void *)dma, page_size());
}

TEST_F(uio, mmap_missing_map_einval)
{
	void *p;

	p = mmap(NULL, page_size(), PROT_READ, MAP_SHARED, self->fd,
		 3 * page_size());
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, page_size(), PROT_READ, MAP_SHARED, self->fd,
		 5 * page_size());
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, page_size(), PROT_READ, MAP_SHARED, self->fd,
		 1000 * page_size());
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(uio, mmap_unaligned_offset_einval)
{
	void *p;

	p = mmap(NULL, page_size(), PROT_READ, MAP_SHARED, self->fd, 100);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(uio, mmap_beyond_map_size_einval)
{
	void *p;

	p = mmap(NULL, LOGICAL_SIZE + page_size(), PROT_READ, MAP_SHARED,
		 self->fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, VIRTUAL_SIZE + page_size(), PROT_READ, MAP_SHARED,
		 self->fd, page_size());
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, DMA_SIZE + page_size(), PROT_READ, MAP_SHARED,
		 self->fd, 2 * page_size());
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(uio, mmap_private_einval)
{
	void *p;

	p = mmap(NULL, page_size(), PROT_READ, MAP_PRIVATE, self->fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, page_size(), PROT_READ, MAP_PRIVATE, self->fd,
		 2 * page_size());
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(uio, mmap_shared_of_readonly_file)
{
	uint8_t *p;
	int fd;

	fd = uio_open_minor(self->minor, O_RDONLY);
	ASSERT_GE(fd, 0);
	p = mmap(NULL, page_size(), PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(pattern(1, LOGICAL_SEED), p[1]);
	/* Shared, so never writable through a read-only file. */
	EXPECT_EQ(-1, mprotect(p, page_size(), PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	munmap(p, page_size());
	close(fd);
}

TEST_F(uio, mmap_partial_unmap_einval)
{
	uint8_t *p;

	p = mmap(NULL, 2 * page_size(), PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	/* Splitting would shift the map index held in the page offset. */
	EXPECT_EQ(-1, munmap(p + page_size(), page_size()));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(pattern(page_size(), LOGICAL_SEED), p[page_size()]);
	EXPECT_EQ(0, munmap(p, 2 * page_size()));
}

TEST_F(uio, mmap_stub_hook_replaces_core)
{
	long long calls = stub_counter("mmap_calls");
	volatile uint32_t *p;
	int fd;

	fd = uio_open_minor(self->noirq_minor, O_RDWR);
	ASSERT_GE(fd, 0);
	p = mmap(NULL, page_size(), PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(HOOK_MAGIC, *p);
	EXPECT_EQ(calls + 1, stub_counter("mmap_calls"));
	munmap((void *)p, page_size());
	close(fd);
}

/* As in mainline, the core checks the map index and size before the hook. */
TEST_F(uio, mmap_stub_hook_gets_checked_vma)
{
	long long calls = stub_counter("mmap_calls");
	int fd;

	fd = uio_open_minor(self->noirq_minor, O_RDWR);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 2 * page_size(), PROT_READ,
				   MAP_SHARED, fd, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, page_size(), PROT_READ, MAP_SHARED,
				   fd, page_size()));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, page_size(), PROT_READ, MAP_SHARED,
				   fd, 1000 * page_size()));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(calls, stub_counter("mmap_calls"));
	close(fd);
}

/* --- other file operations ------------------------------------------ */

TEST_F(uio, seek_and_pread_espipe)
{
	int32_t count;

	EXPECT_EQ(-1, lseek(self->fd, 0, SEEK_SET));
	EXPECT_EQ(ESPIPE, errno);
	ASSERT_EQ(0, stub_fire(1));
	EXPECT_EQ(-1, pread(self->fd, &count, sizeof(count), 0));
	EXPECT_EQ(ESPIPE, errno);
}

TEST_F(uio, ioctl_enotty)
{
	EXPECT_EQ(-1, ioctl(self->fd, 0x5401, 0));
	EXPECT_EQ(ENOTTY, errno);
}

TEST_F(uio, open_and_release_hooks_called)
{
	long long opens = stub_counter("open_calls");
	long long releases = stub_counter("release_calls");
	int fd;

	fd = uio_open_minor(self->minor, O_RDONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(opens + 1, stub_counter("open_calls"));
	EXPECT_EQ(releases, stub_counter("release_calls"));
	close(fd);
	EXPECT_EQ(releases + 1, stub_counter("release_calls"));
}

TEST_F(uio, open_hook_error_returned)
{
	long long refs = uio_sysfs_num("/sys/module/uio_test_mod/refcnt");

	ASSERT_EQ(0, uio_sysfs_write(STUB "open_error", "16"));	/* EBUSY */
	EXPECT_EQ(-1, uio_open_minor(self->minor, O_RDONLY));
	EXPECT_EQ(EBUSY, errno);
	/* The failed open left no module reference behind. */
	EXPECT_EQ(refs, uio_sysfs_num("/sys/module/uio_test_mod/refcnt"));
}

TEST_F(uio, open_file_pins_stub_module)
{
	long long refs = uio_sysfs_num("/sys/module/uio_test_mod/refcnt");
	int fd;

	ASSERT_GE(refs, 1);
	fd = uio_open_minor(self->minor, O_RDONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(refs + 1, uio_sysfs_num("/sys/module/uio_test_mod/refcnt"));
	EXPECT_EQ(-1, syscall(SYS_delete_module, "uio_test_mod", O_NONBLOCK));
	EXPECT_EQ(EWOULDBLOCK, errno);
	close(fd);
	EXPECT_EQ(refs, uio_sysfs_num("/sys/module/uio_test_mod/refcnt"));
}

static volatile sig_atomic_t sigio_seen;

static void on_sigio(int sig)
{
	sigio_seen = 1;
}

TEST_F(uio, fasync_sends_sigio)
{
	struct sigaction sa = { .sa_handler = on_sigio };

	ASSERT_EQ(0, sigaction(SIGIO, &sa, NULL));
	ASSERT_EQ(0, fcntl(self->fd, F_SETOWN, getpid()));
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, fcntl(self->fd, F_GETFL) | O_ASYNC));
	sigio_seen = 0;
	ASSERT_EQ(0, stub_fire(1));
	usleep(100 * 1000);
	EXPECT_TRUE(sigio_seen);
}

TEST_F(uio, register_rejects_bad_info)
{
	char buf[64];

	ASSERT_EQ(0, uio_sysfs_read(STUB "bad_register", buf, sizeof(buf)));
	/*
	 * NULL parent, no name, IRQ without handler, irq < UIO_IRQ_CUSTOM,
	 * DMA_COHERENT map without dma_device, and IRQ_NOTCONNECTED: as in
	 * mainline, -ENOTCONN, so uio_pci_generic must register such a
	 * device without its irq.
	 */
	EXPECT_STREQ("-22 -22 -22 -22 -22 -107", buf);
}

/* The unregister in a stub's unwinding after a failed register is a no-op. */
TEST_F(uio, unregister_after_failed_register_harmless)
{
	char buf[16];

	ASSERT_EQ(0, uio_sysfs_read(STUB "stale_unregister", buf,
				    sizeof(buf)));
	EXPECT_STREQ("-22", buf);
	EXPECT_EQ(self->minor, uio_find("uio_test"));
}

/* --- unregister while in use ---------------------------------------- */

TEST_F_TIMEOUT(uio, unregister_wakes_blocked_reader, 10)
{
	struct delayed_fire df = { .delay_ms = 300, .unregister = true };
	int32_t count;

	ASSERT_EQ(0, delayed_fire_start(&df));
	EXPECT_EQ(-1, read(self->fd, &count, sizeof(count)));
	EXPECT_EQ(EIO, errno);
	pthread_join(df.thread, NULL);
	EXPECT_EQ(0, df.result);
}

TEST_F_TIMEOUT(uio, unregister_wakes_poller, 10)
{
	struct delayed_fire df = { .delay_ms = 300, .unregister = true };
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN };

	ASSERT_EQ(0, delayed_fire_start(&df));
	EXPECT_EQ(1, poll(&pfd, 1, 5000));
	EXPECT_TRUE(pfd.revents & POLLERR);
	pthread_join(df.thread, NULL);
}

TEST_F(uio, unregister_fails_later_operations)
{
	int32_t val = 1;
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN };
	char node[32];

	ASSERT_EQ(0, stub_fire(1));	/* a pending event must not leak out */
	ASSERT_EQ(0, stub_register(false));
	EXPECT_EQ(-1, read(self->fd, &val, sizeof(val)));
	EXPECT_EQ(EIO, errno);
	EXPECT_EQ(-1, write(self->fd, &val, sizeof(val)));
	EXPECT_EQ(EIO, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, page_size(), PROT_READ, MAP_SHARED,
				   self->fd, 0));
	EXPECT_EQ(EIO, errno);
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_TRUE(pfd.revents & POLLERR);
	snprintf(node, sizeof(node), "/dev/uio%d", self->minor);
	EXPECT_EQ(-1, access(node, F_OK));
}

TEST_F(uio, unregister_zaps_mappings)
{
	volatile unsigned int *logical, *virtual, *dma;

	logical = mmap(NULL, page_size(), PROT_READ | PROT_WRITE, MAP_SHARED,
		       self->fd, 0);
	ASSERT_NE(MAP_FAILED, logical);
	virtual = mmap(NULL, page_size(), PROT_READ, MAP_SHARED, self->fd,
		       page_size());
	ASSERT_NE(MAP_FAILED, virtual);
	dma = mmap(NULL, DMA_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		   self->fd, 2 * page_size());
	ASSERT_NE(MAP_FAILED, dma);
	/* Populated before, so SIGBUS later proves the zap. */
	EXPECT_EQ(pattern(0, LOGICAL_SEED), *(volatile uint8_t *)logical);
	EXPECT_EQ(pattern(0, VIRTUAL_SEED), *(volatile uint8_t *)virtual);
	EXPECT_EQ(pattern(0, DMA_SEED), *(volatile uint8_t *)dma);
	EXPECT_FALSE(uio_touch_sigbus(logical, false));
	EXPECT_FALSE(uio_touch_sigbus(dma + page_size() / 4, false));

	ASSERT_EQ(0, stub_register(false));
	EXPECT_TRUE(uio_touch_sigbus(logical, false));
	EXPECT_TRUE(uio_touch_sigbus(logical, true));
	EXPECT_TRUE(uio_touch_sigbus(virtual, false));
	EXPECT_TRUE(uio_touch_sigbus(dma, false));
	EXPECT_TRUE(uio_touch_sigbus(dma, true));
	EXPECT_TRUE(uio_touch_sigbus(dma + page_size() / 4, false));
	munmap((void *)logical, page_size());
	munmap((void *)virtual, page_size());
	munmap((void *)dma, DMA_SIZE);
}

TEST_F(uio, unregister_zaps_dma_mapping_of_closed_file)
{
	volatile unsigned int *dma;
	int fd;

	fd = uio_open_minor(self->minor, O_RDWR);
	ASSERT_GE(fd, 0);
	dma = mmap(NULL, DMA_SIZE, PROT_READ, MAP_SHARED, fd, 2 * page_size());
	ASSERT_NE(MAP_FAILED, dma);
	/* The mapping outlives its file, and still reaches the buffer. */
	close(fd);
	EXPECT_EQ(pattern(1, DMA_SEED), ((volatile uint8_t *)dma)[1]);
	EXPECT_FALSE(uio_touch_sigbus(dma, false));

	ASSERT_EQ(0, stub_register(false));
	EXPECT_TRUE(uio_touch_sigbus(dma, false));
	munmap((void *)dma, DMA_SIZE);
}

TEST_F(uio, unregister_twice_and_late_notify_harmless)
{
	long long releases;

	ASSERT_EQ(0, stub_register(false));
	EXPECT_EQ(0, stub_register(false));
	EXPECT_EQ(0, stub_fire(10));
	EXPECT_EQ(-ENOENT, uio_find("uio_test"));
	/* Hooks are not called for a file of a gone device. */
	releases = stub_counter("release_calls");
	close(self->fd);
	self->fd = -1;
	EXPECT_EQ(releases, stub_counter("release_calls"));
}

TEST_F(uio, reregister_reuses_minor_keeps_old_file_dead)
{
	char path[PATH_MAX];
	int lowest_free = 0;
	int32_t count;
	int new_minor, fd;

	ASSERT_EQ(0, stub_register(false));
	for (;; lowest_free++) {
		uio_path(path, sizeof(path), lowest_free, "");
		if (access(path, F_OK))
			break;
	}
	EXPECT_LE(lowest_free, self->minor);
	ASSERT_EQ(0, stub_register(true));
	new_minor = uio_find("uio_test");
	ASSERT_GE(new_minor, 0);
	/* The open old file does not hold its minor: the lowest is taken. */
	EXPECT_EQ(lowest_free, new_minor);

	fd = uio_open_minor(new_minor, O_RDWR);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, stub_fire(1));
	EXPECT_EQ(sizeof(count), read(fd, &count, sizeof(count)));
	EXPECT_EQ(1, count);	/* a new device counts from zero */
	EXPECT_EQ(-1, read(self->fd, &count, sizeof(count)));
	EXPECT_EQ(EIO, errno);
	close(fd);
}

/* --- a nested-thread interrupt ------------------------------------------ */

FIXTURE(nested) {
	int minor;		/* uio_test_nested */
	long long irq;		/* its nested-thread interrupt */
	int fd;			/* O_RDONLY | O_NONBLOCK on it */
};

FIXTURE_SETUP(nested)
{
	self->fd = -1;
	self->minor = uio_find("uio_test_nested");
	ASSERT_GE(self->minor, 0);
	self->irq = uio_sysfs_num(STUB "nested_irq");
	ASSERT_GT(self->irq, 0);
	self->fd = uio_open_minor(self->minor, O_RDONLY | O_NONBLOCK);
	ASSERT_GE(self->fd, 0);
}

FIXTURE_TEARDOWN(nested)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* Does /proc/interrupts list name as a handler of irq? */
static bool irq_listed(long long irq, const char *name)
{
	char line[512];
	bool found = false;
	FILE *f;

	f = fopen("/proc/interrupts", "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (strtoll(line, NULL, 10) == irq && strchr(line, ':')) {
			found = strstr(line, name);
			break;
		}
	fclose(f);
	return found;
}

TEST_F(nested, every_interrupt_counted)
{
	long long before = uio_event_count(self->minor);
	int32_t count;

	ASSERT_GE(before, 0);
	ASSERT_EQ(0, stub_raise("fire_nested", 1000));
	ASSERT_EQ(sizeof(count), read(self->fd, &count, sizeof(count)));
	EXPECT_EQ(before + 1000, (uint32_t)count);
	EXPECT_EQ(before + 1000, uio_event_count(self->minor));
}

TEST_F(nested, unclaimed_interrupt_not_counted)
{
	long long before = uio_event_count(self->minor);
	int32_t count;

	ASSERT_GE(before, 0);
	ASSERT_EQ(0, stub_raise("nested_spurious", 10));
	EXPECT_EQ(before, uio_event_count(self->minor));
	EXPECT_EQ(-1, read(self->fd, &count, sizeof(count)));
	EXPECT_EQ(EAGAIN, errno);
}

TEST_F_TIMEOUT(nested, wakes_blocked_reader, 10)
{
	struct delayed_fire df = {
		.delay_ms = 300, .count = 1, .attr = "fire_nested",
	};
	long long before = uio_event_count(self->minor);
	int32_t count;
	double t0;
	int fd;

	fd = uio_open_minor(self->minor, O_RDONLY);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, delayed_fire_start(&df));
	t0 = uio_now();
	EXPECT_EQ(sizeof(count), read(fd, &count, sizeof(count)));
	EXPECT_GE(uio_now() - t0, 0.2);
	EXPECT_EQ(before + 1, count);
	pthread_join(df.thread, NULL);
	EXPECT_EQ(0, df.result);
	close(fd);
}

TEST_F(nested, runs_in_caller_without_irq_thread)
{
	long long switches;

	/* Requested (request_irq() alone would have failed with EINVAL)... */
	EXPECT_TRUE(irq_listed(self->irq, "uio_test_nested"));
	/* ...and, nested, never threaded: not even PREEMPT_RT threads it. */
	ASSERT_EQ(0, stub_raise("fire_nested", 10));
	EXPECT_EQ(0, uio_irq_threads(self->irq, &switches));
}

/*
 * A region smaller than a page is mappable only while the rest of its page
 * is kept free for it (better than Linux 6.1, which maps the whole page
 * whatever else is in it): the stub's "alone" region gets the rest of its
 * page reserved in /proc/iomem and maps; "shared" has a neighbour in its
 * page, so its map is not offered and mmap() fails with EINVAL.
 */
TEST(subpage_map_only_with_rest_of_page_reserved)
{
	unsigned long long page = getpagesize(), addr[2];
	int minor = uio_find("uio_test_subpage"), fd, i;
	char path[PATH_MAX], attr[32];
	void *p;

	ASSERT_LE(0, minor);
	for (i = 0; i < 2; i++) {
		snprintf(attr, sizeof(attr), "maps/map%d/addr", i);
		uio_path(path, sizeof(path), minor, attr);
		addr[i] = uio_sysfs_num(path);
		ASSERT_EQ(0, addr[i] % page);
	}
	EXPECT_TRUE(uio_iomem_has(addr[0] + 128, addr[0] + page - 1,
				  "uio sub-page reserve"));
	EXPECT_FALSE(uio_iomem_has(addr[1] + 128, addr[1] + page - 1,
				   "uio sub-page reserve"));

	fd = uio_open_minor(minor, O_RDWR);
	ASSERT_LE(0, fd);
	p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	EXPECT_NE(MAP_FAILED, p);
	if (p != MAP_FAILED)
		munmap(p, page);
	p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, page);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	if (p != MAP_FAILED)
		munmap(p, page);
	close(fd);
}

TEST_HARNESS_MAIN
