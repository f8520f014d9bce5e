// SPDX-License-Identifier: GPL-2.0-only
/*
 * Userspace I/O core.
 *
 * A stub driver describes its device in a struct uio_info and registers it;
 * the core then offers the device to user space as /dev/uioN: read() and
 * poll() wait for interrupts, write() re-enables them, mmap() maps the
 * device's memory. Everything else happens in the user-space driver.
 *
 * This file holds the device's lifetime: registration and unregistration,
 * the class with its name, version and event attributes, event counting and
 * the interrupt handler, devm_uio_reserve_page(), and module init and exit.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cdev.h>
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/ioport.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/poll.h>
#include <linux/pseudo_fs.h>
#include <linux/slab.h>
#include <linux/uio_driver.h>
#include <linux/wait_bit.h>

#include "uio_internal.h"

#define UIO_MAX_DEVICES	BIT(MINORBITS)
#define UIO_FS_MAGIC	0x75696f21	/* "uio!" */

/* First device number of the region all minors come from. */
static dev_t uio_devt;

/*
 * Hands out minors. A minor goes back when its device is unregistered, as
 * /dev/uioN and /sys/class/uio/uioN go: a rebound device gets its old
 * number again, while files still open on the old one stay dead.
 */
static DEFINE_IDA(uio_ida);

/* Devices not yet freed; uio_exit() waits for the last release. */
static atomic_t uio_devices_alive = ATOMIC_INIT(0);

/* Pseudo filesystem providing each device's anonymous inode. */
static struct vfsmount *uio_mnt;

/* Set once uio_init() has succeeded; registration defers until then. */
static bool uio_core_ready;

/**
 * uio_get_info() - pin the stub's description for one operation
 * @idev: the device
 *
 * While the caller holds the description, uio_unregister_device() cannot
 * complete, so the stub's callbacks and memory stay valid.
 *
 * Context: process context, may sleep.
 * Return: the description, which must be released with uio_put_info(), or
 * %NULL if the device has been unregistered.
 */
struct uio_info *uio_get_info(struct uio_device *idev)
{
	down_read(&idev->info_sem);
	if (idev->info)
		return idev->info;
	up_read(&idev->info_sem);
	return NULL;
}

/* Ends an operation begun with uio_get_info(). */
void uio_put_info(struct uio_device *idev)
{
	up_read(&idev->info_sem);
}

/*
 * Lockless peek for read()'s wait loop, which must not sleep on the lock
 * between setting its task state and schedule().
 */
bool uio_is_gone(struct uio_device *idev)
{
	return !READ_ONCE(idev->info);
}

static bool uio_has_hw_irq(const struct uio_info *info)
{
	return info->irq > 0;
}

static ssize_t name_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct uio_device *idev = dev_get_drvdata(dev);

	/* Attributes are removed before the description is dropped. */
	return sysfs_emit(buf, "%s\n", idev->info->name);
}
static DEVICE_ATTR_RO(name);

static ssize_t version_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct uio_device *idev = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%s\n", idev->info->version);
}
static DEVICE_ATTR_RO(version);

static ssize_t event_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct uio_device *idev = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%u\n", (u32)atomic_read(&idev->event));
}
static DEVICE_ATTR_RO(event);

static struct attribute *uio_attrs[] = {
	&dev_attr_name.attr,
	&dev_attr_version.attr,
	&dev_attr_event.attr,
	NULL,
};
ATTRIBUTE_GROUPS(uio);

/*
 * Created, not static: the class's kobject may be released after a delay
 * (DEBUG_KOBJECT_RELEASE), and then after the module is gone.
 */
static struct class *uio_class;

/*
 * A reader usually calls read() again before the next event and finds it
 * pending without queueing: then there is nobody to wake, and the handler
 * takes no wait-queue lock. wq_has_sleeper() orders the count before the
 * look at the queue; a waiter queues itself before it reads the count.
 */
static void uio_signal_event(struct uio_device *idev)
{
	atomic_inc(&idev->event);
	if (wq_has_sleeper(&idev->wait))
		wake_up_interruptible(&idev->wait);
	kill_fasync(&idev->async_queue, SIGIO, POLL_IN);
}

