/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * User-space driver for the Hilscher CIF card behind uio_cif
 *
 * The kernel stub only masks the card's interrupt; everything else is
 * done here through the two UIO maps: map 0 = PLX 9030 registers (BAR0),
 * map 1 = dual-ported RAM (BAR2).  Layout: cif_dpram.h.  Finding,
 * mapping and waiting go through libuio (tools/uio/libuio.h).
 */
#ifndef CIF_H
#define CIF_H

#include <stddef.h>
#include <stdint.h>

#include "cif_dpram.h"

#define CIF_MAP_PLX	0
#define CIF_MAP_DPRAM	1

struct uio_dev;

/**
 * struct cif - an opened card
 * @dev:	the libuio handle of /dev/uioN
 * @uio:	N of /dev/uioN
 * @name:	sysfs name, "CIF_Profibus" or "CIF_Devicenet"
 * @plx:	map 0, the PLX 9030 registers (BAR0)
 * @dpram:	map 1, the dual-ported RAM (BAR2)
 */
struct cif {
	struct uio_dev *dev;
	unsigned int uio;
	const char *name;
	volatile uint8_t *plx;
	volatile uint8_t *dpram;
};

/* N of the first uioN whose name is a CIF card, or -ENODEV. */
int cif_find(void);
/* Open /dev/uio<uio> and map both maps; 0 or -errno. */
int cif_open(struct cif *cif, unsigned int uio);
/* Undo cif_open(); safe on a partly opened or closed card. */
void cif_close(struct cif *cif);

static inline uint32_t cif_plx_read(struct cif *cif, unsigned int off)
{
	return *(volatile uint32_t *)(cif->plx + off);
}

static inline void cif_plx_write(struct cif *cif, unsigned int off,
				 uint32_t val)
{
	*(volatile uint32_t *)(cif->plx + off) = val;
}

static inline uint32_t cif_dp_read(struct cif *cif, unsigned int off)
{
	return *(volatile uint32_t *)(cif->dpram + off);
}

static inline void cif_dp_write(struct cif *cif, unsigned int off,
				uint32_t val)
{
	*(volatile uint32_t *)(cif->dpram + off) = val;
}

/* Set or clear INT1 enable in INTCSR; the stub clears it on each IRQ. */
void cif_irq_enable(struct cif *cif, int on);
/*
 * Wait up to timeout_ms for the event count to change; store it in
 * *count.  0, -ETIMEDOUT or -errno.
 */
int cif_irq_wait(struct cif *cif, int timeout_ms, uint32_t *count);

/* Post a message; -EBUSY if the card has not taken the last one. */
int cif_mbx_send(struct cif *cif, uint32_t cmd, const void *buf,
		 size_t len);

/**
 * struct cif_answer - a card to host mailbox message
 * @cmd:	command it answers
 * @status:	CIF_STATUS_*
 * @len:	payload bytes in @data
 * @data:	payload
 */
struct cif_answer {
	uint32_t cmd;
	uint32_t status;
	uint32_t len;
	uint8_t data[CIF_MBX_DATA_SIZE];
};

/*
 * Wait (interrupt driven) for the card's answer, copy it to *ans and
 * hand the mailbox back to the card.  0, -ETIMEDOUT or -errno.
 */
int cif_mbx_recv(struct cif *cif, struct cif_answer *ans, int timeout_ms);

/* Start the cyclic update: period in us, stop after limit (0: never). */
void cif_cycle_start(struct cif *cif, uint32_t period_us, uint32_t limit);
void cif_cycle_stop(struct cif *cif);
/*
 * Wait for the next cycle, copy the input process image (nwords words)
 * and acknowledge it.  Returns the cycle number or -errno.
 */
long cif_cycle_wait(struct cif *cif, uint32_t *pi, unsigned int nwords,
		    int timeout_ms);

#endif /* CIF_H */
