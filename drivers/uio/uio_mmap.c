// SPDX-License-Identifier: GPL-2.0-only
/*
 * Userspace I/O core: mmap() of a device's maps, the faults that fill PHYS
 * and IOVA mappings (huge entries where they fit), access() for debuggers,
 * the mappings mmap() fills itself, and the write-combining reservation of
 * the maps.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/highmem.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/mmap_lock.h>
#include <linux/pagemap.h>
#include <linux/pfn_t.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uio_driver.h>
#include <linux/vmalloc.h>

#include "uio_internal.h"

/*
 * Whether a PHYS or IOVA map lies in the physical address space at all.
 * uio_dmem_genirq of Linux 6.1 gives a DMA region it has not allocated
 * (yet, or any more) as UIO_MEM_PHYS at addr ~0, which 6.1's core
 * refuses for not being page aligned; ours maps an unaligned PHYS map
 * from its first page, so it must refuse the marker on its own.
 */
static bool uio_mem_phys_present(const struct uio_mem *mem)
{
	return mem->size <= PHYS_ADDR_MAX - mem->addr;
}

/* Pages a map spans, counting the part of the first page before it. */
static unsigned long uio_mem_pages(const struct uio_mem *mem)
{
	return PAGE_ALIGN((mem->addr & ~PAGE_MASK) + mem->size) >> PAGE_SHIFT;
}

/*
 * The page of its map that file page @pgoff of a mapping is. The mapping
 * started at page 0 of the map, with vm_pgoff the map index; splitting and
 * moving keep every part's vm_pgoff consistent with its start.
 */
static unsigned long uio_vma_map_page(const struct uio_vma_map *vm,
				      pgoff_t pgoff)
{
	return pgoff - vm->index;
}

/*
 * A fault in a PHYS or IOVA map populates the whole block around it, not
 * one page: one fault per 4 KiB page made touching a large BAR cost
 * hundreds of times what mapping it at mmap() time costs. Faults serve
 * the mappings that huge entries can back, and any mapping again after a
 * zap that left the device registered (see uio_mmap_pfn()). The block is
 * naturally aligned to UIO_FAULT_BLOCK, so on a kernel that maps huge PFN
 * entries it never fills part of a neighbouring PMD-sized block that
 * uio_vma_huge_fault() could have mapped with one entry, and it shares a
 * single page table. Bounding it also bounds how long the fault holds the
 * description and so how long unregister can wait for it.
 */
#define UIO_FAULT_BLOCK		min_t(unsigned long, PMD_SIZE, SZ_2M)

/*
 * The part of the naturally aligned @size span around @addr that both the
 * mapping and the map cover, as [*@start, *@end); @index is the page of the
 * map at @addr. The faults fill their block or their PMD table with it.
 */
static void uio_vma_fill_span(const struct vm_area_struct *vma,
			      const struct uio_mem *mem, unsigned long addr,
			      unsigned long index, unsigned long size,
			      unsigned long *start, unsigned long *end)
{
	unsigned long span = ALIGN_DOWN(addr, size);

	*start = max(vma->vm_start, span);
	*end = min3(vma->vm_end, span + size,
		    addr + ((uio_mem_pages(mem) - index) << PAGE_SHIFT));
}

/**
 * uio_vma_fault_pfn() - map the block of a PFN map around a fault
 * @vmf:	the fault
 * @mem:	the map, held through the description
 * @index:	the page of the map that faulted
 *
 * The faulting page first: it is the one that decides the result. The
 * others of the block follow as far as the mapping and the map reach;
 * vmf_insert_pfn() leaves a page that is already present as it is and
 * reports success for it. If one of them fails (out of memory for a page
 * table), the rest stays for later faults.
 *
 * Context: page fault, the description held.
 * Return: %VM_FAULT_NOPAGE, or the error of the faulting page.
 */
