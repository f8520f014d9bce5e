// SPDX-License-Identifier: GPL-2.0
/*
 * Test stub for uio_pdrv_test: the platform devices "uio_pdrv_genirq" and
 * "uio_dmem_genirq" as a board file declares them, for the drivers of
 * those names from the guest kernel's own source.
 *
 * Each device has one memory resource, two pages of RAM whose 32-bit word
 * i holds pattern + i, and one level-triggered interrupt of a software
 * irq chip this module owns. The "uio_dmem_genirq" device also asks for
 * two dynamic DMA regions and has a 32-bit DMA mask.
 *
 * /sys/kernel/uio_pdev/<line>/ (line "pdrv" or "dmem"):
 *   raise   write anything: the interrupt fires once, in hard irq context
 *           (the flow handler runs with interrupts off, as from an irq
 *           controller's demultiplexer), unless the line is disabled
 *   masked  1 while the chip has the line masked
 *   pattern the first word of the memory resource
 */
#include <linux/dma-mapping.h>
#include <linux/gfp.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/platform_data/uio_dmem_genirq.h>
#include <linux/platform_device.h>
#include <linux/sysfs.h>
#include <linux/uio_driver.h>

#define UIO_PDEV_ORDER	1	/* two pages of RAM per memory resource */

/**
 * struct uio_pdev_line - one platform device and its interrupt line
 * @name:	directory below /sys/kernel/uio_pdev
 * @driver:	the platform device's name, which picks its driver
 * @pattern:	word 0 of the memory resource; word i holds @pattern + i
 * @pdata:	platform data, copied into the device, which the driver edits
 * @pdata_size:	its size
 * @kobj:	the directory
 * @pdev:	the platform device
 * @pages:	the RAM of the memory resource
 * @irq:	the line's Linux interrupt number, or 0
 * @masked:	whether the chip has the line masked; written by the chip
 *		callbacks under the descriptor's lock
 */
struct uio_pdev_line {
	const char		*name;
	const char		*driver;
	u32			pattern;
	const void		*pdata;
	size_t			pdata_size;
	struct kobject		*kobj;
	struct platform_device	*pdev;
	struct page		*pages;
	int			irq;
	bool			masked;
};

/* uio_dmem_genirq keeps a pointer to the sizes: they must outlive it. */
static unsigned int uio_pdev_dyn_sizes[] = { PAGE_SIZE, 3 * PAGE_SIZE };

static const struct uio_info uio_pdev_pdrv_info = {
	.name		= "uio_pdev_pdrv",
	.version	= "0.1",
};

static const struct uio_dmem_genirq_pdata uio_pdev_dmem_pdata = {
	.uioinfo = {
		.name		= "uio_pdev_dmem",
		.version	= "0.2",
	},
	.dynamic_region_sizes	= uio_pdev_dyn_sizes,
	.num_dynamic_regions	= ARRAY_SIZE(uio_pdev_dyn_sizes),
};

static struct uio_pdev_line uio_pdev_lines[] = {
	{
		.name		= "pdrv",
		.driver		= "uio_pdrv_genirq",
		.pattern	= 0x5a000000,
		.pdata		= &uio_pdev_pdrv_info,
		.pdata_size	= sizeof(uio_pdev_pdrv_info),
	},
	{
		.name		= "dmem",
		.driver		= "uio_dmem_genirq",
		.pattern	= 0xa5000000,
		.pdata		= &uio_pdev_dmem_pdata,
		.pdata_size	= sizeof(uio_pdev_dmem_pdata),
	},
};

static struct kobject *uio_pdev_kobj;

static void uio_pdev_irq_mask(struct irq_data *d)
{
	struct uio_pdev_line *line = irq_data_get_irq_chip_data(d);

	WRITE_ONCE(line->masked, true);
}

static void uio_pdev_irq_unmask(struct irq_data *d)
{
	struct uio_pdev_line *line = irq_data_get_irq_chip_data(d);

	WRITE_ONCE(line->masked, false);
}

/* Level only: the drivers under test treat a level line differently. */
static int uio_pdev_irq_set_type(struct irq_data *d, unsigned int type)
{
	return type & IRQ_TYPE_LEVEL_MASK ? IRQ_SET_MASK_OK : -EINVAL;
}

static struct irq_chip uio_pdev_irq_chip = {
	.name		= "uio_pdev",
	.irq_mask	= uio_pdev_irq_mask,
	.irq_unmask	= uio_pdev_irq_unmask,
	.irq_set_type	= uio_pdev_irq_set_type,
};

static struct uio_pdev_line *uio_pdev_line_of(struct kobject *kobj)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(uio_pdev_lines); i++)
		if (uio_pdev_lines[i].kobj == kobj)
			return &uio_pdev_lines[i];
	return NULL;
}

static ssize_t raise_store(struct kobject *kobj, struct kobj_attribute *attr,
			   const char *buf, size_t count)
{
	struct uio_pdev_line *line = uio_pdev_line_of(kobj);
	int ret;

	if (!line)
		return -ENODEV;
	ret = generic_handle_irq_safe(line->irq);
	return ret ? ret : count;
}

static struct kobj_attribute uio_pdev_raise = __ATTR_WO(raise);

