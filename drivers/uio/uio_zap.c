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
 * mmap(), under the description, and dropped again when one of its VMAs
 * of this kind closes: closing needs the same mmap_lock, so that mm has
 * no mmap() in flight. uio_kill() zaps only after it has released
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

/*
 * Only mmap() and the close of a VMA add or drop @mm's entry, both under
 * @mm's mmap_lock held for writing, so it cannot appear between the
 * lookup and the add; uio_zap_mappings() waits for the description.
 * Context: ->mmap, mmap_lock held for writing, the description held.
 */
int uio_populated_mm_add(struct uio_device *idev, struct mm_struct *mm)
{
	struct uio_populated_mm *new;
	bool listed;

	spin_lock(&idev->populated_mm_lock);
	listed = uio_populated_mm_find(&idev->populated_mms, mm);
	spin_unlock(&idev->populated_mm_lock);
	if (listed)
		return 0;

	new = kmalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	mmgrab(mm);
	new->mm = mm;
	spin_lock(&idev->populated_mm_lock);
	list_add(&new->node, &idev->populated_mms);
	spin_unlock(&idev->populated_mm_lock);
	return 0;
}

void uio_populated_vma_close(struct vm_area_struct *vma)
{
	const struct uio_vma_map *vm = vma->vm_private_data;
	struct uio_device *idev = vm->idev;
	struct uio_populated_mm *pm;

	spin_lock(&idev->populated_mm_lock);
	pm = uio_populated_mm_find(&idev->populated_mms, vma->vm_mm);
	if (pm)
		list_del(&pm->node);
	spin_unlock(&idev->populated_mm_lock);
	if (pm) {
		mmdrop(pm->mm);
		kfree(pm);
	}
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
	struct uio_populated_mm *pm, *tmp;
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

	list_for_each_entry_safe(pm, tmp, &done, node) {
		mmdrop(pm->mm);
		kfree(pm);
	}
}
