// SPDX-License-Identifier: GPL-2.0-only
/*
 * Userspace I/O core: the DMA buffer pool of a stub that names a
 * dma_pool_dev, with its module parameters, its "dma" directory in sysfs,
 * the allocation charged to the opener's RLIMIT_MEMLOCK, and the mmap() of
 * its buffers.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/iommu.h>
#include <linux/kobject.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uio_driver.h>

#include "uio_internal.h"

/*
 * The DMA buffer pool of a stub that names a dma_pool_dev: root sets the
 * number and size of its buffers in dma/ while the device is closed; the
 * first open() allocates them on that device with dma_alloc_coherent(),
 * charged to the opener's RLIMIT_MEMLOCK, and the last close(), or the
 * unregister, frees them after the stub's dma_stop() has made sure the
 * device no longer writes to them. Each buffer is mapped at an mmap()
 * offset of its own, far above the maps' "N * page size".
 */
static bool dma_unsafe_noiommu;
module_param(dma_unsafe_noiommu, bool, 0644);
MODULE_PARM_DESC(dma_unsafe_noiommu,
		 "Allow DMA buffers for devices whose DMA no IOMMU translates; taints the kernel (default: N)");

static unsigned int dma_max_pool_kib = 16384;
module_param(dma_max_pool_kib, uint, 0644);
MODULE_PARM_DESC(dma_max_pool_kib,
		 "Most memory the DMA buffers of one device may take, in KiB (default: 16384)");

#define UIO_DMA_MAX_BUFS	16

enum uio_dma_buf_field {
	UIO_DMA_BUF_SIZE,
	UIO_DMA_BUF_ADDR,
	UIO_DMA_BUF_OFFSET,
	UIO_DMA_BUF_FIELDS
};

/**
 * struct uio_dma_buf - one buffer of the pool and its sysfs directory
 * @cpu:	kernel address from dma_alloc_coherent(), %NULL if not allocated
 * @handle:	its bus address
 * @kattrs:	the size, dma_addr and offset attributes
 * @attrs:	NULL-terminated list of @kattrs
 * @group:	the "bufK" directory
 * @name:	its name
 */
struct uio_dma_buf {
	void			*cpu;
	dma_addr_t		handle;
	struct kobj_attribute	kattrs[UIO_DMA_BUF_FIELDS];
	struct attribute	*attrs[UIO_DMA_BUF_FIELDS + 1];
	struct attribute_group	group;
	char			name[8];
};

/**
 * struct uio_dma_pool - the DMA buffers of a device
 * @kobj:	the "dma" sysfs directory
 * @cfg_lock:	serializes configuration writes and the bufK directories
 *		they add and remove; never taken by a show function
 * @lock:	protects the fields below
 * @count:	number of buffers configured
 * @size:	size of each, a multiple of the page size
 * @users:	open files of the device
 * @dirs:	bufK directories present in sysfs
 * @charge:	what the allocated buffers are charged to; nothing if none is
 * @vma_map:	vm_private_data of the buffers' mappings
 * @bufs:	the buffers
 */
struct uio_dma_pool {
	struct kobject		*kobj;
	struct mutex		cfg_lock;	/* serializes configuration */
	struct mutex		lock;		/* protects the fields below */
	unsigned int		count;
	size_t			size;
	unsigned int		users;
	unsigned int		dirs;
	struct uio_dma_charge	charge;
	struct uio_vma_map	vma_map;
	struct uio_dma_buf	bufs[UIO_DMA_MAX_BUFS];
};

static struct uio_device *uio_dma_idev(struct kobject *dir)
{
	return dev_get_drvdata(kobj_to_dev(dir->parent));
}

/* Does an IOMMU translate the device's DMA (not identity-mapped)? */
static bool uio_dma_translated(struct device *dev)
{
	struct iommu_domain *domain = iommu_get_domain_for_dev(dev);

	return domain && (domain->type & __IOMMU_DOMAIN_PAGING);
}

/*
 * Buffers only behind an IOMMU, unless the administrator allows them
 * without one. Checked when they are configured and again when they are
 * allocated, as the parameter may have changed in between.
 */
static int uio_dma_iommu_check(struct uio_device *idev, struct device *dev)
{
	if (uio_dma_translated(dev) || READ_ONCE(dma_unsafe_noiommu))
		return 0;
	dev_info(&idev->dev, "DMA buffers refused: no IOMMU translates the device's DMA (uio.dma_unsafe_noiommu=1 allows them)\n");
	return -EPERM;
}

