// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark-only UIO stub, built twice from this one file: once against
 * the kernel's own <linux/uio_driver.h> (for mainline's uio.ko) and once
 * against ours, so the same event source and the same copy path can be
 * measured on both cores. It uses only the API both headers share.
 *
 * It registers one UIO_IRQ_CUSTOM device under the platform device
 * "uio_bench" with one map, a page of kernel memory (UIO_MEM_LOGICAL).
 * sysfs, below /sys/devices/platform/uio_bench/:
 *   fire_ms	write N: call uio_event_notify() back to back for N ms
 *		(the write returns when done)
 *   fired	how many calls the last fire_ms write made
 * /dev/uio_bench is the copy-through-the-kernel path user space compares
 * its mappings against, one syscall per access:
 *   offsets [0, PAGE_SIZE)			the page user space also maps
 *   offsets [UIO_BENCH_REGS, +UIO_BENCH_REGS_LEN)	the first edu device's
 *		BAR0 registers, 32-bit aligned accesses only
 */
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/ktime.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/platform_device.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <linux/uio_driver.h>

#define UIO_BENCH_NAME		"uio_bench"
#define UIO_BENCH_REGS		0x100000
#define UIO_BENCH_REGS_LEN	0x100
#define UIO_BENCH_EDU_VENDOR	0x1234
#define UIO_BENCH_EDU_DEVICE	0x11e8
/* Events between two looks at the clock and the scheduler. */
#define UIO_BENCH_BATCH		64
#define UIO_BENCH_MAX_MS	60000

static struct platform_device *uio_bench_pdev;
static struct uio_info uio_bench_info;
static void *uio_bench_page;
static struct pci_dev *uio_bench_edu;
static void __iomem *uio_bench_regs;

/* Serializes fire_ms writers and protects uio_bench_fired. */
static DEFINE_MUTEX(uio_bench_lock);
static u64 uio_bench_fired;

static ssize_t fire_ms_store(struct device *dev, struct device_attribute *attr,
			     const char *buf, size_t count)
{
	unsigned int ms;
	ktime_t end;
	u64 n = 0;
	int i, ret;

	ret = kstrtouint(buf, 0, &ms);
	if (ret)
		return ret;
	if (ms > UIO_BENCH_MAX_MS)
		return -EINVAL;

	mutex_lock(&uio_bench_lock);
	end = ktime_add_ms(ktime_get(), ms);
	do {
		for (i = 0; i < UIO_BENCH_BATCH; i++)
			uio_event_notify(&uio_bench_info);
		n += UIO_BENCH_BATCH;
		/* Long runs must not starve the reader on a small guest. */
		cond_resched();
	} while (ktime_before(ktime_get(), end));
	uio_bench_fired = n;
	mutex_unlock(&uio_bench_lock);
	return count;
}
static DEVICE_ATTR_WO(fire_ms);

static ssize_t fired_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	u64 n;

	mutex_lock(&uio_bench_lock);
	n = uio_bench_fired;
	mutex_unlock(&uio_bench_lock);
	return sysfs_emit(buf, "%llu\n", n);
}
static DEVICE_ATTR_RO(fired);

static struct attribute *uio_bench_attrs[] = {
	&dev_attr_fire_ms.attr,
	&dev_attr_fired.attr,
	NULL,
};
ATTRIBUTE_GROUPS(uio_bench);

/* Which register a file offset names, or NULL if none. */
static void __iomem *uio_bench_reg(loff_t pos, size_t count)
{
	if (!uio_bench_regs || count != sizeof(u32) || pos % sizeof(u32) ||
	    pos < UIO_BENCH_REGS || pos >= UIO_BENCH_REGS + UIO_BENCH_REGS_LEN)
		return NULL;
	return uio_bench_regs + (pos - UIO_BENCH_REGS);
}

static ssize_t uio_bench_read(struct file *file, char __user *buf,
			      size_t count, loff_t *ppos)
{
	void __iomem *reg;
	u32 val;

	if (*ppos < PAGE_SIZE)
		return simple_read_from_buffer(buf, count, ppos,
					       uio_bench_page, PAGE_SIZE);
	reg = uio_bench_reg(*ppos, count);
	if (!reg)
		return -EINVAL;
	val = ioread32(reg);
	if (copy_to_user(buf, &val, sizeof(val)))
		return -EFAULT;
	*ppos += sizeof(val);
	return sizeof(val);
}

