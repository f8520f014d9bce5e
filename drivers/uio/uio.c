// SPDX-License-Identifier: GPL-2.0-only
/*
 * Userspace I/O core.
 *
 * A stub driver describes its device in a struct uio_info and registers it;
 * the core then offers the device to user space as /dev/uioN: read() and
 * poll() wait for interrupts, write() re-enables them, mmap() maps the
 * device's memory. Everything else happens in the user-space driver.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cdev.h>
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/idr.h>
#include <linux/io.h>
#include <linux/iommu.h>
#include <linux/ioport.h>
#include <linux/kobject.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/pagemap.h>
#include <linux/pfn_t.h>
#include <linux/poll.h>
#include <linux/pseudo_fs.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uio_driver.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/wait_bit.h>

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
 * struct uio_listener - the state of one open file
 * @idev:	the device; kept alive by the open cdev
 * @event_seen:	the event count this file last returned from read()
 */
struct uio_listener {
	struct uio_device	*idev;
	s32			event_seen;
};

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
static struct uio_info *uio_get_info(struct uio_device *idev)
{
	down_read(&idev->info_sem);
	if (idev->info)
		return idev->info;
	up_read(&idev->info_sem);
	return NULL;
}

/* Ends an operation begun with uio_get_info(). */
static void uio_put_info(struct uio_device *idev)
{
	up_read(&idev->info_sem);
}

/*
 * Lockless peek for read()'s wait loop, which must not sleep on the lock
 * between setting its task state and schedule().
 */
static bool uio_is_gone(struct uio_device *idev)
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
 * maps/mapN and portio/portN: a directory kobject for "maps" and one for
 * "portio", and below each one named attribute group per used region. The
 * groups are built at registration; each attribute knows its region index
 * and field, so one show function per kind serves all of them.
 */
enum uio_region_field {
	UIO_FIELD_NAME,
	UIO_FIELD_ADDR,		/* addr of a map, start of a port region */
	UIO_FIELD_SIZE,
	UIO_FIELD_EXTRA,	/* offset of a map, porttype of a port region */
	UIO_FIELD_COUNT
};

#define UIO_MAX_REGIONS	MAX_UIO_MAPS
static_assert(MAX_UIO_PORT_REGIONS <= UIO_MAX_REGIONS);

struct uio_region_attribute {
	struct kobj_attribute	kattr;
	unsigned int		index;
	enum uio_region_field	field;
};

#define to_region_attr(_kattr) \
	container_of(_kattr, struct uio_region_attribute, kattr)

/**
 * struct uio_region_dir - one of the "maps" and "portio" directories
 * @kobj:	the directory
 * @groups:	one group per region slot, named "mapN" or "portN"
 * @attrs:	NULL-terminated attribute list of each group
 * @rattrs:	the attributes themselves
 * @names:	the groups' names
 */
struct uio_region_dir {
	struct kobject			*kobj;
	struct attribute_group		groups[UIO_MAX_REGIONS];
	struct attribute		*attrs[UIO_MAX_REGIONS][UIO_FIELD_COUNT + 1];
	struct uio_region_attribute	rattrs[UIO_MAX_REGIONS][UIO_FIELD_COUNT];
	char				names[UIO_MAX_REGIONS][8];
};

/**
 * struct uio_region_kind - what differs between maps and port regions
 * @dir_name:	directory below the device
 * @prefix:	group name prefix
 * @fields:	attribute names, indexed by enum uio_region_field
 * @show:	show function of all attributes of this kind
 * @is_visible:	optional per-attribute mode
 */
struct uio_region_kind {
	const char	*dir_name;
	const char	*prefix;
	const char	*fields[UIO_FIELD_COUNT];
	ssize_t (*show)(struct kobject *kobj, struct kobj_attribute *kattr,
			char *buf);
	umode_t (*is_visible)(struct kobject *kobj, struct attribute *attr,
			      int n);
};

/* The region directories are children of the device's kobject. */
static struct uio_info *uio_region_info(struct kobject *dir)
{
	struct uio_device *idev = dev_get_drvdata(kobj_to_dev(dir->parent));

	/* Attributes are removed before the description is dropped. */
	return idev->info;
}

