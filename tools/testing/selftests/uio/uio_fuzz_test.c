// SPDX-License-Identifier: GPL-2.0
/*
 * A seeded, reproducible fuzzer of the /dev/uioN ABI: random sequences of
 * open, read, write, poll, mmap, touch, munmap, lseek, ioctl, fcntl and
 * close with random sizes, offsets, flags and values against every UIO
 * device, with events fired and the test stub unregistered and registered
 * in between. Each result is checked against a model of the documented
 * behaviour (README.md's table): for the test stub's devices the model
 * predicts the one right outcome, for other devices the documented set.
 *
 *   uio_fuzz_test [-l] [-s seed] [-n ops]
 *
 * UIO_FUZZ_SEED, UIO_FUZZ_OPS (short 50000, long 1000000) and
 * UIO_FUZZ_TRACE=1 (print every op) do the same through the environment.
 * A failure prints the seed, the op index and the ops before it; the same
 * seed replays the same sequence.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <sys/ioctl.h>
#include <time.h>

#include "uio_stress.h"

#define MAX_FDS		12
#define MAX_MAPS	12
#define MAX_DEVS	16
#define NR_MAPS		5	/* MAX_UIO_MAPS */
#define PAGE		4096UL
#define HISTORY		16	/* ops printed before a failure */

enum dev_kind { DEV_STUB, DEV_NOIRQ, DEV_OTHER };

/**
 * struct fdev - a UIO device as the model sees it
 * @name:	its name in sysfs
 * @kind:	the stub, its no-interrupt sibling, or another device
 * @minor:	its minor (the stub's may change on re-registration)
 * @pages:	pages of each map, 0 where there is none
 */
struct fdev {
	char		name[64];
	enum dev_kind	kind;
	int		minor;
	unsigned long	pages[NR_MAPS];
};

/**
 * struct ffile - an open file
 * @fd:		the descriptor, -1 if the slot is free
 * @dev:	index into devs
 * @gen:	the stub's generation at open
 * @acc:	O_RDONLY, O_WRONLY or O_RDWR
 * @nonblock:	O_NONBLOCK is set
 * @seen:	the event count this file last read (stub only)
 */
struct ffile {
	int		fd;
	int		dev;
	unsigned int	gen;
	int		acc;
	bool		nonblock;
	uint32_t	seen;
};

/**
 * struct fmap - a mapping
 * @addr:	start, NULL if the slot is free
 * @len:	bytes
 * @dev:	index into devs
 * @gen:	the stub's generation at mmap
 * @writable:	PROT_WRITE
 */
struct fmap {
	uint8_t		*addr;
	size_t		len;
	int		dev;
	unsigned int	gen;
	bool		writable;
};

static struct fdev devs[MAX_DEVS];
static int ndevs;
static struct ffile files[MAX_FDS];
static struct fmap maps[MAX_MAPS];

/* The stub's state: registered, generation, and its event count. */
static bool stub_on = true;
static unsigned int stub_gen;
static uint32_t stub_events;

static unsigned long long seed, op_index;
static uint64_t rng_state;
static void *bad_buf;		/* a PROT_NONE page: EFAULT */
static timer_t intr_timer;	/* interrupts blocking reads */
static bool trace;

static char history[HISTORY][200];
static unsigned long long figures[16];	/* ops per kind, for the report */

/* xorshift64*: small, fast and the same everywhere. */
static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static unsigned int rnd_below(unsigned int n)
{
	return (unsigned int)(rnd() >> 32) % n;
}

static bool chance(unsigned int percent)
{
	return rnd_below(100) < percent;
}

static void note(const char *fmt, ...)
{
	char *h = history[op_index % HISTORY];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(h, sizeof(history[0]), fmt, ap);
	va_end(ap);
	if (trace)
		ksft_print_msg("op %llu: %s\n", op_index, h);
}

static int failures;
static unsigned int failures_by_op[ARRAY_SIZE(figures)];	/* per figures[] kind */
static unsigned int cur_kind;	/* figures[] index of the op running */

/*
 * Check an outcome: ret is the call's result, err its errno; want is the
 * errno expected, 0 for success. ok_ret tells what success looks like.
 */
