// SPDX-License-Identifier: GPL-2.0-only
/*
 * Userspace I/O core: unregister's zap of every mapping of a device, and
 * the list of address spaces that may be linking a mapping mmap() filled.
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/rbtree.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uio_driver.h>

#include "uio_internal.h"

/*
 * Mappings that mmap() fills itself: UIO_MEM_DMA_COHERENT maps, whose
 * backing (linear map, remapped pages, a per-device pool) and attributes
 * only dma_mmap_coherent() knows, and the PHYS and IOVA mappings that
 * huge entries cannot back (uio_mmap_pfn()). Their pages are mapped before
 * mmap_region() links the VMA into the device's address space, so a zap
 * by uio_kill() in between would miss the VMA and leave user space a
 * mapping of memory the device no longer owns.
 *
 * The mmap() call holds its mm's mmap_lock for writing from ->mmap until
 * the VMA is linked, so uio_zap_mappings() takes mmap_lock once for every
 * mm on idev->populated_mms before it zaps. An mm is listed by every such
 * mmap(), under the description, and stays listed while its process runs,
 * so that mapping window after window allocates nothing; the next such
 * mmap() after the process has exited drops it, as an mm without users
 * has no mmap() in flight. uio_kill() zaps only after it has released
 * info_sem, which mmap() takes inside mmap_lock.
 *
 * Why that suffices: an mmap() that got the description listed its mm
 * before uio_kill() cleared the description, hence before the list is
 * taken; the zap then waits for it to link the VMA, and zaps it. An
 * mmap() that did not get the description maps nothing.
 *
 * On x86 with PAT the zap of such a mapping must also hold its mmap_lock.
 * remap_pfn_range() reserves the memory type of the whole mapping and
 * marks it VM_PAT, and the first zap of the whole mapping releases the
 * reservation and clears the mark. munmap() and exit zap under mmap_lock
 * (exit under the read lock), the zap through the address space under
 * i_mmap_rwsem only: racing, both would release the reservation, or one
 * would find the page tables the other emptied and warn. So every VM_PAT
 * mapping of the device is zapped under its mm's mmap_lock held for
 * writing: those of the listed mms, then those of any other mm that
 * still has one in the address space (fork's children). A zapped mapping
 * is no longer VM_PAT, nor is a later fork's copy of it, so the search
 * ends, and the catch-all zap after it has no reservation to release.
 */

/**
 * struct uio_populated_mm - an mm that may be linking a populated mapping
 * @node:	entry in uio_device.populated_mms, or in the zap's own list
 * @mm:		the mm, pinned with mmgrab()
 */
struct uio_populated_mm {
	struct list_head	node;
	struct mm_struct	*mm;
};

/* Context: the lock of @mms held, if any. */
static struct uio_populated_mm *uio_populated_mm_find(struct list_head *mms,
						      struct mm_struct *mm)
{
	struct uio_populated_mm *pm;

	list_for_each_entry(pm, mms, node)
		if (pm->mm == mm)
			return pm;
	return NULL;
}

/* Let go of the entries on @mms. */
static void uio_populated_mms_free(struct list_head *mms)
{
	struct uio_populated_mm *pm, *tmp;

	list_for_each_entry_safe(pm, tmp, mms, node) {
		mmdrop(pm->mm);
		kfree(pm);
	}
}

/*
 * List @mm, and drop the entries of mms that have exited. Only mmap()
 * in @mm adds @mm's entry, under its mmap_lock held for writing, so it
 * cannot appear between the lookup and the add; an mm whose process is
 * running is never dropped. uio_zap_mappings() waits for the description.
 * Context: ->mmap, mmap_lock held for writing, the description held.
 */
int uio_populated_mm_add(struct uio_device *idev, struct mm_struct *mm)
{
	struct uio_populated_mm *pm, *tmp;
	bool listed = false;
	LIST_HEAD(gone);

	spin_lock(&idev->populated_mm_lock);
	list_for_each_entry_safe(pm, tmp, &idev->populated_mms, node) {
		if (pm->mm == mm)
			listed = true;
		else if (!atomic_read(&pm->mm->mm_users))
			list_move(&pm->node, &gone);
	}
	spin_unlock(&idev->populated_mm_lock);
	uio_populated_mms_free(&gone);
	if (listed)
		return 0;

	pm = kmalloc(sizeof(*pm), GFP_KERNEL);
	if (!pm)
		return -ENOMEM;
	mmgrab(mm);
	pm->mm = mm;
	spin_lock(&idev->populated_mm_lock);
	list_add(&pm->node, &idev->populated_mms);
	spin_unlock(&idev->populated_mm_lock);
	return 0;
}

