/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Out-of-tree builds only: the kernel's <linux/pci.h> plus what UIO uses
 * from newer kernels. See backport/README.
 */
#ifndef _BACKPORT_LINUX_PCI_H
#define _BACKPORT_LINUX_PCI_H

#include_next <linux/pci.h>
#include <linux/bits.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/io.h>
#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 12, 0)
/*
 * 6.12 exported these two and deprecated pcim_iomap_regions() and
 * pcim_iomap_table(), which older kernels build them from. Both need a
 * device enabled with pcim_enable_device(), as the 6.12 versions do in
 * practice: on older kernels that is what makes a region request managed.
 */
static inline void __iomem *pcim_iomap_region(struct pci_dev *pdev, int bar,
					      const char *name)
{
	int ret;

	ret = pcim_iomap_regions(pdev, BIT(bar), name);
	if (ret)
		return IOMEM_ERR_PTR(ret);
	return pcim_iomap_table(pdev)[bar];
}

static inline int pcim_request_region(struct pci_dev *pdev, int bar,
				      const char *name)
{
	if (!pci_is_managed(pdev))
		return -EINVAL;
	return pci_request_region(pdev, bar, name);
}
#endif

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 12, 17)
/*
 * pcim_intx(): set or clear INTx masking (the Interrupt Disable bit of
 * the command register) and put the bit back as it was before the first
 * call when the driver detaches. Exported by the 6.12.17 stable update,
 * when pci_intx() stopped restoring anything.
 *
 * Older kernels' pci_intx() restores by itself on managed devices, but to
 * the value it found at its own first change, which is wrong once
 * pci_check_and_mask_intx() has set the bit behind its back. So this
 * version never calls pci_intx(): it writes the bit directly and keeps its
 * own devres record. The record is found by the address of a static
 * function, so one module must make all calls for a device from one file.
 */
static inline void backport_pci_intx_write(struct pci_dev *pdev, bool enable)
{
	u16 cmd, new;

	pci_read_config_word(pdev, PCI_COMMAND, &cmd);
	if (enable)
		new = cmd & ~PCI_COMMAND_INTX_DISABLE;
	else
		new = cmd | PCI_COMMAND_INTX_DISABLE;
	if (new != cmd)
		pci_write_config_word(pdev, PCI_COMMAND, new);
}

static inline void backport_pcim_intx_restore(struct device *dev, void *res)
{
	backport_pci_intx_write(to_pci_dev(dev), *(bool *)res);
}

static inline int pcim_intx(struct pci_dev *pdev, int enable)
{
	bool *was_enabled;
	u16 cmd;

	was_enabled = devres_find(&pdev->dev, backport_pcim_intx_restore,
				  NULL, NULL);
	if (!was_enabled) {
		was_enabled = devres_alloc(backport_pcim_intx_restore,
					   sizeof(*was_enabled), GFP_KERNEL);
		if (!was_enabled)
			return -ENOMEM;
		pci_read_config_word(pdev, PCI_COMMAND, &cmd);
		*was_enabled = !(cmd & PCI_COMMAND_INTX_DISABLE);
		devres_add(&pdev->dev, was_enabled);
	}
	backport_pci_intx_write(pdev, enable);
	return 0;
}
#endif

#endif /* _BACKPORT_LINUX_PCI_H */
