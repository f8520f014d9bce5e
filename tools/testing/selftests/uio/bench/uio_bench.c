// SPDX-License-Identifier: GPL-2.0
/*
 * UIO benchmark, run in the guest once per UIO core (mainline's, ours)
 * against the same devices. Each command prints "RESULT <name> key=value..."
 * lines for the host to collect; latency commands also write their raw
 * samples, one nanosecond value per line.
 *
 *   uio_bench lat <uio dev>|vfio <pci addr> read|poll|epoll \
 *		write|config|unmask|none <iterations> <samples file> [<mode>]
 *	Interrupt-to-user latency on QEMU's edu device: raise the interrupt
 *	through the mapped BAR0, time until read()/poll()/epoll_wait()
 *	returns, acknowledge, re-arm, repeat. Re-arm with write(fd, 1), by
 *	clearing Interrupt Disable in config space, with VFIO's unmask
 *	ioctl, or not at all (MSI). Or on QEMU's ivshmem-doorbell, which
 *	rings its own MSI-X vector through its doorbell register and needs
 *	no acknowledgment. "vfio" instead of a UIO device takes the device
 *	(bound to vfio-pci) through a type1v2 container and waits on an
 *	eventfd; <mode> (intx, msi or msix) picks its interrupt. <mode> (for UIO
 *	the interrupt mode of uio_pci_generic, e.g. msi) is appended to the
 *	result's name. Samples: wait latency, re-arm time and the round
 *	trip (raise to re-armed) per line. Then a closed loop of the same
 *	steps without clocks gives events/s; every wait must bring exactly
 *	one new event (exact=1).
 *   uio_bench tput <uio dev> <stub sysfs dir> <ms> <runs>
 *	Event throughput: the bench stub calls uio_event_notify() back to
 *	back for <ms> while a thread blocks in read(); the count it ends
 *	with must equal the number of calls.
 *   uio_bench mem <edu uio dev> <stub uio dev> <stub copy dev> <iterations>
 *	Mapped access against one syscall per access through the kernel:
 *	32-bit edu register loads and stores, 4 KiB block copies.
 *   uio_bench bigmap <uio dev> <map index> <iterations>
 *	Cost of mapping a large PHYS map (a big BAR) whole: mmap(), a first
 *	touch (one load per 4 KiB page), munmap(), and the minor faults the
 *	first touch took; against that, a second touch of the same pages
 *	while mapped, from a flushed TLB like the first one (under TCG a TLB
 *	refill is a large part of a touch), and a third with the TLB warm.
 *	Each the median over <iterations> maps after one not counted.
 *   uio_bench window <uio dev> <map index> <iterations> [<resource file>]
 *	WINDOWS x (mmap() of the first 1 MiB of a map, one load per 4 KiB
 *	page, munmap()): the median total over <iterations> such loops.
 *	With the PCI sysfs resource file of the same BAR, each loop is
 *	followed by the same loop through that file, which runs no UIO code
 *	(the control: the speed of the guest at that moment).
 *   uio_bench wc <uio dev> <map index> <sysfs resource file> <iterations>
 *	Store bursts of 4 KiB and 1 MiB through the UIO map and through the
 *	PCI sysfs resource file of the same BAR, uncached (resourceN) and
 *	write-combining (resourceN_wc): the median time of a burst, ended
 *	by a full fence so buffered stores count.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <linux/vfio.h>

#define EDU_LIVENESS	0x04
#define EDU_IRQ_STATUS	0x24
#define EDU_IRQ_RAISE	0x60
#define EDU_IRQ_ACK	0x64
#define EDU_IRQ_BIT	0x1

/* ivshmem-doorbell: its own ID, and the doorbell (ID << 16 | vector). */
#define IVSHMEM_IVPOSITION	0x08
#define IVSHMEM_DOORBELL	0x0c

#define PCI_COMMAND		0x04
#define PCI_COMMAND_MASTER	0x4
#define PCI_COMMAND_INTX_DISABLE 0x400

/* The stub's copy device: the page at 0, edu's registers from here. */
#define STUB_REGS	0x100000
#define BLOCK		4096
#define WARMUP		200
#define WAIT_MS		2000
#define MEM_TRIALS	5
/* Closed-loop iterations between two re-armings of the watchdog. */
#define LOOP_ALARM_EVERY 256

/*
 * Accesses that must happen exactly as written: MMIO and flags shared
 * between threads. Relaxed atomics, so the compiler neither merges nor
 * drops them.
 */
#define LOAD(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define STORE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

