// SPDX-License-Identifier: GPL-2.0
/*
 * edu_dma - copy memory through the DMA engine of QEMU's edu PCI device
 * (1234:11e8), using the DMA buffers of uio_pci_generic
 *
 *   edu_dma <pci address> [<bytes>]
 *
 * Root configures at least two buffers first (see the howto's "DMA
 * buffers"), e.g. with /sys/class/uio/uioN/dma/dma_mask set to 28, edu's
 * address width. The program fills buffer 0, has the device copy it into
 * its own memory and from there into buffer 1, waits for each completion
 * interrupt and compares. Bus mastering is turned on through config
 * space; the last close turns it off again.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libuio.h"

#define EDU_IRQ_STATUS	0x24
#define EDU_IRQ_ACK	0x64
#define EDU_DMA_SRC	0x80	/* 64-bit */
#define EDU_DMA_DST	0x88	/* 64-bit */
#define EDU_DMA_COUNT	0x90
#define EDU_DMA_CMD	0x98
#define  EDU_DMA_START	0x1
#define  EDU_DMA_TO_RAM	0x2	/* else RAM to device */
#define  EDU_DMA_IRQ	0x4
#define EDU_IRQ_DMA	0x100
#define EDU_DMA_WINDOW	0x40000	/* the device's 4 KiB buffer */
#define EDU_DMA_MAX	4095	/* QEMU 7.2 aborts on longer transfers */

#define PCI_COMMAND		0x04
#define PCI_COMMAND_MASTER	0x4

static void *edu;		/* BAR0 */

static int edu_fail(const char *what, int err)
{
	fprintf(stderr, "edu_dma: %s: %s\n", what, uio_strerror(err));
	return 1;
}

static void edu_wr64(size_t reg, uint64_t val)
{
	uio_write32(edu, reg, (uint32_t)val);
	uio_write32(edu, reg + 4, (uint32_t)(val >> 32));
}

static int edu_bus_master_on(const char *addr)
{
	char path[256];
	uint16_t cmd;
	int fd, ret = 0;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/config", addr);
	fd = open(path, O_RDWR);
	if (fd < 0)
		return -errno;
	if (pread(fd, &cmd, 2, PCI_COMMAND) != 2)
		ret = -EIO;
	cmd |= PCI_COMMAND_MASTER;
	if (!ret && pwrite(fd, &cmd, 2, PCI_COMMAND) != 2)
		ret = -EIO;
	close(fd);
	return ret;
}

/* One transfer, completed by its interrupt. */
static int edu_dma(struct uio_dev *dev, uint64_t src, uint64_t dst,
		   uint32_t len, uint32_t dir)
{
	int ret;

	edu_wr64(EDU_DMA_SRC, src);
	edu_wr64(EDU_DMA_DST, dst);
	uio_write32(edu, EDU_DMA_COUNT, len);
	uio_write32(edu, EDU_DMA_CMD, EDU_DMA_START | EDU_DMA_IRQ | dir);
	ret = uio_wait(dev, 5000, NULL, NULL);
	if (ret)
		return ret;
	if (!(uio_read32(edu, EDU_IRQ_STATUS) & EDU_IRQ_DMA))
		return -EIO;
	uio_write32(edu, EDU_IRQ_ACK, EDU_IRQ_DMA);
	return uio_irq_control(dev, true);
}

int main(int argc, char **argv)
{
	uint32_t len = argc > 2 ? strtoul(argv[2], NULL, 0) : 4000;
	struct uio_dma_buf_info in, out;
	uint8_t *src, *dst;
	struct uio_dev *dev;
	uint32_t i;
	int ret;

	if (argc < 2) {
		fprintf(stderr, "usage: edu_dma <pci address> [<bytes>]\n");
		return 2;
	}
	ret = uio_open_by_parent(argv[1], &dev);
	if (ret)
		return edu_fail("open", ret);
	ret = uio_map(dev, 0, &edu, NULL);
	if (ret)
		return edu_fail("map BAR0", ret);
	ret = uio_dma_map(dev, 0, (void **)&src, &in);
	if (!ret)
		ret = uio_dma_map(dev, 1, (void **)&dst, &out);
	if (ret)
		return edu_fail("map DMA buffers 0 and 1", ret);
	if (!len || len > EDU_DMA_MAX || len > in.size)
		return edu_fail("length", -EINVAL);

	for (i = 0; i < len; i++)
		src[i] = i * 13 + 1;
	memset(dst, 0, len);
	ret = edu_bus_master_on(argv[1]);
	if (ret)
		return edu_fail("bus mastering", ret);
	uio_write32(edu, EDU_IRQ_ACK, 0xffffffff);
	ret = uio_irq_control(dev, true);
	if (!ret)
		ret = edu_dma(dev, in.dma_addr, EDU_DMA_WINDOW, len, 0);
	if (!ret)
		ret = edu_dma(dev, EDU_DMA_WINDOW, out.dma_addr, len,
			      EDU_DMA_TO_RAM);
	if (ret)
		return edu_fail("transfer", ret);
	if (memcmp(src, dst, len))
		return edu_fail("compare", -EIO);
	printf("%u bytes: RAM 0x%llx -> edu 0x%x -> RAM 0x%llx: equal\n", len,
	       (unsigned long long)in.dma_addr, EDU_DMA_WINDOW,
	       (unsigned long long)out.dma_addr);
	uio_close(dev);
	return 0;
}