static vm_fault_t uio_vma_fault_pfn(struct vm_fault *vmf,
				    const struct uio_mem *mem,
				    unsigned long index)
{
	struct vm_area_struct *vma = vmf->vma;
	unsigned long pfn = PHYS_PFN(mem->addr) + index;
	unsigned long start, end, addr;
	vm_fault_t ret;

	/* The stub may have withdrawn or shrunk the region since mmap(). */
	if (!uio_mem_phys_present(mem) || index >= uio_mem_pages(mem))
		return VM_FAULT_SIGBUS;
	ret = vmf_insert_pfn(vma, vmf->address, pfn);
	if (ret & VM_FAULT_ERROR)
		return ret;

	uio_vma_fill_span(vma, mem, vmf->address, index, UIO_FAULT_BLOCK,
			  &start, &end);
	pfn -= (vmf->address - start) >> PAGE_SHIFT;
	for (addr = start; addr < end; addr += PAGE_SIZE, pfn++) {
		if (addr == vmf->address)
			continue;
		if (vmf_insert_pfn(vma, addr, pfn) & VM_FAULT_ERROR)
			break;
	}
	return VM_FAULT_NOPAGE;
}

/*
 * Every page this handler maps, it maps under the description, so a
 * mapping that races with unregister is either zapped by it or never
 * populated. What mmap() maps itself is covered by uio_zap_mappings().
 */
static vm_fault_t uio_vma_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	const struct uio_vma_map *vm = vma->vm_private_data;
	struct uio_device *idev = vm->idev;
	unsigned long index = uio_vma_map_page(vm, vmf->pgoff);
	const struct uio_mem *mem;
	struct uio_info *info;
	struct page *page;
	void *addr;
	vm_fault_t ret = 0;

	info = uio_get_info(idev);
	if (!info)
		return VM_FAULT_SIGBUS;
	mem = &info->mem[vm->index];
	addr = (void *)(uintptr_t)mem->addr + (index << PAGE_SHIFT);

	switch (mem->memtype) {
	case UIO_MEM_PHYS:
	case UIO_MEM_IOVA:
		ret = uio_vma_fault_pfn(vmf, mem, index);
		break;
	case UIO_MEM_LOGICAL:
		page = virt_to_page(addr);
		get_page(page);
		vmf->page = page;
		break;
	case UIO_MEM_VIRTUAL:
		page = vmalloc_to_page(addr);
		get_page(page);
		vmf->page = page;
		break;
	default:
		/* DMA_COHERENT is mapped whole by mmap(); only the zap leaves holes. */
		ret = VM_FAULT_SIGBUS;
	}
	uio_put_info(idev);
	return ret;
}

/*
 * Device memory without a PTE yet, or a PFN map at all, is out of reach of
 * get_user_pages(); generic_access_phys() needs a present PTE. So access
 * the map the way the kernel reaches it, one page at a time: RAM through
 * its kernel mapping, other physical memory through a temporary mapping
 * with the mapping's own caching.
 */
#ifdef CONFIG_HAVE_IOREMAP_PROT
static int uio_vma_access_io(struct vm_area_struct *vma, phys_addr_t phys,
			     void *buf, int len, int write)
{
	void __iomem *io;

	io = ioremap_prot(phys & PAGE_MASK, PAGE_SIZE,
			  pgprot_val(vma->vm_page_prot));
	if (!io)
		return -ENOMEM;
	if (write)
		memcpy_toio(io + offset_in_page(phys), buf, len);
	else
		memcpy_fromio(buf, io + offset_in_page(phys), len);
	iounmap(io);
	return len;
}
#else
static int uio_vma_access_io(struct vm_area_struct *vma, phys_addr_t phys,
			     void *buf, int len, int write)
{
	return -EINVAL;
}
#endif