/**
 * uio_event_notify() - count an event and wake the device's waiters
 * @info: the stub's description, as registered
 *
 * For stubs with %UIO_IRQ_CUSTOM that report their own events; the core
 * counts the interrupts a stub's handler claims by itself. Calls after
 * uio_unregister_device() has returned are ignored.
 *
 * Context: any context, including hard interrupt.
 */
void uio_event_notify(struct uio_info *info)
{
	struct uio_device *idev;

	/* Unregister clears uio_dev and then waits for a grace period. */
	rcu_read_lock();
	idev = READ_ONCE(info->uio_dev);
	if (idev)
		uio_signal_event(idev);
	rcu_read_unlock();
}
EXPORT_SYMBOL_GPL(uio_event_notify);

/*
 * Hard interrupt context, or the demultiplexing driver's thread for a
 * nested-thread interrupt. free_irq() runs before unregister drops the
 * description or idev.
 */
static irqreturn_t uio_interrupt(int irq, void *dev_id)
{
	struct uio_device *idev = dev_id;
	struct uio_info *info = idev->info;
	irqreturn_t ret = info->handler(irq, info);

	if (ret == IRQ_HANDLED)
		uio_signal_event(idev);
	return ret;
}

static void uio_device_release(struct device *dev)
{
	struct uio_device *idev = container_of(dev, struct uio_device, dev);

	iput(idev->inode);
	kfree(idev->dma_pool);
	kfree(idev);
	if (atomic_dec_and_test(&uio_devices_alive))
		wake_up_var(&uio_devices_alive);
}

/*
 * Make the device unusable: "unavailable" (no operation can pin the
 * description any more, and once a grace period has passed no lockless
 * reader or late uio_event_notify() can still be looking at it), then
 * "woken" (blocked readers and pollers see the device gone), then
 * "unmapped" (every mapping is in the address space, and the next touch of
 * any of them faults and gets SIGBUS).
 *
 * The interrupt is freed in the same exclusive section that drops the
 * description: write() holds the description while irqcontrol() runs, so
 * no stub can unmask a line after its handler is gone.
 */
static void uio_kill(struct uio_device *idev, struct uio_info *info,
		     bool irq_requested)
{
	down_write(&idev->info_sem);
	if (irq_requested)
		free_irq(info->irq, idev);
	WRITE_ONCE(idev->info, NULL);
	up_write(&idev->info_sem);
	WRITE_ONCE(info->uio_dev, NULL);
	synchronize_rcu();

	wake_up_interruptible_all(&idev->wait);
	kill_fasync(&idev->async_queue, SIGIO, POLL_HUP);
	uio_zap_mappings(idev);
	uio_wc_release(idev);
}

static int uio_check_info(const struct uio_info *info)
{
	const struct uio_mem *mem;

	if (!info || !info->name || !info->version)
		return -EINVAL;
	if (info->irq < UIO_IRQ_CUSTOM)
		return -EINVAL;
	if (uio_has_hw_irq(info) && !info->handler)
		return -EINVAL;
	for (mem = info->mem; mem < info->mem + MAX_UIO_MAPS; mem++) {
		if (mem->size && mem->memtype == UIO_MEM_DMA_COHERENT &&
		    !mem->dma_device)
			return -EINVAL;
		if (mem->flags & ~UIO_MEM_FLAG_WC)
			return -EINVAL;
		if (mem->size && (mem->flags & UIO_MEM_FLAG_WC) &&
		    mem->memtype != UIO_MEM_PHYS)
			return -EINVAL;
	}
	if (info->dma_pool_dev && !info->dma_stop)
		return -EINVAL;
	return 0;
}

/**
 * __uio_register_device() - offer a device to user space as /dev/uioN
 * @owner:	module to pin while the device is open; use the
 *		uio_register_device() wrapper, which passes THIS_MODULE
 * @parent:	the real device, e.g. &pci_dev->dev
 * @info:	the stub's description; must stay valid and unchanged until
 *		uio_unregister_device() returns
 *
 * Creates the class device with its sysfs attributes and the character
 * device, and requests @info->irq (with @info->irq_flags) if it is a real
 * interrupt line.
 *
 * Context: process context, may sleep.
 * Return: 0 on success; -EINVAL for an incomplete @info, -EPROBE_DEFER
 * before the core is initialised, -ENOSPC when all minors are taken, or
 * the error of the step that failed (-ENOTCONN for %IRQ_NOTCONNECTED).
 */
