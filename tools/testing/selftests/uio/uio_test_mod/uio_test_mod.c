// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test-only UIO stub for the selftests, in the spirit of bpf_testmod.
 *
 * It registers three UIO devices below the platform device "uio_test":
 *
 * "uio_test"        UIO_IRQ_CUSTOM, events on demand, irqcontrol recorded,
 *                   map0 LOGICAL (page allocator via kmalloc), map1 VIRTUAL
 *                   (vmalloc_user), map2 DMA_COHERENT (dma_alloc_coherent
 *                   for the platform device); open/release calls counted.
 *                   Keeps the inode its open() hook got last and unmaps
 *                   through it on demand, as TCMU does when it reclaims
 *                   data-area pages.
 * "uio_test_noirq"  UIO_IRQ_NONE, no irqcontrol, and its own mmap hook
 *                   mapping one page; mmap hook calls counted. Two port
 *                   regions, of types UIO_PORT_NONE and UIO_PORT_X86, that
 *                   nothing accesses: they exist for their sysfs entries.
 * "uio_test_nested" a nested-thread interrupt the module demultiplexes
 *                   itself, as an I2C GPIO expander's driver would: a
 *                   dummy-chip irq whose handlers run from whoever calls
 *                   handle_nested_irq(), here a sysfs write. No
 *                   irqcontrol, unless nested_irqcontrol asks for one
 *                   that counts the calls finding the interrupt without
 *                   a handler (the core must free the line only once no
 *                   irqcontrol() can run any more).
 * "uio_test_subpage" two 128-byte PHYS maps in address space nothing
 *                   decodes (a window the module claims above 64 GiB):
 *                   map0 "alone" in a page of its own, map1 "shared" in a
 *                   page with another region. Each is offered for mmap()
 *                   only if devm_uio_reserve_page() keeps the rest of its
 *                   page free, as uio_pci_generic and uio_cif do.
 *
 * The platform device's sysfs attributes drive it (see the attribute
 * list at the end): fire events, unregister and register "uio_test" again
 * while user space holds files and mappings, read the counters.
 */
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/interrupt.h>
#include <linux/ioport.h>
#include <linux/irq.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/platform_device.h>
#include <linux/poison.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uio_driver.h>
#include <linux/vmalloc.h>

/* Above KMALLOC_MAX_CACHE_SIZE: whole pages, never slab objects. */
#define UIO_TEST_LOGICAL_SIZE	(4 * PAGE_SIZE)
#define UIO_TEST_VIRTUAL_SIZE	(3 * PAGE_SIZE)
#define UIO_TEST_DMA_SIZE	(2 * PAGE_SIZE)
#define UIO_TEST_LOGICAL_SEED	0x5a
#define UIO_TEST_VIRTUAL_SEED	0xa5
#define UIO_TEST_DMA_SEED	0x3c
#define UIO_TEST_HOOK_MAGIC	0x686f6f6bU	/* "hook" */
/* Above the test guest's RAM and devices: address space nobody decodes. */
#define UIO_TEST_WINDOW_MIN	(64ULL << 30)

/**
 * struct uio_test - the module's state
 * @pdev:		parent of the UIO devices, and the device @dma is for
 * @lock:		serialises register/unregister of @info and @nested
 * @info:		the "uio_test" device
 * @noirq:		the "uio_test_noirq" device
 * @nested:		the "uio_test_nested" device
 * @subpage:		the "uio_test_subpage" device
 * @window:		address space claimed for @subpage's regions
 * @region:		@subpage's map0, map1 and map1's page neighbour
 * @logical:		backing of @info map0
 * @virtual:		backing of @info map1
 * @dma:		backing of @info map2
 * @dma_handle:		DMA address of @dma
 * @hook_page:		backing of @noirq map0
 * @nested_irq:		the nested-thread interrupt of @nested
 * @nested_pending:	interrupts raised on @nested_irq and not yet claimed
 * @registered:		whether @info is registered
 * @nested_registered:	whether @nested is registered
 * @open_calls:		@info open() calls
 * @release_calls:	@info release() calls
 * @mmap_calls:		@noirq mmap() hook calls
 * @irqcontrol_calls:	@info irqcontrol() calls
 * @irqcontrol_last:	the last value given to irqcontrol()
 * @nested_irqcontrol_calls:	@nested irqcontrol() calls
 * @nested_irqcontrol_freed:	of those, calls after the core freed the irq
 * @open_error:		errno the open() hook returns, 0 to succeed
 * @inode_lock:		protects @open_inode
 * @open_inode:		the inode the last @info open() got, referenced
 */
