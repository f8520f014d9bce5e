/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Userspace I/O: the interface between a small in-kernel stub driver and
 * the UIO core, which hands the device to a user-space driver through
 * /dev/uioN.
 */
#ifndef _LINUX_UIO_DRIVER_H
#define _LINUX_UIO_DRIVER_H

#include <linux/bits.h>
#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/interrupt.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>

struct uio_dma_pool;
struct uio_info;
struct uio_region_dir;

/**
 * struct uio_mem - a memory region user space may map
 * @name:		short name shown in sysfs, may be %NULL
 * @addr:		physical, logical or vmalloc address of the region,
 *			depending on @memtype; for %UIO_MEM_DMA_COHERENT the
 *			page-aligned CPU address dma_alloc_coherent() returned
 * @dma_addr:		%UIO_MEM_DMA_COHERENT only: the DMA handle of the same
 *			dma_alloc_coherent() call
 * @offs:		offset of the device's first byte within the first
 *			mapped page
 * @size:		size in bytes, counted from @addr; 0 marks an unused slot
 * @memtype:		one of the UIO_MEM_* constants
 * @flags:		%UIO_MEM_FLAG_WC or 0
 * @internal_addr:	ioremap()ed address for the stub's own use; the core
 *			never touches it
 * @dma_device:		%UIO_MEM_DMA_COHERENT only: the device the buffer was
 *			allocated for
 *
 * Map N is selected by mmap() with offset N * PAGE_SIZE.
 *
 * %UIO_MEM_FLAG_WC in @flags maps a %UIO_MEM_PHYS region write-combining
 * instead of uncached: for prefetchable memory such as a frame buffer or
 * a device's on-board RAM, never for registers. On x86 the core reserves
 * the PAT memory type of the region while it is registered; if another
 * user of the same range holds it uncached, the region is mapped so.
 */
struct uio_mem {
	const char		*name;
	phys_addr_t		addr;
	dma_addr_t		dma_addr;
	unsigned long		offs;
	resource_size_t		size;
	int			memtype;
	unsigned int		flags;
	void __iomem		*internal_addr;
	struct device		*dma_device;
};

#define MAX_UIO_MAPS		5

/**
 * struct uio_port - an I/O port range described to user space
 * @name:	short name shown in sysfs, may be %NULL
 * @start:	first port
 * @size:	number of ports; 0 marks an unused slot
 * @porttype:	one of the UIO_PORT_* constants
 *
 * Port ranges are only listed in sysfs; user space accesses them with
 * ioperm()/iopl() or through the GPIO interface.
 */
struct uio_port {
	const char		*name;
	unsigned long		start;
	unsigned long		size;
	int			porttype;
};

#define MAX_UIO_PORT_REGIONS	5

/**
 * struct uio_vma_map - what a mapping the core manages points to
 * @idev:	the device
 * @index:	the map the mapping was made of
 *
 * The map index is the mmap() offset, so a VMA's vm_pgoff starts out as
 * @index; but a VMA split or moved keeps a vm_pgoff consistent with its
 * new start, so only this tells which map a part of it belongs to.
 */
struct uio_vma_map {
	struct uio_device	*idev;
	unsigned int		index;
};

/**
 * struct uio_device - a registered UIO device, owned by the UIO core
 * @minor:	minor number of /dev/uioN; drivers may read it while the
 *		device is registered, and use @dev as the parent of another
 *		UIO device or as a sysfs link target; every other member is
 *		core-private
 * @owner:	module pinned while a file of this device is open
 * @dev:	the class device, parent of the sysfs attributes
 * @cdev:	the character device behind /dev/uioN
 * @inode:	anonymous inode whose address space collects every mapping
 *		of the device through any of its device nodes, so unregister
 *		can zap them all; its i_rdev is the device number. It is the
 *		inode the @open and @release hooks of struct uio_info get
 * @event:	interrupt/event counter; only ever grows
 * @wait:	readers and pollers waiting for @event to change
 * @async_queue: fasync listeners
 * @info_sem:	protects @info; held for read by every file operation that
 *		calls into the stub, for write when unregister clears it
 * @info:	the stub's description; %NULL once the device is gone. read()
 *		and poll() look at it under RCU, without @info_sem
 * @maps_dir:	the "maps" sysfs directory, %NULL if there are no maps
 * @ports_dir:	the "portio" sysfs directory, %NULL if there are no ports
 * @populated_mm_lock: protects @populated_mms
 * @populated_mms: address spaces that made a mapping mmap() fills itself,
 *		kept while their process runs, so unregister can wait for
 *		one in the making to become visible to the zap
 * @vma_maps:	vm_private_data of the mappings of each map, unless the
 *		stub maps them itself
 * @wc_addr:	start of each write-combining map's reserved memory type
 * @wc_size:	its size; 0 if the map is not mapped write-combining
 * @dma_pool:	the DMA buffers and their "dma" sysfs directory, %NULL
 *		unless the stub set @dma_pool_dev of struct uio_info
 */
struct uio_device {
	int			minor;
	struct module		*owner;
	struct device		dev;
	struct cdev		cdev;
	struct inode		*inode;
	atomic_t		event;
	wait_queue_head_t	wait;
	struct fasync_struct	*async_queue;
	struct rw_semaphore	info_sem;
	struct uio_info		*info;
	struct uio_region_dir	*maps_dir;
	struct uio_region_dir	*ports_dir;
	spinlock_t		populated_mm_lock; /* protects populated_mms */
	struct list_head	populated_mms;
	struct uio_vma_map	vma_maps[MAX_UIO_MAPS];
	phys_addr_t		wc_addr[MAX_UIO_MAPS];
	resource_size_t		wc_size[MAX_UIO_MAPS];
	struct uio_dma_pool	*dma_pool;
};