static ssize_t uio_map_show(struct kobject *kobj, struct kobj_attribute *kattr,
			    char *buf)
{
	struct uio_region_attribute *ra = to_region_attr(kattr);
	const struct uio_mem *mem = &uio_region_info(kobj)->mem[ra->index];

	switch (ra->field) {
	case UIO_FIELD_NAME:
		return sysfs_emit(buf, "%s\n", mem->name ?: "");
	case UIO_FIELD_ADDR:
		return sysfs_emit(buf, "%pa\n", &mem->addr);
	case UIO_FIELD_SIZE:
		return sysfs_emit(buf, "%pa\n", &mem->size);
	default:
		return sysfs_emit(buf, "0x%lx\n", mem->offs);
	}
}

static const char * const uio_porttype_names[] = {
	[UIO_PORT_NONE]		= "port_none",
	[UIO_PORT_X86]		= "port_x86",
	[UIO_PORT_GPIO]		= "port_gpio",
	[UIO_PORT_OTHER]	= "port_other",
};

static ssize_t uio_port_show(struct kobject *kobj, struct kobj_attribute *kattr,
			     char *buf)
{
	struct uio_region_attribute *ra = to_region_attr(kattr);
	const struct uio_port *port = &uio_region_info(kobj)->port[ra->index];
	int type = port->porttype;

	switch (ra->field) {
	case UIO_FIELD_NAME:
		return sysfs_emit(buf, "%s\n", port->name ?: "");
	case UIO_FIELD_ADDR:
		return sysfs_emit(buf, "0x%lx\n", port->start);
	case UIO_FIELD_SIZE:
		return sysfs_emit(buf, "0x%lx\n", port->size);
	default:
		if (type < 0 || type >= ARRAY_SIZE(uio_porttype_names))
			type = UIO_PORT_NONE;
		return sysfs_emit(buf, "%s\n", uio_porttype_names[type]);
	}
}

/*
 * A LOGICAL, VIRTUAL or DMA_COHERENT map's address is a kernel virtual
 * address; only root may read it. PHYS addresses are bus facts that lspci
 * shows anyway.
 */
static umode_t uio_map_attr_visible(struct kobject *kobj,
				    struct attribute *attr, int n)
{
	struct uio_region_attribute *ra =
		container_of(attr, struct uio_region_attribute, kattr.attr);
	int memtype = uio_region_info(kobj)->mem[ra->index].memtype;

	if (ra->field == UIO_FIELD_ADDR &&
	    (memtype == UIO_MEM_LOGICAL || memtype == UIO_MEM_VIRTUAL ||
	     memtype == UIO_MEM_DMA_COHERENT))
		return 0400;
	return attr->mode;
}

static const struct uio_region_kind uio_map_kind = {
	.dir_name	= "maps",
	.prefix		= "map",
	.fields		= { "name", "addr", "size", "offset" },
	.show		= uio_map_show,
	.is_visible	= uio_map_attr_visible,
};

static const struct uio_region_kind uio_port_kind = {
	.dir_name	= "portio",
	.prefix		= "port",
	.fields		= { "name", "start", "size", "porttype" },
	.show		= uio_port_show,
};

static void uio_region_group_init(struct uio_region_dir *rd,
				  const struct uio_region_kind *kind,
				  unsigned int index)
{
	struct attribute_group *grp = &rd->groups[index];
	unsigned int f;

	for (f = 0; f < UIO_FIELD_COUNT; f++) {
		struct uio_region_attribute *ra = &rd->rattrs[index][f];

		sysfs_attr_init(&ra->kattr.attr);
		ra->kattr.attr.name = kind->fields[f];
		ra->kattr.attr.mode = 0444;
		ra->kattr.show = kind->show;
		ra->index = index;
		ra->field = f;
		rd->attrs[index][f] = &ra->kattr.attr;
	}
	snprintf(rd->names[index], sizeof(rd->names[index]), "%s%u",
		 kind->prefix, index);
	grp->name = rd->names[index];
	grp->attrs = rd->attrs[index];
	grp->is_visible = kind->is_visible;
}

static void uio_del_regions(struct uio_region_dir *rd)
{
	if (!rd)
		return;
	/* Deleting the directory removes its groups too. */
	kobject_put(rd->kobj);
	kfree(rd);
}