static void die(const char *what)
{
	fprintf(stderr, "uio_bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void *map_region(int fd, int index, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		       (off_t)index * sysconf(_SC_PAGESIZE));

	if (p == MAP_FAILED)
		die("mmap");
	return p;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static uint32_t pct(const uint32_t *sorted, int n, int p)
{
	int i = (int)((long)n * p / 100);

	return sorted[i < n ? i : n - 1];
}

/* --- latency ---------------------------------------------------------- */

enum wait_kind { WAIT_READ, WAIT_POLL, WAIT_EPOLL };
enum rearm_kind { REARM_WRITE, REARM_CONFIG, REARM_UNMASK, REARM_NONE };

struct lat_ctx {
	int fd;			/* what the wait is on: /dev/uioN or an eventfd */
	int evsize;		/* bytes one read() of fd returns */
	int cfg;		/* the device's config space */
	off_t cfg_off;		/* where config space starts in cfg */
	int vfio;		/* fd is VFIO's eventfd, dev the VFIO device */
	int dev;		/* the VFIO device */
	int ep;			/* epoll instance watching fd */
	uint32_t *regs;		/* its BAR0 */
	int ivshmem;		/* an ivshmem-doorbell, not an edu */
	uint32_t ring;		/* ivshmem: the doorbell value for vector 0 */
	enum wait_kind wait;
	enum rearm_kind rearm;
	uint16_t cmd;		/* command register with INTx enabled */
	uint64_t got;		/* the value the last read() of fd returned */
	int have_got;
	uint64_t inexact;	/* waits that did not bring exactly one event */
};

static void on_alarm(int sig)
{
	(void)sig;
}

/* Read the event count (UIO) or counter (eventfd) of fd into c->got. */
static int lat_read(struct lat_ctx *c)
{
	uint64_t prev = c->got, v = 0;

	if (read(c->fd, &v, c->evsize) != c->evsize)
		return -1;
	if (c->vfio)
		c->inexact += v != 1;
	else if (c->have_got)
		c->inexact += (uint32_t)(v - prev) != 1;
	c->got = v;
	c->have_got = 1;
	return 0;
}

/* Wait for the next event; 0 on success, -1 with errno on failure. */
static int lat_wait(struct lat_ctx *c)
{
	struct epoll_event ev;
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
	int n;

	switch (c->wait) {
	case WAIT_READ:
		/* A lost interrupt ends in EINTR from the watchdog alarm. */
		return lat_read(c);
	case WAIT_POLL:
		n = poll(&pfd, 1, WAIT_MS);
		break;
	default:
		n = epoll_wait(c->ep, &ev, 1, WAIT_MS);
		break;
	}
	if (n == 0)
		errno = ETIMEDOUT;
	return n == 1 ? 0 : -1;
}

/* After poll/epoll: consume the event so the fd stops being readable. */
static void lat_consume(struct lat_ctx *c)
{
	if (c->wait != WAIT_READ && lat_read(c))
		die("read after poll");
}

static int vfio_set_irqs(int dev, uint32_t flags, uint32_t index, int efd)
{
	struct {
		struct vfio_irq_set set;
		int32_t fd;
	} s = {
		.set = {
			.argsz = sizeof(s),
			.flags = flags,
			.index = index,
			.count = 1,
		},
		.fd = efd,
	};

	if (!(flags & VFIO_IRQ_SET_DATA_EVENTFD))
		s.set.argsz = sizeof(s.set);
	return ioctl(dev, VFIO_DEVICE_SET_IRQS, &s);
}

static int lat_rearm(struct lat_ctx *c)
{
	int32_t one = 1;

	switch (c->rearm) {
	case REARM_WRITE:
		return write(c->fd, &one, sizeof(one)) == sizeof(one) ? 0 : -1;
	case REARM_CONFIG:
		return pwrite(c->cfg, &c->cmd, sizeof(c->cmd),
			      c->cfg_off + PCI_COMMAND) == sizeof(c->cmd) ? 0 : -1;
	case REARM_UNMASK:
		return vfio_set_irqs(c->dev, VFIO_IRQ_SET_DATA_NONE |
				     VFIO_IRQ_SET_ACTION_UNMASK,
				     VFIO_PCI_INTX_IRQ_INDEX, -1);
	default:
		return 0;
	}
}

static void lat_ack(struct lat_ctx *c)
{
	if (!c->ivshmem)
		STORE(c->regs[EDU_IRQ_ACK / 4], LOAD(c->regs[EDU_IRQ_STATUS / 4]));
}

static void lat_raise(struct lat_ctx *c)
{
	if (c->ivshmem)
		STORE(c->regs[IVSHMEM_DOORBELL / 4], c->ring);
	else
		STORE(c->regs[EDU_IRQ_RAISE / 4], EDU_IRQ_BIT);
}

/* A number from sysfs; -1 if unreadable. */
static long sysfs_num(const char *path)
{
	char buf[32];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtol(buf, NULL, 0);
}

/* Which device c->regs (BAR0) belongs to: an ivshmem-doorbell rings itself. */
static void lat_device(struct lat_ctx *c, const char *addr)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/device", addr);
	c->ivshmem = sysfs_num(path) == 0x1110;
	if (c->ivshmem)
		c->ring = LOAD(c->regs[IVSHMEM_IVPOSITION / 4]) << 16;
}

/* BAR0 of the device: map 0, at the BAR's offset in its first page. */
static void lat_map(struct lat_ctx *c, const char *uio_dev, const char *addr)
{
	char path[256];
	long off;

	snprintf(path, sizeof(path), "/sys/class/uio/%s/maps/map0/offset",
		 strrchr(uio_dev, '/') + 1);
	off = sysfs_num(path);
	if (off < 0)
		die(path);
	c->regs = (uint32_t *)((char *)map_region(c->fd, 0,
						  sysconf(_SC_PAGESIZE)) + off);
	lat_device(c, addr);
}

/* Where a VFIO region starts in the device file. */
static off_t vfio_region(int dev, uint32_t index)
{
	struct vfio_region_info ri = { .argsz = sizeof(ri), .index = index };

	if (ioctl(dev, VFIO_DEVICE_GET_REGION_INFO, &ri))
		die("VFIO_DEVICE_GET_REGION_INFO");
	return ri.offset;
}

/* The IRQ VFIO requested for the device, steered to CPU 0 as for UIO. */
static void vfio_steer(const char *addr, uint32_t index)
{
	char path[256], cpu[] = "0";
	long irq = -1;
	int fd;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/irq", addr);
	if (index == VFIO_PCI_INTX_IRQ_INDEX)
		irq = sysfs_num(path);
	else
		for (irq = 0; irq < 4096; irq++) {
			snprintf(path, sizeof(path),
				 "/sys/bus/pci/devices/%s/msi_irqs/%ld", addr, irq);
			if (!access(path, F_OK))
				break;
		}
	snprintf(path, sizeof(path), "/proc/irq/%ld/smp_affinity_list", irq);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, cpu, 1) != 1)
		fprintf(stderr, "uio_bench: cannot steer IRQ %ld to CPU 0\n", irq);
	if (fd >= 0)
		close(fd);
}