int __uio_register_device(struct module *owner, struct device *parent,
			  struct uio_info *info)
{
	struct uio_dma_charge freed;
	struct uio_device *idev;
	unsigned int i;
	int ret;

	/* Unregister trusts uio_dev: a failed register must leave it NULL. */
	if (info)
		WRITE_ONCE(info->uio_dev, NULL);
	if (!parent)
		return -EINVAL;
	ret = uio_check_info(info);
	if (ret)
		return ret;
	/* Built in, a stub may probe before uio_init(), or after it failed. */
	if (!READ_ONCE(uio_core_ready))
		return -EPROBE_DEFER;

	idev = kzalloc(sizeof(*idev), GFP_KERNEL);
	if (!idev)
		return -ENOMEM;

	ret = ida_alloc_max(&uio_ida, UIO_MAX_DEVICES - 1, GFP_KERNEL);
	if (ret < 0)
		goto out_free;
	idev->minor = ret;

	idev->inode = alloc_anon_inode(uio_mnt->mnt_sb);
	if (IS_ERR(idev->inode)) {
		ret = PTR_ERR(idev->inode);
		goto out_free_minor;
	}
	/* Stubs given this inode read the minor with iminor(), as cnic does. */
	idev->inode->i_rdev = MKDEV(MAJOR(uio_devt), idev->minor);

	idev->owner = owner;
	idev->info = info;
	atomic_set(&idev->event, 0);
	init_waitqueue_head(&idev->wait);
	init_rwsem(&idev->info_sem);
	spin_lock_init(&idev->populated_mm_lock);
	INIT_LIST_HEAD(&idev->populated_mms);
	for (i = 0; i < MAX_UIO_MAPS; i++) {
		idev->vma_maps[i].idev = idev;
		idev->vma_maps[i].index = i;
	}

	/* From here on uio_device_release() frees everything. */
	atomic_inc(&uio_devices_alive);
	device_initialize(&idev->dev);
	idev->dev.class = uio_class;
	idev->dev.parent = parent;
	idev->dev.devt = idev->inode->i_rdev;
	idev->dev.release = uio_device_release;
	dev_set_drvdata(&idev->dev, idev);
	ret = dev_set_name(&idev->dev, "uio%d", idev->minor);
	if (ret)
		goto out_put;
	if (info->dma_pool_dev) {
		idev->dma_pool = uio_dma_pool_alloc(idev);
		if (!idev->dma_pool) {
			ret = -ENOMEM;
			goto out_put;
		}
	}
	uio_wc_reserve(idev, info);

	cdev_init(&idev->cdev, &uio_fops);
	idev->cdev.owner = THIS_MODULE;
	/* User space may open the cdev even if adding it fails: kill it then. */
	ret = cdev_device_add(&idev->cdev, &idev->dev);
	if (ret)
		goto out_kill;

	ret = uio_sysfs_add(idev);
	if (ret)
		goto out_del;

	WRITE_ONCE(info->uio_dev, idev);
	if (uio_has_hw_irq(info)) {
		/*
		 * Every event is counted by the handler that claims it, not by
		 * an irq thread: a thread woken by several interrupts runs once
		 * and would report them as one event. request_any_context_irq()
		 * makes uio_interrupt() the hard handler of an ordinary line,
		 * and the thread function of a nested-thread interrupt (one a
		 * sleeping demultiplexer, e.g. an I2C GPIO expander, delivers
		 * from its own thread with handle_nested_irq()), which
		 * request_irq() refuses with -EINVAL. Neither creates an irq
		 * thread; PREEMPT_RT force-threads ordinary lines as usual.
		 */
		ret = request_any_context_irq(info->irq, uio_interrupt,
					      info->irq_flags, info->name, idev);
		if (ret < 0)
			goto out_sysfs;
	}
	return 0;

out_sysfs:
	uio_sysfs_del(idev);
out_del:
	cdev_device_del(&idev->cdev, &idev->dev);
out_kill:
	uio_kill(idev, info, false);
	uio_dma_put(idev, info, false, &freed);
	uio_dma_uncharge(&freed);
out_put:
	ida_free(&uio_ida, idev->minor);
	put_device(&idev->dev);
	return ret;

out_free_minor:
	ida_free(&uio_ida, idev->minor);
out_free:
	kfree(idev);
	return ret;
}
EXPORT_SYMBOL_GPL(__uio_register_device);