static bool expect(const char *what, long ret, int err, int want, bool ok_ret)
{
	bool ok = want ? ret == -1 && err == want : ok_ret;
	unsigned long long i;

	if (ok)
		return true;
	failures_by_op[cur_kind]++;
	if (failures >= 20) {
		failures++;
		return false;
	}
	ksft_print_msg("seed %llu op %llu: %s: got %ld (%s), want %s; op: %s\n",
		       seed, op_index, what, ret, ret == -1 ? strerror(err) : "-",
		       want > 0 ? strerror(want) : want ? "documented" : "success",
		       history[op_index % HISTORY]);
	/* Details for the first few; all are counted. */
	if (failures++ < 3) {
		i = op_index >= HISTORY - 1 ? op_index - (HISTORY - 1) : 0;
		for (; i <= op_index; i++)
			ksft_print_msg("  op %llu: %s\n", i, history[i % HISTORY]);
		ksft_print_msg("replay: UIO_FUZZ_SEED=%llu UIO_FUZZ_OPS=%llu\n",
			       seed, op_index + 1);
		ksft_print_msg("        UIO_FUZZ_TRACE=1 ./uio_fuzz_test\n");
	}
	return false;
}

/* Check an outcome against a set of documented errnos (non-stub devices). */
static bool expect_any(const char *what, long ret, int err, const int *errs,
		       int n)
{
	int i;

	if (ret != -1)
		return true;
	for (i = 0; i < n; i++)
		if (err == errs[i])
			return true;
	return expect(what, ret, err, -1, false);
}

/* --- devices ---------------------------------------------------------- */

static void dev_scan_maps(struct fdev *d)
{
	char path[PATH_MAX];
	long long size;
	int i;

	for (i = 0; i < NR_MAPS; i++) {
		snprintf(path, sizeof(path), UIO_CLASS "/uio%d/maps/map%d/size",
			 d->minor, i);
		size = uio_sysfs_num(path);
		/* Pages counted from the map's page offset (0 for ours). */
		d->pages[i] = size > 0 ? (size + PAGE - 1) / PAGE : 0;
	}
}

static int devs_scan(void)
{
	struct dirent **names;
	char path[PATH_MAX];
	int i, n;

	n = scandir(UIO_CLASS, &names, NULL, alphasort);
	if (n < 0)
		return -errno;
	for (i = 0; i < n; i++) {
		struct fdev *d = &devs[ndevs];

		if (strncmp(names[i]->d_name, "uio", 3) || ndevs == MAX_DEVS) {
			free(names[i]);
			continue;
		}
		d->minor = atoi(names[i]->d_name + 3);
		free(names[i]);
		uio_path(path, sizeof(path), d->minor, "name");
		if (uio_sysfs_read(path, d->name, sizeof(d->name)))
			continue;
		/* Lists a map it does not offer for mmap(): not our model. */
		if (!strcmp(d->name, "uio_test_subpage"))
			continue;
		d->kind = !strcmp(d->name, STUB_NAME) ? DEV_STUB :
			  !strcmp(d->name, "uio_test_noirq") ? DEV_NOIRQ :
			  DEV_OTHER;
		dev_scan_maps(d);
		ndevs++;
	}
	free(names);
	return ndevs;
}

/* Is the device behind a file or mapping made in generation gen gone? */
static bool dev_gone(int dev, unsigned int gen)
{
	return devs[dev].kind == DEV_STUB && (!stub_on || gen != stub_gen);
}

static bool dev_has_irq(int dev)
{
	return devs[dev].kind != DEV_NOIRQ;
}

/* --- buffers ------------------------------------------------------------ */

static int32_t good_buf[4];

/* A buffer argument: good most of the time, else NULL or unmapped. */
static void *pick_buf(const char **desc)
{
	switch (rnd_below(10)) {
	case 0:
		*desc = "NULL";
		return NULL;
	case 1:
		*desc = "bad";
		return bad_buf;
	default:
		*desc = "good";
		return good_buf;
	}
}

static size_t pick_size(void)
{
	static const size_t sizes[] = { 4, 4, 4, 4, 0, 1, 3, 5, 8, 16 };

	return sizes[rnd_below(ARRAY_SIZE(sizes))];
}

