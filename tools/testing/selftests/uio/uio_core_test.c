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
#include <linux/netlink.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
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
	uio_sysfs_write(STUB "dmem_marker", "0");
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

/*
 * As in mainline, readable as well as in error, so that a loop waiting
 * for POLLIN alone wakes too, and read() then tells it EIO.
 */
TEST_F(uio, poll_without_irq_reports_error)
{
	struct pollfd pfd = { .events = POLLIN };
	int32_t count;

	pfd.fd = uio_open_minor(self->noirq_minor, O_RDWR);
	ASSERT_GE(pfd.fd, 0);
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_TRUE(pfd.revents & POLLERR);
	EXPECT_TRUE(pfd.revents & POLLHUP);
	EXPECT_TRUE(pfd.revents & POLLIN);
	EXPECT_EQ(-1, read(pfd.fd, &count, sizeof(count)));
	EXPECT_EQ(EIO, errno);
	close(pfd.fd);
}

/*
 * The two styles of event loop, on a device that goes away: one reads
 * only when poll() says POLLIN, the other stops on POLLERR. Both must end
 * with EIO at the first wakeup instead of spinning.
 */
TEST_F_TIMEOUT(uio, poll_loops_of_both_styles_end_on_unregister, 10)
{
	struct delayed_fire df = { .delay_ms = 200, .unregister = true };
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN };
	int wakeups = 0, result = 0, fd2;
	int32_t count;

	fd2 = uio_open_minor(self->minor, O_RDWR);
	ASSERT_GE(fd2, 0);
	ASSERT_EQ(0, delayed_fire_start(&df));
	while (wakeups < 100 && poll(&pfd, 1, 5000) == 1) {
		wakeups++;
		if (!(pfd.revents & POLLIN))
			continue;
		if (read(self->fd, &count, sizeof(count)) < 0) {
			result = errno;
			break;
		}
	}
	EXPECT_EQ(EIO, result);
	EXPECT_EQ(1, wakeups);

	pfd.fd = fd2;
	pfd.events = POLLIN;
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_TRUE(pfd.revents & (POLLERR | POLLHUP));
	pthread_join(df.thread, NULL);
	close(fd2);
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
	EXPECT_TRUE(pfd.revents & POLLIN);	/* read() then fails */
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

/* Do the pages [first, first + n) of p show map bytes from page first? */
static bool pages_show(const uint8_t *p, long first, long n, uint8_t seed)
{
	size_t i, start = first * page_size(), end = (first + n) * page_size();

	for (i = start; i < end; i += 61)
		if (p[i] != pattern(i, seed))
			return false;
	return true;
}

/*
 * As in mainline, a mapping may be cut up: partial munmap(), mprotect(),
 * mlock() and a shrinking mremap(). Each part must go on showing its own
 * pages of its own map, also pages first touched after the cut (the parts
 * after the first have a vm_pgoff beyond the map index).
 */