/**
 * struct uio_info - what a stub driver tells the UIO core about its device
 * @uio_dev:	set by the core while the device is registered; cleared
 *		when registration starts, so unregistering after a failed
 *		registration does nothing
 * @name:	device name, shown in sysfs; required
 * @version:	driver version, shown in sysfs; required
 * @mem:	memory regions user space may mmap()
 * @port:	I/O port regions listed in sysfs
 * @irq:	interrupt number, %UIO_IRQ_CUSTOM when the stub reports events
 *		itself with uio_event_notify(), or %UIO_IRQ_NONE. A
 *		%UIO_IRQ_CUSTOM stub whose event source goes away may set it
 *		to %UIO_IRQ_NONE at run time: read() and write() then fail
 *		with -EIO and poll() reports EPOLLERR
 * @irq_flags:	flags for requesting @irq, e.g. %IRQF_SHARED
 * @priv:	free for the stub driver
 * @handler:	interrupt handler: check the device really interrupted,
 *		silence it and return %IRQ_HANDLED, else %IRQ_NONE. Runs in
 *		hard interrupt context, or in the demultiplexing driver's
 *		thread if @irq is a nested-thread interrupt (e.g. of an I2C
 *		GPIO expander); under PREEMPT_RT in the forced irq thread
 * @mmap:	optional; replaces the core's mmap() of the regions. The
 *		core has checked that vm_pgoff names a map of non-zero size
 *		and that the VMA fits in it, and has set vm_private_data to
 *		@uio_dev, which the hook may replace. The core sets no
 *		vm_ops: the hook installs its own (TCMU's fault, open and
 *		close handlers) and they stay; no core handler runs for
 *		this VMA, the core's zap on unregister still reaches it.
 *		vma->vm_file->f_mapping is the device's address space (see
 *		@open); file_inode(vma->vm_file) is the node's inode, which
 *		holds no mappings
 * @open:	optional; called on every open() of any device node of the
 *		device. The inode it gets is the same for every open and
 *		every node (also one made with mknod) while the device is
 *		registered: iminor() and imajor() of it give the device
 *		number, and its i_mapping holds every mapping of the device,
 *		so unmap_mapping_range() on it zaps exactly what user space
 *		has mapped (TCMU does so before freeing pages it handed
 *		out). The stub may keep the pointer until its
 *		uio_unregister_device() call returns
 * @release:	optional; called on the last close of each open file while
 *		the device is still registered, with the inode @open got
 * @irqcontrol:	optional; receives the s32 user space write()s, by
 *		convention 1 to enable and 0 to disable the interrupt
 * @dma_pool_dev: optional; offers user space a pool of coherent DMA
 *		buffers allocated on this device (the PCI function, never
 *		the UIO device), configured in the "dma" sysfs directory
 * @dma_stop:	required with @dma_pool_dev; must stop the device's DMA
 *		(bus mastering off). The core calls it before it frees the
 *		buffers, at the last close and at unregister; may sleep
 */
struct uio_info {
	struct uio_device	*uio_dev;
	const char		*name;
	const char		*version;
	struct uio_mem		mem[MAX_UIO_MAPS];
	struct uio_port		port[MAX_UIO_PORT_REGIONS];
	long			irq;
	unsigned long		irq_flags;
	void			*priv;
	irqreturn_t (*handler)(int irq, struct uio_info *dev_info);
	int (*mmap)(struct uio_info *info, struct vm_area_struct *vma);
	int (*open)(struct uio_info *info, struct inode *inode);
	int (*release)(struct uio_info *info, struct inode *inode);
	int (*irqcontrol)(struct uio_info *info, s32 irq_on);
	struct device		*dma_pool_dev;
	void (*dma_stop)(struct uio_info *info);
};

int __must_check __uio_register_device(struct module *owner,
				       struct device *parent,
				       struct uio_info *info);

/* The wrapper records the caller's module, which open() pins. */
#define uio_register_device(parent, info) \
	__uio_register_device(THIS_MODULE, parent, info)

int __must_check __devm_uio_register_device(struct module *owner,
					    struct device *parent,
					    struct uio_info *info);

#define devm_uio_register_device(parent, info) \
	__devm_uio_register_device(THIS_MODULE, parent, info)

void uio_unregister_device(struct uio_info *info);
int __must_check devm_uio_reserve_page(struct device *dev,
				       struct resource *res);
void uio_event_notify(struct uio_info *info);

/* Values for uio_info.irq */
#define UIO_IRQ_CUSTOM	-1
#define UIO_IRQ_NONE	0

/* Values for uio_mem.memtype */
#define UIO_MEM_NONE		0
#define UIO_MEM_PHYS		1
#define UIO_MEM_LOGICAL		2
#define UIO_MEM_VIRTUAL		3
#define UIO_MEM_IOVA		4
#define UIO_MEM_DMA_COHERENT	5

/* Bits of uio_mem.flags */
#define UIO_MEM_FLAG_WC		BIT(0)

/* Values for uio_port.porttype */
#define UIO_PORT_NONE	0
#define UIO_PORT_X86	1
#define UIO_PORT_GPIO	2
#define UIO_PORT_OTHER	3

#endif /* _LINUX_UIO_DRIVER_H */