struct uio_test {
	struct platform_device	*pdev;
	struct mutex		lock;	/* serialises (un)registering */
	struct uio_info		info;
	struct uio_info		noirq;
	struct uio_info		nested;
	struct uio_info		subpage;
	struct resource		window;
	struct resource		region[3];
	void			*logical;
	void			*virtual;
	void			*dma;
	dma_addr_t		dma_handle;
	void			*hook_page;
	int			nested_irq;
	atomic_t		nested_pending;
	bool			registered;
	bool			nested_registered;
	atomic_t		open_calls;
	atomic_t		release_calls;
	atomic_t		mmap_calls;
	atomic_t		irqcontrol_calls;
	atomic_t		irqcontrol_last;
	atomic_t		nested_irqcontrol_calls;
	atomic_t		nested_irqcontrol_freed;
	atomic_t		open_error;
	spinlock_t		inode_lock;	/* protects open_inode */
	struct inode		*open_inode;
};

static struct uio_test *uio_test;

/* Keep @inode (may be NULL) as the last one open() got; drop the old one. */
static void uio_test_set_open_inode(struct inode *inode)
{
	struct inode *old;

	if (inode)
		ihold(inode);
	spin_lock(&uio_test->inode_lock);
	old = uio_test->open_inode;
	uio_test->open_inode = inode;
	spin_unlock(&uio_test->inode_lock);
	iput(old);
}

/* The inode open() got last, referenced, or NULL; iput() it when done. */
static struct inode *uio_test_get_open_inode(void)
{
	struct inode *inode;

	spin_lock(&uio_test->inode_lock);
	inode = uio_test->open_inode;
	if (inode)
		ihold(inode);
	spin_unlock(&uio_test->inode_lock);
	return inode;
}

static int uio_test_open(struct uio_info *info, struct inode *inode)
{
	int err = atomic_read(&uio_test->open_error);

	atomic_inc(&uio_test->open_calls);
	if (err)
		return -err;
	uio_test_set_open_inode(inode);
	return 0;
}

static int uio_test_release(struct uio_info *info, struct inode *inode)
{
	atomic_inc(&uio_test->release_calls);
	return 0;
}

static int uio_test_irqcontrol(struct uio_info *info, s32 irq_on)
{
	atomic_set(&uio_test->irqcontrol_last, irq_on);
	atomic_inc(&uio_test->irqcontrol_calls);
	return 0;
}

/*
 * Relies on the core as stubs written for mainline do: the core has
 * checked that vm_pgoff names a map and that the VMA fits in it, and has
 * set vm_private_data to the UIO device. -EBADE if it has not.
 */
static int uio_test_mmap_hook(struct uio_info *info, struct vm_area_struct *vma)
{
	atomic_inc(&uio_test->mmap_calls);
	if (vma->vm_private_data != info->uio_dev)
		return -EBADE;
	return remap_pfn_range(vma, vma->vm_start,
			       page_to_pfn(virt_to_page(uio_test->hook_page)),
			       PAGE_SIZE,
			       vma->vm_page_prot);
}