static bool uio_dma_allocated(const struct uio_dma_pool *pool)
{
	return pool->count && pool->bufs[0].cpu;
}

static ssize_t uio_dma_buf_show(struct kobject *kobj,
				struct kobj_attribute *kattr, char *buf,
				enum uio_dma_buf_field field)
{
	struct uio_dma_pool *pool = uio_dma_idev(kobj)->dma_pool;
	struct uio_dma_buf *b = container_of(kattr - field, struct uio_dma_buf,
					     kattrs[0]);
	unsigned long index = b - pool->bufs;
	ssize_t ret;

	mutex_lock(&pool->lock);
	switch (field) {
	case UIO_DMA_BUF_SIZE:
		ret = sysfs_emit(buf, "0x%zx\n", pool->size);
		break;
	case UIO_DMA_BUF_ADDR:
		ret = b->cpu ? sysfs_emit(buf, "%pad\n", &b->handle) : -ENODATA;
		break;
	default:
		ret = sysfs_emit(buf, "0x%lx\n",
				 (UIO_DMA_PGOFF + index * (pool->size >> PAGE_SHIFT))
				 << PAGE_SHIFT);
	}
	mutex_unlock(&pool->lock);
	return ret;
}

static ssize_t uio_dma_buf_size_show(struct kobject *kobj,
				     struct kobj_attribute *kattr, char *buf)
{
	return uio_dma_buf_show(kobj, kattr, buf, UIO_DMA_BUF_SIZE);
}

static ssize_t uio_dma_buf_addr_show(struct kobject *kobj,
				     struct kobj_attribute *kattr, char *buf)
{
	return uio_dma_buf_show(kobj, kattr, buf, UIO_DMA_BUF_ADDR);
}

static ssize_t uio_dma_buf_offset_show(struct kobject *kobj,
				       struct kobj_attribute *kattr, char *buf)
{
	return uio_dma_buf_show(kobj, kattr, buf, UIO_DMA_BUF_OFFSET);
}

/* Copied into every buffer, indexed by enum uio_dma_buf_field. */
static const struct kobj_attribute uio_dma_buf_kattrs[UIO_DMA_BUF_FIELDS] = {
	__ATTR(size, 0444, uio_dma_buf_size_show, NULL),
	__ATTR(dma_addr, 0444, uio_dma_buf_addr_show, NULL),
	__ATTR(offset, 0444, uio_dma_buf_offset_show, NULL),
};

static void uio_dma_buf_init(struct uio_dma_buf *b, unsigned int index)
{
	unsigned int f;

	for (f = 0; f < UIO_DMA_BUF_FIELDS; f++) {
		b->kattrs[f] = uio_dma_buf_kattrs[f];
		sysfs_attr_init(&b->kattrs[f].attr);
		b->attrs[f] = &b->kattrs[f].attr;
	}
	snprintf(b->name, sizeof(b->name), "buf%u", index);
	b->group.name = b->name;
	b->group.attrs = b->attrs;
}

/* Make the bufK directories match the count. Context: cfg_lock held. */
static int uio_dma_update_dirs(struct uio_dma_pool *pool, unsigned int count)
{
	int ret;

	while (pool->dirs > count)
		sysfs_remove_group(pool->kobj, &pool->bufs[--pool->dirs].group);
	while (pool->dirs < count) {
		ret = sysfs_create_group(pool->kobj,
					 &pool->bufs[pool->dirs].group);
		if (ret)
			return ret;
		pool->dirs++;
	}
	return 0;
}

/*
 * The rules of a configuration, checked in this order: nobody has the
 * device open (EBUSY); at most UIO_DMA_MAX_BUFS buffers of at least one
 * page (EINVAL); within dma_max_pool_kib (ENOSPC); an IOMMU translates the
 * device's DMA or dma_unsafe_noiommu is set (EPERM).
 * Context: the pool's lock held.
 */
static int uio_dma_check(struct uio_device *idev, unsigned int count,
			 size_t size)
{
	struct uio_dma_pool *pool = idev->dma_pool;

	if (pool->users)
		return -EBUSY;
	if (count > UIO_DMA_MAX_BUFS || !size)
		return -EINVAL;
	if (count && size > ((u64)dma_max_pool_kib << 10) / count) {
		dev_info(&idev->dev, "DMA buffers: %u of %zu bytes exceed dma_max_pool_kib=%u\n",
			 count, size, dma_max_pool_kib);
		return -ENOSPC;
	}
	return count ? uio_dma_iommu_check(idev, idev->info->dma_pool_dev) : 0;
}