static int uio_vma_access_phys(struct vm_area_struct *vma, phys_addr_t phys,
			       void *buf, int len, int write)
{
	unsigned long pfn = PHYS_PFN(phys);
	void *kaddr;

	if (!pfn_valid(pfn) || !page_is_ram(pfn))
		return uio_vma_access_io(vma, phys, buf, len, write);
	kaddr = kmap_local_pfn(pfn) + offset_in_page(phys);
	if (write)
		memcpy(kaddr, buf, len);
	else
		memcpy(buf, kaddr, len);
	kunmap_local(kaddr);
	return len;
}

/**
 * uio_vma_access() - ptrace() and /proc/PID/mem access to a mapping
 * @vma:	the mapping
 * @addr:	user address in @vma
 * @buf:	kernel buffer to read into or write from
 * @len:	bytes wanted
 * @write:	write instead of read
 *
 * Works whether or not the page has been touched, for every kind of map,
 * and without a PTE; writing needs a writable mapping, as for a PTE.
 *
 * Context: process context, the mm's mmap_lock held.
 * Return: the bytes copied, at most up to the end of @addr's page, or a
 * negative errno; -EIO once the device is gone.
 */
static int uio_vma_access(struct vm_area_struct *vma, unsigned long addr,
			  void *buf, int len, int write)
{
	const struct uio_vma_map *vm = vma->vm_private_data;
	struct uio_device *idev = vm->idev;
	unsigned long offset;
	const struct uio_mem *mem;
	struct uio_info *info;
	int ret = -EINVAL;

	if (write && !(vma->vm_flags & VM_WRITE))
		return -EACCES;
	len = min_t(unsigned long, len, PAGE_SIZE - offset_in_page(addr));
	offset = (uio_vma_map_page(vm, linear_page_index(vma, addr)) <<
		  PAGE_SHIFT) + offset_in_page(addr);

	info = uio_get_info(idev);
	if (!info)
		return -EIO;
	mem = &info->mem[vm->index];
	switch (mem->memtype) {
	case UIO_MEM_PHYS:
	case UIO_MEM_IOVA:
		ret = uio_vma_access_phys(vma, (mem->addr & PAGE_MASK) + offset,
					  buf, len, write);
		break;
	case UIO_MEM_LOGICAL:
	case UIO_MEM_VIRTUAL:
	case UIO_MEM_DMA_COHERENT:
		/* The kernel addresses of the same memory. */
		if (write)
			memcpy((void *)(uintptr_t)(mem->addr & PAGE_MASK) +
			       offset, buf, len);
		else
			memcpy(buf, (void *)(uintptr_t)(mem->addr & PAGE_MASK) +
			       offset, len);
		ret = len;
		break;
	}
	uio_put_info(idev);
	return ret;
}

static const struct vm_operations_struct uio_page_vm_ops = {
	.fault		= uio_vma_fault,
	.access		= uio_vma_access,
};

/*
 * Huge PFN mappings: a PHYS or IOVA map whose user address and physical
 * address agree modulo 2 MiB (or 1 GiB) is mapped with one PMD (PUD) entry
 * per such block instead of 512 (262144) PTEs, and one fault maps every
 * block under its PMD table, so touching a 64 MiB BAR takes one fault
 * rather than 16384. uio_get_unmapped_area() picks a user address with the
 * region's alignment; uio_vma_huge_fault() inserts the entries and leaves
 * every block it cannot cover whole to the 4 KiB path.
 * The zap in uio_kill() and fork handle leaf PMDs and PUDs;
 * uio_vma_access() needs no entry at all.
 *
 * This is gated on CONFIG_ARCH_SUPPORTS_HUGE_PFNMAP and its PMD/PUD
 * variants, not on a kernel version (which drivers/ never tests): they
 * appeared in 6.12 together with what makes such entries safe in a
 * VM_PFNMAP mapping: a special bit at PMD/PUD level that keeps GUP-fast
 * from taking struct page references on device memory, fork copying the
 * entries, follow_pfnmap_start() walking
 * them. Older kernels such as 6.1 have vmf_insert_pfn_pmd() but none of
 * that, and lack the symbols, so they keep the 4 KiB path; nothing from
 * backport/ is needed. The symbols also depend on
 * CONFIG_TRANSPARENT_HUGEPAGE, which PREEMPT_RT kernels do not have.
 */