/*
 * The device at addr, bound to vfio-pci, through a type1v2 container:
 * BAR0 mapped, bus mastering on (an MSI is a memory write), its INTx, MSI
 * or first MSI-X vector (VFIO's IRQ index) signalling a new eventfd, which
 * becomes c->fd.
 */
static int vfio_open(struct lat_ctx *c, const char *addr, uint32_t index)
{
	struct vfio_group_status gs = { .argsz = sizeof(gs) };
	char path[256], link[256];
	int container, group;
	ssize_t n;
	off_t bar;

	container = open("/dev/vfio/vfio", O_RDWR);
	if (container < 0)
		return -1;
	if (ioctl(container, VFIO_GET_API_VERSION) != VFIO_API_VERSION ||
	    ioctl(container, VFIO_CHECK_EXTENSION, VFIO_TYPE1v2_IOMMU) != 1) {
		errno = EOPNOTSUPP;
		return -1;
	}
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/iommu_group",
		 addr);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return -1;
	link[n] = '\0';
	snprintf(path, sizeof(path), "/dev/vfio/%s", strrchr(link, '/') + 1);
	group = open(path, O_RDWR);
	if (group < 0 || ioctl(group, VFIO_GROUP_GET_STATUS, &gs))
		return -1;
	if (!(gs.flags & VFIO_GROUP_FLAGS_VIABLE)) {
		errno = EBUSY;
		return -1;
	}
	if (ioctl(group, VFIO_GROUP_SET_CONTAINER, &container) ||
	    ioctl(container, VFIO_SET_IOMMU, VFIO_TYPE1v2_IOMMU))
		return -1;
	c->dev = ioctl(group, VFIO_GROUP_GET_DEVICE_FD, addr);
	if (c->dev < 0)
		return -1;

	bar = vfio_region(c->dev, VFIO_PCI_BAR0_REGION_INDEX);
	c->regs = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE,
		       MAP_SHARED, c->dev, bar);
	if (c->regs == MAP_FAILED)
		return -1;
	lat_device(c, addr);
	c->cfg = c->dev;
	c->cfg_off = vfio_region(c->dev, VFIO_PCI_CONFIG_REGION_INDEX);
	if (pread(c->cfg, &c->cmd, sizeof(c->cmd), c->cfg_off + PCI_COMMAND) !=
	    sizeof(c->cmd))
		return -1;
	c->cmd |= PCI_COMMAND_MASTER;
	c->cmd &= ~PCI_COMMAND_INTX_DISABLE;
	if (pwrite(c->cfg, &c->cmd, sizeof(c->cmd), c->cfg_off + PCI_COMMAND) !=
	    sizeof(c->cmd))
		return -1;

	c->fd = eventfd(0, 0);
	if (c->fd < 0)
		return -1;
	c->evsize = sizeof(uint64_t);
	if (vfio_set_irqs(c->dev, VFIO_IRQ_SET_DATA_EVENTFD |
			  VFIO_IRQ_SET_ACTION_TRIGGER, index, c->fd))
		return -1;
	vfio_steer(addr, index);
	return 0;
}