/**
 * uio_add_regions() - create one region directory and its used entries
 * @idev:	the device, already added to sysfs
 * @kind:	maps or port regions
 * @used:	which slots are in use
 * @count:	number of slots
 *
 * Context: process context, may sleep.
 * Return: the directory, %NULL if no slot is used, or an ERR_PTR().
 */
static struct uio_region_dir *
uio_add_regions(struct uio_device *idev, const struct uio_region_kind *kind,
		const bool *used, unsigned int count)
{
	struct uio_region_dir *rd = NULL;
	unsigned int i;
	int ret;

	for (i = 0; i < count; i++) {
		if (!used[i])
			continue;
		if (!rd) {
			rd = kzalloc(sizeof(*rd), GFP_KERNEL);
			if (!rd)
				return ERR_PTR(-ENOMEM);
			rd->kobj = kobject_create_and_add(kind->dir_name,
							  &idev->dev.kobj);
			if (!rd->kobj) {
				kfree(rd);
				return ERR_PTR(-ENOMEM);
			}
		}
		uio_region_group_init(rd, kind, i);
		ret = sysfs_create_group(rd->kobj, &rd->groups[i]);
		if (ret) {
			uio_del_regions(rd);
			return ERR_PTR(ret);
		}
	}
	return rd;
}

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
/* Page offset of buffer 0; buffer K follows at K times the buffer size. */
#define UIO_DMA_PGOFF		0x100000UL

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
 * @mm:		the mm charged for the allocated buffers, %NULL if none is
 * @charged:	pages charged to @mm
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
	struct mm_struct	*mm;
	unsigned long		charged;
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
	if (count && !uio_dma_translated(idev->info->dma_pool_dev) &&
	    !READ_ONCE(dma_unsafe_noiommu)) {
		dev_info(&idev->dev, "DMA buffers refused: no IOMMU translates the device's DMA (uio.dma_unsafe_noiommu=1 allows them)\n");
		return -EPERM;
	}
	return 0;
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

static struct uio_dma_pool *uio_dma_pool_alloc(struct uio_device *idev)
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

static int uio_dma_sysfs_add(struct uio_device *idev)
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

static void uio_dma_sysfs_del(struct uio_device *idev)
{
	if (idev->dma_pool)
		kobject_put(idev->dma_pool->kobj);
}

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
	charge->mm = pool->mm;
	charge->pages = pool->charged;
	pool->mm = NULL;
	pool->charged = 0;
}

/* Context: neither the description nor the pool's lock held. */
static void uio_dma_uncharge(struct uio_dma_charge *charge)
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
static int uio_dma_charge(struct uio_device *idev,
			  struct uio_dma_charge *charge)
{
	struct uio_dma_pool *pool = idev->dma_pool;
	struct mm_struct *mm = current->mm;
	unsigned long pages = 0;
	int ret;

	charge->mm = NULL;
	charge->pages = 0;
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

	if (!translated && !READ_ONCE(dma_unsafe_noiommu)) {
		dev_info(&idev->dev, "DMA buffers refused: no IOMMU translates the device's DMA (uio.dma_unsafe_noiommu=1 allows them)\n");
		return -EPERM;
	}
	if (current->mm && charge->pages != pages)
		return -EAGAIN;
	pool->mm = charge->mm;
	pool->charged = charge->pages;
	charge->mm = NULL;
	charge->pages = 0;
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
	charge->mm = pool->mm;
	charge->pages = pool->charged;
	pool->mm = NULL;
	pool->charged = 0;
	return ret;
}

/*
 * First open: allocate the configured buffers for the opener, who was
 * charged for them by uio_dma_charge(). What the pool does not take stays
 * in @charge.
 * Context: the description held.
 */