/* Does @vma hold a memory type reservation that its zap releases? */
static bool uio_vma_reserved(const struct vm_area_struct *vma)
{
#ifdef VM_PAT
	return vma->vm_flags & VM_PAT;
#else
	return false;
#endif
}

/*
 * The mapping after @vma in @mapping's tree, or the first if @vma is
 * %NULL: every mapping in turn, as the interval tree's own iterator is
 * not for modules.
 * Context: i_mmap_rwsem held.
 */
static struct vm_area_struct *uio_vma_next(struct address_space *mapping,
					   struct vm_area_struct *vma)
{
	struct rb_node *node;

	if (vma)
		node = rb_next(&vma->shared.rb);
	else
		node = rb_first_cached(&mapping->i_mmap);
	return node ? rb_entry(node, struct vm_area_struct, shared.rb) : NULL;
}

/*
 * Zap @mm's mappings of @idev that hold a reservation. Taking mmap_lock
 * also waits for an mmap() in @mm to link its mapping. The mappings are
 * found through the address space, as unmap_mapping_range() finds them,
 * not through @mm, which may have exited.
 */
static void uio_zap_mm(struct uio_device *idev, struct mm_struct *mm)
{
	struct address_space *mapping = idev->inode->i_mapping;
	struct vm_area_struct *vma;

	mmap_write_lock(mm);
	i_mmap_lock_read(mapping);
	for (vma = uio_vma_next(mapping, NULL); vma;
	     vma = uio_vma_next(mapping, vma))
		if (vma->vm_mm == mm && uio_vma_reserved(vma))
			zap_vma_ptes(vma, vma->vm_start,
				     vma->vm_end - vma->vm_start);
	i_mmap_unlock_read(mapping);
	mmap_write_unlock(mm);
}

/*
 * The mm of a mapping of @idev that holds a reservation, if it is not on
 * @done, pinned; %NULL if there is none. It is pinned before
 * i_mmap_rwsem is let go, which mmap_lock nests over.
 */
static struct mm_struct *uio_reserved_mm_next(struct uio_device *idev,
					      struct list_head *done)
{
	struct address_space *mapping = idev->inode->i_mapping;
	struct mm_struct *mm = NULL;
	struct vm_area_struct *vma;

	i_mmap_lock_read(mapping);
	for (vma = uio_vma_next(mapping, NULL); vma;
	     vma = uio_vma_next(mapping, vma))
		if (uio_vma_reserved(vma) &&
		    !uio_populated_mm_find(done, vma->vm_mm)) {
			mm = vma->vm_mm;
			mmgrab(mm);
			break;
		}
	i_mmap_unlock_read(mapping);
	return mm;
}

/**
 * uio_zap_mappings() - make every mapping of a device unreachable
 * @idev:	the device
 *
 * After it, the next touch of any mapping of @idev faults, and the fault
 * handlers, finding no description, raise SIGBUS.
 *
 * Context: the description cleared, info_sem released; sleeps.
 */
void uio_zap_mappings(struct uio_device *idev)
{
	struct uio_populated_mm *pm;
	LIST_HEAD(done);

	spin_lock(&idev->populated_mm_lock);
	list_splice_init(&idev->populated_mms, &done);
	spin_unlock(&idev->populated_mm_lock);

	list_for_each_entry(pm, &done, node)
		uio_zap_mm(idev, pm->mm);
	/* Without memory, the catch-all zap below still unmaps everything. */
	while ((pm = kmalloc(sizeof(*pm), GFP_KERNEL))) {
		pm->mm = uio_reserved_mm_next(idev, &done);
		if (!pm->mm) {
			kfree(pm);
			break;
		}
		list_add(&pm->node, &done);
		uio_zap_mm(idev, pm->mm);
	}
	unmap_mapping_range(idev->inode->i_mapping, 0, 0, 1);
	uio_populated_mms_free(&done);
}