/* The UIO device uio_dev of the PCI device at addr. */
static void uio_open_dev(struct lat_ctx *c, const char *uio_dev,
			 const char *addr)
{
	char path[256];

	c->fd = open(uio_dev, O_RDWR);
	if (c->fd < 0)
		die(uio_dev);
	c->evsize = sizeof(int32_t);
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/config", addr);
	c->cfg = open(path, O_RDWR);
	if (c->cfg < 0)
		die(path);
	if (pread(c->cfg, &c->cmd, sizeof(c->cmd), PCI_COMMAND) != sizeof(c->cmd))
		die("read command register");
	c->cmd &= ~PCI_COMMAND_INTX_DISABLE;
	lat_map(c, uio_dev, addr);
}

/* One step of a driver loop: raise, wait, consume, acknowledge, re-arm. */
static int lat_step(struct lat_ctx *c, uint64_t *t)
{
	if (t)
		t[0] = now_ns();
	lat_raise(c);
	if (lat_wait(c))
		return -1;
	if (t)
		t[1] = now_ns();
	lat_consume(c);
	lat_ack(c);
	if (t)
		t[2] = now_ns();
	if (lat_rearm(c))
		die("re-arm");
	if (t)
		t[3] = now_ns();
	return 0;
}

static void lat_report(uint32_t *v, uint32_t *sorted, int n,
		       const char *prefix)
{
	memcpy(sorted, v, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_u32);
	printf(" %sp50=%u %sp99=%u", prefix, pct(sorted, n, 50), prefix,
	       pct(sorted, n, 99));
	if (!*prefix)
		printf(" p90=%u max=%u", pct(sorted, n, 90), sorted[n - 1]);
}

/* VFIO's IRQ index for <mode>: intx (the default), msi or msix. */
static uint32_t vfio_irq_index(const char *mode)
{
	if (!strcmp(mode, "msi"))
		return VFIO_PCI_MSI_IRQ_INDEX;
	if (!strcmp(mode, "msix"))
		return VFIO_PCI_MSIX_IRQ_INDEX;
	return VFIO_PCI_INTX_IRQ_INDEX;
}

static int cmd_lat(int argc, char **argv)
{
	static const char * const waits[] = { "read", "poll", "epoll" };
	static const char * const rearms[] = {
		"write", "config", "unmask", "none",
	};
	struct sigaction sa = { .sa_handler = on_alarm };
	struct epoll_event ev = { .events = EPOLLIN };
	struct lat_ctx c = { 0 };
	uint32_t *lat, *ren, *rt, *sorted;
	uint64_t t0, t[4];
	char name[64];
	int i, n, iters;
	double eps;
	FILE *out;

	if (argc != 7 && argc != 8)
		return 2;
	for (i = 0; i < 3; i++)
		if (!strcmp(argv[3], waits[i]))
			c.wait = i;
	for (i = 0; i < 4; i++)
		if (!strcmp(argv[4], rearms[i]))
			c.rearm = i;
	iters = atoi(argv[5]);
	snprintf(name, sizeof(name), "lat_%s_%s%s%s", argv[3], argv[4],
		 argc == 8 ? "_" : "", argc == 8 ? argv[7] : "");

	sigaction(SIGALRM, &sa, NULL);
	c.vfio = !strcmp(argv[1], "vfio");
	if (!c.vfio) {
		uio_open_dev(&c, argv[1], argv[2]);
	} else if (vfio_open(&c, argv[2], vfio_irq_index(argc == 8 ? argv[7] : ""))) {
		printf("RESULT %s status=%s\n", name, strerrorname_np(errno));
		return 0;
	}
	c.ep = epoll_create1(0);
	ev.data.fd = c.fd;
	if (c.ep < 0 || epoll_ctl(c.ep, EPOLL_CTL_ADD, c.fd, &ev))
		die("epoll");

	/* Start from a quiet device with its interrupt enabled. */
	lat_ack(&c);
	if (lat_rearm(&c)) {
		printf("RESULT %s status=%s\n", name, strerrorname_np(errno));
		return 0;
	}

	lat = calloc(iters, sizeof(*lat));
	ren = calloc(iters, sizeof(*ren));
	rt = calloc(iters, sizeof(*rt));
	sorted = calloc(iters, sizeof(*sorted));
	if (!lat || !ren || !rt || !sorted)
		die("calloc");
	for (i = -WARMUP; i < iters; i++) {
		/* Re-armed outside the timed window: a watchdog, not a cost. */
		alarm(WAIT_MS / 1000);
		if (i == 0)
			c.inexact = 0;
		if (lat_step(&c, t)) {
			printf("RESULT %s status=%s at=%d\n", name,
			       strerror(errno), i);
			return 1;
		}
		if (i >= 0) {
			lat[i] = t[1] - t[0];
			ren[i] = t[3] - t[2];
			rt[i] = t[3] - t[0];
		}
	}

	/* The closed loop: as fast as the path goes, no clocks inside. */
	t0 = now_ns();
	for (i = 0; i < iters; i++) {
		if (i % LOOP_ALARM_EVERY == 0)
			alarm(WAIT_MS / 1000 * 2);
		if (lat_step(&c, NULL)) {
			printf("RESULT %s status=%s loop=%d\n", name,
			       strerror(errno), i);
			return 1;
		}
	}
	eps = iters / ((now_ns() - t0) / 1e9);
	alarm(0);

	out = fopen(argv[6], "w");
	if (!out)
		die(argv[6]);
	for (i = 0; i < iters; i++)
		fprintf(out, "%u %u %u\n", lat[i], ren[i], rt[i]);
	fclose(out);

	n = iters;
	printf("RESULT %s status=ok n=%d", name, n);
	lat_report(lat, sorted, n, "");
	lat_report(ren, sorted, n, "reenable_");
	lat_report(rt, sorted, n, "rt_");
	printf(" events_per_s=%.0f events=%d inexact=%llu exact=%d\n", eps,
	       2 * n, (unsigned long long)c.inexact, !c.inexact);
	return 0;
}

