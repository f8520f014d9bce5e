// SPDX-License-Identifier: GPL-2.0-only
/*
 * Generic UIO stub for PCI 2.3 devices.
 *
 * The handler masks the device's INTx with the Interrupt Disable bit of the
 * command register, which PCI 2.3 devices implement together with the
 * Interrupt Status bit, so any such device can share its line. User space
 * unmasks by writing 1 to /dev/uioN, or by clearing Interrupt Disable in
 * config space itself. Bind a device by writing its IDs to new_id.
 */
#include <linux/device.h>
#include <linux/interrupt.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/uio_driver.h>

#define UIO_PCI_GENERIC_VERSION	"1.0"

/**
 * struct uio_pci_generic_dev - one bound device
 * @info:	what the UIO core sees
 * @pdev:	the PCI device
 * @intx_lock:	orders irqcontrol() against the unbind's final mask
 * @leaving:	the device is unbinding: INTx stays masked
 */
struct uio_pci_generic_dev {
	struct uio_info	info;
	struct pci_dev	*pdev;
	struct mutex	intx_lock;	/* irqcontrol() against unbind */
	bool		leaving;
};

static const char * const uio_pci_generic_bar_names[PCI_STD_NUM_BARS] = {
	"BAR0", "BAR1", "BAR2", "BAR3", "BAR4", "BAR5",
};

static struct uio_pci_generic_dev *to_uio_pci_generic(struct uio_info *info)
{
	return container_of(info, struct uio_pci_generic_dev, info);
}

static struct pci_dev *uio_pci_generic_pdev(struct uio_info *info)
{
	return to_uio_pci_generic(info)->pdev;
}

static irqreturn_t uio_pci_generic_handler(int irq, struct uio_info *info)
{
	/* Claims the interrupt only if this device asserted it. */
	if (!pci_check_and_mask_intx(uio_pci_generic_pdev(info)))
		return IRQ_NONE;
	return IRQ_HANDLED;
}

/*
 * Not pcim_intx(): while the device unbinds, its devres list is already
 * released when the core stops calling irqcontrol(), and a managed call in
 * that window would leave an entry that makes the next probe fail.
 */
static void uio_pci_generic_mask_intx(struct pci_dev *pdev, bool mask)
{
	u16 cmd, want;

	pci_read_config_word(pdev, PCI_COMMAND, &cmd);
	if (mask)
		want = cmd | PCI_COMMAND_INTX_DISABLE;
	else
		want = cmd & ~PCI_COMMAND_INTX_DISABLE;
	if (want != cmd)
		pci_write_config_word(pdev, PCI_COMMAND, want);
}

static int uio_pci_generic_irqcontrol(struct uio_info *info, s32 irq_on)
{
	struct uio_pci_generic_dev *gdev = to_uio_pci_generic(info);
	int ret = 0;

	mutex_lock(&gdev->intx_lock);
	if (gdev->leaving)
		ret = -EIO;
	else
		uio_pci_generic_mask_intx(gdev->pdev, !irq_on);
	mutex_unlock(&gdev->intx_lock);
	return ret;
}

/*
 * First step of an unbind, before the core frees the interrupt: mask INTx
 * for good. A device that a last write() left unmasked and asserting
 * would otherwise hold the shared line up with no handler to claim it
 * until the Interrupt Disable bit is restored, and the kernel disables
 * the line for every device on it ("nobody cared").
 */
static void uio_pci_generic_quiesce(void *data)
{
	struct uio_pci_generic_dev *gdev = data;

	mutex_lock(&gdev->intx_lock);
	gdev->leaving = true;
	uio_pci_generic_mask_intx(gdev->pdev, true);
	mutex_unlock(&gdev->intx_lock);
}

/*
 * No pin, or a pin the platform routes nowhere (IRQ_NOTCONNECTED, which
 * request_irq() refuses): either way the device is bound without events.
 */
static bool uio_pci_generic_has_irq(const struct pci_dev *pdev)
{
	return pdev->irq && pdev->irq != IRQ_NOTCONNECTED;
}

static int uio_pci_generic_release(struct uio_info *info, struct inode *inode)
{
	/*
	 * User space may have enabled bus mastering to let the device DMA.
	 * Nobody can program or stop that DMA once the driver's file is
	 * closed, so do not leave it running into memory the device no
	 * longer owns.
	 */
	pci_clear_master(uio_pci_generic_pdev(info));
	return 0;
}

/*
 * The memory BARs Linux 6.1 exposes: 32-bit non-prefetchable ones among
 * the first MAX_UIO_MAPS. They keep 6.1's map numbers and names.
 */
static bool uio_pci_generic_bar_is_mainline(struct pci_dev *pdev, int bar)
{
	return bar < MAX_UIO_MAPS &&
	       pci_resource_flags(pdev, bar) ==
	       (IORESOURCE_MEM | IORESOURCE_SIZEALIGN);
}

/* A memory BAR with an address the device decodes. */
static bool uio_pci_generic_bar_is_mem(struct pci_dev *pdev, int bar)
{
	unsigned long flags = pci_resource_flags(pdev, bar);

	return (flags & IORESOURCE_MEM) &&
	       !(flags & (IORESOURCE_UNSET | IORESOURCE_DISABLED)) &&
	       pci_resource_len(pdev, bar);
}

/*
 * As in Linux 6.1: addr is the page the BAR starts in, offs the BAR's
 * offset in it, and size reaches from addr to the end of the BAR's last
 * page, which is what mmap() maps. Unlike 6.1, a BAR smaller than a page
 * is mappable only if the rest of its page can be kept free for it.
 */
