// SPDX-License-Identifier: GPL-2.0
/*
 * Reliability of the UIO core under load: devices unplugged while threads
 * block in read(), poll() and epoll_wait(), spin on non-blocking read() and
 * poll(), and touch mappings; the stub
 * module unloaded and reloaded; open/close and mmap/munmap races; event
 * storms with exact counts; a shared interrupt line claimed by its owner
 * only; and what an unprivileged user can see.
 *
 *   uio_stress_test [-l] [test-name-substring...]
 *
 * Short mode (default) fits `make check`; -l or UIO_STRESS_MODE=long runs
 * the long figures for `make stress`. Parameters (environment):
 *   UIO_STRESS_CYCLES     stub unplug cycles, also while
 *                         threads open/mmap/read it    (short 20, long 1000)
 *   UIO_STRESS_PCI_CYCLES PCI unbind and remove cycles each (UIO_STRESS_CYCLES)
 *   UIO_STRESS_THREADS    threads per waiter kind       (short 3, long 4)
 *   UIO_STRESS_MODCYCLES  rmmod/insmod cycles           (short 3, long 100)
 *   UIO_STRESS_OPS        open/mmap race operations     (short 20000, long 200000)
 *   UIO_STRESS_EVENTS     stub events in the storm      (short 200000, long 5000000)
 *   UIO_STRESS_IRQS       edu interrupts on the shared line (short 100, long 50000)
 *   UIO_STRESS_TESTS      test-name substrings to run, if no arguments
 *   UIO_STRESS_TIME_SCALE multiplies every time limit (slow kernels)  (1)
 *   UIO_STRESS_MEM_KB     kernel memory bound, whole run (2048)
 */
#define _GNU_SOURCE
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/syscall.h>

#include "uio_stress.h"

static unsigned int cycles, pci_cycles, nthreads, modcycles, irqs;
static unsigned long long race_ops, storm_events;

/* --- unplug under load -------------------------------------------------- */

enum waiter_kind { W_READ, W_POLL, W_EPOLL, W_TOUCH, W_SPIN, W_KINDS };

static const char * const waiter_names[W_KINDS] = {
	"read", "poll", "epoll", "touch", "spin",
};

/**
 * struct unplug_run - one unplug cycle, shared by main and the waiters
 * @minor:	the device's minor in this cycle
 * @map_len:	bytes each toucher maps from map0
 * @check:	what map0's first word must read while the device lives
 * @ready:	waiters about to block
 * @done:	waiters that have seen the device go
 * @bad:	waiters that saw anything else
 * @stop:	main gave up waiting (hang): toucher loops end
 */
struct unplug_run {
	int		minor;
	size_t		map_len;
	uint32_t	check;
	int		ready;
	int		done;
	int		bad;
	int		stop;
};

/**
 * struct waiter - one thread
 * @run:	the cycle
 * @kind:	what it blocks in, or spins on
 * @fd:		its own open file, non-blocking for a spinner
 * @map:	its own mapping of map0 (touchers)
 * @thread:	the thread
 */
struct waiter {
	struct unplug_run	*run;
	enum waiter_kind	kind;
	int			fd;
	volatile uint32_t	*map;
	pthread_t		thread;
};

static void waiter_verdict(struct waiter *w, bool ok, const char *what, int err)
{
	if (!ok) {
		__atomic_add_fetch(&w->run->bad, 1, __ATOMIC_SEQ_CST);
		ksft_print_msg("%s waiter: %s (%s)\n", waiter_names[w->kind],
			       what, strerror(err));
	}
	__atomic_add_fetch(&w->run->done, 1, __ATOMIC_SEQ_CST);
}

static void *waiter_fn(void *arg)
{
	struct waiter *w = arg;
	struct epoll_event ev = { .events = EPOLLIN };
	struct pollfd pfd = { .fd = w->fd, .events = POLLIN };
	unsigned int seed = (uintptr_t)w;
	int32_t count;
	uint32_t val;
	ssize_t n;
	int ep, ret;

	switch (w->kind) {
	case W_READ:
		__atomic_add_fetch(&w->run->ready, 1, __ATOMIC_SEQ_CST);
		n = read(w->fd, &count, sizeof(count));
		waiter_verdict(w, n == -1 && errno == EIO, "read did not fail with EIO",
			       errno);
		break;
	case W_POLL:
		__atomic_add_fetch(&w->run->ready, 1, __ATOMIC_SEQ_CST);
		ret = poll(&pfd, 1, -1);
		waiter_verdict(w, ret == 1 && (pfd.revents & POLLERR),
			       "poll did not report POLLERR", errno);
		break;
	case W_EPOLL:
		ep = epoll_create1(EPOLL_CLOEXEC);
		if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, w->fd, &ev)) {
			waiter_verdict(w, false, "epoll setup", errno);
			break;
		}
		__atomic_add_fetch(&w->run->ready, 1, __ATOMIC_SEQ_CST);
		ret = epoll_wait(ep, &ev, 1, -1);
		waiter_verdict(w, ret == 1 && (ev.events & EPOLLERR),
			       "epoll_wait did not report EPOLLERR", errno);
		close(ep);
		break;
	case W_TOUCH:
		__atomic_add_fetch(&w->run->ready, 1, __ATOMIC_SEQ_CST);
		for (;;) {
			size_t off = (size_t)(rand_r(&seed) % (w->run->map_len / 4)) * 4;

			if (!stress_peek(w->map + off / 4, &val)) {
				/* SIGBUS: the device is gone; it must stay so. */
				waiter_verdict(w, !stress_peek(w->map, &val),
					       "mapping came back after SIGBUS", 0);
				break;
			}
			if (off == 0 && val != w->run->check) {
				waiter_verdict(w, false, "mapping reads wrong data", 0);
				break;
			}
			if (__atomic_load_n(&w->run->stop, __ATOMIC_RELAXED)) {
				waiter_verdict(w, false, "no SIGBUS", 0);
				break;
			}
		}
		break;
	case W_SPIN:
		/*
		 * Never blocks: races the core's lockless check of the
		 * description with unregister freeing it.
		 */
		__atomic_add_fetch(&w->run->ready, 1, __ATOMIC_SEQ_CST);
		for (;;) {
			n = read(w->fd, &count, sizeof(count));
			if (n == -1 && errno == EIO) {
				ret = poll(&pfd, 1, 0);
				waiter_verdict(w, ret == 1 && (pfd.revents & POLLERR),
					       "poll after EIO did not report POLLERR",
					       errno);
				break;
			}
			if (n != sizeof(count) && !(n == -1 && errno == EAGAIN)) {
				waiter_verdict(w, false, "non-blocking read", errno);
				break;
			}
			ret = poll(&pfd, 1, 0);
			if (ret < 0) {
				waiter_verdict(w, false, "poll", errno);
				break;
			}
			if (__atomic_load_n(&w->run->stop, __ATOMIC_RELAXED)) {
				waiter_verdict(w, false, "no EIO", 0);
				break;
			}
		}
		break;
	default:
		break;
	}
	return NULL;
}