/* Claims only the interrupts fire_nested raised: the line might be shared. */
static irqreturn_t uio_test_nested_handler(int irq, struct uio_info *info)
{
	if (!atomic_add_unless(&uio_test->nested_pending, -1, 0))
		return IRQ_NONE;
	return IRQ_HANDLED;
}

/*
 * A real stub unmasks its line here: called after free_irq(), that would
 * let a shared line scream with nobody to claim it.
 */
static int uio_test_nested_irqcontrol(struct uio_info *info, s32 irq_on)
{
	atomic_inc(&uio_test->nested_irqcontrol_calls);
	if (!irq_has_action(info->irq))
		atomic_inc(&uio_test->nested_irqcontrol_freed);
	return 0;
}

static void uio_test_fill(u8 *buf, size_t size, u8 seed)
{
	size_t i;

	for (i = 0; i < size; i++)
		buf[i] = seed ^ (u8)i ^ (u8)(i >> 8);
}

static void uio_test_setup_info(struct uio_test *t)
{
	struct uio_info *info = &t->info;

	info->name = "uio_test";
	info->version = "1.0";
	info->irq = UIO_IRQ_CUSTOM;
	info->open = uio_test_open;
	info->release = uio_test_release;
	info->irqcontrol = uio_test_irqcontrol;
	info->mem[0].name = "logical";
	info->mem[0].addr = (uintptr_t)t->logical;
	info->mem[0].size = UIO_TEST_LOGICAL_SIZE;
	info->mem[0].memtype = UIO_MEM_LOGICAL;
	info->mem[1].name = "virtual";
	info->mem[1].addr = (uintptr_t)t->virtual;
	info->mem[1].size = UIO_TEST_VIRTUAL_SIZE;
	info->mem[1].memtype = UIO_MEM_VIRTUAL;
	info->mem[2].name = "dma";
	info->mem[2].addr = (uintptr_t)t->dma;
	info->mem[2].dma_addr = t->dma_handle;
	info->mem[2].dma_device = &t->pdev->dev;
	info->mem[2].size = UIO_TEST_DMA_SIZE;
	info->mem[2].memtype = UIO_MEM_DMA_COHERENT;

	info = &t->noirq;
	info->name = "uio_test_noirq";
	info->version = "1.0";
	info->irq = UIO_IRQ_NONE;
	info->mmap = uio_test_mmap_hook;
	info->mem[0].name = "hook";
	info->mem[0].addr = (uintptr_t)t->hook_page;
	info->mem[0].size = PAGE_SIZE;
	info->mem[0].memtype = UIO_MEM_LOGICAL;
	info->port[0].name = "port_none";
	info->port[0].start = 0x100;
	info->port[0].size = 8;
	info->port[0].porttype = UIO_PORT_NONE;
	info->port[1].name = "port_x86";
	info->port[1].start = 0x200;
	info->port[1].size = 8;
	info->port[1].porttype = UIO_PORT_X86;

	info = &t->nested;
	info->name = "uio_test_nested";
	info->version = "1.0";
	info->irq = t->nested_irq;
	info->handler = uio_test_nested_handler;
}

/*
 * Claims two pages of address space nobody decodes and three 128-byte
 * regions in them: one alone in the first page, two sharing the second.
 * The reservations live in a devres group of the platform device, which
 * has no driver to release them.
 */