static void uio_pci_generic_add_mem(struct uio_pci_generic_dev *gdev,
				    unsigned int *nmem, int bar,
				    const char *name)
{
	struct pci_dev *pdev = gdev->pdev;
	struct uio_mem *mem = &gdev->info.mem[*nmem];
	resource_size_t start = pci_resource_start(pdev, bar);

	if (*nmem == MAX_UIO_MAPS) {
		dev_warn(&pdev->dev, "BAR%d not mappable: only %d maps\n",
			 bar, MAX_UIO_MAPS);
		return;
	}
	mem->name = name;
	mem->addr = start & PAGE_MASK;
	mem->offs = start & ~PAGE_MASK;
	mem->size = PAGE_ALIGN(mem->offs + pci_resource_len(pdev, bar));
	mem->memtype = UIO_MEM_PHYS;
	if (devm_uio_reserve_page(&pdev->dev, &pdev->resource[bar])) {
		dev_notice(&pdev->dev, "BAR%d shares its page with other resources, not mappable\n",
			   bar);
		mem->memtype = UIO_MEM_NONE;
	}
	(*nmem)++;
}

/*
 * First the memory BARs Linux 6.1 exposes, named after the device as
 * there, then the other memory BARs (64-bit, prefetchable, BAR5) named
 * "BARn", each group in BAR order: user space that indexes maps as on
 * mainline finds the same BARs at the same numbers. I/O BARs are listed
 * as port regions.
 */
static void uio_pci_generic_add_bars(struct uio_pci_generic_dev *gdev)
{
	struct pci_dev *pdev = gdev->pdev;
	struct uio_info *info = &gdev->info;
	unsigned int nmem = 0, nport = 0;
	int bar;

	for (bar = 0; bar < PCI_STD_NUM_BARS; bar++)
		if (uio_pci_generic_bar_is_mainline(pdev, bar) &&
		    uio_pci_generic_bar_is_mem(pdev, bar))
			uio_pci_generic_add_mem(gdev, &nmem, bar,
						pci_name(pdev));

	for (bar = 0; bar < PCI_STD_NUM_BARS; bar++)
		if (!uio_pci_generic_bar_is_mainline(pdev, bar) &&
		    uio_pci_generic_bar_is_mem(pdev, bar))
			uio_pci_generic_add_mem(gdev, &nmem, bar,
						uio_pci_generic_bar_names[bar]);

	for (bar = 0; bar < PCI_STD_NUM_BARS; bar++) {
		const char *name = uio_pci_generic_bar_names[bar];

		if (!(pci_resource_flags(pdev, bar) & IORESOURCE_IO) ||
		    !pci_resource_len(pdev, bar))
			continue;
		if (nport == MAX_UIO_PORT_REGIONS) {
			dev_warn(&pdev->dev, "%s not listed: only %d port regions\n",
				 name, MAX_UIO_PORT_REGIONS);
			continue;
		}
		info->port[nport].name = name;
		info->port[nport].start = pci_resource_start(pdev, bar);
		info->port[nport].size = pci_resource_len(pdev, bar);
		info->port[nport].porttype = UIO_PORT_X86;
		nport++;
	}
}

static int uio_pci_generic_probe(struct pci_dev *pdev,
				 const struct pci_device_id *id)
{
	struct uio_pci_generic_dev *gdev;
	u16 cmd;
	int ret;

	/*
	 * User space may leave INTx masked, through write() or config space.
	 * pcim_intx() puts the Interrupt Disable bit back on unbind as its
	 * first call found it; make that call now, because enabling the
	 * device clears the bit, so the device leaves as it came.
	 */
	pci_read_config_word(pdev, PCI_COMMAND, &cmd);
	ret = pcim_intx(pdev, !(cmd & PCI_COMMAND_INTX_DISABLE));
	if (ret)
		return ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return dev_err_probe(&pdev->dev, ret, "cannot enable device\n");

	if (uio_pci_generic_has_irq(pdev) && !pci_intx_mask_supported(pdev)) {
		dev_warn(&pdev->dev, "no INTx masking (PCI 2.3), cannot share its interrupt\n");
		return -ENODEV;
	}

	gdev = devm_kzalloc(&pdev->dev, sizeof(*gdev), GFP_KERNEL);
	if (!gdev)
		return -ENOMEM;

	gdev->pdev = pdev;
	mutex_init(&gdev->intx_lock);
	gdev->info.name = "uio_pci_generic";
	gdev->info.version = UIO_PCI_GENERIC_VERSION;
	gdev->info.release = uio_pci_generic_release;
	if (uio_pci_generic_has_irq(pdev)) {
		gdev->info.irq = pdev->irq;
		gdev->info.irq_flags = IRQF_SHARED;
		gdev->info.handler = uio_pci_generic_handler;
		gdev->info.irqcontrol = uio_pci_generic_irqcontrol;
	} else {
		dev_notice(&pdev->dev, "no legacy interrupt, events disabled\n");
	}
	uio_pci_generic_add_bars(gdev);

	ret = devm_uio_register_device(&pdev->dev, &gdev->info);
	if (ret)
		return dev_err_probe(&pdev->dev, ret, "cannot register UIO device\n");
	if (!gdev->info.irqcontrol)
		return 0;
	/* Released before the registration: runs first on unbind. */
	return devm_add_action_or_reset(&pdev->dev, uio_pci_generic_quiesce,
					gdev);
}

static struct pci_driver uio_pci_generic_driver = {
	.name		= "uio_pci_generic",
	.id_table	= NULL,	/* bound through new_id only */
	.probe		= uio_pci_generic_probe,
};
module_pci_driver(uio_pci_generic_driver);

MODULE_DESCRIPTION("Generic UIO stub for PCI 2.3 devices");
MODULE_LICENSE("GPL");