TEST_F(uio, mmap_split_parts_keep_their_pages)
{
	static const struct { long off, pages; uint8_t seed; } maps[] = {
		{ 0, LOGICAL_SIZE / 4096, LOGICAL_SEED },
		{ 1, VIRTUAL_SIZE / 4096, VIRTUAL_SEED },
		{ 2, DMA_SIZE / 4096, DMA_SEED },
	};
	long ps = page_size();
	uint8_t *p, *q, *dst;
	unsigned int m;

	for (m = 0; m < ARRAY_SIZE(maps); m++) {
		long n = maps[m].pages;
		uint8_t seed = maps[m].seed;

		/* munmap() of the first page; the rest starts at page 1. */
		p = mmap(NULL, n * ps, PROT_READ | PROT_WRITE, MAP_SHARED,
			 self->fd, maps[m].off * ps);
		ASSERT_NE(MAP_FAILED, p);
		EXPECT_EQ(0, munmap(p, ps));
		EXPECT_TRUE(pages_show(p, 1, n - 1, seed)) TH_LOG("map %u", m);
		EXPECT_EQ(0, munmap(p + ps, (n - 1) * ps));

		/* mprotect() and mlock() of the last page, then untouched. */
		p = mmap(NULL, n * ps, PROT_READ | PROT_WRITE, MAP_SHARED,
			 self->fd, maps[m].off * ps);
		ASSERT_NE(MAP_FAILED, p);
		EXPECT_EQ(0, mprotect(p + (n - 1) * ps, ps, PROT_READ));
		EXPECT_EQ(0, mlock(p + (n - 1) * ps, ps));
		EXPECT_TRUE(pages_show(p, 0, n, seed)) TH_LOG("map %u", m);
		p[0] = p[0];	/* the first part is still writable */
		EXPECT_EQ(0, munlock(p + (n - 1) * ps, ps));

		/* Shrink to one page, move the rest of it elsewhere. */
		q = mremap(p, n * ps, ps, 0);
		EXPECT_EQ(p, q);
		EXPECT_TRUE(pages_show(p, 0, 1, seed)) TH_LOG("map %u", m);
		EXPECT_EQ(0, munmap(p, ps));

		p = mmap(NULL, n * ps, PROT_READ, MAP_SHARED, self->fd,
			 maps[m].off * ps);
		ASSERT_NE(MAP_FAILED, p);
		EXPECT_EQ(0, munmap(p, ps));
		dst = mmap(NULL, (n - 1) * ps, PROT_NONE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_NE(MAP_FAILED, dst);
		q = mremap(p + ps, (n - 1) * ps, (n - 1) * ps, MREMAP_MAYMOVE |
			   MREMAP_FIXED, dst);
		ASSERT_EQ(dst, q);
		EXPECT_TRUE(pages_show(q - ps, 1, n - 1, seed))
			TH_LOG("map %u", m);
		EXPECT_EQ(0, munmap(q, (n - 1) * ps));
	}
}

TEST_F(uio, unregister_zaps_split_parts)
{
	long ps = page_size();
	uint8_t *p;

	p = mmap(NULL, 3 * ps, PROT_READ, MAP_SHARED, self->fd, ps);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(pattern(0, VIRTUAL_SEED), p[0]);
	EXPECT_EQ(pattern(2 * ps, VIRTUAL_SEED), p[2 * ps]);
	EXPECT_EQ(0, munmap(p + ps, ps));
	ASSERT_EQ(0, stub_register(false));
	EXPECT_TRUE(uio_touch_sigbus((void *)p, false));
	EXPECT_TRUE(uio_touch_sigbus((void *)(p + 2 * ps), false));
	munmap(p, ps);
	munmap(p + 2 * ps, ps);
}

/*
 * Real-time programs lock all their memory, including the mappings they
 * make later; the device's mappings must go on working, and be mapped.
 */
TEST_F(uio, mlockall_and_mlock_with_every_map)
{
	uint8_t *logical, *virtual, *dma;

	ASSERT_EQ(0, mlockall(MCL_CURRENT | MCL_FUTURE));
	logical = mmap(NULL, LOGICAL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		       self->fd, 0);
	virtual = mmap(NULL, VIRTUAL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		       self->fd, page_size());
	dma = mmap(NULL, DMA_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		   self->fd, 2 * page_size());
	EXPECT_EQ(0, munlockall());
	ASSERT_NE(MAP_FAILED, logical);
	ASSERT_NE(MAP_FAILED, virtual);
	ASSERT_NE(MAP_FAILED, dma);
	EXPECT_TRUE(pages_show(logical, 0, LOGICAL_SIZE / 4096, LOGICAL_SEED));
	EXPECT_TRUE(pages_show(virtual, 0, VIRTUAL_SIZE / 4096, VIRTUAL_SEED));
	EXPECT_TRUE(pages_show(dma, 0, DMA_SIZE / 4096, DMA_SEED));

	/* Locking what is mapped already, whole maps at a time. */
	EXPECT_EQ(0, mlock(logical, LOGICAL_SIZE));
	EXPECT_EQ(0, mlock(virtual, VIRTUAL_SIZE));
	EXPECT_EQ(0, mlock(dma, DMA_SIZE));
	EXPECT_EQ(0, mlockall(MCL_CURRENT));
	EXPECT_TRUE(pages_show(logical, 0, LOGICAL_SIZE / 4096, LOGICAL_SEED));
	EXPECT_EQ(0, munlockall());
	munmap(logical, LOGICAL_SIZE);
	munmap(virtual, VIRTUAL_SIZE);
	munmap(dma, DMA_SIZE);
}

/* ptrace() and /proc/PID/mem reach a mapping never touched, of any map. */
TEST_F(uio, proc_mem_reaches_untouched_maps)
{
	static const struct { long off; uint8_t seed; } maps[] = {
		{ 0, LOGICAL_SEED }, { 1, VIRTUAL_SEED }, { 2, DMA_SEED },
	};
	uint32_t word, saved[ARRAY_SIZE(maps)];
	uint8_t *p[ARRAY_SIZE(maps)], val;
	char buf[64], want[64];
	unsigned int m;
	int memfd;

	memfd = open("/proc/self/mem", O_RDWR);
	ASSERT_GE(memfd, 0);
	for (m = 0; m < ARRAY_SIZE(maps); m++) {
		p[m] = mmap(NULL, page_size(), PROT_READ | PROT_WRITE,
			    MAP_SHARED, self->fd, maps[m].off * page_size());
		ASSERT_NE(MAP_FAILED, p[m]);
		EXPECT_EQ(1, pread(memfd, &val, 1, (uintptr_t)p[m] + 1234))
			TH_LOG("map %u: %s", m, strerror(errno));
		EXPECT_EQ(pattern(1234, maps[m].seed), val);
		EXPECT_EQ(4, pread(memfd, &saved[m], 4, (uintptr_t)p[m]));
	}
	for (m = 0; m < ARRAY_SIZE(maps); m++) {
		word = 0xf00d0000 + m;
		EXPECT_EQ(4, pwrite(memfd, &word, 4, (uintptr_t)p[m]))
			TH_LOG("map %u: %s", m, strerror(errno));
	}
	ASSERT_EQ(0, uio_sysfs_read(STUB "backing", buf, sizeof(buf)));
	snprintf(want, sizeof(want), "0xf00d0000 0xf00d0001 0x%08x 0xf00d0002",
		 HOOK_MAGIC);
	EXPECT_STREQ(want, buf);
	for (m = 0; m < ARRAY_SIZE(maps); m++) {
		/* Touched now: the same through the page tables. */
		EXPECT_EQ(0xf00d0000 + m, *(volatile uint32_t *)p[m]);
		*(volatile uint32_t *)p[m] = saved[m];
		EXPECT_EQ(1, pread(memfd, &val, 1, (uintptr_t)p[m] + 2));
		EXPECT_EQ(pattern(2, maps[m].seed), val);
	}

	/* Gone: the access fails, it does not reach freed memory. */
	ASSERT_EQ(0, stub_register(false));
	for (m = 0; m < ARRAY_SIZE(maps); m++) {
		EXPECT_EQ(-1, pread(memfd, &val, 1, (uintptr_t)p[m] + 1));
		EXPECT_EQ(-1, pwrite(memfd, &val, 1, (uintptr_t)p[m] + 1));
		munmap(p[m], page_size());
	}
	close(memfd);
}

/*
 * Linux 6.1's uio_dmem_genirq gives a DMA region it has not allocated as
 * UIO_MEM_PHYS at addr ~0; 6.1's core refuses it (ENODEV, as unaligned).
 * Mapping it would map whatever lies at the top of the physical space.
 */
TEST_F(uio, mmap_dmem_unallocated_marker_enodev)
{
	void *p;

	ASSERT_EQ(0, uio_sysfs_write(STUB "dmem_marker", "1"));
	p = mmap(NULL, page_size(), PROT_READ, MAP_SHARED, self->fd,
		 3 * page_size());
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(ENODEV, errno);
	if (p != MAP_FAILED)
		munmap(p, page_size());
	EXPECT_EQ(0, uio_sysfs_write(STUB "dmem_marker", "0"));
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

/*
 * As in mainline, opening the node of a minor without device fails with
 * ENODEV: a node kept across unregister (a static /dev), or never used.
 */
TEST_F(uio, open_unused_minor_enodev)
{
	const char *node = "/tmp/uio_test_node";
	char path[PATH_MAX], dev[32];
	unsigned int major, minor;
	int fd, n;

	uio_path(path, sizeof(path), self->minor, "dev");
	ASSERT_EQ(0, uio_sysfs_read(path, dev, sizeof(dev)));
	n = sscanf(dev, "%u:%u", &major, &minor);
	ASSERT_EQ(2, n);
	unlink(node);
	ASSERT_EQ(0, mknod(node, S_IFCHR | 0600, makedev(major, minor)));
	fd = open(node, O_RDWR);
	EXPECT_GE(fd, 0);
	close(fd);
	ASSERT_EQ(0, stub_register(false));
	EXPECT_EQ(-1, open(node, O_RDWR));
	EXPECT_EQ(ENODEV, errno);
	unlink(node);
	ASSERT_EQ(0, mknod(node, S_IFCHR | 0600, makedev(major, 1000)));
	EXPECT_EQ(-1, open(node, O_RDWR));
	EXPECT_EQ(ENODEV, errno);
	unlink(node);
}

/* As in mainline: lseek() succeeds without effect, pread() is read(). */
TEST_F(uio, seek_and_pread_as_mainline)
{
	int32_t count, val = 1, two[2];

	EXPECT_EQ(0, lseek(self->fd, 0, SEEK_SET));
	EXPECT_EQ(0, lseek(self->fd, 4096, SEEK_SET));
	EXPECT_EQ(0, lseek(self->fd, 0, SEEK_END));
	ASSERT_EQ(0, stub_fire(1));
	EXPECT_EQ(sizeof(count), pread(self->fd, &count, sizeof(count), 12));
	EXPECT_EQ(uio_event_count(self->minor), count);
	EXPECT_EQ(-1, pread(self->fd, two, sizeof(two), 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(sizeof(val), pwrite(self->fd, &val, sizeof(val), 100));
	ASSERT_EQ(0, stub_register(false));
	EXPECT_EQ(0, lseek(self->fd, 0, SEEK_CUR));
	EXPECT_EQ(-1, pread(self->fd, &count, sizeof(count), 0));
	EXPECT_EQ(EIO, errno);
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

/*
 * A second node of the device, made with mknod as container runtimes
 * and chroot setups do: path receives its name. Returns an open file.
 */
static int uio_open_alias(int minor, char *path, size_t len, int flags)
{
	char dev[PATH_MAX], buf[32];
	unsigned int maj, min;

	uio_path(dev, sizeof(dev), minor, "dev");
	if (uio_sysfs_read(dev, buf, sizeof(buf)) ||
	    sscanf(buf, "%u:%u", &maj, &min) != 2)
		return -1;
	snprintf(path, len, "/tmp/uio-alias-%d", getpid());
	unlink(path);
	if (mknod(path, S_IFCHR | 0600, makedev(maj, min)))
		return -1;
	return open(path, flags);
}

/* Pages of [addr, addr + len) that are in the page tables. */
static int resident_pages(void *addr, size_t len)
{
	unsigned char vec[16];
	size_t i, pages = len / page_size();
	int n = 0;

	if (pages > sizeof(vec) || mincore(addr, len, vec))
		return -1;
	for (i = 0; i < pages; i++)
		n += vec[i] & 1;
	return n;
}

TEST_F(uio, open_hook_inode_has_device_number)
{
	char path[PATH_MAX], dev[32], alias[PATH_MAX], got[32];
	int fd;

	uio_path(path, sizeof(path), self->minor, "dev");
	ASSERT_EQ(0, uio_sysfs_read(path, dev, sizeof(dev)));
	ASSERT_EQ(0, uio_sysfs_read(STUB "open_inode_dev", got, sizeof(got)));
	EXPECT_STREQ(dev, got);
	/* cnic and qedi take the minor with iminor(), through any node. */
	fd = uio_open_alias(self->minor, alias, sizeof(alias), O_RDONLY);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, uio_sysfs_read(STUB "open_inode_dev", got, sizeof(got)));
	EXPECT_STREQ(dev, got);
	close(fd);
	unlink(alias);
}

/*
 * TCMU keeps the inode its open() hook gets and, when it reclaims
 * data-area pages, unmaps them through that inode before freeing them.
 * That must reach every mapping of the device, made through any node,
 * or user space keeps pages the kernel has reused: silent corruption.
 */
TEST_F(uio, stub_unmap_through_open_inode_zaps_mappings)
{
	size_t len = 2 * page_size();
	volatile uint8_t *a, *b, *v;
	char alias[PATH_MAX];
	int fd;

	fd = uio_open_alias(self->minor, alias, sizeof(alias), O_RDWR);
	ASSERT_GE(fd, 0);
	a = mmap(NULL, len, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, a);
	b = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, b);
	v = mmap(NULL, len, PROT_READ, MAP_SHARED, self->fd, page_size());
	ASSERT_NE(MAP_FAILED, v);
	EXPECT_EQ(pattern(1, LOGICAL_SEED), a[1]);
	EXPECT_EQ(pattern(page_size() + 2, LOGICAL_SEED), b[page_size() + 2]);
	EXPECT_EQ(pattern(3, VIRTUAL_SEED), v[3]);
	EXPECT_EQ(1, resident_pages((void *)a, len));
	EXPECT_EQ(1, resident_pages((void *)b + page_size(), page_size()));
	EXPECT_EQ(1, resident_pages((void *)v, page_size()));

	ASSERT_EQ(0, uio_sysfs_write(STUB "unmap_open_inode", "1"));
	EXPECT_EQ(0, resident_pages((void *)a, len));
	EXPECT_EQ(0, resident_pages((void *)b, len));
	EXPECT_EQ(0, resident_pages((void *)v, len));
	/* Zapped, not broken: the next touch faults the same pages in. */
	EXPECT_EQ(pattern(1, LOGICAL_SEED), a[1]);
	EXPECT_EQ(pattern(page_size() + 2, LOGICAL_SEED), b[page_size() + 2]);
	EXPECT_EQ(pattern(3, VIRTUAL_SEED), v[3]);
	EXPECT_EQ(1, resident_pages((void *)a, page_size()));
	munmap((void *)a, len);
	munmap((void *)b, len);
	munmap((void *)v, len);
	close(fd);
	unlink(alias);
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
	 * device without its irq. Then UIO_MEM_FLAG_WC on a LOGICAL map,
	 * and a flag that does not exist.
	 */
	EXPECT_STREQ("-22 -22 -22 -22 -22 -107 -22 -22", buf);
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
	EXPECT_TRUE(pfd.revents & POLLIN);
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

TEST_F(uio, unregister_zaps_mapping_of_mknod_node)
{
	volatile unsigned int *p;
	char alias[PATH_MAX];
	int fd;

	fd = uio_open_alias(self->minor, alias, sizeof(alias), O_RDWR);
	ASSERT_GE(fd, 0);
	p = mmap(NULL, page_size(), PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(pattern(0, LOGICAL_SEED), *(volatile uint8_t *)p);
	EXPECT_FALSE(uio_touch_sigbus(p, false));

	ASSERT_EQ(0, stub_register(false));
	EXPECT_TRUE(uio_touch_sigbus(p, false));
	munmap((void *)p, page_size());
	close(fd);
	unlink(alias);
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

/* The uevents received within ms on sock, as "action@devpath" lines. */
static void uevents_collect(int sock, int ms, char *out, size_t len)
{
	struct pollfd pfd = { .fd = sock, .events = POLLIN };
	char msg[8192];
	size_t used = 0;
	ssize_t n;

	out[0] = '\0';
	while (poll(&pfd, 1, ms) == 1) {
		n = recv(sock, msg, sizeof(msg) - 1, 0);
		if (n <= 0)
			break;
		msg[n] = '\0';
		/* Kernel messages start "action@devpath"; udev's "libudev". */
		if (!strchr(msg, '@') || used + strlen(msg) + 2 > len)
			continue;
		used += snprintf(out + used, len - used, "%s\n", msg);
	}
}

/*
 * Mainline 6.1 calls kobject_uevent(KOBJ_ADD) for every maps/mapN
 * directory, but the device kset's filter drops events of kobjects that
 * are not devices, so user space sees only the device's own add and
 * remove; the same here, where mapN is an attribute group.
 */
TEST_F(uio, uevents_only_for_the_device)
{
	struct sockaddr_nl addr = {
		.nl_family = AF_NETLINK, .nl_pid = 0, .nl_groups = 1,
	};
	char events[8192], want[128];
	int sock;

	sock = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC,
		      NETLINK_KOBJECT_UEVENT);
	/* merge-check's tinyconfig debug kernel has no networking. */
	if (sock < 0 && (errno == ENOSYS || errno == EAFNOSUPPORT))
		SKIP(return, "no netlink in this kernel (CONFIG_NET=n)");
	ASSERT_GE(sock, 0);
	ASSERT_EQ(0, bind(sock, (struct sockaddr *)&addr, sizeof(addr)));

	ASSERT_EQ(0, stub_register(false));
	uevents_collect(sock, 300, events, sizeof(events));
	snprintf(want, sizeof(want), "remove@/devices/platform/uio_test/uio/uio%d\n",
		 self->minor);
	EXPECT_NE(NULL, strstr(events, want)) TH_LOG("%s", events);
	EXPECT_EQ(NULL, strstr(events, "/maps")) TH_LOG("%s", events);

	ASSERT_EQ(0, stub_register(true));
	uevents_collect(sock, 300, events, sizeof(events));
	snprintf(want, sizeof(want), "add@/devices/platform/uio_test/uio/uio%d\n",
		 uio_find("uio_test"));
	EXPECT_NE(NULL, strstr(events, want)) TH_LOG("%s", events);
	EXPECT_EQ(NULL, strstr(events, "/maps")) TH_LOG("%s", events);
	close(sock);
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
	ASSERT_EQ(0, uio_sysfs_write(STUB "nested_registered", "1"));
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
	uio_sysfs_write(STUB "nested_registered", "0");
	uio_sysfs_write(STUB "nested_irqcontrol", "0");
	uio_sysfs_write(STUB "nested_registered", "1");
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

/* write(1) in a loop until the device is gone. */
static void *irq_enable_loop(void *arg)
{
	int fd = *(int *)arg;
	int32_t on = 1;

	while (write(fd, &on, sizeof(on)) == sizeof(on))
		;
	return (void *)(long)errno;
}

/*
 * Bug: unregister freed the interrupt before it retired the description,
 * so a write() in between re-enabled a line without handler (on a shared
 * line: "nobody cared", the line disabled for all its devices). The stub
 * counts irqcontrol() calls that find its interrupt without a handler.
 */
TEST_F_TIMEOUT(nested, unregister_frees_irq_after_last_irqcontrol, 120)
{
	long long calls = stub_counter("nested_irqcontrol_calls");
	long long freed = stub_counter("nested_irqcontrol_freed");
	pthread_t threads[3];
	int cycle, i, fd;
	void *err;

	ASSERT_EQ(0, uio_sysfs_write(STUB "nested_registered", "0"));
	ASSERT_EQ(0, uio_sysfs_write(STUB "nested_irqcontrol", "1"));
	ASSERT_EQ(0, uio_sysfs_write(STUB "nested_registered", "1"));
	for (cycle = 0; cycle < 20; cycle++) {
		fd = uio_open_minor(uio_find("uio_test_nested"), O_RDWR);
		ASSERT_GE(fd, 0);
		for (i = 0; i < 3; i++)
			ASSERT_EQ(0, pthread_create(&threads[i], NULL,
						    irq_enable_loop, &fd));
		usleep(5000);
		ASSERT_EQ(0, uio_sysfs_write(STUB "nested_registered", "0"));
		for (i = 0; i < 3; i++) {
			pthread_join(threads[i], &err);
			EXPECT_EQ(EIO, (long)err);
		}
		close(fd);
		ASSERT_EQ(0, uio_sysfs_write(STUB "nested_registered", "1"));
	}
	EXPECT_LT(calls + 20, stub_counter("nested_irqcontrol_calls"));
	EXPECT_EQ(freed, stub_counter("nested_irqcontrol_freed"));
	/* The line works again for the device registered last. */
	EXPECT_TRUE(irq_listed(self->irq, "uio_test_nested"));
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