/**
 * uio_unregister_device() - take a device away from user space
 * @info: the description passed to uio_register_device()
 *
 * Removes /dev/uioN and its sysfs entries and frees the interrupt. Files
 * still open stay valid but fail every operation with -EIO: blocked
 * readers wake with -EIO, pollers see EPOLLERR, and the next touch of a
 * mapping gets SIGBUS. The device's DMA buffers, if any, are freed after
 * the zap and after @info->dma_stop(). When this returns, the core will
 * not call into the stub or touch @info again, and uio_event_notify() on @info is a no-op.
 * Calling it again, or for a device never registered, does nothing.
 *
 * Context: process context, may sleep.
 */
void uio_unregister_device(struct uio_info *info)
{
	struct uio_dma_charge freed;
	struct uio_device *idev;

	if (!info || !info->uio_dev)
		return;
	idev = info->uio_dev;

	uio_sysfs_del(idev);
	cdev_device_del(&idev->cdev, &idev->dev);
	ida_free(&uio_ida, idev->minor);
	uio_kill(idev, info, uio_has_hw_irq(info));
	uio_dma_put(idev, info, false, &freed);
	uio_dma_uncharge(&freed);
	put_device(&idev->dev);
}
EXPORT_SYMBOL_GPL(uio_unregister_device);

static void uio_devm_unregister(void *info)
{
	uio_unregister_device(info);
}

/**
 * __devm_uio_register_device() - resource-managed uio_register_device()
 * @owner:	module to pin while the device is open; use the
 *		devm_uio_register_device() wrapper, which passes THIS_MODULE
 * @parent:	the real device; the UIO device is unregistered when @parent
 *		is unbound from its driver
 * @info:	the stub's description
 *
 * Context: process context, may sleep.
 * Return: 0 on success or the error of uio_register_device().
 */
int __devm_uio_register_device(struct module *owner, struct device *parent,
			       struct uio_info *info)
{
	int ret;

	ret = __uio_register_device(owner, parent, info);
	if (ret)
		return ret;
	return devm_add_action_or_reset(parent, uio_devm_unregister, info);
}
EXPORT_SYMBOL_GPL(__devm_uio_register_device);

static void uio_page_part_release(void *data)
{
	struct resource *part = data;

	release_resource(part);
	kfree(part);
}

/* Claims [start, end] next to @res, or returns an ERR_PTR(). */
static struct resource *uio_page_part_claim(struct resource *res,
					    resource_size_t start,
					    resource_size_t end)
{
	struct resource *part;

	part = kzalloc(sizeof(*part), GFP_KERNEL);
	if (!part)
		return ERR_PTR(-ENOMEM);
	part->name = "uio sub-page reserve";
	part->start = start;
	part->end = end;
	part->flags = res->flags;
	if (request_resource(res->parent, part)) {
		kfree(part);
		return ERR_PTR(-EBUSY);
	}
	return part;
}

/**
 * devm_uio_reserve_page() - keep the rest of a sub-page region's page free
 * @dev:	the device whose unbinding ends the reservation
 * @res:	the region, in the resource tree (a PCI BAR, say)
 *
 * The core maps %UIO_MEM_PHYS regions in whole pages, so the mapping of a
 * region smaller than a page also reaches whatever else lies in its page:
 * the registers of another device, now or after a hot-plug. This claims
 * the parts of the page outside @res as siblings of @res. That succeeds
 * only if no other resource is there, and keeps any from being put there
 * until @dev is unbound. A stub whose claim fails should not offer the
 * region for mmap() (memtype %UIO_MEM_NONE) and say so in the log.
 *
 * Context: process context, may sleep.
 * Return: 0 if @res fills its pages or the rest of its page is now
 * claimed; -EBUSY if part of that page is in use or @res is not in the
 * resource tree; -ENOMEM.
 */