/**
 * struct unplug_kind - how one kind of unplug is done
 * @name:	for messages
 * @cycles:	how many
 * @find:	the device's minor now (or -errno)
 * @unplug:	take the device away
 * @replug:	bring it back
 * @check:	the first word of map0 while the device lives
 * @map_len:	bytes to map from map0
 */
struct unplug_kind {
	const char	*name;
	unsigned int	cycles;
	int		(*find)(void);
	int		(*unplug)(void);
	int		(*replug)(void);
	uint32_t	check;
	size_t		map_len;
};

static char edu_addr[NAME_MAX + 1];	/* the edu device the PCI cycles use */

static int stub_find(void)
{
	return uio_find(STUB_NAME);
}

static int stub_unplug(void)
{
	return stub_register(false);
}

static int stub_replug(void)
{
	return stub_register(true);
}

static int edu_find(void)
{
	return edu_wait_minor(edu_addr, 5000);
}

static int edu_unbind(void)
{
	return uio_sysfs_write(UPG_DRIVER "/unbind", edu_addr);
}

static int edu_bind(void)
{
	return uio_sysfs_write(UPG_DRIVER "/bind", edu_addr);
}

static int edu_remove(void)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), PCI_DEVICES "/%s/remove", edu_addr);
	return uio_sysfs_write(path, "1");
}

static int edu_rescan(void)
{
	return uio_sysfs_write("/sys/bus/pci/rescan", "1");
}

/* Wait until *counter reaches want or timeout_ms passes. */
static bool wait_count(int *counter, int want, int timeout_ms)
{
	double end = uio_now() + timeout_ms / 1000.0;

	while (__atomic_load_n(counter, __ATOMIC_SEQ_CST) < want) {
		if (uio_now() > end)
			return false;
		usleep(500);
	}
	return true;
}

static double unplug_s, replug_s;	/* time spent in both, for the figures */

/* One cycle; false stops the test (a hang leaves threads behind). */
static bool unplug_cycle(const struct unplug_kind *k, unsigned int cycle)
{
	struct unplug_run run = { .map_len = k->map_len, .check = k->check };
	unsigned int total = nthreads * W_KINDS, i;
	struct waiter *w = calloc(total, sizeof(*w));
	bool ok = true;
	double t;

	run.minor = k->find();
	if (!stress_check(run.minor >= 0, "%s cycle %u: no device (%d)",
			  k->name, cycle, run.minor) || !w) {
		free(w);
		return false;
	}
	for (i = 0; i < total; i++) {
		w[i].run = &run;
		w[i].kind = i % W_KINDS;
		w[i].map = MAP_FAILED;
		w[i].fd = uio_open_minor(run.minor, O_RDWR | O_CLOEXEC |
					 (w[i].kind == W_SPIN ? O_NONBLOCK : 0));
		if (!stress_check(w[i].fd >= 0, "open: %s", strerror(errno)))
			return false;
		if (w[i].kind == W_TOUCH) {
			w[i].map = mmap(NULL, k->map_len, PROT_READ, MAP_SHARED,
					w[i].fd, 0);
			if (!stress_check(w[i].map != MAP_FAILED, "mmap: %s",
					  strerror(errno)))
				return false;
		}
		if (pthread_create(&w[i].thread, NULL, waiter_fn, &w[i]))
			return stress_check(false, "pthread_create");
	}
	wait_count(&run.ready, total, 10000);
	/* Let the readers and pollers reach their sleep. */
	usleep(1000);

	t = uio_now();
	if (!stress_check(k->unplug() == 0, "%s cycle %u: unplug failed",
			  k->name, cycle))
		return false;
	unplug_s += uio_now() - t;
	if (!wait_count(&run.done, total, 20000)) {
		__atomic_store_n(&run.stop, 1, __ATOMIC_SEQ_CST);
		stress_check(false, "%s cycle %u: %d of %u waiters still blocked",
			     k->name, cycle, total - run.done, total);
		return false;
	}
	for (i = 0; i < total; i++) {
		pthread_join(w[i].thread, NULL);
		if (w[i].map != MAP_FAILED)
			munmap((void *)w[i].map, k->map_len);
		close(w[i].fd);
	}
	ok = stress_check(run.bad == 0, "%s cycle %u: %d waiters failed",
			  k->name, cycle, run.bad);
	free(w);
	t = uio_now();
	ok &= stress_check(k->replug() == 0, "%s cycle %u: replug failed",
			   k->name, cycle);
	replug_s += uio_now() - t;
	return ok;
}