/* --- event throughput ------------------------------------------------- */

struct tput_reader {
	int fd;
	int stop;
	int32_t last;		/* count the last read() returned */
	int have_last;
	uint64_t reads;
	int error;
};

static void on_usr1(int sig)
{
	(void)sig;
}

/* Keep the event source and the reader on CPUs of their own, if there are two. */
static void pin_to(pthread_t th, int cpu)
{
	cpu_set_t set;

	if (cpu >= sysconf(_SC_NPROCESSORS_ONLN))
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(th, sizeof(set), &set);
}

static void *tput_read_loop(void *arg)
{
	struct tput_reader *r = arg;
	int32_t count;

	pin_to(pthread_self(), 1);

	while (!LOAD(r->stop)) {
		if (read(r->fd, &count, sizeof(count)) != sizeof(count)) {
			if (errno != EINTR)
				r->error = errno;
			break;
		}
		STORE(r->last, count);
		STORE(r->have_last, 1);
		STORE(r->reads, r->reads + 1);
	}
	return NULL;
}

static long read_long(const char *path)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		die(path);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		die(path);
	return strtol(buf, NULL, 0);
}

static void write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0)
		die(path);
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		die(path);
	close(fd);
}

static int tput_once(const char *dev, const char *stub, int ms, int run)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	struct tput_reader r = { 0 };
	char path[256], arg[32];
	uint64_t t0, t1, deadline;
	uint32_t seen;
	long fired;
	pthread_t th;
	int32_t base;
	int exact;

	sigaction(SIGUSR1, &sa, NULL);
	r.fd = open(dev, O_RDONLY);
	if (r.fd < 0)
		die(dev);
	/* The stub is idle, so the count this file starts from is this. */
	snprintf(path, sizeof(path), "/sys/class/uio/%s/event",
		 strrchr(dev, '/') + 1);
	base = (int32_t)read_long(path);
	pin_to(pthread_self(), 0);
	if (pthread_create(&th, NULL, tput_read_loop, &r))
		die("pthread_create");
	usleep(10000);	/* let the reader block first */

	snprintf(path, sizeof(path), "%s/fire_ms", stub);
	snprintf(arg, sizeof(arg), "%d", ms);
	t0 = now_ns();
	write_str(path, arg);
	t1 = now_ns();
	snprintf(path, sizeof(path), "%s/fired", stub);
	fired = read_long(path);

	/* Let the reader catch up with the last event, then stop it. */
	deadline = now_ns() + 2000000000ull;
	while (!(LOAD(r.have_last) &&
		 (uint32_t)(LOAD(r.last) - base) == (uint32_t)fired) &&
	       now_ns() < deadline)
		usleep(1000);
	STORE(r.stop, 1);
	pthread_kill(th, SIGUSR1);
	pthread_join(th, NULL);
	close(r.fd);

	seen = r.have_last ? (uint32_t)(r.last - base) : 0;
	exact = seen == (uint32_t)fired;
	printf("RESULT tput run=%d status=%s ms=%.1f fired=%ld seen=%u ",
	       run, r.error ? strerror(r.error) : "ok", (t1 - t0) / 1e6,
	       fired, seen);
	printf("reads=%llu events_per_s=%.0f reads_per_s=%.0f exact=%d\n",
	       (unsigned long long)r.reads, fired / ((t1 - t0) / 1e9),
	       r.reads / ((t1 - t0) / 1e9), exact);
	return exact ? 0 : 1;
}

static int cmd_tput(int argc, char **argv)
{
	int i, runs, ret = 0;

	if (argc != 5)
		return 2;
	runs = atoi(argv[4]);
	for (i = 0; i < runs; i++)
		ret |= tput_once(argv[1], argv[2], atoi(argv[3]), i);
	return ret;
}

/* --- mapped access against copies through the kernel ------------------ */

/* Keeps the compiler from merging or dropping the timed accesses. */
static inline void barrier(void)
{
	__asm__ __volatile__("" ::: "memory");
}

enum mem_op { REG_LOAD, REG_STORE, BLOCK_READ, BLOCK_WRITE, MEM_OPS };

static const char * const mem_op_names[] = {
	"reg_load", "reg_store", "block_read", "block_write",
};