static int free_file(void)
{
	int i;

	for (i = 0; i < MAX_FDS; i++)
		if (files[i].fd < 0)
			return i;
	return -1;
}

static int pick_file(void)
{
	int i, start = rnd_below(MAX_FDS);

	for (i = 0; i < MAX_FDS; i++)
		if (files[(start + i) % MAX_FDS].fd >= 0)
			return (start + i) % MAX_FDS;
	return -1;
}

static int pick_map(void)
{
	int i, start = rnd_below(MAX_MAPS);

	for (i = 0; i < MAX_MAPS; i++)
		if (maps[(start + i) % MAX_MAPS].addr)
			return (start + i) % MAX_MAPS;
	return -1;
}

/* --- operations --------------------------------------------------------- */

static void op_open(void)
{
	static const int accs[] = { O_RDONLY, O_WRONLY, O_RDWR, O_RDWR };
	int slot = free_file(), dev = rnd_below(ndevs), flags, fd, err;
	struct ffile *f;

	if (slot < 0)
		return;
	f = &files[slot];
	f->acc = accs[rnd_below(4)];
	f->nonblock = !chance(5);
	flags = f->acc | O_CLOEXEC | (f->nonblock ? O_NONBLOCK : 0) |
		(chance(10) ? O_SYNC : 0);
	note("open dev %d (%s) flags 0x%x", dev, devs[dev].name, flags);
	fd = uio_open_minor(devs[dev].minor, flags);
	err = errno;
	/* An unregistered stub has no device node. */
	if (!expect("open", fd, err, dev_gone(dev, stub_gen) ? ENOENT : 0,
		    fd >= 0) || fd < 0)
		return;
	f->fd = fd;
	f->dev = dev;
	f->gen = stub_gen;
	f->seen = stub_events;
	figures[0]++;
}

static void op_close(void)
{
	int slot = pick_file(), ret, err;

	if (slot < 0)
		return;
	note("close fd %d", files[slot].fd);
	ret = close(files[slot].fd);
	err = errno;
	figures[12]++;
	expect("close", ret, err, 0, ret == 0);
	files[slot].fd = -1;
}

/*
 * Arm the timer that turns a blocking read into EINTR. It repeats: a
 * single shot could fire before read() sleeps and leave it blocked.
 */
static void arm_interrupt(void)
{
	struct itimerspec its = {
		.it_value.tv_nsec = 5 * 1000 * 1000,
		.it_interval.tv_nsec = 5 * 1000 * 1000,
	};

	timer_settime(intr_timer, 0, &its, NULL);
}

static void disarm_interrupt(void)
{
	struct itimerspec its = { 0 };

	timer_settime(intr_timer, 0, &its, NULL);
}

static void op_read(void)
{
	int slot = pick_file(), want, err;
	const char *bdesc;
	struct ffile *f;
	size_t size;
	void *buf;
	ssize_t n;

	if (slot < 0)
		return;
	f = &files[slot];
	size = pick_size();
	buf = pick_buf(&bdesc);
	note("read fd %d (dev %d%s) size %zu buf %s", f->fd, f->dev,
	     f->nonblock ? ", nonblock" : "", size, bdesc);
	good_buf[0] = 0x7eadbeef;
	if (!f->nonblock)
		arm_interrupt();
	n = read(f->fd, buf, size);
	err = errno;
	disarm_interrupt();
	figures[1]++;

	/* The VFS checks the file mode, then the driver: size, liveness... */
	if (f->acc == O_WRONLY) {
		want = EBADF;
	} else if (size != 4) {
		want = EINVAL;
	} else if (dev_gone(f->dev, f->gen) || !dev_has_irq(f->dev)) {
		want = EIO;
	} else if (devs[f->dev].kind == DEV_OTHER) {
		static const int errs[] = { EAGAIN, EINTR, EFAULT, EIO };

		expect_any("read", n, err, errs, ARRAY_SIZE(errs));
		return;
	} else if (stub_events != f->seen) {
		want = buf == good_buf ? 0 : EFAULT;
	} else {
		want = f->nonblock ? EAGAIN : EINTR;
	}
	if (expect("read", n, err, want, n == 4 && good_buf[0] ==
		   (int32_t)stub_events) && n == 4)
		f->seen = stub_events;
}

