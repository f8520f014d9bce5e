// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * User-space driver for the Hilscher CIF card behind uio_cif
 *
 * libuio finds the card by name, maps /dev/uioN (map N at N * page size)
 * and waits for interrupts; this file adds the CIF protocols on top.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "libuio.h"
#include "cif.h"

#define CIF_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const char * const cif_names[] = { "CIF_Profibus", "CIF_Devicenet" };

int cif_find(void)
{
	unsigned int n, best = 0;
	bool found = false;
	size_t i;

	for (i = 0; i < CIF_ARRAY_SIZE(cif_names); i++) {
		if (uio_find_by_name(cif_names[i], &n))
			continue;
		if (!found || n < best)
			best = n;
		found = true;
	}
	return found ? (int)best : -ENODEV;
}

int cif_open(struct cif *cif, unsigned int uio)
{
	void *plx, *dpram;
	size_t plx_size, dpram_size;
	int ret;

	memset(cif, 0, sizeof(*cif));
	ret = uio_open(uio, &cif->dev);
	if (ret)
		return ret;
	cif->uio = uio;
	cif->name = uio_info(cif->dev)->name;
	ret = uio_map(cif->dev, CIF_MAP_PLX, &plx, &plx_size);
	if (!ret)
		ret = uio_map(cif->dev, CIF_MAP_DPRAM, &dpram, &dpram_size);
	if (!ret && (plx_size < CIF_BAR0_SIZE || dpram_size < CIF_DPRAM_SIZE))
		ret = -ENXIO;
	if (ret) {
		cif_close(cif);
		return ret;
	}
	cif->plx = plx;
	cif->dpram = dpram;
	return 0;
}

void cif_close(struct cif *cif)
{
	uio_close(cif->dev);
	memset(cif, 0, sizeof(*cif));
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
	return uio_wait(cif->dev, timeout_ms, count, NULL);
}

int cif_mbx_send(struct cif *cif, uint32_t cmd, const void *buf, size_t len)
{
	volatile uint8_t *data = cif->dpram + CIF_DP_H2C_DATA;
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
	volatile uint8_t *data = cif->dpram + CIF_DP_C2H_DATA;
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