static int unplug_test(const struct unplug_kind *k)
{
	struct stress_snapshot before, after;
	unsigned int cycle;
	int max_minor = -1;

	stress_catch_sigbus();
	if (k->find() < 0)
		return STRESS_SKIP;
	stress_snapshot(&before);
	for (cycle = 0; cycle < k->cycles; cycle++) {
		if (!unplug_cycle(k, cycle))
			break;
		/* An idev leaked per cycle would push the minors up. */
		stress_minors(&max_minor);
		if (!stress_check(max_minor <= before.max_minor + 1,
				  "%s cycle %u: minor %d in use, started at %d",
				  k->name, cycle, max_minor, before.max_minor))
			break;
	}
	k->find();	/* let a rebind settle */
	stress_snapshot(&after);
	ksft_print_msg("%s: %u of %u cycles survived, %u waiters each; "
		       "unplug %.1f ms, replug %.1f ms per cycle\n",
		       k->name, cycle, k->cycles, nthreads * W_KINDS,
		       unplug_s * 1000 / (cycle ?: 1),
		       replug_s * 1000 / (cycle ?: 1));
	stress_check(stress_compare(k->name, &before, &after, STRESS_TEST_MEM_KB),
		     "leak after %s cycles", k->name);
	return cycle == k->cycles ? 0 : 1;
}

static int unplug_stub_test(void)
{
	const struct unplug_kind k = {
		.name = "stub unregister", .cycles = cycles, .find = stub_find,
		.unplug = stub_unplug, .replug = stub_replug,
		.check = stub_pattern32(0, STUB_LOGICAL_SEED),
		.map_len = STUB_LOGICAL_SIZE,
	};

	return unplug_test(&k);
}

static int unplug_edu_test(int (*unplug)(void), int (*replug)(void),
			   const char *name)
{
	const struct unplug_kind k = {
		.name = name, .cycles = pci_cycles, .find = edu_find,
		.unplug = unplug,
		.replug = replug, .map_len = 4096,
	};
	struct unplug_kind kk = k;
	volatile uint32_t *regs;
	int minor, fd;

	if (edu_nth(0, edu_addr, sizeof(edu_addr)))
		return STRESS_SKIP;
	minor = edu_find();
	if (minor < 0)
		return STRESS_SKIP;
	fd = uio_open_minor(minor, O_RDWR);
	if (!stress_check(fd >= 0, "open: %s", strerror(errno)))
		return 1;
	regs = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (!stress_check(regs != MAP_FAILED, "mmap: %s", strerror(errno)))
		return 1;
	kk.check = regs[EDU_ID / 4];
	munmap((void *)regs, 4096);
	close(fd);
	if (!stress_check((kk.check & 0xff) == EDU_ID_MAGIC,
			  "edu ID register reads 0x%x", kk.check))
		return 1;
	return unplug_test(&kk);
}

static int unplug_unbind_test(void)
{
	return unplug_edu_test(edu_unbind, edu_bind, "pci unbind");
}

static int unplug_remove_test(void)
{
	return unplug_edu_test(edu_remove, edu_rescan, "pci remove");
}

/* --- module lifetime ---------------------------------------------------- */

static int delete_module(const char *name, int flags)
{
	return syscall(SYS_delete_module, name, flags);
}

static int finit_module(int fd)
{
	return syscall(SYS_finit_module, fd, "", 0);
}

/* rmmod must fail while held, succeed once released. */
static bool rmmod_refused(void)
{
	int ret = delete_module(STUB_MODULE, O_NONBLOCK);
	int err = errno;

	if (ret == 0)
		return false;
	return stress_check(err == EWOULDBLOCK || err == EBUSY, "rmmod: %s",
			    strerror(err));
}

static int module_lifetime_test(void)
{
	struct stress_snapshot before, after;
	unsigned int cycle;
	int minor, fd, ko;
	void *map;

	if (uio_find(STUB_NAME) < 0 || access(STUB_KO, R_OK))
		return STRESS_SKIP;
	stress_snapshot(&before);
	for (cycle = 0; cycle < modcycles; cycle++) {
		int32_t count;

		minor = uio_find(STUB_NAME);
		if (!stress_check(minor >= 0, "cycle %u: stub missing", cycle))
			break;
		fd = uio_open_minor(minor, O_RDWR | O_NONBLOCK);
		if (!stress_check(fd >= 0, "open: %s", strerror(errno)))
			break;
		map = mmap(NULL, STUB_VIRTUAL_SIZE, PROT_READ, MAP_SHARED, fd,
			   4096);
		if (!stress_check(map != MAP_FAILED, "mmap: %s", strerror(errno)))
			break;
		/* An open file pins the module. */
		if (!stress_check(rmmod_refused(), "cycle %u: rmmod with open fd",
				  cycle))
			break;
		/* Refused means untouched: the file still works. */
		stress_check(read(fd, &count, 4) == -1 && errno == EAGAIN,
			     "file unusable after refused rmmod");
		stress_check(*(volatile uint32_t *)map ==
			     stub_pattern32(0, STUB_VIRTUAL_SEED),
			     "mapping wrong after refused rmmod");
		close(fd);
		/* So does a mapping, which holds the file. */
		if (!stress_check(rmmod_refused(), "cycle %u: rmmod with mapping",
				  cycle))
			break;
		munmap(map, STUB_VIRTUAL_SIZE);
		if (!stress_check(delete_module(STUB_MODULE, O_NONBLOCK) == 0,
				  "cycle %u: rmmod after close: %s", cycle,
				  strerror(errno)))
			break;
		stress_check(uio_find(STUB_NAME) == -ENOENT,
			     "stub device survived rmmod");
		ko = open(STUB_KO, O_RDONLY | O_CLOEXEC);
		if (!stress_check(ko >= 0, "open %s: %s", STUB_KO, strerror(errno)))
			break;
		if (!stress_check(finit_module(ko) == 0, "cycle %u: insmod: %s",
				  cycle, strerror(errno))) {
			close(ko);
			break;
		}
		close(ko);
	}
	stress_snapshot(&after);
	ksft_print_msg("module: %u of %u rmmod/insmod cycles survived\n", cycle,
		       modcycles);
	stress_check(stress_compare("module", &before, &after, STRESS_TEST_MEM_KB),
		     "leak after module cycles");
	return cycle == modcycles ? 0 : 1;
}

