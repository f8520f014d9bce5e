/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Userspace I/O core: what the files of the core module (uio.ko) share.
 * Private to drivers/uio; stubs use <linux/uio_driver.h>.
 */
#ifndef _DRIVERS_UIO_UIO_INTERNAL_H
#define _DRIVERS_UIO_UIO_INTERNAL_H

#include <linux/fs.h>
#include <linux/mm_types.h>
#include <linux/types.h>
#include <linux/uio_driver.h>

/* Page offset of buffer 0; buffer K follows at K times the buffer size. */
#define UIO_DMA_PGOFF		0x100000UL

/**
 * struct uio_listener - the state of one open file
 * @idev:	the device; kept alive by the open cdev
 * @event_seen:	the event count this file last returned from read()
 */
struct uio_listener {
	struct uio_device	*idev;
	s32			event_seen;
};

/**
 * struct uio_dma_charge - pages charged to a process's RLIMIT_MEMLOCK
 * @mm:		the address space charged, with a reference; or %NULL
 * @pages:	how many
 *
 * account_locked_vm() takes the mmap_lock, and mmap() takes the description
 * under it, so a charge is made before the description is taken and given
 * back after it is released. In between it moves into and out of the pool.
 */
struct uio_dma_charge {
	struct mm_struct	*mm;
	unsigned long		pages;
};

/* uio_core.c */
struct uio_info *uio_get_info(struct uio_device *idev);
void uio_put_info(struct uio_device *idev);
bool uio_is_gone(struct uio_device *idev);

/* uio_sysfs.c */
int uio_sysfs_add(struct uio_device *idev);
void uio_sysfs_del(struct uio_device *idev);

/* uio_dma.c */
struct uio_dma_pool *uio_dma_pool_alloc(struct uio_device *idev);
int uio_dma_sysfs_add(struct uio_device *idev);
void uio_dma_sysfs_del(struct uio_device *idev);
void uio_dma_uncharge(struct uio_dma_charge *charge);
int uio_dma_charge(struct uio_device *idev,
		   struct uio_dma_charge *charge);
int uio_dma_get(struct uio_device *idev, struct uio_info *info,
		struct uio_dma_charge *charge);
void uio_dma_put(struct uio_device *idev, struct uio_info *info,
		 bool closing, struct uio_dma_charge *charge);
int uio_dma_mmap(struct uio_device *idev, struct uio_info *info,
		 struct vm_area_struct *vma);

/* uio_fops.c */
extern const struct file_operations uio_fops;

/* uio_mmap.c */
int uio_mmap_dma_coherent(struct uio_device *idev,
			  const struct uio_mem *mem,
			  struct vm_area_struct *vma);
int uio_mmap(struct file *filep, struct vm_area_struct *vma);
#ifdef CONFIG_ARCH_SUPPORTS_HUGE_PFNMAP
unsigned long uio_get_unmapped_area(struct file *filep,
				    unsigned long addr,
				    unsigned long len,
				    unsigned long pgoff,
				    unsigned long flags);
#endif
void uio_wc_reserve(struct uio_device *idev,
		    const struct uio_info *info);
void uio_wc_release(struct uio_device *idev);

/* uio_zap.c */
int uio_populated_mm_add(struct uio_device *idev, struct mm_struct *mm);
void uio_zap_mappings(struct uio_device *idev);

#endif /* _DRIVERS_UIO_UIO_INTERNAL_H */