static int uio_test_setup_subpage(struct uio_test *t)
{
	static const char * const names[] = { "alone", "shared", "neighbour" };
	struct device *dev = &t->pdev->dev;
	struct uio_info *info = &t->subpage;
	int i, ret;

	t->window.name = "uio_test subpage window";
	t->window.flags = IORESOURCE_MEM;
	ret = allocate_resource(&iomem_resource, &t->window, 2 * PAGE_SIZE,
				UIO_TEST_WINDOW_MIN, iomem_resource.end,
				PAGE_SIZE, NULL, NULL);
	if (ret)
		return ret;
	for (i = 0; i < ARRAY_SIZE(t->region); i++) {
		t->region[i].name = names[i];
		t->region[i].start = t->window.start +
				     (i ? PAGE_SIZE + (i - 1) * 128 : 0);
		t->region[i].end = t->region[i].start + 127;
		t->region[i].flags = IORESOURCE_MEM;
		ret = request_resource(&t->window, &t->region[i]);
		if (ret)
			goto out_release;
	}

	info->name = "uio_test_subpage";
	info->version = "1.0";
	info->irq = UIO_IRQ_NONE;
	if (!devres_open_group(dev, info, GFP_KERNEL)) {
		ret = -ENOMEM;
		goto out_release;
	}
	for (i = 0; i < 2; i++) {
		info->mem[i].name = names[i];
		info->mem[i].addr = t->region[i].start & PAGE_MASK;
		info->mem[i].offs = t->region[i].start & ~PAGE_MASK;
		info->mem[i].size = info->mem[i].offs + 128;
		info->mem[i].memtype = UIO_MEM_PHYS;
		if (devm_uio_reserve_page(dev, &t->region[i])) {
			dev_notice(dev, "%s shares its page with other resources, not mappable\n",
				   names[i]);
			info->mem[i].memtype = UIO_MEM_NONE;
		}
	}
	devres_close_group(dev, info);
	return 0;

out_release:
	while (--i >= 0)
		release_resource(&t->region[i]);
	release_resource(&t->window);
	return ret;
}

static void uio_test_free_subpage(struct uio_test *t)
{
	int i;

	devres_release_group(&t->pdev->dev, &t->subpage);
	for (i = 0; i < ARRAY_SIZE(t->region); i++)
		release_resource(&t->region[i]);
	release_resource(&t->window);
}

static ssize_t fire_store(struct device *dev, struct device_attribute *attr,
			  const char *buf, size_t count)
{
	unsigned int n;
	int ret;

	ret = kstrtouint(buf, 0, &n);
	if (ret)
		return ret;
	/* Also after unregister: the core must ignore those. */
	while (n--)
		uio_event_notify(&uio_test->info);
	return count;
}
static DEVICE_ATTR_WO(fire);

/*
 * Raise the nested-thread interrupt n times, each time the way a sleeping
 * demultiplexer does: its own thread finds the source and calls the
 * handlers directly. "spurious" calls them with nothing raised.
 */
static ssize_t uio_test_nested_raise(const char *buf, size_t count, bool raise)
{
	unsigned int n;
	int ret;

	ret = kstrtouint(buf, 0, &n);
	if (ret)
		return ret;
	while (n--) {
		if (raise)
			atomic_inc(&uio_test->nested_pending);
		handle_nested_irq(uio_test->nested_irq);
	}
	return count;
}

static ssize_t fire_nested_store(struct device *dev,
				 struct device_attribute *attr,
				 const char *buf, size_t count)
{
	return uio_test_nested_raise(buf, count, true);
}
static DEVICE_ATTR_WO(fire_nested);

static ssize_t nested_spurious_store(struct device *dev,
				     struct device_attribute *attr,
				     const char *buf, size_t count)
{
	return uio_test_nested_raise(buf, count, false);
}
static DEVICE_ATTR_WO(nested_spurious);

static ssize_t nested_irq_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", uio_test->nested_irq);
}
static DEVICE_ATTR_RO(nested_irq);

/*
 * "1" takes the event source of "uio_test" away at run time, the way
 * uio_hv_generic marks a rescinded channel: info->irq becomes
 * UIO_IRQ_NONE. "0" gives it back.
 */
static ssize_t irq_none_store(struct device *dev,
			      struct device_attribute *attr,
			      const char *buf, size_t count)
{
	bool none;
	int ret;

	ret = kstrtobool(buf, &none);
	if (ret)
		return ret;
	WRITE_ONCE(uio_test->info.irq, none ? UIO_IRQ_NONE : UIO_IRQ_CUSTOM);
	return count;
}
static DEVICE_ATTR_WO(irq_none);

