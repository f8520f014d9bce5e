// SPDX-License-Identifier: GPL-2.0
/*
 * UIO stub for the Hilscher CIF Profibus and DeviceNet cards
 *
 * The card is a PLX 9030 PCI bridge in front of the card's dual-ported
 * RAM.  Everything but the interrupt is left to user space: BAR0 (PLX
 * local configuration registers) and BAR2 (DPRAM) are exported as UIO
 * maps 0 and 1; see qemu/docs/specs/hilscher-cif.txt and tools/uio/cif.
 */

#include <linux/bits.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/uio_driver.h>

#define CIF_DRV_VERSION		"1.0"

#define CIF_PLX_BAR		0	/* PLX 9030 local config registers */
#define CIF_DPRAM_BAR		2	/* dual-ported RAM */

#define CIF_PLX_INTCSR		0x4c
#define CIF_INTCSR_INT1_EN	BIT(0)
#define CIF_INTCSR_INT1_STAT	BIT(2)

#define CIF_SUBVENDOR_HILSCHER	0x1518
#define CIF_SUBDEVICE_PROFIBUS	0x0430
#define CIF_SUBDEVICE_DEVICENET	0x0432

/**
 * struct cif_dev - one CIF card
 * @info: what the UIO core exports; user space sees mem[0] and mem[1]
 * @intcsr: INTCSR inside the ioremapped BAR0, for the interrupt handler
 */
struct cif_dev {
	struct uio_info info;
	void __iomem *intcsr;
};

static struct cif_dev *cif_to_dev(struct uio_info *info)
{
	return container_of(info, struct cif_dev, info);
}

/*
 * The INTx line may be shared, and INT1 status also reads as set while
 * user space keeps INT1 masked, so the card only claims the interrupt
 * when INT1 is both enabled and pending.  Masking INT1 silences the
 * level-triggered line until user space has served the card and sets
 * INT1 enable again through map 0.
 */
static irqreturn_t cif_irq_handler(int irq, struct uio_info *info)
{
	struct cif_dev *cdev = cif_to_dev(info);
	u32 intcsr = ioread32(cdev->intcsr);
	u32 pending = CIF_INTCSR_INT1_EN | CIF_INTCSR_INT1_STAT;

	if ((intcsr & pending) != pending)
		return IRQ_NONE;

	iowrite32(intcsr & ~CIF_INTCSR_INT1_EN, cdev->intcsr);
	return IRQ_HANDLED;
}

/*
 * The 128-byte BAR0 need not start on a page boundary: addr is the page it
 * starts in, offs where in that page, and size counts from addr, the way
 * uio_pci_generic describes its BARs. It is mappable only if the rest of
 * its page can be kept free for it.
 */
static void cif_set_map(struct uio_mem *mem, struct pci_dev *pdev, int bar,
			const char *name)
{
	resource_size_t start = pci_resource_start(pdev, bar);

	mem->name = name;
	mem->addr = start & PAGE_MASK;
	mem->offs = start & ~PAGE_MASK;
	mem->size = mem->offs + pci_resource_len(pdev, bar);
	mem->memtype = UIO_MEM_PHYS;
	if (devm_uio_reserve_page(&pdev->dev, &pdev->resource[bar])) {
		dev_notice(&pdev->dev, "BAR%d shares its page with other resources, not mappable\n",
			   bar);
		mem->memtype = UIO_MEM_NONE;
	}
}

static int cif_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct cif_dev *cdev;
	void __iomem *plx;
	int ret;

	cdev = devm_kzalloc(&pdev->dev, sizeof(*cdev), GFP_KERNEL);
	if (!cdev)
		return -ENOMEM;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;

	/* The handler needs INTCSR; the DPRAM is user space's alone. */
	plx = pcim_iomap_region(pdev, CIF_PLX_BAR, KBUILD_MODNAME);
	if (IS_ERR(plx))
		return PTR_ERR(plx);
	ret = pcim_request_region(pdev, CIF_DPRAM_BAR, KBUILD_MODNAME);
	if (ret)
		return ret;

	if (!pdev->irq) {
		dev_err(&pdev->dev, "no INTx interrupt assigned\n");
		return -ENXIO;
	}

	cif_set_map(&cdev->info.mem[0], pdev, CIF_PLX_BAR, "plx");
	cdev->info.mem[0].internal_addr = plx;
	cif_set_map(&cdev->info.mem[1], pdev, CIF_DPRAM_BAR, "dpram");
	cdev->intcsr = cdev->info.mem[0].internal_addr + CIF_PLX_INTCSR;

	cdev->info.name = (const char *)id->driver_data;
	cdev->info.version = CIF_DRV_VERSION;
	cdev->info.irq = pdev->irq;
	cdev->info.irq_flags = IRQF_SHARED;
	cdev->info.handler = cif_irq_handler;

	return devm_uio_register_device(&pdev->dev, &cdev->info);
}

static const struct pci_device_id cif_pci_ids[] = {
	{
		PCI_DEVICE_SUB(PCI_VENDOR_ID_PLX, PCI_DEVICE_ID_PLX_9030,
			       CIF_SUBVENDOR_HILSCHER, CIF_SUBDEVICE_PROFIBUS),
		.driver_data = (kernel_ulong_t)"CIF_Profibus",
	},
	{
		PCI_DEVICE_SUB(PCI_VENDOR_ID_PLX, PCI_DEVICE_ID_PLX_9030,
			       CIF_SUBVENDOR_HILSCHER, CIF_SUBDEVICE_DEVICENET),
		.driver_data = (kernel_ulong_t)"CIF_Devicenet",
	},
	{ }
};
MODULE_DEVICE_TABLE(pci, cif_pci_ids);

static struct pci_driver cif_pci_driver = {
	.name		= "uio_cif",
	.id_table	= cif_pci_ids,
	.probe		= cif_probe,
};
module_pci_driver(cif_pci_driver);

MODULE_DESCRIPTION("UIO driver for the Hilscher CIF Profibus/DeviceNet cards");
MODULE_LICENSE("GPL");
MODULE_VERSION(CIF_DRV_VERSION);