static void op_write(void)
{
	int slot = pick_file(), want, err;
	const char *bdesc;
	struct ffile *f;
	size_t size;
	void *buf;
	ssize_t n;

	if (slot < 0)
		return;
	f = &files[slot];
	size = pick_size();
	buf = pick_buf(&bdesc);
	good_buf[0] = chance(50) ? (int32_t)rnd() : (int32_t)rnd_below(2);
	note("write fd %d (dev %d) size %zu buf %s value %d", f->fd, f->dev,
	     size, bdesc, good_buf[0]);
	n = write(f->fd, buf, size);
	err = errno;
	figures[2]++;

	if (f->acc != O_RDONLY && size == 4 && buf == good_buf &&
	    !dev_gone(f->dev, f->gen) && devs[f->dev].kind == DEV_OTHER) {
		static const int errs[] = { EIO, ENOSYS, EINVAL };

		expect_any("write", n, err, errs, ARRAY_SIZE(errs));
		return;
	}

	if (f->acc == O_RDONLY)
		want = EBADF;
	else if (size != 4)
		want = EINVAL;
	else if (buf != good_buf)
		want = EFAULT;
	else if (dev_gone(f->dev, f->gen))
		want = EIO;
	else if (devs[f->dev].kind == DEV_NOIRQ)
		want = EIO;	/* no interrupt: before ENOSYS, as in 6.1 */
	else
		want = 0;
	expect("write", n, err, want, n == 4);
}

static void op_poll(void)
{
	static const short evs[] = { POLLIN, POLLIN | POLLOUT, POLLPRI, 0 };
	int slot = pick_file(), ret, err;
	struct pollfd pfd;
	struct ffile *f;
	char what[64];
	short want;

	if (slot < 0)
		return;
	f = &files[slot];
	pfd.fd = f->fd;
	pfd.events = evs[rnd_below(ARRAY_SIZE(evs))];
	pfd.revents = 0;
	note("poll fd %d (dev %d) events 0x%x", f->fd, f->dev, pfd.events);
	ret = poll(&pfd, 1, 0);
	err = errno;
	figures[3]++;
	if (!expect("poll", ret, err, 0, ret == 0 || ret == 1))
		return;
	/*
	 * POLLERR and POLLHUP are reported whether asked for or not; a device
	 * without events is readable too (read() then fails), as in mainline.
	 */
	if (dev_gone(f->dev, f->gen) || !dev_has_irq(f->dev))
		want = POLLIN | POLLRDNORM | POLLERR | POLLHUP;
	else if (devs[f->dev].kind == DEV_OTHER)
		want = pfd.revents & (POLLIN | POLLRDNORM);
	else if (stub_events != f->seen)
		want = POLLIN | POLLRDNORM;
	else
		want = 0;
	want &= pfd.events | POLLERR | POLLHUP;
	if (pfd.revents != want) {
		snprintf(what, sizeof(what), "poll revents 0x%x, want 0x%x",
			 pfd.revents, want);
		expect(what, -1, 0, 0, false);
	}
}

/* Our mappings of UIO devices, for a failure report. */
static void print_uio_maps(void)
{
	char line[256];
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "/dev/uio"))
			ksft_print_msg("  maps: %s", line);
	if (f)
		fclose(f);
}