/*
 * "1" adds map3 to "uio_test" at run time as Linux 6.1's uio_dmem_genirq
 * gives a DMA region it has not allocated: UIO_MEM_PHYS at addr ~0.
 * "0" takes it away again. Not in sysfs: maps are listed at registration.
 */
static ssize_t dmem_marker_store(struct device *dev,
				 struct device_attribute *attr,
				 const char *buf, size_t count)
{
	struct uio_mem *mem = &uio_test->info.mem[3];
	bool on;
	int ret;

	ret = kstrtobool(buf, &on);
	if (ret)
		return ret;
	mem->memtype = UIO_MEM_PHYS;
	mem->addr = ~(phys_addr_t)0;
	WRITE_ONCE(mem->size, on ? PAGE_SIZE : 0);
	return count;
}
static DEVICE_ATTR_WO(dmem_marker);

static ssize_t registered_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", uio_test->registered);
}

/* "0" unregisters (repeatable: the core must cope), "1" registers again. */
static ssize_t uio_test_set_registered(struct uio_info *info, bool *registered,
				       const char *buf, size_t count)
{
	bool on;
	int ret;

	ret = kstrtobool(buf, &on);
	if (ret)
		return ret;

	mutex_lock(&uio_test->lock);
	if (on && !*registered) {
		ret = uio_register_device(&uio_test->pdev->dev, info);
		*registered = !ret;
	} else if (!on) {
		uio_unregister_device(info);
		*registered = false;
	}
	mutex_unlock(&uio_test->lock);
	return ret ? ret : count;
}

static ssize_t registered_store(struct device *dev,
				struct device_attribute *attr,
				const char *buf, size_t count)
{
	return uio_test_set_registered(&uio_test->info, &uio_test->registered,
				       buf, count);
}
static DEVICE_ATTR_RW(registered);

static ssize_t nested_registered_show(struct device *dev,
				      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", uio_test->nested_registered);
}

static ssize_t nested_registered_store(struct device *dev,
				       struct device_attribute *attr,
				       const char *buf, size_t count)
{
	return uio_test_set_registered(&uio_test->nested,
				       &uio_test->nested_registered, buf, count);
}
static DEVICE_ATTR_RW(nested_registered);

/* "1" gives "uio_test_nested" an irqcontrol hook; only while unregistered. */
static ssize_t nested_irqcontrol_store(struct device *dev,
				       struct device_attribute *attr,
				       const char *buf, size_t count)
{
	bool on;
	int ret;

	ret = kstrtobool(buf, &on);
	if (ret)
		return ret;

	mutex_lock(&uio_test->lock);
	if (uio_test->nested_registered)
		ret = -EBUSY;
	else
		uio_test->nested.irqcontrol = on ? uio_test_nested_irqcontrol :
						   NULL;
	mutex_unlock(&uio_test->lock);
	return ret ? ret : count;
}
static DEVICE_ATTR_WO(nested_irqcontrol);

/* A read-only attribute showing one of struct uio_test's atomic counters. */
struct uio_test_counter_attribute {
	struct device_attribute	attr;
	size_t			offset;
};

static ssize_t uio_test_counter_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	struct uio_test_counter_attribute *ca =
		container_of(attr, struct uio_test_counter_attribute, attr);
	atomic_t *counter = (void *)uio_test + ca->offset;

	return sysfs_emit(buf, "%d\n", atomic_read(counter));
}

#define UIO_TEST_COUNTER_ATTR(_name)					\
static struct uio_test_counter_attribute dev_attr_##_name = {		\
	.attr	= {							\
		.attr	= { .name = __stringify(_name), .mode = 0444 },	\
		.show	= uio_test_counter_show,			\
	},								\
	.offset	= offsetof(struct uio_test, _name),			\
}