struct mem_ctx {
	uint32_t *regs;		/* edu BAR0 through UIO */
	uint8_t *page;			/* the stub's page through UIO */
	int copy;			/* the stub's copy device */
	uint8_t buf[BLOCK];
};

/* One access; via_map chooses the mapping or the syscall. */
static void mem_access(struct mem_ctx *m, enum mem_op op, int via_map,
		       uint32_t i)
{
	uint32_t v;

	switch (op) {
	case REG_LOAD:
		if (via_map)
			v = LOAD(m->regs[EDU_LIVENESS / 4]);
		else if (pread(m->copy, &v, 4, STUB_REGS + EDU_LIVENESS) != 4)
			die("pread register");
		(void)v;
		break;
	case REG_STORE:
		if (via_map)
			STORE(m->regs[EDU_LIVENESS / 4], i);
		else if (pwrite(m->copy, &i, 4, STUB_REGS + EDU_LIVENESS) != 4)
			die("pwrite register");
		break;
	case BLOCK_READ:
		if (via_map)
			memcpy(m->buf, m->page, BLOCK);
		else if (pread(m->copy, m->buf, BLOCK, 0) != BLOCK)
			die("pread block");
		break;
	default:
		if (via_map)
			memcpy(m->page, m->buf, BLOCK);
		else if (pwrite(m->copy, m->buf, BLOCK, 0) != BLOCK)
			die("pwrite block");
		break;
	}
	barrier();
}

/* Median over trials of the mean ns per access. */
static double mem_time(struct mem_ctx *m, enum mem_op op, int via_map,
		       int iters)
{
	double t[MEM_TRIALS];
	int trial, i, j;

	for (trial = 0; trial < MEM_TRIALS; trial++) {
		uint64_t t0 = now_ns();

		for (i = 0; i < iters; i++)
			mem_access(m, op, via_map, i);
		t[trial] = (double)(now_ns() - t0) / iters;
	}
	for (i = 1; i < MEM_TRIALS; i++)
		for (j = i; j > 0 && t[j - 1] > t[j]; j--) {
			double x = t[j];

			t[j] = t[j - 1];
			t[j - 1] = x;
		}
	return t[MEM_TRIALS / 2];
}

/* The mapping and the copy path must reach the same bytes. */
static int mem_check(struct mem_ctx *m)
{
	uint32_t v = 0;
	int i;

	for (i = 0; i < BLOCK; i++)
		m->buf[i] = (uint8_t)(i * 7 + 3);
	memcpy(m->page, m->buf, BLOCK);
	memset(m->buf, 0, BLOCK);
	if (pread(m->copy, m->buf, BLOCK, 0) != BLOCK)
		die("pread check");
	for (i = 0; i < BLOCK; i++)
		if (m->buf[i] != (uint8_t)(i * 7 + 3))
			return 0;
	/* edu's liveness register reads back the complement. */
	STORE(m->regs[EDU_LIVENESS / 4], 0x12345678);
	if (pread(m->copy, &v, 4, STUB_REGS + EDU_LIVENESS) != 4)
		die("pread check");
	return v == ~0x12345678u;
}

static int cmd_mem(int argc, char **argv)
{
	static struct mem_ctx m;
	int edu, stub, iters, op;

	if (argc != 5)
		return 2;
	iters = atoi(argv[4]);
	edu = open(argv[1], O_RDWR);
	stub = open(argv[2], O_RDWR);
	m.copy = open(argv[3], O_RDWR);
	if (edu < 0 || stub < 0 || m.copy < 0)
		die("open");
	m.regs = map_region(edu, 0, sysconf(_SC_PAGESIZE));
	m.page = map_region(stub, 0, BLOCK);

	printf("RESULT mem_check status=%s\n", mem_check(&m) ? "ok" : "MISMATCH");
	for (op = 0; op < MEM_OPS; op++) {
		/* Block copies are cheap next to emulated MMIO: do more. */
		int n = op >= BLOCK_READ ? iters * 4 : iters;
		double map_ns, copy_ns;

		mem_access(&m, op, 1, 0);	/* fault the pages in */
		map_ns = mem_time(&m, op, 1, n);
		copy_ns = mem_time(&m, op, 0, n);
		printf("RESULT mem_%s status=ok n=%d mmap_ns=%.1f syscall_ns=%.1f speedup=%.2f\n",
		       mem_op_names[op], n, map_ns, copy_ns, copy_ns / map_ns);
	}
	return 0;
}

/* --- mapping a large BAR whole --------------------------------------- */

#define BIGMAP_STEP	4096
#define BIGMAP_MAX	64
#define SZ_2M		(2ul << 20)

enum bigmap_part {
	BM_MMAP, BM_TOUCH1, BM_TOUCH2, BM_WARM, BM_MUNMAP, BM_FAULTS, BM_PARTS
};

/*
 * Flush this CPU's TLB: unmapping more pages than the kernel flushes one
 * by one (tlb_single_page_flush_ceiling, 33) makes it flush the whole TLB.
 */