#ifdef CONFIG_ARCH_SUPPORTS_HUGE_PFNMAP

/*
 * Can a PFN leaf of this order be inserted? A PUD leaf needs 1 GiB page
 * support in the CPU (x86 without it treats the bit as reserved). The
 * core mm does not check that before calling ->huge_fault(); the kernel's
 * own 1 GiB vmap test does, so reuse it.
 */
static bool uio_huge_order_ok(unsigned int order)
{
	switch (order) {
#ifdef CONFIG_ARCH_SUPPORTS_PMD_PFNMAP
	case PMD_ORDER:
		return true;
#endif
#ifdef CONFIG_ARCH_SUPPORTS_PUD_PFNMAP
	case PUD_ORDER:
		return arch_vmap_pud_supported(PAGE_SHARED);
#endif
	default:
		return false;
	}
}

#ifdef CONFIG_ARCH_SUPPORTS_PMD_PFNMAP
/**
 * uio_vma_fill_pmds() - map the other PMD blocks of a fault's page table
 * @vmf:	the fault, its block just mapped with one PMD entry
 * @mem:	the map, held through the description
 * @index:	the page of the map that block starts at
 *
 * A 256 MiB BAR is 128 PMD blocks, and 128 faults cost more than the
 * PTEs that mainline's remap writes at mmap() time wherever a fault is
 * expensive, as under TCG. So the first fault maps every whole block of
 * the mapping and of the map that the same PMD table holds (up to 1 GiB),
 * as uio_vma_fault_pfn() does with the PTEs of its block. Blocks under
 * other PMD tables fault for themselves: allocating tables is the core's
 * job. A block that is not empty any more is left alone. The entries are
 * inserted as for a read fault (no dirty or young bit), which leaves an
 * entry already there untouched; the protection of a shared mapping
 * grants writes anyway.
 *
 * Context: page fault, the description held.
 */
static void uio_vma_fill_pmds(struct vm_fault *vmf, const struct uio_mem *mem,
			      unsigned long index)
{
	struct vm_area_struct *vma = vmf->vma;
	unsigned long block = ALIGN_DOWN(vmf->address, PMD_SIZE);
	unsigned long pfn = PHYS_PFN(mem->addr) + index;
	unsigned long start, end, addr;

	uio_vma_fill_span(vma, mem, block, index, PUD_SIZE, &start, &end);
	start = ALIGN(start, PMD_SIZE);
	pfn -= (block - start) >> PAGE_SHIFT;
	for (addr = start; addr + PMD_SIZE <= end;
	     addr += PMD_SIZE, pfn += PMD_SIZE >> PAGE_SHIFT) {
		struct vm_fault blk = {
			.vma = vma,
			.address = addr,
			.pgoff = linear_page_index(vma, addr),
			.pmd = pmd_offset(vmf->pud, addr),
		};

		if (addr == block || !pmd_none(pmdp_get_lockless(blk.pmd)))
			continue;
		vmf_insert_pfn_pmd(&blk, __pfn_to_pfn_t(pfn, PFN_DEV), false);
	}
}
#endif

/**
 * uio_vma_huge_fault() - map PMD- or PUD-sized blocks of a PFN map
 * @vmf:	the fault
 * @order:	size of the entry the core asks for
 *
 * Maps the naturally aligned block around the fault address with a single
 * entry if the block lies wholly inside the mapping and its physical
 * address is aligned as well; otherwise the core falls back to the next
 * smaller size and finally to uio_vma_fault(). A PMD entry brings the
 * other blocks of its page table along (uio_vma_fill_pmds()). Like
 * uio_vma_fault() it works under the description, so unregister either
 * zaps the entries or makes this fail.
 *
 * Context: page fault, mmap_lock or the VMA lock held; may sleep.
 * Return: %VM_FAULT_NOPAGE when mapped, %VM_FAULT_FALLBACK, or
 * %VM_FAULT_SIGBUS when the device is gone.
 */