UIO_TEST_COUNTER_ATTR(open_calls);
UIO_TEST_COUNTER_ATTR(release_calls);
UIO_TEST_COUNTER_ATTR(mmap_calls);
UIO_TEST_COUNTER_ATTR(irqcontrol_calls);
UIO_TEST_COUNTER_ATTR(irqcontrol_last);
UIO_TEST_COUNTER_ATTR(nested_irqcontrol_calls);
UIO_TEST_COUNTER_ATTR(nested_irqcontrol_freed);

static ssize_t open_error_store(struct device *dev,
				struct device_attribute *attr,
				const char *buf, size_t count)
{
	unsigned int err;
	int ret;

	ret = kstrtouint(buf, 0, &err);
	if (ret)
		return ret;
	if (err > MAX_ERRNO)
		return -EINVAL;
	atomic_set(&uio_test->open_error, err);
	return count;
}
static DEVICE_ATTR_WO(open_error);

/*
 * The device number of the inode open() got last, "major:minor" as in
 * the class device's "dev", or "none".
 */
static ssize_t open_inode_dev_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	struct inode *inode = uio_test_get_open_inode();
	ssize_t ret;

	if (!inode)
		return sysfs_emit(buf, "none\n");
	ret = sysfs_emit(buf, "%u:%u\n", imajor(inode), iminor(inode));
	iput(inode);
	return ret;
}
static DEVICE_ATTR_RO(open_inode_dev);

/*
 * Any write unmaps every page of the address space of the inode open()
 * got last, as TCMU's find_free_blocks() does before it frees data-area
 * pages: the next access of a user mapping must fault again.
 */
static ssize_t unmap_open_inode_store(struct device *dev,
				      struct device_attribute *attr,
				      const char *buf, size_t count)
{
	struct inode *inode = uio_test_get_open_inode();

	if (!inode)
		return -ENOENT;
	unmap_mapping_range(inode->i_mapping, 0, 0, 1);
	iput(inode);
	return count;
}
static DEVICE_ATTR_WO(unmap_open_inode);

/* What the mappings must show: first u32 of each backing buffer. */
static ssize_t backing_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "0x%08x 0x%08x 0x%08x 0x%08x\n",
			  *(u32 *)uio_test->logical, *(u32 *)uio_test->virtual,
			  *(u32 *)uio_test->hook_page, *(u32 *)uio_test->dma);
}
static DEVICE_ATTR_RO(backing);

/* Registration errors, one errno per deliberately bad uio_info. */
static ssize_t bad_register_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	struct uio_info bad = { .name = "bad", .version = "1" };
	int no_parent, no_name, no_handler, bad_irq, no_dma_device;
	int not_connected, wc_logical, unknown_flag;

	no_parent = uio_register_device(NULL, &bad);
	bad.name = NULL;
	no_name = uio_register_device(dev, &bad);
	bad.name = "bad";
	bad.irq = 1;
	no_handler = uio_register_device(dev, &bad);
	bad.irq = -2;
	bad_irq = uio_register_device(dev, &bad);
	bad.irq = UIO_IRQ_NONE;
	bad.mem[0].size = PAGE_SIZE;
	bad.mem[0].memtype = UIO_MEM_DMA_COHERENT;
	no_dma_device = uio_register_device(dev, &bad);
	/* Write-combining is for PHYS maps; other flags do not exist. */
	bad.mem[0].memtype = UIO_MEM_LOGICAL;
	bad.mem[0].flags = UIO_MEM_FLAG_WC;
	wc_logical = uio_register_device(dev, &bad);
	bad.mem[0].memtype = UIO_MEM_PHYS;
	bad.mem[0].flags = UIO_MEM_FLAG_WC << 1;
	unknown_flag = uio_register_device(dev, &bad);
	bad.mem[0].flags = 0;
	/* What uio_pci_generic must not pass on: the core does not bind it. */
	bad.mem[0].size = 0;
	bad.irq = IRQ_NOTCONNECTED;
	bad.handler = uio_test_nested_handler;
	not_connected = uio_register_device(dev, &bad);
	return sysfs_emit(buf, "%d %d %d %d %d %d %d %d\n", no_parent, no_name,
			  no_handler, bad_irq, no_dma_device, not_connected,
			  wc_logical, unknown_flag);
}
static DEVICE_ATTR_RO(bad_register);

