// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * User-space driver for the Hilscher CIF card behind uio_cif
 *
 * Plain syscalls only: sysfs to find the card and its maps, mmap() of
 * /dev/uioN at N * page size for map N, poll()/read() for interrupts.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "cif.h"

#define CIF_SYSFS_UIO	"/sys/class/uio"
#define CIF_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const char * const cif_names[] = { "CIF_Profibus", "CIF_Devicenet" };

int cif_sysfs_read(int uio, const char *attr, char *buf, size_t len)
{
	char path[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), CIF_SYSFS_UIO "/uio%d/%s", uio, attr);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

static int cif_is_cif_name(const char *name)
{
	size_t i;

	for (i = 0; i < CIF_ARRAY_SIZE(cif_names); i++)
		if (!strcmp(name, cif_names[i]))
			return 1;
	return 0;
}

int cif_find(void)
{
	struct dirent *de;
	char name[64];
	int best = -ENODEV;
	DIR *dir;
	int n;

	dir = opendir(CIF_SYSFS_UIO);
	if (!dir)
		return -ENODEV;
	while ((de = readdir(dir))) {
		if (sscanf(de->d_name, "uio%d", &n) != 1)
			continue;
		if (cif_sysfs_read(n, "name", name, sizeof(name)))
			continue;
		if (cif_is_cif_name(name) && (best < 0 || n < best))
			best = n;
	}
	closedir(dir);
	return best;
}

static int cif_sysfs_u64(int uio, int map, const char *field, uint64_t *val)
{
	char attr[64], buf[64], *end;
	int ret;

	snprintf(attr, sizeof(attr), "maps/map%d/%s", map, field);
	ret = cif_sysfs_read(uio, attr, buf, sizeof(buf));
	if (ret)
		return ret;
	errno = 0;
	*val = strtoull(buf, &end, 0);
	if (errno || end == buf)
		return -EINVAL;
	return 0;
}

static int cif_map_one(struct cif *cif, int map)
{
	struct cif_map *m = &cif->map[map];
	long page = sysconf(_SC_PAGESIZE);
	size_t in_page;
	int ret;

	ret = cif_sysfs_u64(cif->uio, map, "addr", &m->addr);
	if (!ret)
		ret = cif_sysfs_u64(cif->uio, map, "size", &m->size);
	if (ret)
		return ret;
	if (!m->size)
		return -ENODEV;
	/* A map need not start on a page: the mapping covers its page. */
	in_page = m->addr & (page - 1);
	m->len = (in_page + m->size + page - 1) & ~(size_t)(page - 1);
	m->base = mmap(NULL, m->len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       cif->fd, (off_t)map * page);
	if (m->base == MAP_FAILED) {
		m->base = NULL;
		return -errno;
	}
	m->regs = (volatile uint8_t *)m->base + in_page;
	return 0;
}

int cif_open(struct cif *cif, int uio)
{
	char path[32];
	int ret, i;

	memset(cif, 0, sizeof(*cif));
	cif->fd = -1;
	cif->uio = uio;
	ret = cif_sysfs_read(uio, "name", cif->name, sizeof(cif->name));
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "/dev/uio%d", uio);
	cif->fd = open(path, O_RDWR | O_CLOEXEC);
	if (cif->fd < 0)
		return -errno;
	for (i = 0; i < 2; i++) {
		ret = cif_map_one(cif, i);
		if (ret) {
			cif_close(cif);
			return ret;
		}
	}
	if (cif->map[CIF_MAP_PLX].size < CIF_BAR0_SIZE ||
	    cif->map[CIF_MAP_DPRAM].size < CIF_DPRAM_SIZE) {
		cif_close(cif);
		return -ENXIO;
	}
	return 0;
}

void cif_close(struct cif *cif)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (cif->map[i].base)
			munmap(cif->map[i].base, cif->map[i].len);
		cif->map[i].base = NULL;
		cif->map[i].regs = NULL;
	}
	if (cif->fd >= 0)
		close(cif->fd);
	cif->fd = -1;
}

void cif_irq_enable(struct cif *cif, int on)
{
	uint32_t v = cif_plx_read(cif, CIF_PLX_INTCSR);

	if (on)
		v |= CIF_INTCSR_INT1_EN;
	else
		v &= ~CIF_INTCSR_INT1_EN;
	cif_plx_write(cif, CIF_PLX_INTCSR, v);
}