/* --- open/close and mmap/munmap races ------------------------------------ */

/**
 * struct race - shared by the racing threads
 * @minor:	the stub's minor
 * @left:	operations still to do
 * @opens:	successful opens (each is closed again)
 * @ops:	operations done
 */
struct race {
	int		minor;
	long long	left;
	long long	opens;
	long long	ops;
};

struct race_thread {
	struct race	*race;
	int		index;
	pthread_t	thread;
};

static void *race_fn(void *arg)
{
	struct race_thread *rt = arg;
	struct race *r = rt->race;
	unsigned int seed = rt->index;
	long long ops = 0, opens = 0;

	/* Odd threads only open and close; even ones map in between. */
	while (__atomic_sub_fetch(&r->left, rt->index & 1 ? 2 : 4,
				  __ATOMIC_RELAXED) >= 0) {
		int fd = uio_open_minor(r->minor, O_RDWR | O_CLOEXEC);
		bool virt = rand_r(&seed) & 1;
		size_t size = virt ? STUB_VIRTUAL_SIZE : STUB_LOGICAL_SIZE;
		size_t len = (1 + rand_r(&seed) % (size / 4096)) * 4096;
		size_t off = (rand_r(&seed) % (len / 4)) * 4;
		volatile uint32_t *map;

		ops++;
		if (!stress_check(fd >= 0, "open: %s", strerror(errno)))
			break;
		opens++;
		if (rt->index & 1) {
			close(fd);
			ops++;
			continue;
		}
		map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, virt ? 4096 : 0);
		ops++;
		if (stress_check(map != MAP_FAILED, "mmap: %s", strerror(errno))) {
			stress_check(map[off / 4] == stub_pattern32(off, virt ?
				     STUB_VIRTUAL_SEED : STUB_LOGICAL_SEED),
				     "map%d word %zu wrong", virt, off);
			/* Closing first: the mapping alone keeps the file. */
			if (rand_r(&seed) & 1) {
				close(fd);
				fd = -1;
			}
			munmap((void *)map, len);
			ops++;
		}
		if (fd >= 0)
			close(fd);
		ops++;
	}
	__atomic_add_fetch(&r->ops, ops, __ATOMIC_RELAXED);
	__atomic_add_fetch(&r->opens, opens, __ATOMIC_RELAXED);
	return NULL;
}

static int open_mmap_race_test(void)
{
	struct race r = { .left = race_ops };
	struct stress_snapshot before, after;
	struct race_thread rt[8];
	long long open0, release0;
	unsigned int i;

	r.minor = uio_find(STUB_NAME);
	if (r.minor < 0)
		return STRESS_SKIP;
	stress_snapshot(&before);
	open0 = uio_sysfs_num(STUB_DIR "open_calls");
	release0 = uio_sysfs_num(STUB_DIR "release_calls");
	for (i = 0; i < ARRAY_SIZE(rt); i++) {
		rt[i].race = &r;
		rt[i].index = i;
		if (pthread_create(&rt[i].thread, NULL, race_fn, &rt[i]))
			return 1;
	}
	for (i = 0; i < ARRAY_SIZE(rt); i++)
		pthread_join(rt[i].thread, NULL);
	ksft_print_msg("race: %lld operations, %lld opens by %zu threads\n",
		       r.ops, r.opens, ARRAY_SIZE(rt));
	/* Every open reached the stub's open(), every close its release(). */
	stress_check(uio_sysfs_num(STUB_DIR "open_calls") - open0 == r.opens,
		     "open() hook calls differ from opens");
	stress_check(uio_sysfs_num(STUB_DIR "release_calls") - release0 ==
		     r.opens, "release() hook calls differ from opens");
	stress_check(r.ops >= (long long)race_ops * 3 / 4,
		     "only %lld operations done", r.ops);
	stress_snapshot(&after);
	stress_check(stress_compare("race", &before, &after, STRESS_TEST_MEM_KB),
		     "leak after races");
	return 0;
}

/* --- open, mmap and read racing with unregister ------------------------- */

/**
 * struct flap - users racing with a stub that comes and goes
 * @path:	the stub's device node (its minor may change: re-read)
 * @stop:	main is done toggling
 * @ops:	operations done
 * @bad:	outcomes outside the documented ones
 * @sigbus:	touches that got SIGBUS
 */
struct flap {
	char		path[64];
	int		stop;
	long long	ops;
	int		bad;
	long long	sigbus;
};

static void flap_bad(struct flap *fl, const char *what, int err)
{
	if (__atomic_add_fetch(&fl->bad, 1, __ATOMIC_RELAXED) <= 5)
		ksft_print_msg("flap: %s: %s\n", what, strerror(err));
}