static void flush_tlb(void)
{
	size_t len = 64 * BIGMAP_STEP, off;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap scratch");
	for (off = 0; off < len; off += BIGMAP_STEP)
		STORE(p[off], 1);
	if (munmap(p, len))
		die("munmap scratch");
}

static long minor_faults(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		die("getrusage");
	return ru.ru_minflt;
}

/* One load per 4 KiB page; the sum keeps the loads from being dropped. */
static uint32_t touch_pages(uint32_t *p, size_t len)
{
	uint32_t sum = 0;
	size_t off;

	for (off = 0; off < len; off += BIGMAP_STEP)
		sum += LOAD(p[off / 4]);
	return sum;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_s64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median_u64(uint64_t *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

static int64_t median_s64(int64_t *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_s64);
	return v[n / 2];
}

/* The size of map <map> of UIO device /dev/uioN, from sysfs. */
static size_t uio_map_size(const char *dev, int map)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/class/uio/%s/maps/map%d/size",
		 strrchr(dev, '/') + 1, map);
	return read_long(path);
}

static int cmd_bigmap(int argc, char **argv)
{
	static uint64_t t[BM_PARTS][BIGMAP_MAX], total[BIGMAP_MAX];
	static int64_t over[BIGMAP_MAX], over_warm[BIGMAP_MAX];
	uint32_t *p;
	unsigned long long phys;
	char path[256];
	int fd, map, iters, i, congruent = 0;
	uint32_t sum = 0;
	size_t len;

	if (argc != 4)
		return 2;
	map = atoi(argv[2]);
	iters = atoi(argv[3]);
	if (iters < 1 || iters > BIGMAP_MAX)
		iters = BIGMAP_MAX;
	len = uio_map_size(argv[1], map);
	snprintf(path, sizeof(path), "/sys/class/uio/%s/maps/map%d/addr",
		 strrchr(argv[1], '/') + 1, map);
	phys = (unsigned long long)read_long(path);
	fd = open(argv[1], O_RDWR);
	if (fd < 0)
		die(argv[1]);

	for (i = -1; i < iters; i++) {
		uint64_t t0, t1, t2, t3, t4, t5, t6;
		long f0, f1;

		f0 = minor_faults();
		t0 = now_ns();
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 (off_t)map * sysconf(_SC_PAGESIZE));
		if (p == MAP_FAILED)
			die("mmap big map");
		t1 = now_ns();
		sum += touch_pages(p, len);
		t2 = now_ns();
		f1 = minor_faults();
		flush_tlb();
		t3 = now_ns();
		sum += touch_pages(p, len);
		t4 = now_ns();
		sum += touch_pages(p, len);
		t5 = now_ns();
		if (munmap((void *)p, len))
			die("munmap big map");
		t6 = now_ns();
		congruent = ((uintptr_t)p & (SZ_2M - 1)) == (phys & (SZ_2M - 1));
		if (i < 0)
			continue;
		t[BM_MMAP][i] = t1 - t0;
		t[BM_TOUCH1][i] = t2 - t1;
		t[BM_TOUCH2][i] = t4 - t3;
		t[BM_WARM][i] = t5 - t4;
		t[BM_MUNMAP][i] = t6 - t5;
		t[BM_FAULTS][i] = f1 - f0;
		total[i] = (t1 - t0) + (t2 - t1) + (t6 - t5);
		/* Signed: the difference is noise-sized when mapping is free. */
		over[i] = (int64_t)total[i] - (int64_t)(t4 - t3);
		over_warm[i] = (int64_t)total[i] - (int64_t)(t5 - t4);
	}
	close(fd);

	printf("RESULT bigmap status=ok n=%d size=%zu pages=%zu congruent_2m=%d ",
	       iters, len, len / BIGMAP_STEP, congruent);
	printf("mmap_ns=%llu touch1_ns=%llu touch2_ns=%llu warm_ns=%llu ",
	       (unsigned long long)median_u64(t[BM_MMAP], iters),
	       (unsigned long long)median_u64(t[BM_TOUCH1], iters),
	       (unsigned long long)median_u64(t[BM_TOUCH2], iters),
	       (unsigned long long)median_u64(t[BM_WARM], iters));
	printf("munmap_ns=%llu total_ns=%llu overhead_ns=%lld overhead_warm_ns=%lld ",
	       (unsigned long long)median_u64(t[BM_MUNMAP], iters),
	       (unsigned long long)median_u64(total, iters),
	       (long long)median_s64(over, iters),
	       (long long)median_s64(over_warm, iters));
	printf("faults=%llu sum=%u\n",
	       (unsigned long long)median_u64(t[BM_FAULTS], iters), sum);
	return 0;
}

#define WINDOWS		200
#define WINDOW_LEN	(1024ul * 1024)

/* The iterations argument, clamped to 1..BIGMAP_MAX. */
static int iters_arg(const char *arg)
{
	int iters = atoi(arg);

	return iters < 1 || iters > BIGMAP_MAX ? BIGMAP_MAX : iters;
}