static void op_mmap(void)
{
	int slot = pick_file(), m, region, prot, flags, want, err;
	unsigned long pages, have;
	struct ffile *f;
	struct fdev *d;
	off_t off;
	void *addr;
	size_t len;

	for (m = 0; m < MAX_MAPS && maps[m].addr; m++)
		;
	if (slot < 0 || m == MAX_MAPS)
		return;
	f = &files[slot];
	d = &devs[f->dev];
	region = rnd_below(NR_MAPS + 2);
	have = region < NR_MAPS ? d->pages[region] : 0;
	switch (rnd_below(4)) {
	case 0:
		pages = 1;
		break;
	case 1:
		pages = have ?: 1;
		break;
	case 2:
		pages = rnd_below(8);
		break;
	default:
		pages = have + 1;
		break;
	}
	len = pages * PAGE;
	off = region * PAGE + (chance(3) ? 1 + rnd_below(PAGE - 1) : 0);
	prot = chance(50) ? PROT_READ : PROT_READ | PROT_WRITE;
	flags = chance(90) ? MAP_SHARED : MAP_PRIVATE;
	note("mmap fd %d (dev %d) len 0x%zx off 0x%lx prot %d %s", f->fd, f->dev,
	     len, (long)off, prot, flags == MAP_SHARED ? "shared" : "private");
	addr = mmap(NULL, len, prot, flags, f->fd, off);
	err = errno;
	figures[4]++;

	/* The mm checks first, then the driver. */
	if (!len || off % PAGE)
		want = EINVAL;
	else if (f->acc == O_WRONLY ||
		 (flags == MAP_SHARED && (prot & PROT_WRITE) && f->acc != O_RDWR))
		want = EACCES;
	else if (dev_gone(f->dev, f->gen))
		want = EIO;
	else if (d->kind == DEV_NOIRQ)
		/* Its hook maps exactly one page of region 0. */
		want = region == 0 && pages == 1 ? 0 : EINVAL;
	else if (region >= NR_MAPS || !have || pages > have ||
		 flags != MAP_SHARED)
		want = EINVAL;
	else
		want = 0;
	if (d->kind == DEV_OTHER && want == 0) {
		static const int errs[] = { EINVAL, EIO, ENOMEM };

		expect_any("mmap", addr == MAP_FAILED ? -1 : 0, err, errs,
			   ARRAY_SIZE(errs));
	} else if (!expect("mmap", addr == MAP_FAILED ? -1 : 0, err, want,
			   addr != MAP_FAILED) && failures < 3) {
		print_uio_maps();
	}
	if (addr == MAP_FAILED)
		return;
	maps[m].addr = addr;
	maps[m].len = len;
	maps[m].dev = f->dev;
	maps[m].gen = f->gen;
	/* Only the stub's RAM may be written, and only with what it holds. */
	maps[m].writable = (prot & PROT_WRITE) && d->kind != DEV_OTHER;
}

static void op_touch(void)
{
	int m = pick_map(), want;
	struct fmap *mp;
	size_t off;
	uint32_t val;
	bool ok;

	if (m < 0)
		return;
	mp = &maps[m];
	off = rnd_below(mp->len / 4) * 4;
	note("touch map %p (dev %d) +0x%zx%s", mp->addr, mp->dev, off,
	     mp->writable ? " rw" : "");
	ok = mp->writable && chance(50) ?
		stress_poke_same((volatile uint32_t *)(mp->addr + off)) :
		stress_peek((volatile uint32_t *)(mp->addr + off), &val);
	figures[5]++;
	/* SIGBUS exactly when the device went away after the mmap. */
	want = dev_gone(mp->dev, mp->gen) ? EFAULT : 0;
	expect("touch (EFAULT = SIGBUS)", ok ? 0 : -1, EFAULT, want, ok);
}

static void op_munmap(void)
{
	int m = pick_map(), ret, err;
	bool split;
	struct fmap *mp;

	if (m < 0)
		return;
	mp = &maps[m];
	split = mp->len > PAGE && chance(20);
	note("munmap map %p (dev %d) len 0x%zx%s", mp->addr, mp->dev, mp->len,
	     split ? " first page only" : "");
	ret = munmap(mp->addr, split ? PAGE : mp->len);
	err = errno;
	figures[6]++;
	/* As in mainline, a mapping may be unmapped in parts. */
	expect("munmap", ret, err, 0, ret == 0);
	if (ret)
		return;
	if (split) {
		mp->addr += PAGE;
		mp->len -= PAGE;
	} else {
		mp->addr = NULL;
	}
}

static void op_lseek(void)
{
	static const int whence[] = { SEEK_SET, SEEK_CUR, SEEK_END };
	int slot = pick_file(), err;
	off_t ret, off = chance(50) ? 0 : (off_t)(rnd() >> 1);

	if (slot < 0)
		return;
	note("lseek fd %d off %lld", files[slot].fd, (long long)off);
	ret = lseek(files[slot].fd, off, whence[rnd_below(3)]);
	err = errno;
	figures[7]++;
	/* As in mainline: succeeds, and the position stays 0. */
	expect("lseek", ret, err, 0, ret == 0);
}

