// SPDX-License-Identifier: GPL-2.0-only
/*
 * Userspace I/O core: the file operations of /dev/uioN other than mmap():
 * open() and release(), read() and poll() waiting for events, write()
 * switching the interrupt on and off, and fasync().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/uio_driver.h>

#include "uio_internal.h"

static int uio_open(struct inode *inode, struct file *filep)
{
	struct uio_device *idev = container_of(inode->i_cdev,
					       struct uio_device, cdev);
	struct uio_dma_charge charge, freed = {};
	struct uio_listener *listener;
	struct uio_info *info;
	bool reconfigured;
	int ret;

	listener = kmalloc(sizeof(*listener), GFP_KERNEL);
	if (!listener)
		return -ENOMEM;
	listener->idev = idev;
	listener->event_seen = atomic_read(&idev->event);

retry:
	reconfigured = false;
	ret = uio_dma_charge(idev, &charge);
	if (ret)
		goto out_free;
	/*
	 * The open cdev keeps idev alive, but only a live description proves
	 * the stub module has not finished unloading: pin it under the lock.
	 */
	info = uio_get_info(idev);
	if (!info) {
		ret = -ENODEV;
		goto out_uncharge;
	}
	if (!try_module_get(idev->owner)) {
		ret = -ENODEV;
		goto out_put_info;
	}
	ret = uio_dma_get(idev, info, &charge);
	/* The buffers were reconfigured between the charge and the get. */
	reconfigured = ret == -EAGAIN;
	if (ret)
		goto out_module_put;
	/*
	 * The stub gets the inode whose address space holds the mappings,
	 * not the node's: TCMU unmaps data-area pages through it.
	 */
	if (info->open) {
		ret = info->open(info, idev->inode);
		if (ret)
			goto out_dma_put;
	}
	uio_put_info(idev);
	uio_dma_uncharge(&charge);

	filep->private_data = listener;
	/* Every mapping lands in one address space, which unregister zaps. */
	filep->f_mapping = idev->inode->i_mapping;
	return 0;

out_dma_put:
	uio_dma_put(idev, info, true, &freed);
out_module_put:
	module_put(idev->owner);
out_put_info:
	uio_put_info(idev);
out_uncharge:
	uio_dma_uncharge(&freed);
	uio_dma_uncharge(&charge);
	if (reconfigured)
		goto retry;
out_free:
	kfree(listener);
	return ret;
}

static int uio_release(struct inode *inode, struct file *filep)
{
	struct uio_listener *listener = filep->private_data;
	struct uio_device *idev = listener->idev;
	struct uio_dma_charge freed;
	struct uio_info *info;
	int ret = 0;

	info = uio_get_info(idev);
	if (info && info->release)
		ret = info->release(info, idev->inode);
	uio_dma_put(idev, info, true, &freed);
	if (info)
		uio_put_info(idev);
	uio_dma_uncharge(&freed);
	module_put(idev->owner);
	kfree(listener);
	return ret;
}

static int uio_fasync(int fd, struct file *filep, int on)
{
	struct uio_listener *listener = filep->private_data;

	return fasync_helper(fd, filep, on, &listener->idev->async_queue);
}

/*
 * A stub may take its event source away at run time by setting irq to
 * UIO_IRQ_NONE, as uio_hv_generic does for a rescinded channel; so irq is
 * read anew for every operation.
 */
static bool uio_has_events(const struct uio_info *info)
{
	return READ_ONCE(info->irq) != UIO_IRQ_NONE;
}

/*
 * Can read() ever return? -EIO if the device has no events or is gone.
 * Lockless, as it runs once or twice per event and calls no stub code:
 * uio_kill() waits for a grace period after clearing the description,
 * before the stub may free it.
 */
static int uio_check_events(struct uio_device *idev)
{
	struct uio_info *info;
	int ret = -EIO;

	rcu_read_lock();
	info = READ_ONCE(idev->info);
	if (info && uio_has_events(info))
		ret = 0;
	rcu_read_unlock();
	return ret;
}