static ssize_t masked_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	struct uio_pdev_line *line = uio_pdev_line_of(kobj);

	if (!line)
		return -ENODEV;
	return sysfs_emit(buf, "%d\n", READ_ONCE(line->masked));
}

static struct kobj_attribute uio_pdev_masked = __ATTR_RO(masked);

static ssize_t pattern_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	struct uio_pdev_line *line = uio_pdev_line_of(kobj);

	if (!line)
		return -ENODEV;
	return sysfs_emit(buf, "0x%08x\n", line->pattern);
}

static struct kobj_attribute uio_pdev_pattern = __ATTR_RO(pattern);

static struct attribute *uio_pdev_attrs[] = {
	&uio_pdev_raise.attr,
	&uio_pdev_masked.attr,
	&uio_pdev_pattern.attr,
	NULL
};

static const struct attribute_group uio_pdev_group = {
	.attrs = uio_pdev_attrs,
};

/*
 * A line as an irq domain would set it up: requestable, never probed, and
 * level-triggered. No owner module (irq_alloc_desc() would make it this
 * one): the driver's request would pin this module, whose exit is what
 * unbinds the driver.
 */
static int uio_pdev_irq_alloc(struct uio_pdev_line *line)
{
	int irq = __irq_alloc_descs(-1, 0, 1, NUMA_NO_NODE, NULL, NULL);
	int ret;

	if (irq < 0)
		return irq;
	line->masked = true;
	irq_set_chip_and_handler(irq, &uio_pdev_irq_chip, handle_level_irq);
	irq_set_chip_data(irq, line);
	irq_modify_status(irq, IRQ_NOREQUEST, IRQ_NOPROBE);
	ret = irq_set_irq_type(irq, IRQ_TYPE_LEVEL_HIGH);
	if (ret) {
		irq_free_desc(irq);
		return ret;
	}
	line->irq = irq;
	return 0;
}

static void uio_pdev_fill(struct uio_pdev_line *line)
{
	u32 *word = page_address(line->pages);
	size_t i;

	for (i = 0; i < (PAGE_SIZE << UIO_PDEV_ORDER) / sizeof(*word); i++)
		word[i] = line->pattern + i;
}

static int uio_pdev_register(struct uio_pdev_line *line)
{
	phys_addr_t start = page_to_phys(line->pages);
	struct resource res[] = {
		DEFINE_RES_MEM_NAMED(start, PAGE_SIZE << UIO_PDEV_ORDER,
				     line->name),
		DEFINE_RES_IRQ(line->irq),
	};
	struct platform_device_info info = {
		.name		= line->driver,
		.id		= PLATFORM_DEVID_NONE,
		.res		= res,
		.num_res	= ARRAY_SIZE(res),
		.data		= line->pdata,
		.size_data	= line->pdata_size,
		.dma_mask	= DMA_BIT_MASK(32),
	};

	line->pdev = platform_device_register_full(&info);
	if (IS_ERR(line->pdev)) {
		int ret = PTR_ERR(line->pdev);

		line->pdev = NULL;
		return ret;
	}
	return 0;
}

/* Takes down whatever uio_pdev_line_init() set up, in reverse. */
static void uio_pdev_line_exit(struct uio_pdev_line *line)
{
	if (line->pdev)
		platform_device_unregister(line->pdev);
	line->pdev = NULL;
	if (line->kobj)
		kobject_put(line->kobj);
	line->kobj = NULL;
	if (line->irq)
		irq_free_desc(line->irq);
	line->irq = 0;
	if (line->pages)
		__free_pages(line->pages, UIO_PDEV_ORDER);
	line->pages = NULL;
}

static int uio_pdev_line_init(struct uio_pdev_line *line)
{
	int ret;

	line->pages = alloc_pages(GFP_KERNEL, UIO_PDEV_ORDER);
	if (!line->pages)
		return -ENOMEM;
	uio_pdev_fill(line);
	ret = uio_pdev_irq_alloc(line);
	if (ret)
		return ret;
	line->kobj = kobject_create_and_add(line->name, uio_pdev_kobj);
	if (!line->kobj)
		return -ENOMEM;
	ret = sysfs_create_group(line->kobj, &uio_pdev_group);
	if (ret)
		return ret;
	return uio_pdev_register(line);
}

static void uio_pdev_cleanup(void)
{
	unsigned int i = ARRAY_SIZE(uio_pdev_lines);

	while (i--)
		uio_pdev_line_exit(&uio_pdev_lines[i]);
	kobject_put(uio_pdev_kobj);
}

static int __init uio_pdev_init(void)
{
	unsigned int i;
	int ret;

	uio_pdev_kobj = kobject_create_and_add("uio_pdev", kernel_kobj);
	if (!uio_pdev_kobj)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(uio_pdev_lines); i++) {
		ret = uio_pdev_line_init(&uio_pdev_lines[i]);
		if (ret) {
			uio_pdev_cleanup();
			return ret;
		}
	}
	return 0;
}

static void __exit uio_pdev_exit(void)
{
	uio_pdev_cleanup();
}

module_init(uio_pdev_init);
module_exit(uio_pdev_exit);
MODULE_DESCRIPTION("Platform devices for the UIO selftests' platform drivers");
MODULE_LICENSE("GPL");