static ssize_t uio_bench_write(struct file *file, const char __user *buf,
			       size_t count, loff_t *ppos)
{
	void __iomem *reg;
	u32 val;

	if (*ppos < PAGE_SIZE)
		return simple_write_to_buffer(uio_bench_page, PAGE_SIZE, ppos,
					      buf, count);
	reg = uio_bench_reg(*ppos, count);
	if (!reg)
		return -EINVAL;
	if (copy_from_user(&val, buf, sizeof(val)))
		return -EFAULT;
	iowrite32(val, reg);
	*ppos += sizeof(val);
	return sizeof(val);
}

static const struct file_operations uio_bench_fops = {
	.owner		= THIS_MODULE,
	.read		= uio_bench_read,
	.write		= uio_bench_write,
	.llseek		= default_llseek,
};

static struct miscdevice uio_bench_misc = {
	.minor		= MISC_DYNAMIC_MINOR,
	.name		= UIO_BENCH_NAME,
	.fops		= &uio_bench_fops,
};

/* The edu registers are optional: without them only the page is offered. */
static void uio_bench_find_edu(void)
{
	uio_bench_edu = pci_get_device(UIO_BENCH_EDU_VENDOR,
				       UIO_BENCH_EDU_DEVICE, NULL);
	if (!uio_bench_edu)
		return;
	/* Not requested: uio_pci_generic owns the device, we only peek. */
	uio_bench_regs = ioremap(pci_resource_start(uio_bench_edu, 0),
				 UIO_BENCH_REGS_LEN);
	if (!uio_bench_regs) {
		pci_dev_put(uio_bench_edu);
		uio_bench_edu = NULL;
	}
}

static void uio_bench_put_edu(void)
{
	if (!uio_bench_edu)
		return;
	iounmap(uio_bench_regs);
	pci_dev_put(uio_bench_edu);
}

static int __init uio_bench_init(void)
{
	int ret;

	uio_bench_page = (void *)get_zeroed_page(GFP_KERNEL);
	if (!uio_bench_page)
		return -ENOMEM;
	uio_bench_find_edu();

	uio_bench_pdev = platform_device_alloc(UIO_BENCH_NAME, PLATFORM_DEVID_NONE);
	if (!uio_bench_pdev) {
		ret = -ENOMEM;
		goto out_put_edu;
	}
	uio_bench_pdev->dev.groups = uio_bench_groups;
	ret = platform_device_add(uio_bench_pdev);
	if (ret)
		goto out_put_pdev;

	uio_bench_info.name = UIO_BENCH_NAME;
	uio_bench_info.version = KBUILD_MODNAME;
	uio_bench_info.irq = UIO_IRQ_CUSTOM;
	uio_bench_info.mem[0].name = "page";
	uio_bench_info.mem[0].addr = (unsigned long)uio_bench_page;
	uio_bench_info.mem[0].size = PAGE_SIZE;
	uio_bench_info.mem[0].memtype = UIO_MEM_LOGICAL;
	ret = uio_register_device(&uio_bench_pdev->dev, &uio_bench_info);
	if (ret)
		goto out_del_pdev;

	ret = misc_register(&uio_bench_misc);
	if (ret)
		goto out_unregister_uio;
	return 0;

out_unregister_uio:
	uio_unregister_device(&uio_bench_info);
out_del_pdev:
	platform_device_del(uio_bench_pdev);
out_put_pdev:
	platform_device_put(uio_bench_pdev);
out_put_edu:
	uio_bench_put_edu();
	free_page((unsigned long)uio_bench_page);
	return ret;
}

static void __exit uio_bench_exit(void)
{
	misc_deregister(&uio_bench_misc);
	uio_unregister_device(&uio_bench_info);
	platform_device_unregister(uio_bench_pdev);
	uio_bench_put_edu();
	free_page((unsigned long)uio_bench_page);
}

module_init(uio_bench_init);
module_exit(uio_bench_exit);
MODULE_DESCRIPTION("UIO benchmark stub: event source and copy path");
MODULE_LICENSE("GPL");