/*
 * Open dev for a command that needs WINDOW_LEN of map <map>; -1 after
 * printing a <result> line that says the map is too small.
 */
static int open_window_map(const char *dev, int map, const char *result)
{
	int fd;

	if (uio_map_size(dev, map) < WINDOW_LEN) {
		printf("RESULT %s status=map-too-small\n", result);
		return -1;
	}
	fd = open(dev, O_RDWR);
	if (fd < 0)
		die(dev);
	return fd;
}

/* WINDOWS x (mmap() of WINDOW_LEN at page index of fd, touch, munmap()). */
static uint64_t window_loop(int fd, int index, uint32_t *sum)
{
	uint64_t t0 = now_ns();
	uint32_t *p;
	int w;

	for (w = 0; w < WINDOWS; w++) {
		p = map_region(fd, index, WINDOW_LEN);
		*sum += touch_pages(p, WINDOW_LEN);
		if (munmap(p, WINDOW_LEN))
			die("munmap window");
	}
	return now_ns() - t0;
}

static int cmd_window(int argc, char **argv)
{
	static uint64_t t[BIGMAP_MAX], ctl[BIGMAP_MAX];
	int fd, res = -1, map, iters, i;
	uint32_t sum = 0;

	if (argc != 4 && argc != 5)
		return 2;
	map = atoi(argv[2]);
	iters = iters_arg(argv[3]);
	fd = open_window_map(argv[1], map, "window");
	if (fd < 0)
		return 0;
	if (argc == 5) {
		res = open(argv[4], O_RDWR);
		if (res < 0)
			die(argv[4]);
	}
	for (i = -1; i < iters; i++) {
		uint64_t uio = window_loop(fd, map, &sum);
		uint64_t control = res < 0 ? 0 : window_loop(res, 0, &sum);

		if (i < 0)
			continue;
		t[i] = uio;
		ctl[i] = control;
	}
	close(fd);
	if (res >= 0)
		close(res);
	printf("RESULT window status=ok n=%d windows=%d len=%lu ",
	       iters, WINDOWS, WINDOW_LEN);
	printf("total_ns=%llu control_ns=%llu sum=%u\n",
	       (unsigned long long)median_u64(t, iters),
	       (unsigned long long)median_u64(ctl, iters), sum);
	return 0;
}

/* The median time of a burst of len bytes of 64-bit stores to p. */
static uint64_t store_burst_ns(uint64_t *p, size_t len, int iters)
{
	static uint64_t t[BIGMAP_MAX];
	size_t i;
	int n;

	for (n = -1; n < iters; n++) {
		uint64_t t0 = now_ns();

		for (i = 0; i < len / 8; i++)
			STORE(p[i], i);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (n >= 0)
			t[n] = now_ns() - t0;
	}
	return median_u64(t, iters);
}

static void wc_path(const char *name, int fd, off_t off, int iters)
{
	static const size_t sizes[] = { 4096, WINDOW_LEN };
	unsigned int k;
	void *p;

	p = mmap(NULL, sizes[1], PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
	if (p == MAP_FAILED)
		die(name);
	for (k = 0; k < 2; k++)
		printf("RESULT wc_%s_%zu status=ok n=%d ns=%llu\n", name,
		       sizes[k], iters,
		       (unsigned long long)store_burst_ns(p, sizes[k], iters));
	munmap(p, sizes[1]);
}

static int cmd_wc(int argc, char **argv)
{
	char path[256];
	int fd, map, iters;

	if (argc != 5)
		return 2;
	map = atoi(argv[2]);
	iters = iters_arg(argv[4]);
	fd = open_window_map(argv[1], map, "wc_uio_4096");
	if (fd < 0)
		return 0;
	wc_path("uio", fd, (off_t)map * sysconf(_SC_PAGESIZE), iters);
	close(fd);
	fd = open(argv[3], O_RDWR);
	if (fd < 0)
		die(argv[3]);
	wc_path("res", fd, 0, iters);
	close(fd);
	snprintf(path, sizeof(path), "%s_wc", argv[3]);
	fd = open(path, O_RDWR);
	if (fd < 0)
		die(path);
	wc_path("res_wc", fd, 0, iters);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	int ret = 2;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "lat"))
		ret = cmd_lat(argc - 1, argv + 1);
	else if (argc > 1 && !strcmp(argv[1], "tput"))
		ret = cmd_tput(argc - 1, argv + 1);
	else if (argc > 1 && !strcmp(argv[1], "mem"))
		ret = cmd_mem(argc - 1, argv + 1);
	else if (argc > 1 && !strcmp(argv[1], "bigmap"))
		ret = cmd_bigmap(argc - 1, argv + 1);
	else if (argc > 1 && !strcmp(argv[1], "window"))
		ret = cmd_window(argc - 1, argv + 1);
	else if (argc > 1 && !strcmp(argv[1], "wc"))
		ret = cmd_wc(argc - 1, argv + 1);
	if (ret == 2)
		fprintf(stderr, "usage: see the comment at the top of its source\n");
	return ret;
}