/*
 * A failed registration of a description whose uio_dev holds garbage (as
 * in memory the stub did not zero), then an unregister of it, as a stub's
 * unwinding does: the unregister must do nothing. Shows the registration
 * error.
 */
static ssize_t stale_unregister_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	struct uio_info *bad;
	int ret;

	bad = kmalloc(sizeof(*bad), GFP_KERNEL);
	if (!bad)
		return -ENOMEM;
	memset(bad, POISON_INUSE, sizeof(*bad));
	bad->name = "stale";
	bad->version = "1";
	ret = uio_register_device(NULL, bad);
	uio_unregister_device(bad);
	kfree(bad);
	return sysfs_emit(buf, "%d\n", ret);
}
static DEVICE_ATTR_RO(stale_unregister);

static struct attribute *uio_test_attrs[] = {
	&dev_attr_fire.attr,
	&dev_attr_fire_nested.attr,
	&dev_attr_nested_spurious.attr,
	&dev_attr_nested_irq.attr,
	&dev_attr_registered.attr,
	&dev_attr_open_calls.attr.attr,
	&dev_attr_release_calls.attr.attr,
	&dev_attr_mmap_calls.attr.attr,
	&dev_attr_irqcontrol_calls.attr.attr,
	&dev_attr_irqcontrol_last.attr.attr,
	&dev_attr_nested_registered.attr,
	&dev_attr_nested_irqcontrol.attr,
	&dev_attr_nested_irqcontrol_calls.attr.attr,
	&dev_attr_nested_irqcontrol_freed.attr.attr,
	&dev_attr_open_error.attr,
	&dev_attr_backing.attr,
	&dev_attr_bad_register.attr,
	&dev_attr_stale_unregister.attr,
	&dev_attr_irq_none.attr,
	&dev_attr_dmem_marker.attr,
	&dev_attr_open_inode_dev.attr,
	&dev_attr_unmap_open_inode.attr,
	NULL,
};

static const struct attribute_group uio_test_group = {
	.attrs = uio_test_attrs,
};

static void uio_test_free(struct uio_test *t)
{
	free_page((unsigned long)t->hook_page);
	vfree(t->virtual);
	kfree(t->logical);
	kfree(t);
}

/*
 * An interrupt with no hardware behind it, delivered like one behind an I2C
 * GPIO expander: nested-thread, so request_irq() alone cannot take it.
 */
static int uio_test_nested_irq_alloc(void)
{
	/*
	 * No owner module (irq_alloc_desc() would make it this one): the
	 * request the UIO core makes would then pin this module, and only
	 * its exit gives the request back.
	 */
	int irq = __irq_alloc_descs(-1, 0, 1, NUMA_NO_NODE, NULL, NULL);

	if (irq < 0)
		return irq;
	irq_set_chip_and_handler(irq, &dummy_irq_chip, handle_simple_irq);
	irq_set_nested_thread(irq, true);
	/* Requestable but never probed, as an irq domain would set it up. */
	irq_modify_status(irq, IRQ_NOREQUEST, IRQ_NOPROBE);
	return irq;
}

