/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Out-of-tree builds only: the kernel's <linux/mm.h> plus what UIO uses
 * from newer kernels. See backport/README.
 */
#ifndef _BACKPORT_LINUX_MM_H
#define _BACKPORT_LINUX_MM_H

#include_next <linux/mm.h>
#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
/*
 * 6.3 made vma->vm_flags read-only: changes go through these helpers,
 * which also write-lock the VMA for the per-VMA lock fault path. Older
 * kernels have no such lock, so a plain update is all there is to do;
 * the caller holds mmap_lock for writing either way.
 */
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}

static inline void vm_flags_clear(struct vm_area_struct *vma,
				  vm_flags_t flags)
{
	vma->vm_flags &= ~flags;
}
#endif

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 4, 0)
/* 6.4 brought the per-VMA lock; before it, mmap_lock is all there is. */
static inline void vma_start_write(struct vm_area_struct *vma)
{
}
#endif

#endif /* _BACKPORT_LINUX_MM_H */