static vm_fault_t uio_vma_huge_fault(struct vm_fault *vmf, unsigned int order)
{
	struct vm_area_struct *vma = vmf->vma;
	const struct uio_vma_map *vm = vma->vm_private_data;
	struct uio_device *idev = vm->idev;
	unsigned long size = PAGE_SIZE << order;
	unsigned long start = ALIGN_DOWN(vmf->address, size);
	bool write = vmf->flags & FAULT_FLAG_WRITE;
	const struct uio_mem *mem;
	unsigned long index, pfn;
	struct uio_info *info;
	pfn_t entry;
	vm_fault_t ret;

	if (!order)
		return uio_vma_fault(vmf);
	if (!uio_huge_order_ok(order) || start < vma->vm_start ||
	    size > vma->vm_end - start)
		return VM_FAULT_FALLBACK;

	info = uio_get_info(idev);
	if (!info)
		return VM_FAULT_SIGBUS;
	mem = &info->mem[vm->index];
	index = uio_vma_map_page(vm, linear_page_index(vma, start));
	pfn = PHYS_PFN(mem->addr) + index;
	entry = __pfn_to_pfn_t(pfn, PFN_DEV);

	/* A withdrawn or shrunk region falls back to uio_vma_fault(). */
	ret = VM_FAULT_FALLBACK;
	if (uio_mem_phys_present(mem) && IS_ALIGNED(pfn, 1UL << order) &&
	    index + (1UL << order) <= uio_mem_pages(mem)) {
		switch (order) {
#ifdef CONFIG_ARCH_SUPPORTS_PMD_PFNMAP
		case PMD_ORDER:
			ret = vmf_insert_pfn_pmd(vmf, entry, write);
			if (ret == VM_FAULT_NOPAGE)
				uio_vma_fill_pmds(vmf, mem, index);
			break;
#endif
#ifdef CONFIG_ARCH_SUPPORTS_PUD_PFNMAP
		case PUD_ORDER:
			ret = vmf_insert_pfn_pud(vmf, entry, write);
			break;
#endif
		}
	}
	uio_put_info(idev);
	return ret;
}

/* The largest leaf a mapping of len could use: PUD_SIZE, PMD_SIZE or 0. */
static unsigned long uio_huge_align(unsigned long len)
{
#ifdef CONFIG_ARCH_SUPPORTS_PUD_PFNMAP
	if (len >= PUD_SIZE && uio_huge_order_ok(PUD_ORDER))
		return PUD_SIZE;
#endif
	if (len >= PMD_SIZE && uio_huge_order_ok(PMD_ORDER))
		return PMD_SIZE;
	return 0;
}

/*
 * The page-aligned physical address of map @index in *@phys, if it is a
 * PHYS or IOVA map the core maps itself.
 */
static bool uio_map_phys(struct uio_device *idev, unsigned long index,
			 unsigned long *phys)
{
	struct uio_info *info = uio_get_info(idev);
	const struct uio_mem *mem;
	bool ret = false;

	if (!info)
		return false;
	if (!info->mmap && index < MAX_UIO_MAPS) {
		mem = &info->mem[index];
		ret = mem->size && (mem->memtype == UIO_MEM_PHYS ||
				    mem->memtype == UIO_MEM_IOVA);
		*phys = mem->addr & PAGE_MASK;
	}
	uio_put_info(idev);
	return ret;
}

/**
 * uio_get_unmapped_area() - place a PFN map where huge entries fit
 * @filep:	the open device
 * @addr:	the caller's hint, 0 for none
 * @len:	length of the mapping
 * @pgoff:	the file offset in pages, i.e. the map index
 * @flags:	mmap() flags
 *
 * Leaves can only be used where user and physical address are congruent
 * modulo the leaf size. The file offset is only the map's index, so the
 * address is aligned to the region's physical address, not to @pgoff: ask
 * for @len plus one leaf and shift to the congruent address inside.
 * A hint or MAP_FIXED is honoured as given; such a mapping, like every
 * mapping of other kinds of maps, gets the ordinary placement.
 *
 * Context: process context, mmap_lock held for writing.
 * Return: the start address or a negative errno, as for mmap().
 */