static void *flap_user(void *arg)
{
	struct flap *fl = arg;
	long long ops = 0, sigbus = 0;
	char path[64];
	int32_t count;
	uint32_t val;

	while (!__atomic_load_n(&fl->stop, __ATOMIC_RELAXED)) {
		volatile uint32_t *map;
		int fd;

		snprintf(path, sizeof(path), "%s", fl->path);
		fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		ops++;
		if (fd < 0) {
			/* Gone between the lookup and the open. */
			if (errno != ENOENT && errno != ENODEV && errno != ENXIO)
				flap_bad(fl, "open", errno);
			continue;
		}
		map = mmap(NULL, STUB_LOGICAL_SIZE, PROT_READ, MAP_SHARED, fd, 0);
		ops++;
		if (map == MAP_FAILED) {
			if (errno != EIO)
				flap_bad(fl, "mmap", errno);
		} else {
			if (!stress_peek(map, &val))
				sigbus++;
			else if (val != stub_pattern32(0, STUB_LOGICAL_SEED))
				flap_bad(fl, "mapping reads wrong data", 0);
			munmap((void *)map, STUB_LOGICAL_SIZE);
			ops += 2;
		}
		if (read(fd, &count, 4) != -1 || (errno != EAGAIN && errno != EIO))
			flap_bad(fl, "read", errno);
		close(fd);
		ops += 2;
	}
	__atomic_add_fetch(&fl->ops, ops, __ATOMIC_RELAXED);
	__atomic_add_fetch(&fl->sigbus, sigbus, __ATOMIC_RELAXED);
	return NULL;
}

static int unregister_race_test(void)
{
	struct stress_snapshot before, after;
	struct flap fl = { 0 };
	pthread_t users[4];
	unsigned int i, toggles;
	int minor;

	stress_catch_sigbus();
	minor = uio_find(STUB_NAME);
	if (minor < 0)
		return STRESS_SKIP;
	stress_snapshot(&before);
	snprintf(fl.path, sizeof(fl.path), "/dev/uio%d", minor);
	for (i = 0; i < ARRAY_SIZE(users); i++)
		if (pthread_create(&users[i], NULL, flap_user, &fl))
			return 1;
	for (toggles = 0; toggles < cycles; toggles++) {
		usleep(2000);
		if (!stress_check(stub_register(false) == 0, "unregister"))
			break;
		usleep(2000);
		if (!stress_check(stub_register(true) == 0, "register"))
			break;
		minor = uio_find(STUB_NAME);
		if (!stress_check(minor >= 0, "stub missing"))
			break;
		snprintf(fl.path, sizeof(fl.path), "/dev/uio%d", minor);
	}
	__atomic_store_n(&fl.stop, 1, __ATOMIC_SEQ_CST);
	for (i = 0; i < ARRAY_SIZE(users); i++)
		pthread_join(users[i], NULL);
	/*
	 * The last register may have run while a user still held a file of
	 * the old device, whose minor then stayed taken (as it must). With
	 * every file closed, one more cycle must get the old minor back.
	 */
	stress_check(stub_register(false) == 0, "unregister");
	stress_check(stub_register(true) == 0, "register");
	stress_snapshot(&after);
	ksft_print_msg("flap: %u of %u unregister/register cycles survived\n",
		       toggles, cycles);
	ksft_print_msg("flap: %lld operations by %zu threads, %lld touches got SIGBUS\n",
		       fl.ops, ARRAY_SIZE(users), fl.sigbus);
	stress_check(fl.bad == 0, "%d undocumented outcomes", fl.bad);
	stress_check(stress_compare("flap", &before, &after, STRESS_TEST_MEM_KB),
		     "leak after racing unregister");
	return toggles == cycles ? 0 : 1;
}

/* --- DMA-coherent mappings racing with unregister ----------------------- */

#define DMA_RACE_KEEP	64	/* mappings each thread holds on to */

/**
 * struct dma_racer - one thread mapping the stub's DMA_COHERENT map
 * @thread:	the thread
 * @path:	the stub's device node
 * @maps:	the last DMA_RACE_KEEP mappings it made, NULL where none
 * @mmaps:	successful mmap() calls
 * @bad:	outcomes outside the documented ones
 */
struct dma_racer {
	pthread_t		thread;
	const char		*path;
	volatile uint32_t	*maps[DMA_RACE_KEEP];
	long long		mmaps;
	int			bad;
};

static void dma_racer_bad(struct dma_racer *dr, const char *what, int err)
{
	if (++dr->bad <= 3)
		ksft_print_msg("dma race: %s: %s\n", what, strerror(err));
}

/* Map until the stub is gone, keeping the newest mappings. */
static void *dma_racer_fn(void *arg)
{
	struct dma_racer *dr = arg;
	volatile uint32_t *map;
	unsigned int slot = 0;
	uint32_t val;
	int fd;

	for (;;) {
		fd = open(dr->path, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			if (errno != ENOENT && errno != ENODEV && errno != ENXIO)
				dma_racer_bad(dr, "open", errno);
			break;
		}
		map = mmap(NULL, STUB_DMA_SIZE, PROT_READ, MAP_SHARED, fd,
			   STUB_DMA_MAP * 4096);
		close(fd);
		if (map == MAP_FAILED) {
			if (errno != EIO)
				dma_racer_bad(dr, "mmap", errno);
			break;
		}
		dr->mmaps++;
		/* SIGBUS is fine: the stub went away after the mmap(). */
		if (stress_peek(map + 1, &val) &&
		    val != stub_pattern32(4, STUB_DMA_SEED))
			dma_racer_bad(dr, "mapping reads wrong data", 0);
		if (dr->maps[slot])
			munmap((void *)dr->maps[slot], STUB_DMA_SIZE);
		dr->maps[slot] = map;
		slot = (slot + 1) % DMA_RACE_KEEP;
	}
	return NULL;
}