static int uio_dma_get(struct uio_device *idev, struct uio_info *info,
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
static void uio_dma_put(struct uio_device *idev, struct uio_info *info,
			bool closing, struct uio_dma_charge *charge)
{
	struct uio_dma_pool *pool = idev->dma_pool;

	charge->mm = NULL;
	charge->pages = 0;
	if (!pool)
		return;
	mutex_lock(&pool->lock);
	if (closing)
		pool->users--;
	if ((!closing || !pool->users) && info && uio_dma_allocated(pool))
		uio_dma_free(info, pool, charge);
	mutex_unlock(&pool->lock);
}

static int uio_sysfs_add(struct uio_device *idev)
{
	const struct uio_info *info = idev->info;
	bool used_maps[MAX_UIO_MAPS], used_ports[MAX_UIO_PORT_REGIONS];
	struct uio_region_dir *rd;
	unsigned int i;
	int ret;

	for (i = 0; i < MAX_UIO_MAPS; i++)
		used_maps[i] = info->mem[i].size != 0;
	for (i = 0; i < MAX_UIO_PORT_REGIONS; i++)
		used_ports[i] = info->port[i].size != 0;

	rd = uio_add_regions(idev, &uio_map_kind, used_maps, MAX_UIO_MAPS);
	if (IS_ERR(rd))
		return PTR_ERR(rd);
	idev->maps_dir = rd;

	rd = uio_add_regions(idev, &uio_port_kind, used_ports,
			     MAX_UIO_PORT_REGIONS);
	if (IS_ERR(rd)) {
		uio_del_regions(idev->maps_dir);
		idev->maps_dir = NULL;
		return PTR_ERR(rd);
	}
	idev->ports_dir = rd;

	ret = uio_dma_sysfs_add(idev);
	if (ret) {
		uio_del_regions(idev->ports_dir);
		uio_del_regions(idev->maps_dir);
		idev->ports_dir = NULL;
		idev->maps_dir = NULL;
	}
	return ret;
}

static void uio_sysfs_del(struct uio_device *idev)
{
	uio_dma_sysfs_del(idev);
	uio_del_regions(idev->ports_dir);
	uio_del_regions(idev->maps_dir);
}

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

/* Can read() ever return? -EIO if the device has no events or is gone. */
static int uio_check_events(struct uio_device *idev)
{
	struct uio_info *info;
	int ret;

	info = uio_get_info(idev);
	if (!info)
		return -EIO;
	ret = uio_has_events(info) ? 0 : -EIO;
	uio_put_info(idev);
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
	unsigned long pages = uio_mem_pages(mem);
	unsigned long block = ALIGN_DOWN(vmf->address, UIO_FAULT_BLOCK);
	unsigned long start, end, addr;
	vm_fault_t ret;

	/* The stub may have withdrawn or shrunk the region since mmap(). */
	if (!uio_mem_phys_present(mem) || index >= pages)
		return VM_FAULT_SIGBUS;
	ret = vmf_insert_pfn(vma, vmf->address, pfn);
	if (ret & VM_FAULT_ERROR)
		return ret;

	start = max(vma->vm_start, block);
	end = min(vma->vm_end, block + UIO_FAULT_BLOCK);
	/* The map's end, should the mapping reach further. */
	end = min(end, vmf->address + ((pages - index) << PAGE_SHIFT));
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
 * populated. What mmap() maps itself is covered by uio_populated_mm_sync().
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
 * per such block instead of 512 (262144) PTEs, so touching a 64 MiB BAR
 * takes 32 faults rather than 16384. uio_get_unmapped_area() picks a user
 * address with the region's alignment; uio_vma_huge_fault() inserts the
 * entries and leaves every block it cannot cover whole to the 4 KiB path.
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

/**
 * uio_vma_huge_fault() - map one PMD- or PUD-sized block of a PFN map
 * @vmf:	the fault
 * @order:	size of the entry the core asks for
 *
 * Maps the naturally aligned block around the fault address with a single
 * entry if the block lies wholly inside the mapping and its physical
 * address is aligned as well; otherwise the core falls back to the next
 * smaller size and finally to uio_vma_fault(). Like that handler it works
 * under the description, so unregister either zaps the entry or makes
 * this fail.
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
	struct uio_info *info;
	unsigned long pfn;
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
	pfn = PHYS_PFN(info->mem[vm->index].addr) +
	      uio_vma_map_page(vm, linear_page_index(vma, start));
	entry = __pfn_to_pfn_t(pfn, PFN_DEV);

	/* A withdrawn region falls back to uio_vma_fault(), which fails. */
	ret = VM_FAULT_FALLBACK;
	if (uio_mem_phys_present(&info->mem[vm->index]) &&
	    IS_ALIGNED(pfn, 1UL << order)) {
		switch (order) {
#ifdef CONFIG_ARCH_SUPPORTS_PMD_PFNMAP
		case PMD_ORDER:
			ret = vmf_insert_pfn_pmd(vmf, entry, write);
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
static unsigned long uio_get_unmapped_area(struct file *filep,
					   unsigned long addr,
					   unsigned long len,
					   unsigned long pgoff,
					   unsigned long flags)
{
	struct uio_listener *listener = filep->private_data;
	struct uio_device *idev = listener->idev;
	unsigned long align = 0, phys = 0, ret;
	const struct uio_mem *mem;
	struct uio_info *info;

	info = uio_get_info(idev);
	if (info && !addr && !(flags & MAP_FIXED) && !info->mmap &&
	    pgoff < MAX_UIO_MAPS) {
		mem = &info->mem[pgoff];
		if (mem->size && (mem->memtype == UIO_MEM_PHYS ||
				  mem->memtype == UIO_MEM_IOVA)) {
			phys = mem->addr & PAGE_MASK;
			align = uio_huge_align(len);
		}
	}
	if (info)
		uio_put_info(idev);

	if (align && len + align > len) {
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
 * Mappings that mmap() fills itself: UIO_MEM_DMA_COHERENT maps, whose
 * backing (linear map, remapped pages, a per-device pool) and attributes
 * only dma_mmap_coherent() knows, and the PHYS and IOVA mappings that
 * huge entries cannot back (uio_mmap_pfn()). Their pages are mapped before
 * mmap_region() links the VMA into the device's address space, so a zap
 * by uio_kill() in between would miss the VMA and leave user space a
 * mapping of memory the device no longer owns.
 *
 * The mmap() call holds its mm's mmap_lock for writing from ->mmap until
 * the VMA is linked, so uio_kill() takes mmap_lock once for every mm on
 * idev->populated_mms before it zaps. An mm is listed by every such
 * mmap(), under the description, and dropped again when one of its VMAs
 * of this kind closes: closing needs the same mmap_lock, so that mm has
 * no mmap() in flight. uio_kill() takes mmap_lock only after it has
 * released info_sem, which mmap() takes inside mmap_lock.
 *
 * Why that suffices: an mmap() that got the description listed its mm
 * before uio_kill() cleared the description, hence before the list is
 * taken; uio_kill() then waits for it to link the VMA, and zaps it. An
 * mmap() that did not get the description maps nothing.
 */

/**
 * struct uio_populated_mm - an mm that may be linking a populated mapping
 * @node:	entry in uio_device.populated_mms
 * @mm:		the mm, pinned with mmgrab()
 */
struct uio_populated_mm {
	struct list_head	node;
	struct mm_struct	*mm;
};

/* Context: idev->populated_mm_lock held. */
static struct uio_populated_mm *uio_populated_mm_find(struct uio_device *idev,
						      struct mm_struct *mm)
{
	struct uio_populated_mm *pm;

	list_for_each_entry(pm, &idev->populated_mms, node)
		if (pm->mm == mm)
			return pm;
	return NULL;
}

/* Context: ->mmap, the description held. */
static int uio_populated_mm_add(struct uio_device *idev, struct mm_struct *mm)
{
	struct uio_populated_mm *new;

	new = kmalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;

	spin_lock(&idev->populated_mm_lock);
	if (!uio_populated_mm_find(idev, mm)) {
		mmgrab(mm);
		new->mm = mm;
		list_add(&new->node, &idev->populated_mms);
		new = NULL;
	}
	spin_unlock(&idev->populated_mm_lock);
	kfree(new);
	return 0;
}

static void uio_populated_vma_close(struct vm_area_struct *vma)
{
	const struct uio_vma_map *vm = vma->vm_private_data;
	struct uio_device *idev = vm->idev;
	struct uio_populated_mm *pm;

	spin_lock(&idev->populated_mm_lock);
	pm = uio_populated_mm_find(idev, vma->vm_mm);
	if (pm)
		list_del(&pm->node);
	spin_unlock(&idev->populated_mm_lock);
	if (pm) {
		mmdrop(pm->mm);
		kfree(pm);
	}
}

/*
 * Wait until every populated mapping made so far is visible to the zap.
 * Context: the description cleared and info_sem released.
 */
static void uio_populated_mm_sync(struct uio_device *idev)
{
	struct uio_populated_mm *pm, *tmp;
	LIST_HEAD(mms);

	spin_lock(&idev->populated_mm_lock);
	list_splice_init(&idev->populated_mms, &mms);
	spin_unlock(&idev->populated_mm_lock);

	list_for_each_entry_safe(pm, tmp, &mms, node) {
		mmap_read_lock(pm->mm);
		mmap_read_unlock(pm->mm);
		mmdrop(pm->mm);
		kfree(pm);
	}
}

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
	.close		= uio_populated_vma_close,
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

static const struct vm_operations_struct uio_dma_vm_ops = {
	.fault		= uio_vma_fault,
	.access		= uio_vma_access,
	.close		= uio_populated_vma_close,
};

/*
 * dma_mmap_coherent() reads vm_pgoff as an offset into the buffer, where
 * the core keeps the map index; it sees 0 for the duration of the call.
 */
static int uio_mmap_dma_coherent(struct uio_device *idev,
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
		vma->vm_ops = &uio_dma_vm_ops;
		break;
	default:
		return -EINVAL;
	}
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	return 0;
}

/* A buffer's pages are all mapped by mmap(); only the zap leaves holes. */
static vm_fault_t uio_dma_buf_fault(struct vm_fault *vmf)
{
	return VM_FAULT_SIGBUS;
}

static const struct vm_operations_struct uio_dma_buf_vm_ops = {
	.fault		= uio_dma_buf_fault,
	.close		= uio_populated_vma_close,
};

/*
 * mmap() of buffer K of the pool, at its offset. Neither the buffers nor
 * the configuration change while a file is open and the description is
 * held, so no lock is needed (and the pool's would order after mmap_lock
 * here but before it in the charge).
 */
static int uio_dma_mmap(struct uio_device *idev, struct uio_info *info,
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

static int uio_mmap(struct file *filep, struct vm_area_struct *vma)
{
	struct uio_listener *listener = filep->private_data;
	struct uio_device *idev = listener->idev;
	const struct uio_mem *mem;
	struct uio_info *info;
	int ret;

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

static const struct file_operations uio_fops = {
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
 * Write-combining maps. On x86 a PFN entry does not get the caching of
 * vm_page_prot but that of the PAT memory type registered for its
 * physical address (uncached-minus if none is), looked up on every
 * insertion; so the core registers write-combining for the whole region
 * while the device is registered. If the range is already registered
 * with another type, the memory type code lets that one stand (both
 * sides would otherwise see different caching of the same memory), or
 * fails; either way the region is mapped as the registered type says.
 */
static void uio_wc_reserve(struct uio_device *idev,
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
static void uio_wc_release(struct uio_device *idev)
{
	unsigned int i;

	for (i = 0; i < MAX_UIO_MAPS; i++) {
		if (!idev->wc_size[i])
			continue;
		arch_io_free_memtype_wc(idev->wc_addr[i], idev->wc_size[i]);
		idev->wc_size[i] = 0;
	}
}

/*
 * Make the device unusable: "unavailable" (no operation can pin the
 * description any more), then "woken" (blocked readers and pollers see
 * the device gone), then "unmapped" (every mapping is in the address space,
 * and the next touch of any of them faults and gets SIGBUS).
 *
 * The interrupt is freed in the same exclusive section that drops the
 * description: write() holds the description while irqcontrol() runs, so
 * no stub can unmask a line after its handler is gone.
 */
static void uio_kill(struct uio_device *idev, bool irq_requested)
{
	down_write(&idev->info_sem);
	if (irq_requested)
		free_irq(idev->info->irq, idev);
	idev->info = NULL;
	up_write(&idev->info_sem);

	wake_up_interruptible_all(&idev->wait);
	kill_fasync(&idev->async_queue, SIGIO, POLL_HUP);
	uio_populated_mm_sync(idev);
	unmap_mapping_range(idev->inode->i_mapping, 0, 0, 1);
	uio_wc_release(idev);
}

/* Stop late uio_event_notify() calls before idev can be freed. */
static void uio_unpublish(struct uio_info *info)
{
	WRITE_ONCE(info->uio_dev, NULL);
	synchronize_rcu();
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
			goto out_unpublish;
	}
	return 0;

out_unpublish:
	uio_unpublish(info);
	uio_sysfs_del(idev);
out_del:
	cdev_device_del(&idev->cdev, &idev->dev);
out_kill:
	uio_kill(idev, false);
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
	uio_unpublish(info);
	uio_kill(idev, uio_has_hw_irq(info));
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