static int uio_dma_configure(struct kobject *kobj, int count, size_t size)
{
	struct uio_device *idev = uio_dma_idev(kobj);
	struct uio_dma_pool *pool = idev->dma_pool;
	int ret;

	mutex_lock(&pool->cfg_lock);
	mutex_lock(&pool->lock);
	if (count < 0)
		count = pool->count;
	if (!size)
		size = pool->size;
	ret = uio_dma_check(idev, count, size);
	if (!ret) {
		pool->count = count;
		pool->size = size;
	}
	mutex_unlock(&pool->lock);
	if (!ret)
		ret = uio_dma_update_dirs(pool, count);
	mutex_unlock(&pool->cfg_lock);
	return ret;
}

static ssize_t count_show(struct kobject *kobj, struct kobj_attribute *kattr,
			  char *buf)
{
	struct uio_dma_pool *pool = uio_dma_idev(kobj)->dma_pool;

	return sysfs_emit(buf, "%u\n", READ_ONCE(pool->count));
}

/* A new count or size; the other one stays. */
static ssize_t uio_dma_store(struct kobject *kobj, const char *buf,
			     size_t len, bool is_count)
{
	unsigned long val;
	int ret;

	ret = kstrtoul(buf, 0, &val);
	if (ret)
		return ret;
	if (is_count ? val > UIO_DMA_MAX_BUFS : !val || val > SZ_1G)
		return -EINVAL;
	if (is_count)
		ret = uio_dma_configure(kobj, val, 0);
	else
		ret = uio_dma_configure(kobj, -1, PAGE_ALIGN(val));
	return ret ? ret : len;
}

static ssize_t count_store(struct kobject *kobj, struct kobj_attribute *kattr,
			   const char *buf, size_t len)
{
	return uio_dma_store(kobj, buf, len, true);
}

static ssize_t size_show(struct kobject *kobj, struct kobj_attribute *kattr,
			 char *buf)
{
	struct uio_dma_pool *pool = uio_dma_idev(kobj)->dma_pool;

	return sysfs_emit(buf, "0x%zx\n", READ_ONCE(pool->size));
}

static ssize_t size_store(struct kobject *kobj, struct kobj_attribute *kattr,
			  const char *buf, size_t len)
{
	return uio_dma_store(kobj, buf, len, false);
}

static ssize_t dma_mask_show(struct kobject *kobj,
			     struct kobj_attribute *kattr, char *buf)
{
	struct device *dev = uio_dma_idev(kobj)->info->dma_pool_dev;

	return sysfs_emit(buf, "%d\n", fls64(dev->coherent_dma_mask));
}

static ssize_t dma_mask_store(struct kobject *kobj,
			      struct kobj_attribute *kattr, const char *buf,
			      size_t len)
{
	struct uio_device *idev = uio_dma_idev(kobj);
	struct uio_dma_pool *pool = idev->dma_pool;
	unsigned int bits;
	int ret;

	ret = kstrtouint(buf, 0, &bits);
	if (ret)
		return ret;
	if (bits < 24 || bits > 64)
		return -EINVAL;
	mutex_lock(&pool->lock);
	if (pool->users)
		ret = -EBUSY;
	else
		ret = dma_set_mask_and_coherent(idev->info->dma_pool_dev,
						DMA_BIT_MASK(bits));
	mutex_unlock(&pool->lock);
	return ret ? ret : len;
}

/* "translated", "identity" (an IOMMU that passes DMA through) or "none". */
static ssize_t iommu_show(struct kobject *kobj, struct kobj_attribute *kattr,
			  char *buf)
{
	struct device *dev = uio_dma_idev(kobj)->info->dma_pool_dev;

	if (uio_dma_translated(dev))
		return sysfs_emit(buf, "translated\n");
	if (iommu_get_domain_for_dev(dev))
		return sysfs_emit(buf, "identity\n");
	return sysfs_emit(buf, "none\n");
}

static struct kobj_attribute uio_dma_count_attr = __ATTR_RW(count);
static struct kobj_attribute uio_dma_size_attr = __ATTR_RW(size);
static struct kobj_attribute uio_dma_mask_attr = __ATTR_RW(dma_mask);
static struct kobj_attribute uio_dma_iommu_attr = __ATTR_RO(iommu);