unsigned long uio_get_unmapped_area(struct file *filep,
				    unsigned long addr,
				    unsigned long len,
				    unsigned long pgoff,
				    unsigned long flags)
{
	struct uio_listener *listener = filep->private_data;
	unsigned long align = uio_huge_align(len), phys, ret;

	/* Only a mapping that could hold a leaf looks at the map. */
	if (align && !addr && !(flags & MAP_FIXED) && len + align > len &&
	    uio_map_phys(listener->idev, pgoff, &phys)) {
		ret = mm_get_unmapped_area(current->mm, filep, 0, len + align,
					   pgoff, flags);
		if (!IS_ERR_VALUE(ret))
			return ret + ((phys - ret) & (align - 1));
	}
	/* Not worth aligning, or no room for the padding. */
	return mm_get_unmapped_area(current->mm, filep, addr, len, pgoff,
				    flags);
}

/**
 * uio_vma_huge_ok() - can huge entries back part of a new PFN mapping?
 * @vma:	the mapping, being set up by mmap()
 * @phys:	the physical address of its first page
 *
 * Only if it holds a whole PMD-sized block that is aligned both in user
 * and in physical address space: the two start addresses must agree
 * modulo PMD_SIZE, and the mapping must reach past one aligned block.
 *
 * Return: true if uio_vma_huge_fault() would map some of it.
 */
static bool uio_vma_huge_ok(const struct vm_area_struct *vma,
			    phys_addr_t phys)
{
	unsigned long block = ALIGN(vma->vm_start, PMD_SIZE);

	return uio_huge_order_ok(PMD_ORDER) &&
	       !((vma->vm_start - phys) & (PMD_SIZE - 1)) &&
	       block < vma->vm_end && vma->vm_end - block >= PMD_SIZE;
}

#else /* !CONFIG_ARCH_SUPPORTS_HUGE_PFNMAP */

static bool uio_vma_huge_ok(const struct vm_area_struct *vma,
			    phys_addr_t phys)
{
	return false;
}

#endif /* CONFIG_ARCH_SUPPORTS_HUGE_PFNMAP */

static const struct vm_operations_struct uio_pfn_vm_ops = {
	.fault		= uio_vma_fault,
#ifdef CONFIG_ARCH_SUPPORTS_HUGE_PFNMAP
	.huge_fault	= uio_vma_huge_fault,
#endif
	.access		= uio_vma_access,
};

/*
 * A populated PHYS or IOVA mapping that is cut in parts (partial munmap(),
 * mprotect() or mremap()) drops its page tables first, and the parts
 * refault block by block through uio_vma_fault(). On x86 with PAT,
 * remap_pfn_range() reserved the memory type of the whole mapping
 * (VM_PAT), a reservation that can be released only whole or from its
 * end: unmapping the head of a cut mapping would fail to release it, and
 * what remains would stay reserved for good. The zap releases it while
 * the mapping still covers it.
 */
static int uio_pfn_vma_may_split(struct vm_area_struct *vma,
				 unsigned long addr)
{
	zap_vma_ptes(vma, vma->vm_start, vma->vm_end - vma->vm_start);
	return 0;
}

static const struct vm_operations_struct uio_pfn_populated_vm_ops = {
	.fault		= uio_vma_fault,
	.access		= uio_vma_access,
	.may_split	= uio_pfn_vma_may_split,
};