/*
 * dma_mmap_coherent() fills the page tables before mmap() links the VMA
 * where unregister's zap looks for it. Whatever mmap() succeeded before
 * unregister returned, every one of those mappings must fault afterwards.
 */
static int dma_unregister_race_test(void)
{
	struct stress_snapshot before, after;
	struct dma_racer dr[4];
	long long mmaps = 0, live = 0;
	unsigned int cycle, i, k;
	char path[64];
	uint32_t val;
	int minor, bad = 0;

	stress_catch_sigbus();
	if (uio_find(STUB_NAME) < 0)
		return STRESS_SKIP;
	stress_snapshot(&before);
	for (cycle = 0; cycle < cycles; cycle++) {
		minor = uio_find(STUB_NAME);
		if (!stress_check(minor >= 0, "stub missing"))
			break;
		snprintf(path, sizeof(path), "/dev/uio%d", minor);
		memset(dr, 0, sizeof(dr));
		for (i = 0; i < ARRAY_SIZE(dr); i++) {
			dr[i].path = path;
			if (pthread_create(&dr[i].thread, NULL, dma_racer_fn,
					   &dr[i]))
				return 1;
		}
		usleep(1000 + 1000 * (cycle % 8));
		stress_check(stub_register(false) == 0, "unregister");
		for (i = 0; i < ARRAY_SIZE(dr); i++) {
			pthread_join(dr[i].thread, NULL);
			mmaps += dr[i].mmaps;
			bad += dr[i].bad;
			for (k = 0; k < DMA_RACE_KEEP; k++) {
				if (!dr[i].maps[k])
					continue;
				live += stress_peek(dr[i].maps[k], &val);
				munmap((void *)dr[i].maps[k], STUB_DMA_SIZE);
			}
		}
		if (!stress_check(stub_register(true) == 0, "register"))
			break;
	}
	stress_snapshot(&after);
	ksft_print_msg("dma race: %u cycles, %lld mmaps by %zu threads\n",
		       cycle, mmaps, ARRAY_SIZE(dr));
	stress_check(live == 0, "%lld mappings still live after unregister",
		     live);
	stress_check(bad == 0, "%d undocumented outcomes", bad);
	stress_check(stress_compare("dma race", &before, &after,
				    STRESS_TEST_MEM_KB), "leak after DMA races");
	return cycle == cycles ? 0 : 1;
}

/* --- event storm --------------------------------------------------------- */

/**
 * struct storm - event storm state
 * @minor:	the stub's minor
 * @start:	the event count before the storm
 * @target:	the event count at the end (start + events fired)
 * @left:	events still to fire
 * @fired:	events fired
 * @reads:	successful reads by all readers
 */
struct storm {
	int		minor;
	uint32_t	start;
	uint32_t	target;
	long long	left;
	long long	fired;
	long long	reads;
};