static bool uio_event_pending(const struct uio_listener *listener)
{
	return atomic_read(&listener->idev->event) != listener->event_seen;
}

static __poll_t uio_poll(struct file *filep, poll_table *wait)
{
	struct uio_listener *listener = filep->private_data;
	struct uio_device *idev = listener->idev;

	poll_wait(filep, &idev->wait, wait);
	/* Queued before the count is read: pairs with uio_signal_event(). */
	smp_mb();
	/*
	 * Readable too, as in mainline: a loop that waits for EPOLLIN alone
	 * must wake and learn from read() that the device is gone.
	 */
	if (uio_check_events(idev))
		return EPOLLIN | EPOLLRDNORM | EPOLLERR | EPOLLHUP;
	if (uio_event_pending(listener))
		return EPOLLIN | EPOLLRDNORM;
	return 0;
}

static ssize_t uio_read(struct file *filep, char __user *buf, size_t count,
			loff_t *ppos)
{
	struct uio_listener *listener = filep->private_data;
	struct uio_device *idev = listener->idev;
	DECLARE_WAITQUEUE(wait, current);
	s32 event;
	int ret;

	if (count != sizeof(s32))
		return -EINVAL;
	ret = uio_check_events(idev);
	if (ret)
		return ret;

	/* An event already pending: no wait queue, and no second check. */
	event = atomic_read(&idev->event);
	if (event != listener->event_seen)
		goto out_copy;

	/* Queued once for the whole wait: each wakeup costs one lock round. */
	add_wait_queue(&idev->wait, &wait);
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		event = atomic_read(&idev->event);
		if (event != listener->event_seen || uio_is_gone(idev))
			break;
		if (filep->f_flags & O_NONBLOCK) {
			ret = -EAGAIN;
			break;
		}
		if (signal_pending(current)) {
			ret = -ERESTARTSYS;
			break;
		}
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	remove_wait_queue(&idev->wait, &wait);
	/*
	 * The wakeup may be the last one: a stub that loses its event source
	 * clears irq and then notifies, and unregister wakes everybody.
	 */
	if (!ret)
		ret = uio_check_events(idev);
	if (ret)
		return ret;

out_copy:
	if (copy_to_user(buf, &event, sizeof(event)))
		return -EFAULT;
	listener->event_seen = event;
	return sizeof(event);
}

static ssize_t uio_write(struct file *filep, const char __user *buf,
			 size_t count, loff_t *ppos)
{
	struct uio_listener *listener = filep->private_data;
	struct uio_device *idev = listener->idev;
	struct uio_info *info;
	s32 irq_on;
	int ret;

	if (count != sizeof(s32))
		return -EINVAL;
	if (copy_from_user(&irq_on, buf, sizeof(irq_on)))
		return -EFAULT;

	info = uio_get_info(idev);
	if (!info)
		return -EIO;
	/*
	 * ENOSYS for "no irqcontrol" is ABI since 2.6.23; user space tests it.
	 * Without events there is nothing to control: EIO, as from read().
	 */
	if (!uio_has_events(info))
		ret = -EIO;
	else if (!info->irqcontrol)
		ret = -ENOSYS;
	else
		ret = info->irqcontrol(info, irq_on);
	uio_put_info(idev);
	return ret ? ret : sizeof(s32);
}

const struct file_operations uio_fops = {
	.owner		= THIS_MODULE,
	.open		= uio_open,
	.release	= uio_release,
	.read		= uio_read,
	.write		= uio_write,
	.mmap		= uio_mmap,
#ifdef CONFIG_ARCH_SUPPORTS_HUGE_PFNMAP
	.get_unmapped_area = uio_get_unmapped_area,
#endif
	.poll		= uio_poll,
	.fasync		= uio_fasync,
	/*
	 * As in mainline: seeking succeeds and changes nothing, and pread()
	 * is read(). Buffered I/O libraries insist on a seekable file to
	 * open it for reading and writing (Python's open("r+b")).
	 */
	.llseek		= noop_llseek,
};