/* ioctl types the VFS handles itself for every file. */
static bool vfs_ioctl_type(unsigned int type)
{
	return type == 0x00 || type == 'T' || type == 'X' || type == 'f' ||
	       type == 0x94 || type == 0x12;
}

static void op_ioctl(void)
{
	int slot = pick_file(), arg, ret, err;
	unsigned int cmd;
	struct ffile *f;

	if (slot < 0)
		return;
	f = &files[slot];
	figures[8]++;
	if (chance(20)) {
		/* FIONBIO is documented for every file: it sets O_NONBLOCK. */
		arg = chance(80);
		note("ioctl fd %d FIONBIO %d", f->fd, arg);
		ret = ioctl(f->fd, FIONBIO, &arg);
		err = errno;
		if (expect("ioctl FIONBIO", ret, err, 0, ret == 0))
			f->nonblock = arg;
		return;
	}
	do
		cmd = (unsigned int)rnd();
	while (vfs_ioctl_type(_IOC_TYPE(cmd)));
	note("ioctl fd %d cmd 0x%x", f->fd, cmd);
	/* uio has no ioctl: all others are not for this device. */
	ret = ioctl(f->fd, cmd, chance(50) ? (unsigned long)good_buf :
					     (unsigned long)rnd());
	err = errno;
	expect("ioctl", ret, err, ENOTTY, false);
}

static void op_fcntl(void)
{
	int slot = pick_file(), flags, ret, err;
	struct ffile *f;

	if (slot < 0)
		return;
	f = &files[slot];
	flags = (chance(80) ? O_NONBLOCK : 0) | (chance(30) ? O_ASYNC : 0);
	note("fcntl fd %d F_SETFL 0x%x", f->fd, flags);
	ret = fcntl(f->fd, F_SETFL, flags);
	err = errno;
	figures[9]++;
	/* O_ASYNC goes through the driver's fasync. */
	if (expect("fcntl", ret, err, 0, ret == 0))
		f->nonblock = flags & O_NONBLOCK;
}

static void op_fire(void)
{
	unsigned int n = rnd_below(4) ? rnd_below(3) : rnd_below(1000);
	int ret;

	note("fire %u", n);
	ret = stub_fire(n);
	figures[10]++;
	expect("fire", ret ? -1 : 0, -ret, 0, ret == 0);
	/* After unregister the core ignores them. */
	if (stub_on)
		stub_events += n;
}

static void op_replug(void)
{
	int ret, i;

	note("stub %s", stub_on ? "unregister" : "register");
	ret = stub_register(!stub_on);
	figures[11]++;
	if (!expect("stub registered", ret ? -1 : 0, -ret, 0, ret == 0))
		return;
	stub_on = !stub_on;
	if (!stub_on) {
		stub_gen++;
		return;
	}
	/* A new device: new count, maybe a new minor. */
	stub_events = 0;
	for (i = 0; i < ndevs; i++)
		if (devs[i].kind == DEV_STUB)
			devs[i].minor = uio_find(STUB_NAME);
}

/* Names of the figures[] kinds, in their order. */
static const char * const kind_names[] = {
	"open", "read", "write", "poll", "mmap", "touch", "munmap", "lseek",
	"ioctl", "fcntl", "fire", "replug", "close",
};

static const struct {
	void		(*fn)(void);
	unsigned int	weight;
	unsigned int	kind;	/* index into figures[] and kind_names[] */
} ops[] = {
	{ op_open,	12,	0 },
	{ op_read,	14,	1 },
	{ op_write,	8,	2 },
	{ op_poll,	8,	3 },
	{ op_mmap,	10,	4 },
	{ op_touch,	12,	5 },
	{ op_munmap,	8,	6 },
	{ op_lseek,	3,	7 },
	{ op_ioctl,	4,	8 },
	{ op_fcntl,	3,	9 },
	{ op_fire,	6,	10 },
	{ op_close,	10,	12 },
};

static unsigned long long nops;

static void on_timer(int sig)
{
}

