// SPDX-License-Identifier: GPL-2.0
/*
 * edu_uio - drive QEMU's edu PCI device (1234:11e8) through uio_pci_generic
 *
 *   edu_uio [<pci address>] [<interrupts>]
 *
 * uio_pci_generic masks INTx in its handler; after acknowledging the
 * device we unmask it with an irqcontrol write of 1.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "libuio.h"

#define EDU_ID		0x00	/* major << 24 | minor << 16 | 0xed */
#define EDU_LIVENESS	0x04	/* reads back ~value */
#define EDU_FACTORIAL	0x08	/* write n, read n! */
#define EDU_STATUS	0x20	/* 0x01: computing */
#define EDU_IRQ_STATUS	0x24
#define EDU_IRQ_RAISE	0x60
#define EDU_IRQ_ACK	0x64

static void *edu;		/* BAR0 */

#define edu_rd(reg)		uio_read32(edu, reg)
#define edu_wr(reg, val)	uio_write32(edu, reg, val)

static int edu_fail(const char *what, int err)
{
	fprintf(stderr, "edu_uio: %s: %s\n", what, uio_strerror(err));
	return 1;
}

int main(int argc, char **argv)
{
	int nirq = argc > 2 ? atoi(argv[2]) : 3;
	uint32_t id, count, missed, st;
	struct uio_dev *dev;
	int i, ret;

	ret = argc > 1 ? uio_open_by_parent(argv[1], &dev) :
			 uio_open_by_name("uio_pci_generic", &dev);
	if (ret)
		return edu_fail("open", ret);
	ret = uio_map(dev, 0, &edu, NULL);
	if (ret)
		return edu_fail("map BAR0", ret);

	id = edu_rd(EDU_ID);
	printf("uio%u: edu %u.%u (id 0x%08x)\n", uio_info(dev)->number,
	       id >> 24, (id >> 16) & 0xff, id);
	if ((id & 0xff) != 0xed)
		return edu_fail("identification", -ENODEV);
	edu_wr(EDU_LIVENESS, 0x12345678);
	if (edu_rd(EDU_LIVENESS) != ~0x12345678u)
		return edu_fail("liveness", -EIO);

	edu_wr(EDU_FACTORIAL, 5);
	while (edu_rd(EDU_STATUS) & 0x01)
		;
	printf("5! = %u\n", edu_rd(EDU_FACTORIAL));

	for (i = 0; i < nirq; i++) {
		edu_wr(EDU_IRQ_RAISE, 1u << (i % 32));
		ret = uio_wait(dev, 1000, &count, &missed);
		if (ret)
			return edu_fail("wait", ret);
		st = edu_rd(EDU_IRQ_STATUS);
		edu_wr(EDU_IRQ_ACK, st);
		ret = uio_irq_control(dev, true);
		if (ret)
			return edu_fail("irqcontrol", ret);
		printf("irq %d: status 0x%x, events %u, missed %u\n", i, st,
		       count, missed);
	}
	uio_close(dev);
	return 0;
}