/**
 * uio_mmap_pfn() - set up a PHYS or IOVA mapping
 * @idev:	the device
 * @mem:	the map, held through the description
 * @vma:	the new mapping, with its caching in vm_page_prot
 *
 * A mapping that huge entries can back in part gets its pages from
 * faults: uio_vma_huge_fault() for whole aligned blocks, uio_vma_fault()
 * for the rest. Any other is mapped whole here, at the cost of one memory
 * type reservation and one page-table walk; filling it block by block
 * from faults takes a memory type lookup and a walk per page, several
 * times what the mapping costs mainline's remap at mmap() time. Its mm
 * is listed first, so that unregister waits until the VMA is linked
 * where the zap finds it.
 *
 * A PHYS map of RAM (6.1's uio_dmem_genirq gives its DMA buffers so) is
 * left to faults too: RAM keeps its own memory type whatever a mapping
 * asks for, and the reservation of a whole uncached mapping of it would
 * log a warning on every mmap() (x86 PAT).
 *
 * Context: ->mmap, mmap_lock held for writing, the description held.
 * Return: 0 or a negative errno.
 */
static int uio_mmap_pfn(struct uio_device *idev, const struct uio_mem *mem,
			struct vm_area_struct *vma)
{
	phys_addr_t phys = mem->addr & PAGE_MASK;
	int ret;

	vm_flags_set(vma, VM_IO | VM_PFNMAP);
	if (uio_vma_huge_ok(vma, phys) ||
	    (mem->memtype == UIO_MEM_PHYS && pfn_valid(PHYS_PFN(phys)) &&
	     page_is_ram(PHYS_PFN(phys)))) {
		vma->vm_ops = &uio_pfn_vm_ops;
		return 0;
	}

	ret = uio_populated_mm_add(idev, vma->vm_mm);
	if (ret)
		return ret;
	vma->vm_ops = &uio_pfn_populated_vm_ops;
	return remap_pfn_range(vma, vma->vm_start, PHYS_PFN(phys),
			       vma->vm_end - vma->vm_start, vma->vm_page_prot);
}

/*
 * dma_mmap_coherent() reads vm_pgoff as an offset into the buffer, where
 * the core keeps the map index; it sees 0 for the duration of the call.
 */
int uio_mmap_dma_coherent(struct uio_device *idev,
			  const struct uio_mem *mem,
			  struct vm_area_struct *vma)
{
	unsigned long map = vma->vm_pgoff;
	int ret;

	/* An unaligned addr is how uio_dmem_genirq marks "not allocated". */
	if (mem->addr & ~PAGE_MASK)
		return -ENODEV;
	ret = uio_populated_mm_add(idev, vma->vm_mm);
	if (ret)
		return ret;

	vma->vm_pgoff = 0;
	ret = dma_mmap_coherent(mem->dma_device, vma,
				(void *)(uintptr_t)mem->addr, mem->dma_addr,
				mem->size);
	vma->vm_pgoff = map;
	return ret;
}

/* The map vm_pgoff names, if it exists and the VMA fits in it. */
static const struct uio_mem *uio_vma_mem(const struct uio_info *info,
					 struct vm_area_struct *vma)
{
	const struct uio_mem *mem;

	if (vma->vm_pgoff >= MAX_UIO_MAPS)
		return NULL;
	mem = &info->mem[vma->vm_pgoff];
	if (!mem->size || vma_pages(vma) > uio_mem_pages(mem))
		return NULL;
	return mem;
}