static void *storm_writer(void *arg)
{
	struct storm *s = arg;
	long long batch = stress_long ? 50000 : 10000;
	long long n;

	for (;;) {
		n = __atomic_sub_fetch(&s->left, batch, __ATOMIC_RELAXED);
		if (n + batch <= 0)
			break;
		if (n < 0)
			batch += n;
		if (!stress_check(stub_fire(batch) == 0, "fire failed"))
			break;
		__atomic_add_fetch(&s->fired, batch, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void *storm_reader(void *arg)
{
	struct storm *s = arg;
	struct pollfd pfd = { .events = POLLIN };
	int32_t count, last;
	long long reads = 0;
	int fd;

	fd = uio_open_minor(s->minor, O_RDONLY | O_CLOEXEC);
	if (!stress_check(fd >= 0, "open: %s", strerror(errno)))
		return NULL;
	pfd.fd = fd;
	last = (int32_t)s->start;
	while ((uint32_t)last != s->target) {
		/* A reader that stops seeing events would stay here: time out. */
		if (!stress_check(poll(&pfd, 1, 20000) == 1,
				  "reader stuck at %u of %u", last, s->target))
			break;
		if (!stress_check(read(fd, &count, 4) == 4, "read: %s",
				  strerror(errno)))
			break;
		/* The count only grows, and never past what was fired. */
		if (!stress_check((uint32_t)(count - last) > 0 &&
				  (uint32_t)(s->target - count) <
				  (uint32_t)(s->target - last),
				  "count went from %u to %u", last, count))
			break;
		last = count;
		reads++;
	}
	__atomic_add_fetch(&s->reads, reads, __ATOMIC_RELAXED);
	close(fd);
	return NULL;
}

static int irq_storm_test(void)
{
	struct storm s = { .left = storm_events };
	pthread_t writers[3], readers[3];
	long long start, end;
	unsigned int i;
	double t0;

	s.minor = uio_find(STUB_NAME);
	if (s.minor < 0)
		return STRESS_SKIP;
	start = uio_event_count(s.minor);
	s.start = (uint32_t)start;
	s.target = (uint32_t)(start + storm_events);
	for (i = 0; i < ARRAY_SIZE(readers); i++)
		pthread_create(&readers[i], NULL, storm_reader, &s);
	usleep(10000);
	t0 = uio_now();
	for (i = 0; i < ARRAY_SIZE(writers); i++)
		pthread_create(&writers[i], NULL, storm_writer, &s);
	for (i = 0; i < ARRAY_SIZE(writers); i++)
		pthread_join(writers[i], NULL);
	for (i = 0; i < ARRAY_SIZE(readers); i++)
		pthread_join(readers[i], NULL);
	end = uio_event_count(s.minor);
	ksft_print_msg("storm: %lld events fired by %zu writers in %.1f s\n",
		       s.fired, ARRAY_SIZE(writers), uio_now() - t0);
	ksft_print_msg("storm: counted %lld, %lld reads by %zu readers\n",
		       end - start, s.reads, ARRAY_SIZE(readers));
	stress_check(s.fired == (long long)storm_events, "fired %lld", s.fired);
	stress_check((uint32_t)(end - start) == (uint32_t)storm_events,
		     "sysfs count moved by %lld, fired %llu", end - start,
		     storm_events);
	return 0;
}

/* --- shared interrupt line ----------------------------------------------- */

struct edu {
	char			addr[NAME_MAX + 1];
	int			minor;
	int			fd;
	volatile uint32_t	*regs;
};

static bool edu_setup(struct edu *e, int n)
{
	int32_t on = 1;

	if (edu_nth(n, e->addr, sizeof(e->addr)))
		return false;
	e->minor = edu_wait_minor(e->addr, 5000);
	if (e->minor < 0)
		return false;
	e->fd = uio_open_minor(e->minor, O_RDWR | O_CLOEXEC);
	if (e->fd < 0)
		return false;
	e->regs = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, e->fd, 0);
	if (e->regs == MAP_FAILED)
		return false;
	e->regs[EDU_IRQ_ACK / 4] = 0xffffffff;
	return write(e->fd, &on, 4) == 4;
}

static int shared_irq_test(void)
{
	struct pollfd pfd = { .events = POLLIN };
	struct edu e[2];
	long long c0[2], c[2];
	char path[PATH_MAX];
	unsigned int i, raised[2] = { 0, 0 };
	int32_t count, on = 1;

	if (!edu_setup(&e[0], 0) || !edu_setup(&e[1], 1))
		return STRESS_SKIP;
	snprintf(path, sizeof(path), PCI_DEVICES "/%s/irq", e[0].addr);
	c[0] = uio_sysfs_num(path);
	snprintf(path, sizeof(path), PCI_DEVICES "/%s/irq", e[1].addr);
	if (c[0] != uio_sysfs_num(path)) {
		ksft_print_msg("the edu devices do not share a line\n");
		return STRESS_SKIP;
	}
	c0[0] = uio_event_count(e[0].minor);
	c0[1] = uio_event_count(e[1].minor);
	for (i = 0; i < irqs; i++) {
		/* Mostly alternate, sometimes repeat: no fixed rhythm. */
		int d = (i ^ (i >> 3)) & 1, o = !d;

		e[d].regs[EDU_IRQ_RAISE / 4] = 1u << (i % 8);
		raised[d]++;
		pfd.fd = e[d].fd;
		if (!stress_check(poll(&pfd, 1, 5000) == 1 &&
				  read(e[d].fd, &count, 4) == 4,
				  "interrupt %u on %s lost", i, e[d].addr))
			break;
		if (!stress_check(count == c0[d] + raised[d],
				  "%s counted %d, want %lld", e[d].addr, count,
				  c0[d] + raised[d]))
			break;
		e[d].regs[EDU_IRQ_ACK / 4] = 0xffffffff;
		if (!stress_check(write(e[d].fd, &on, 4) == 4, "irqcontrol"))
			break;
		/* The other stub saw the line too and must have let it be. */
		if (!stress_check(uio_event_count(e[o].minor) == c0[o] + raised[o],
				  "%s counted an interrupt of %s", e[o].addr,
				  e[d].addr))
			break;
	}
	c[0] = uio_event_count(e[0].minor) - c0[0];
	c[1] = uio_event_count(e[1].minor) - c0[1];
	ksft_print_msg("shared line: raised %u + %u, counted %lld + %lld\n",
		       raised[0], raised[1], c[0], c[1]);
	stress_check(c[0] == raised[0] && c[1] == raised[1], "counts differ");
	for (i = 0; i < 2; i++) {
		munmap((void *)e[i].regs, 4096);
		close(e[i].fd);
	}
	return i == 2 && raised[0] + raised[1] == irqs ? 0 : 1;
}

/* --- privilege ----------------------------------------------------------- */

/* Does this look like a kernel virtual address on x86-64? */
static bool kernel_address(const char *s)
{
	return strtoull(s, NULL, 0) >= 0xffff800000000000ULL;
}

/* Runs as nobody: no device opens, no kernel address is readable. */
static int unprivileged_child(void)
{
	char path[PATH_MAX], buf[64];
	struct dirent *de, *me;
	int checked = 0, names = 0;
	DIR *dir, *maps;
	int fd;

	/* A kernel without CONFIG_MULTIUSER has no one else to be. */
	if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
		return STRESS_SKIP;
	dir = opendir(UIO_CLASS);
	if (!stress_check(dir, "opendir %s: %s", UIO_CLASS, strerror(errno)))
		return 3;
	while ((de = readdir(dir))) {
		if (strncmp(de->d_name, "uio", 3))
			continue;
		snprintf(path, sizeof(path), "/dev/%s", de->d_name);
		fd = open(path, O_RDONLY);
		stress_check(fd < 0 && errno == EACCES, "%s opened by nobody",
			     path);
		if (fd >= 0)
			close(fd);
		snprintf(path, sizeof(path), UIO_CLASS "/%s/name", de->d_name);
		names += uio_sysfs_read(path, buf, sizeof(buf)) == 0;
		snprintf(path, sizeof(path), UIO_CLASS "/%s/maps", de->d_name);
		maps = opendir(path);
		if (!maps)
			continue;
		while ((me = readdir(maps))) {
			if (strncmp(me->d_name, "map", 3))
				continue;
			snprintf(path, sizeof(path), UIO_CLASS "/%s/maps/%s/addr",
				 de->d_name, me->d_name);
			checked++;
			if (uio_sysfs_read(path, buf, sizeof(buf)))
				continue;
			stress_check(!kernel_address(buf), "%s shows %s to nobody",
				     path, buf);
		}
		closedir(maps);
	}
	closedir(dir);
	ksft_print_msg("nobody: %d names readable, %d map addresses checked\n",
		       names, checked);
	/* Paths resolved at all (or the checks above proved nothing). */
	stress_check(names > 0 && checked > 0, "nothing to check");
	return stress_failures ? 1 : 0;
}

static int unprivileged_test(void)
{
	char path[PATH_MAX], buf[64];
	int minor = uio_find(STUB_NAME), status;
	pid_t pid;

	if (minor < 0 || getuid() != 0)
		return STRESS_SKIP;
	/* As root the stub's LOGICAL address is there and is a kernel one. */
	uio_path(path, sizeof(path), minor, "maps/map0/addr");
	if (!stress_check(uio_sysfs_read(path, buf, sizeof(buf)) == 0 &&
			  kernel_address(buf), "root reads %s as %s", path, buf))
		return 1;
	pid = fork();
	if (pid == 0)
		_exit(unprivileged_child());
	if (!stress_check(waitpid(pid, &status, 0) == pid && WIFEXITED(status),
			  "child"))
		return 1;
	if (WEXITSTATUS(status) == STRESS_SKIP)
		return STRESS_SKIP;
	return stress_check(WEXITSTATUS(status) == 0, "nobody saw too much: %d",
			    WEXITSTATUS(status)) ? 0 : 1;
}

/* --- main ---------------------------------------------------------------- */

static const struct {
	const char	*name;
	int		(*fn)(void);
	unsigned int	short_s;	/* time limits */
	unsigned int	long_s;
} tests[] = {
	{ "unplug_stub_wakes_all_waiters",	unplug_stub_test,	120, 2400 },
	{ "unplug_pci_unbind_wakes_all_waiters", unplug_unbind_test,	120, 2400 },
	{ "unplug_pci_remove_wakes_all_waiters", unplug_remove_test,	120, 2400 },
	{ "rmmod_refused_while_open",		module_lifetime_test,	60, 1200 },
	{ "open_mmap_races_balance",		open_mmap_race_test,	120, 1200 },
	{ "open_mmap_race_unregister",		unregister_race_test,	120, 2400 },
	{ "dma_mmap_race_unregister",		dma_unregister_race_test, 120, 2400 },
	{ "event_storm_counts_exactly",		irq_storm_test,		120, 1200 },
	{ "shared_line_claimed_by_owner",	shared_irq_test,	120, 1200 },
	{ "unprivileged_sees_no_device",	unprivileged_test,	30, 30 },
};

int main(int argc, char **argv)
{
	struct stress_snapshot before, after;
	char *filter[16], *env = getenv("UIO_STRESS_TESTS");
	unsigned int i, n = 0, scale;
	int first = 1;
	double t0 = uio_now();

	stress_init_mode();
	if (argc > 1 && !strcmp(argv[1], "-l")) {
		stress_long = true;
		first = 2;
	}
	/* Without filter arguments, UIO_STRESS_TESTS="name ..." selects. */
	if (first >= argc && env && *env) {
		filter[0] = argv[0];
		for (argc = 1; argc < 16 && (filter[argc] = strtok(argc == 1 ?
		     env : NULL, " ")); argc++)
			;
		argv = filter;
		first = 1;
	}
	cycles = stress_param("UIO_STRESS_CYCLES", 20, 1000);
	pci_cycles = stress_param("UIO_STRESS_PCI_CYCLES", cycles, cycles);
	nthreads = stress_param("UIO_STRESS_THREADS", 3, 4);
	modcycles = stress_param("UIO_STRESS_MODCYCLES", 3, 100);
	race_ops = stress_param("UIO_STRESS_OPS", 20000, 200000);
	storm_events = stress_param("UIO_STRESS_EVENTS", 200000, 5000000);
	irqs = stress_param("UIO_STRESS_IRQS", 100, 50000);
	scale = stress_param("UIO_STRESS_TIME_SCALE", 1, 1);

	ksft_print_header();
	for (i = 0; i < ARRAY_SIZE(tests); i++)
		n += stress_selected(tests[i].name, argc, argv, first);
	ksft_set_plan(n + 1);
	ksft_print_msg("%s mode: %u stub and %u PCI unplug cycles x %u waiters per kind\n",
		       stress_long ? "long" : "short", cycles, pci_cycles,
		       nthreads);
	ksft_print_msg("%s mode: %u module cycles, %llu race ops, %llu events, %u irqs\n",
		       stress_long ? "long" : "short", modcycles, race_ops,
		       storm_events, irqs);

	stress_snapshot(&before);
	for (i = 0; i < ARRAY_SIZE(tests); i++)
		if (stress_selected(tests[i].name, argc, argv, first))
			stress_run(tests[i].name, tests[i].fn, scale *
				   (stress_long ? tests[i].long_s : tests[i].short_s));
	stress_snapshot(&after);
	ksft_test_result(stress_compare("whole run", &before, &after,
					stress_param("UIO_STRESS_MEM_KB", 2048,
						     2048)),
			 "memory_back_to_baseline\n");
	ksft_print_msg("total %.1f s\n", uio_now() - t0);
	ksft_finished();
}