static struct attribute *uio_dma_attrs[] = {
	&uio_dma_count_attr.attr,
	&uio_dma_size_attr.attr,
	&uio_dma_mask_attr.attr,
	&uio_dma_iommu_attr.attr,
	NULL
};

static const struct attribute_group uio_dma_group = {
	.attrs	= uio_dma_attrs,
};

struct uio_dma_pool *uio_dma_pool_alloc(struct uio_device *idev)
{
	struct uio_dma_pool *pool;
	unsigned int i;

	pool = kzalloc(sizeof(*pool), GFP_KERNEL);
	if (!pool)
		return NULL;
	mutex_init(&pool->cfg_lock);
	mutex_init(&pool->lock);
	pool->size = PAGE_SIZE;
	pool->vma_map.idev = idev;
	for (i = 0; i < UIO_DMA_MAX_BUFS; i++)
		uio_dma_buf_init(&pool->bufs[i], i);
	return pool;
}

int uio_dma_sysfs_add(struct uio_device *idev)
{
	struct uio_dma_pool *pool = idev->dma_pool;
	int ret;

	if (!pool)
		return 0;
	pool->kobj = kobject_create_and_add("dma", &idev->dev.kobj);
	if (!pool->kobj)
		return -ENOMEM;
	ret = sysfs_create_group(pool->kobj, &uio_dma_group);
	if (ret) {
		kobject_put(pool->kobj);
		pool->kobj = NULL;
	}
	return ret;
}

void uio_dma_sysfs_del(struct uio_device *idev)
{
	if (idev->dma_pool)
		kobject_put(idev->dma_pool->kobj);
}

/* Context: the pool's lock held; its buffers allocated. */
static void uio_dma_free(struct uio_info *info, struct uio_dma_pool *pool,
			 struct uio_dma_charge *charge)
{
	unsigned int i;

	/* The device must not write to memory that goes back to the kernel. */
	info->dma_stop(info);
	for (i = 0; i < pool->count && pool->bufs[i].cpu; i++) {
		dma_free_coherent(info->dma_pool_dev, pool->size,
				  pool->bufs[i].cpu, pool->bufs[i].handle);
		pool->bufs[i].cpu = NULL;
	}
	*charge = pool->charge;
	pool->charge = (struct uio_dma_charge){};
}

/* Context: neither the description nor the pool's lock held. */
void uio_dma_uncharge(struct uio_dma_charge *charge)
{
	if (!charge->mm)
		return;
	account_locked_vm(charge->mm, charge->pages, false);
	mmdrop(charge->mm);
	charge->mm = NULL;
}

/**
 * uio_dma_charge() - charge the opener for the buffers a first open allocates
 * @idev:	the device being opened
 * @charge:	set to what was charged, for uio_dma_get()
 *
 * Charges nothing when the buffers are in use or none are configured. The
 * pool may change before uio_dma_get() looks again; it then says so.
 *
 * Context: neither the description nor the pool's lock held.
 * Return: 0, or -ENOMEM if RLIMIT_MEMLOCK does not allow the buffers.
 */
int uio_dma_charge(struct uio_device *idev,
		   struct uio_dma_charge *charge)
{
	struct uio_dma_pool *pool = idev->dma_pool;
	struct mm_struct *mm = current->mm;
	unsigned long pages = 0;
	int ret;

	*charge = (struct uio_dma_charge){};
	if (!pool)
		return 0;
	mutex_lock(&pool->lock);
	if (!pool->users)
		pages = pool->count * (pool->size >> PAGE_SHIFT);
	mutex_unlock(&pool->lock);
	if (!pages || !mm)
		return 0;
	ret = account_locked_vm(mm, pages, true);
	if (ret) {
		dev_info(&idev->dev, "DMA buffers: %lu KiB exceed the RLIMIT_MEMLOCK of %s[%d]\n",
			 pages << (PAGE_SHIFT - 10), current->comm,
			 task_pid_nr(current));
		return ret;
	}
	mmgrab(mm);
	charge->mm = mm;
	charge->pages = pages;
	return 0;
}

/*
 * Context: the pool's lock held, the description held, no buffers.
 * Return: 0, with the charge moved into the pool; -EAGAIN if it does not
 * match the pool (reconfigured since); or an error.
 */
static int uio_dma_alloc(struct uio_device *idev, struct uio_info *info,
			 struct uio_dma_charge *charge)
{
	struct uio_dma_pool *pool = idev->dma_pool;
	unsigned long pages = pool->count * (pool->size >> PAGE_SHIFT);
	struct device *dev = info->dma_pool_dev;
	bool translated = uio_dma_translated(dev);
	unsigned int i;
	int ret;