static int uio_mmap_mem(struct uio_device *idev, const struct uio_info *info,
			const struct uio_mem *mem, struct vm_area_struct *vma)
{
	int ret;

	/*
	 * A private copy of device memory makes no sense; COW of PFNs is a BUG.
	 * VM_MAYSHARE, not VM_SHARED: mmap() clears VM_SHARED for a MAP_SHARED
	 * mapping of a read-only file, which is still shared.
	 */
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;

	vma->vm_private_data = &idev->vma_maps[vma->vm_pgoff];
	switch (mem->memtype) {
	case UIO_MEM_PHYS:
		if (idev->wc_size[vma->vm_pgoff])
			vma->vm_page_prot =
				pgprot_writecombine(vma->vm_page_prot);
		else
			vma->vm_page_prot =
				pgprot_noncached(vma->vm_page_prot);
		fallthrough;
	case UIO_MEM_IOVA:
		if (!uio_mem_phys_present(mem))
			return -ENODEV;
		ret = uio_mmap_pfn(idev, mem, vma);
		if (ret)
			return ret;
		break;
	case UIO_MEM_LOGICAL:
	case UIO_MEM_VIRTUAL:
		vma->vm_ops = &uio_page_vm_ops;
		break;
	case UIO_MEM_DMA_COHERENT:
		ret = uio_mmap_dma_coherent(idev, mem, vma);
		if (ret)
			return ret;
		vma->vm_ops = &uio_page_vm_ops;
		break;
	default:
		return -EINVAL;
	}
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	return 0;
}

int uio_mmap(struct file *filep, struct vm_area_struct *vma)
{
	struct uio_listener *listener = filep->private_data;
	struct uio_device *idev = listener->idev;
	const struct uio_mem *mem;
	struct uio_info *info;
	int ret;

	/*
	 * uio_vma_huge_fault() takes the description under a VMA's read
	 * lock, and setting a VMA's flags write-locks it. Lock the new VMA
	 * before taking the description: the flag updates below, in
	 * remap_pfn_range() and in a stub's hook then find it locked and
	 * take nothing. No one can hold a VMA that is not yet linked, but
	 * lockdep has one class for all VMA locks.
	 */
	vma_start_write(vma);
	info = uio_get_info(idev);
	if (!info)
		return -EIO;
	/* Stub hooks written for mainline rely on these checks being done. */
	mem = uio_vma_mem(info, vma);
	if (vma->vm_pgoff >= UIO_DMA_PGOFF) {
		ret = uio_dma_mmap(idev, info, vma);
	} else if (!mem) {
		ret = -EINVAL;
	} else if (info->mmap) {
		vma->vm_private_data = idev;
		ret = info->mmap(info, vma);
	} else {
		ret = uio_mmap_mem(idev, info, mem, vma);
	}
	uio_put_info(idev);
	return ret;
}

/*
 * Write-combining maps. On x86 a PFN entry does not get the caching of
 * vm_page_prot but that of the PAT memory type registered for its
 * physical address (uncached-minus if none is), looked up on every
 * insertion; so the core registers write-combining for the whole region
 * while the device is registered. If the range is already registered
 * with another type, the memory type code lets that one stand (both
 * sides would otherwise see different caching of the same memory), or
 * fails; either way the region is mapped as the registered type says.
 */
void uio_wc_reserve(struct uio_device *idev,
		    const struct uio_info *info)
{
	const struct uio_mem *mem;
	resource_size_t size;
	phys_addr_t addr;
	unsigned int i;

	for (i = 0; i < MAX_UIO_MAPS; i++) {
		mem = &info->mem[i];
		if (!mem->size || !(mem->flags & UIO_MEM_FLAG_WC) ||
		    !uio_mem_phys_present(mem))
			continue;
		addr = mem->addr & PAGE_MASK;
		size = (resource_size_t)uio_mem_pages(mem) << PAGE_SHIFT;
		if (arch_io_reserve_memtype_wc(addr, size)) {
			dev_warn(&idev->dev, "map%u: memory type conflict, not write-combining\n",
				 i);
			continue;
		}
		idev->wc_addr[i] = addr;
		idev->wc_size[i] = size;
	}
}

/* Context: every mapping zapped, no fault can map the regions again. */
void uio_wc_release(struct uio_device *idev)
{
	unsigned int i;

	for (i = 0; i < MAX_UIO_MAPS; i++) {
		if (!idev->wc_size[i])
			continue;
		arch_io_free_memtype_wc(idev->wc_addr[i], idev->wc_size[i]);
		idev->wc_size[i] = 0;
	}
}