int devm_uio_reserve_page(struct device *dev, struct resource *res)
{
	resource_size_t first = ALIGN_DOWN(res->start, PAGE_SIZE);
	resource_size_t last = ALIGN(res->end + 1, PAGE_SIZE) - 1;
	struct resource *head = NULL, *tail = NULL;
	int ret;

	if (!res->parent)
		return -EBUSY;
	if (res->start > first) {
		head = uio_page_part_claim(res, first, res->start - 1);
		if (IS_ERR(head))
			return PTR_ERR(head);
	}
	if (res->end < last) {
		tail = uio_page_part_claim(res, res->end + 1, last);
		if (IS_ERR(tail)) {
			if (head)
				uio_page_part_release(head);
			return PTR_ERR(tail);
		}
	}
	if (head) {
		ret = devm_add_action_or_reset(dev, uio_page_part_release, head);
		if (ret) {
			if (tail)
				uio_page_part_release(tail);
			return ret;
		}
	}
	if (tail)
		return devm_add_action_or_reset(dev, uio_page_part_release,
						tail);
	return 0;
}
EXPORT_SYMBOL_GPL(devm_uio_reserve_page);

static int uio_fs_init_fs_context(struct fs_context *fc)
{
	return init_pseudo(fc, UIO_FS_MAGIC) ? 0 : -ENOMEM;
}

/*
 * No .owner: the mount below would pin this module until uio_exit(), which
 * then never runs. The type is never registered, so nobody else mounts it.
 */
static struct file_system_type uio_fs_type = {
	.name			= "uio",
	.init_fs_context	= uio_fs_init_fs_context,
	.kill_sb		= kill_anon_super,
};

/*
 * Opening a minor no device holds (a node in a static /dev, or one kept
 * across unregister) fails with ENODEV, as in mainline, where one cdev
 * spans all minors. This cdev spans them all too; the devices' own, of
 * one minor each, take precedence over it.
 */
static int uio_open_unused(struct inode *inode, struct file *filep)
{
	return -ENODEV;
}

static const struct file_operations uio_unused_fops = {
	.owner		= THIS_MODULE,
	.open		= uio_open_unused,
};

/*
 * Allocated, not static: with DEBUG_KOBJECT_RELEASE its kobject is released
 * after a delay, which may be after the module is gone.
 */
static struct cdev *uio_unused_cdev;

static int __init uio_init(void)
{
	int ret;

	uio_mnt = kern_mount(&uio_fs_type);
	if (IS_ERR(uio_mnt))
		return PTR_ERR(uio_mnt);

	ret = alloc_chrdev_region(&uio_devt, 0, UIO_MAX_DEVICES, "uio");
	if (ret)
		goto out_unmount;

	uio_unused_cdev = cdev_alloc();
	if (!uio_unused_cdev) {
		ret = -ENOMEM;
		goto out_unregister_region;
	}
	uio_unused_cdev->ops = &uio_unused_fops;
	uio_unused_cdev->owner = THIS_MODULE;
	ret = cdev_add(uio_unused_cdev, uio_devt, UIO_MAX_DEVICES);
	if (ret) {
		kobject_put(&uio_unused_cdev->kobj);
		goto out_unregister_region;
	}

	uio_class = class_create("uio");
	if (IS_ERR(uio_class)) {
		ret = PTR_ERR(uio_class);
		goto out_del_cdev;
	}
	uio_class->dev_groups = uio_groups;
	WRITE_ONCE(uio_core_ready, true);
	return 0;

out_del_cdev:
	cdev_del(uio_unused_cdev);
out_unregister_region:
	unregister_chrdev_region(uio_devt, UIO_MAX_DEVICES);
out_unmount:
	kern_unmount(uio_mnt);
	return ret;
}

static void __exit uio_exit(void)
{
	/* A release may still be pending, e.g. with DEBUG_KOBJECT_RELEASE. */
	wait_var_event(&uio_devices_alive, !atomic_read(&uio_devices_alive));
	class_destroy(uio_class);
	cdev_del(uio_unused_cdev);
	unregister_chrdev_region(uio_devt, UIO_MAX_DEVICES);
	kern_unmount(uio_mnt);
	ida_destroy(&uio_ida);
}

module_init(uio_init);
module_exit(uio_exit);
MODULE_DESCRIPTION("Userspace I/O driver core");
MODULE_LICENSE("GPL");