static int __init uio_test_init(void)
{
	struct uio_test *t;
	int ret;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	mutex_init(&t->lock);
	spin_lock_init(&t->inode_lock);
	t->logical = kmalloc(UIO_TEST_LOGICAL_SIZE, GFP_KERNEL);
	t->virtual = vmalloc_user(UIO_TEST_VIRTUAL_SIZE);
	t->hook_page = (void *)get_zeroed_page(GFP_KERNEL);
	if (!t->logical || !t->virtual || !t->hook_page) {
		ret = -ENOMEM;
		goto out_free;
	}
	uio_test_fill(t->logical, UIO_TEST_LOGICAL_SIZE, UIO_TEST_LOGICAL_SEED);
	uio_test_fill(t->virtual, UIO_TEST_VIRTUAL_SIZE, UIO_TEST_VIRTUAL_SEED);
	*(u32 *)t->hook_page = UIO_TEST_HOOK_MAGIC;
	uio_test = t;

	t->pdev = platform_device_register_simple("uio_test", PLATFORM_DEVID_NONE,
						  NULL, 0);
	if (IS_ERR(t->pdev)) {
		ret = PTR_ERR(t->pdev);
		goto out_free;
	}
	/* Platform devices come with a 32-bit DMA mask. */
	t->dma = dma_alloc_coherent(&t->pdev->dev, UIO_TEST_DMA_SIZE,
				    &t->dma_handle, GFP_KERNEL);
	if (!t->dma) {
		ret = -ENOMEM;
		goto out_unregister_pdev;
	}
	uio_test_fill(t->dma, UIO_TEST_DMA_SIZE, UIO_TEST_DMA_SEED);
	ret = uio_test_nested_irq_alloc();
	if (ret < 0)
		goto out_free_dma;
	t->nested_irq = ret;
	uio_test_setup_info(t);

	ret = sysfs_create_group(&t->pdev->dev.kobj, &uio_test_group);
	if (ret)
		goto out_free_irq;
	ret = uio_register_device(&t->pdev->dev, &t->info);
	if (ret)
		goto out_remove_group;
	t->registered = true;
	ret = uio_register_device(&t->pdev->dev, &t->noirq);
	if (ret)
		goto out_unregister_info;
	ret = uio_register_device(&t->pdev->dev, &t->nested);
	if (ret)
		goto out_unregister_noirq;
	t->nested_registered = true;
	ret = uio_test_setup_subpage(t);
	if (ret)
		goto out_unregister_nested;
	ret = uio_register_device(&t->pdev->dev, &t->subpage);
	if (ret)
		goto out_free_subpage;
	return 0;

out_free_subpage:
	uio_test_free_subpage(t);
out_unregister_nested:
	uio_unregister_device(&t->nested);
out_unregister_noirq:
	uio_unregister_device(&t->noirq);
out_unregister_info:
	uio_unregister_device(&t->info);
out_remove_group:
	sysfs_remove_group(&t->pdev->dev.kobj, &uio_test_group);
out_free_irq:
	irq_free_desc(t->nested_irq);
out_free_dma:
	dma_free_coherent(&t->pdev->dev, UIO_TEST_DMA_SIZE, t->dma,
			  t->dma_handle);
out_unregister_pdev:
	platform_device_unregister(t->pdev);
out_free:
	uio_test_free(t);
	return ret;
}

static void __exit uio_test_exit(void)
{
	struct uio_test *t = uio_test;

	uio_unregister_device(&t->subpage);
	uio_test_free_subpage(t);
	uio_unregister_device(&t->nested);
	uio_unregister_device(&t->noirq);
	uio_unregister_device(&t->info);
	sysfs_remove_group(&t->pdev->dev.kobj, &uio_test_group);
	uio_test_set_open_inode(NULL);
	irq_free_desc(t->nested_irq);
	dma_free_coherent(&t->pdev->dev, UIO_TEST_DMA_SIZE, t->dma,
			  t->dma_handle);
	platform_device_unregister(t->pdev);
	uio_test_free(t);
}

module_init(uio_test_init);
module_exit(uio_test_exit);
MODULE_DESCRIPTION("Test stub for the UIO selftests");
MODULE_LICENSE("GPL");