static int fuzz(void)
{
	unsigned int total = 0, r, i;
	struct sigevent sev = {
		.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR1,
	};
	struct sigaction sa = { .sa_handler = on_timer };	/* no SA_RESTART */
	unsigned long long replugs = 0;

	stress_catch_sigbus();
	sigaction(SIGUSR1, &sa, NULL);
	if (timer_create(CLOCK_MONOTONIC, &sev, &intr_timer))
		return 1;
	bad_buf = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (i = 0; i < MAX_FDS; i++)
		files[i].fd = -1;
	if (stub_register(true) || devs_scan() <= 0)
		return STRESS_SKIP;
	stub_events = uio_event_count(uio_find(STUB_NAME));
	for (i = 0; i < ARRAY_SIZE(ops); i++)
		total += ops[i].weight;

	for (op_index = 0; op_index < nops; op_index++) {
		snprintf(history[op_index % HISTORY], sizeof(history[0]),
			 "(nothing to do)");
		/* Rarely: the stub goes away and comes back (slow: RCU). */
		if (rnd_below(2000) == 0) {
			cur_kind = 11;
			op_replug();
			replugs++;
			continue;
		}
		r = rnd_below(total);
		for (i = 0; r >= ops[i].weight; i++)
			r -= ops[i].weight;
		cur_kind = ops[i].kind;
		ops[i].fn();
	}

	for (i = 0; i < MAX_MAPS; i++)
		if (maps[i].addr)
			munmap(maps[i].addr, maps[i].len);
	for (i = 0; i < MAX_FDS; i++)
		if (files[i].fd >= 0)
			close(files[i].fd);
	stub_register(true);
	ksft_print_msg("%s: seed %llu, %llu operations fuzzed, %d unexpected outcomes\n",
		       __func__, seed, op_index, failures);
	ksft_print_msg("%s: opens %llu reads %llu writes %llu polls %llu mmaps %llu\n",
		       __func__, figures[0], figures[1], figures[2], figures[3],
		       figures[4]);
	ksft_print_msg("%s: touches %llu munmaps %llu lseeks %llu ioctls %llu\n",
		       __func__, figures[5], figures[6], figures[7], figures[8]);
	ksft_print_msg("%s: fcntls %llu fires %llu replugs %llu closes %llu, %d devices\n",
		       __func__, figures[9], figures[10], replugs, figures[12],
		       ndevs);
	for (i = 0; i < ARRAY_SIZE(kind_names); i++)
		if (failures_by_op[i])
			ksft_print_msg("%s: %u unexpected outcomes of %s\n",
				       __func__, failures_by_op[i],
				       kind_names[i]);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct stress_snapshot before, after;
	const char *env;
	double t0 = uio_now();
	int opt;

	stress_init_mode();
	env = getenv("UIO_FUZZ_SEED");
	seed = env && *env ? strtoull(env, NULL, 0) : (unsigned long long)time(NULL);
	while ((opt = getopt(argc, argv, "ls:n:")) != -1) {
		switch (opt) {
		case 'l':
			stress_long = true;
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			setenv("UIO_FUZZ_OPS", optarg, 1);
			break;
		default:
			fprintf(stderr, "usage: %s [-l] [-s seed] [-n ops]\n",
				argv[0]);
			return 1;
		}
	}
	nops = stress_param("UIO_FUZZ_OPS", 50000, 1000000);
	trace = getenv("UIO_FUZZ_TRACE") && *getenv("UIO_FUZZ_TRACE") == '1';
	rng_state = seed * 0x9e3779b97f4a7c15ULL + 1;

	ksft_print_header();
	ksft_set_plan(2);
	ksft_print_msg("fuzz: seed %llu (replay: UIO_FUZZ_SEED=%llu), %llu ops\n",
		       seed, seed, nops);
	stress_snapshot(&before);
	stress_run("fuzz_outcomes_documented", fuzz,
		   stress_param("UIO_STRESS_TIME_SCALE", 1, 1) *
		   (stress_long ? 3600 : 240));
	stress_snapshot(&after);
	ksft_test_result(stress_compare("fuzz", &before, &after,
					stress_param("UIO_STRESS_MEM_KB", 2048,
						     2048)),
			 "fuzz_memory_back_to_baseline\n");
	ksft_print_msg("total %.1f s\n", uio_now() - t0);
	ksft_finished();
}