int cif_irq_wait(struct cif *cif, int timeout_ms, uint32_t *count)
{
	struct pollfd pfd = { .fd = cif->fd, .events = POLLIN };
	int32_t ev;
	int ret;

	ret = poll(&pfd, 1, timeout_ms);
	if (ret < 0)
		return -errno;
	if (!ret)
		return -ETIMEDOUT;
	if (read(cif->fd, &ev, sizeof(ev)) != sizeof(ev))
		return errno ? -errno : -EIO;
	if (count)
		*count = (uint32_t)ev;
	return 0;
}

int cif_mbx_send(struct cif *cif, uint32_t cmd, const void *buf, size_t len)
{
	volatile uint8_t *data = cif->map[CIF_MAP_DPRAM].regs + CIF_DP_H2C_DATA;
	const uint8_t *src = buf;
	size_t i;

	if (len > CIF_MBX_DATA_SIZE)
		return -EMSGSIZE;
	if (cif_dp_read(cif, CIF_DP_H2C_FLAG) != CIF_MBX_EMPTY)
		return -EBUSY;
	for (i = 0; i < len; i++)
		data[i] = src[i];
	cif_dp_write(cif, CIF_DP_H2C_CMD, cmd);
	cif_dp_write(cif, CIF_DP_H2C_LEN, len);
	/* The flag last: it hands the message to the card. */
	__sync_synchronize();
	cif_dp_write(cif, CIF_DP_H2C_FLAG, CIF_MBX_FULL);
	return 0;
}

static long cif_ms_left(const struct timespec *end)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (end->tv_sec - now.tv_sec) * 1000 +
	       (end->tv_nsec - now.tv_nsec) / 1000000;
}

/*
 * Wait until the DPRAM cell at off is non-zero.  INT1 is armed before
 * the last look at the cell, so a flag set in between still interrupts;
 * an interrupt that turns out stale only costs one more round.
 */
static int cif_wait_cell(struct cif *cif, unsigned int off, int timeout_ms)
{
	struct timespec end;
	long left;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += timeout_ms / 1000;
	end.tv_nsec += (timeout_ms % 1000) * 1000000L;
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	for (;;) {
		if (cif_dp_read(cif, off))
			return 0;
		cif_irq_enable(cif, 1);
		if (cif_dp_read(cif, off))
			return 0;
		left = cif_ms_left(&end);
		if (left <= 0)
			return -ETIMEDOUT;
		ret = cif_irq_wait(cif, left, NULL);
		if (ret)
			return ret;
	}
}

int cif_mbx_recv(struct cif *cif, struct cif_answer *ans, int timeout_ms)
{
	volatile uint8_t *data = cif->map[CIF_MAP_DPRAM].regs + CIF_DP_C2H_DATA;
	uint32_t i;
	int ret;

	ret = cif_wait_cell(cif, CIF_DP_C2H_FLAG, timeout_ms);
	if (ret)
		return ret;
	ans->cmd = cif_dp_read(cif, CIF_DP_C2H_CMD);
	ans->status = cif_dp_read(cif, CIF_DP_C2H_STATUS);
	ans->len = cif_dp_read(cif, CIF_DP_C2H_LEN);
	if (ans->len > CIF_MBX_DATA_SIZE)
		ans->len = CIF_MBX_DATA_SIZE;
	for (i = 0; i < ans->len; i++)
		ans->data[i] = data[i];
	cif_dp_write(cif, CIF_DP_C2H_FLAG, CIF_MBX_EMPTY);
	return 0;
}

void cif_cycle_start(struct cif *cif, uint32_t period_us, uint32_t limit)
{
	cif_dp_write(cif, CIF_DP_CYCLE_US, period_us);
	cif_dp_write(cif, CIF_DP_CYCLE_LIMIT, limit);
	cif_dp_write(cif, CIF_DP_CYCLE_CTRL, CIF_CYCLE_RUN);
}

void cif_cycle_stop(struct cif *cif)
{
	cif_dp_write(cif, CIF_DP_CYCLE_CTRL, 0);
	cif_dp_write(cif, CIF_DP_CYCLE_FLAG, 0);
}

long cif_cycle_wait(struct cif *cif, uint32_t *pi, unsigned int nwords,
		    int timeout_ms)
{
	uint32_t count;
	unsigned int i;
	int ret;

	if (nwords > CIF_PI_WORDS)
		nwords = CIF_PI_WORDS;
	ret = cif_wait_cell(cif, CIF_DP_CYCLE_FLAG, timeout_ms);
	if (ret)
		return ret;
	count = cif_dp_read(cif, CIF_DP_CYCLE_COUNT);
	for (i = 0; i < nwords; i++)
		pi[i] = cif_dp_read(cif, CIF_DP_PI_IN + 4 * i);
	cif_dp_write(cif, CIF_DP_CYCLE_FLAG, 0);
	return count;
}