	ret = uio_dma_iommu_check(idev, dev);
	if (ret)
		return ret;
	if (current->mm && charge->pages != pages)
		return -EAGAIN;
	pool->charge = *charge;
	*charge = (struct uio_dma_charge){};
	for (i = 0; i < pool->count; i++) {
		pool->bufs[i].cpu = dma_alloc_coherent(dev, pool->size,
						       &pool->bufs[i].handle,
						       GFP_KERNEL);
		if (!pool->bufs[i].cpu) {
			ret = -ENOMEM;
			goto out_free;
		}
	}
	if (!translated) {
		dev_warn(&idev->dev, "DMA buffers for a device no IOMMU translates: tainting the kernel\n");
		add_taint(TAINT_USER, LOCKDEP_STILL_OK);
	}
	return 0;

out_free:
	while (i--) {
		dma_free_coherent(dev, pool->size, pool->bufs[i].cpu,
				  pool->bufs[i].handle);
		pool->bufs[i].cpu = NULL;
	}
	*charge = pool->charge;
	pool->charge = (struct uio_dma_charge){};
	return ret;
}

/*
 * First open: allocate the configured buffers for the opener, who was
 * charged for them by uio_dma_charge(). What the pool does not take stays
 * in @charge.
 * Context: the description held.
 */
int uio_dma_get(struct uio_device *idev, struct uio_info *info,
		struct uio_dma_charge *charge)
{
	struct uio_dma_pool *pool = idev->dma_pool;
	int ret = 0;

	if (!pool)
		return 0;
	mutex_lock(&pool->lock);
	if (!pool->users && pool->count)
		ret = uio_dma_alloc(idev, info, charge);
	if (!ret)
		pool->users++;
	mutex_unlock(&pool->lock);
	return ret;
}

/*
 * Stop the device's DMA and free the buffers: at the last close (@closing;
 * @info is %NULL once the device is gone, and unregister has freed them
 * then), or at unregister after the zap, when no mapping of them is left.
 * The pool's charge moves to @charge, for uio_dma_uncharge().
 */
void uio_dma_put(struct uio_device *idev, struct uio_info *info,
		 bool closing, struct uio_dma_charge *charge)
{
	struct uio_dma_pool *pool = idev->dma_pool;

	*charge = (struct uio_dma_charge){};
	if (!pool)
		return;
	mutex_lock(&pool->lock);
	if (closing)
		pool->users--;
	if ((!closing || !pool->users) && info && uio_dma_allocated(pool))
		uio_dma_free(info, pool, charge);
	mutex_unlock(&pool->lock);
}

/* A buffer's pages are all mapped by mmap(); only the zap leaves holes. */
static vm_fault_t uio_dma_buf_fault(struct vm_fault *vmf)
{
	return VM_FAULT_SIGBUS;
}

static const struct vm_operations_struct uio_dma_buf_vm_ops = {
	.fault		= uio_dma_buf_fault,
};

/*
 * mmap() of buffer K of the pool, at its offset. Neither the buffers nor
 * the configuration change while a file is open and the description is
 * held, so no lock is needed (and the pool's would order after mmap_lock
 * here but before it in the charge).
 */
int uio_dma_mmap(struct uio_device *idev, struct uio_info *info,
		 struct vm_area_struct *vma)
{
	struct uio_dma_pool *pool = idev->dma_pool;
	unsigned long pages, index;
	struct uio_mem mem = {
		.memtype	= UIO_MEM_DMA_COHERENT,
		.dma_device	= info->dma_pool_dev,
	};
	int ret;

	if (!pool || !uio_dma_allocated(pool) ||
	    !(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	pages = pool->size >> PAGE_SHIFT;
	index = (vma->vm_pgoff - UIO_DMA_PGOFF) / pages;
	if ((vma->vm_pgoff - UIO_DMA_PGOFF) % pages || index >= pool->count ||
	    vma_pages(vma) > pages)
		return -EINVAL;

	mem.addr = (uintptr_t)pool->bufs[index].cpu;
	mem.dma_addr = pool->bufs[index].handle;
	mem.size = pool->size;
	ret = uio_mmap_dma_coherent(idev, &mem, vma);
	if (ret)
		return ret;
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_ops = &uio_dma_buf_vm_ops;
	vma->vm_private_data = &pool->vma_map;
	return 0;
}
