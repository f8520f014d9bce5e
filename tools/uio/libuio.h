/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libuio - find, map and drive UIO devices from user space
 *
 * All functions that can fail return 0 (or a non-negative value where
 * documented) on success and a negative errno on failure; they never return
 * -1 and leave the caller to guess from errno. uio_strerror() turns every
 * code into a message. The codes with a libuio-specific meaning are:
 *
 *   -ENODEV	no such UIO device (or it went away before it could be read)
 *   -ENXIO	no such map
 *   -EACCES	permission denied (sysfs file or /dev node)
 *   -EIO	device gone, or it has no interrupt
 *   -EBADMSG	malformed sysfs: missing mandatory file or garbage content
 *   -EOVERFLOW	map size/address/offset out of range
 *   -ENAMETOOLONG	a name or version in sysfs is longer than UIO_NAME_MAX
 *   -ETIMEDOUT	uio_wait() timed out
 *   -ENOSYS	the driver has no irqcontrol
 *
 * Paths: the sysfs root defaults to "/sys" and the device root to "/dev";
 * the environment variables UIO_SYSFS_ROOT and UIO_DEV_ROOT override the
 * defaults, and uio_set_root() overrides both. Devices are looked up in
 * <sysfs root>/class/uio/uioN and opened as <dev root>/uioN.
 *
 * Thread safety: the roots are process-global; set them before starting
 * threads. A struct uio_dev must not be used by two threads at once.
 */
#ifndef _LIBUIO_H
#define _LIBUIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define UIO_NAME_MAX	256	/* longest name or version, with the NUL */
#define UIO_MAX_MAPS	32	/* map indices 0..UIO_MAX_MAPS-1 are read */
#define UIO_MAX_PORTS	32	/* port indices 0..UIO_MAX_PORTS-1 are read */

/**
 * struct uio_map_info - one memory map of a UIO device (maps/mapM)
 * @index:	M; the map is mmap()ed at offset M * page size
 * @err:	0, or the negative errno that makes the map unusable (garbage
 *		numbers, out-of-range size); the other fields are then partial
 * @name:	the map's name, "" if the file is missing or empty
 * @addr_known:	false if addr could not be read (mode 0400 for non-root)
 * @addr:	bus/physical or kernel address; valid if @addr_known
 * @size:	size in bytes
 * @offset:	offset of the device's first byte within addr's page
 */
struct uio_map_info {
	unsigned int	index;
	int		err;
	char		name[UIO_NAME_MAX];
	bool		addr_known;
	uint64_t	addr;
	uint64_t	size;
	uint64_t	offset;
};

/**
 * struct uio_port_info - one port I/O region of a UIO device (portio/portM)
 * @index:	M
 * @err:	0, or the negative errno that makes the entry unusable
 * @name:	the region's name
 * @start:	first port
 * @size:	number of ports
 * @porttype:	"port_none", "port_x86", "port_gpio" or "port_other"
 */
struct uio_port_info {
	unsigned int	index;
	int		err;
	char		name[UIO_NAME_MAX];
	uint64_t	start;
	uint64_t	size;
	char		porttype[32];
};

/**
 * struct uio_device_info - what sysfs says about one UIO device
 * @number:	N of uioN
 * @name:	the driver's name for the device (the "name" file)
 * @version:	the driver's version string
 * @event:	event (interrupt) count when the info was read
 * @major:	major number of /dev/uioN
 * @minor:	minor number of /dev/uioN
 * @parent:	basename of the "device" link (e.g. "0000:00:04.0"), or ""
 * @driver:	basename of the parent's "driver" link, or ""
 * @nr_maps:	number of valid entries in @maps
 * @maps:	the maps in ascending index order; indices may have gaps
 * @nr_ports:	number of valid entries in @ports
 * @ports:	the port regions in ascending index order
 */
struct uio_device_info {
	unsigned int		number;
	char			name[UIO_NAME_MAX];
	char			version[UIO_NAME_MAX];
	uint32_t		event;
	unsigned int		major;
	unsigned int		minor;
	char			parent[UIO_NAME_MAX];
	char			driver[UIO_NAME_MAX];
	unsigned int		nr_maps;
	struct uio_map_info	maps[UIO_MAX_MAPS];
	unsigned int		nr_ports;
	struct uio_port_info	ports[UIO_MAX_PORTS];
};

#define UIO_MAX_DMA_BUFS	16	/* the core's limit of buffers per device */

/**
 * struct uio_dma_buf_info - one DMA buffer of a device (dma/bufK)
 * @index:		K
 * @size:		size in bytes, a multiple of the page size
 * @dma_addr_known:	false while nobody has the device open: the buffers
 *			exist from the first open() to the last close()
 * @dma_addr:		the bus address to program into the device
 * @offset:		the mmap() offset of the buffer
 */
struct uio_dma_buf_info {
	unsigned int	index;
	uint64_t	size;
	bool		dma_addr_known;
	uint64_t	dma_addr;
	uint64_t	offset;
};

/**
 * struct uio_dma_info - a device's pool of DMA buffers (the dma directory)
 * @count:	buffers configured, each with an entry in @bufs
 * @size:	size of each buffer
 * @mask_bits:	width of the device's DMA addresses
 * @iommu:	"translated", "identity" or "none"
 * @bufs:	the buffers in index order
 */
struct uio_dma_info {
	unsigned int		count;
	uint64_t		size;
	unsigned int		mask_bits;
	char			iommu[16];
	struct uio_dma_buf_info	bufs[UIO_MAX_DMA_BUFS];
};

/* An open device: see uio_open(). */
struct uio_dev;

/**
 * uio_set_root() - choose where sysfs and the device nodes live
 * @sysfs_root:	directory holding class/uio (normally "/sys"), or NULL for
 *		$UIO_SYSFS_ROOT or "/sys"
 * @dev_root:	directory holding the uioN nodes (normally "/dev"), or NULL
 *		for $UIO_DEV_ROOT or "/dev"
 *
 * Meant for tests against a fake tree. The strings are copied.
 *
 * Return: 0, or -ENAMETOOLONG if a path does not fit PATH_MAX.
 */
int uio_set_root(const char *sysfs_root, const char *dev_root);

/**
 * uio_sysfs_root() - the sysfs root in use
 *
 * Return: the path, valid until the next uio_set_root().
 */
const char *uio_sysfs_root(void);

/**
 * uio_dev_root() - the device root in use
 *
 * Return: the path, valid until the next uio_set_root().
 */
const char *uio_dev_root(void);

/**
 * uio_strerror() - describe a libuio error code
 * @err:	a negative errno returned by a libuio function (positive values
 *		are accepted too)
 *
 * Return: a static, constant message; never NULL.
 */
const char *uio_strerror(int err);

/**
 * uio_list_devices() - enumerate the UIO devices
 * @numbers:	set to a malloc()ed array of device numbers (N of uioN) in
 *		ascending order, or NULL when there is none; free() it
 * @count:	set to the number of entries
 *
 * Entries of class/uio that are not "uioN" are ignored. A missing class
 * directory (uio not loaded) is not an error: it yields no device.
 *
 * Return: 0, -EACCES, -ENOMEM or another negative errno from opendir().
 */
int uio_list_devices(unsigned int **numbers, size_t *count);

/**
 * uio_read_info() - read everything sysfs says about uioN
 * @number:	N
 * @info:	filled in; undefined on failure
 *
 * name, version, event and dev are mandatory; maps/ and portio/ are
 * optional, map numbering may have gaps. A map with a missing or
 * malformed size/addr or an out-of-range size is still listed, with its
 * @err set; an unreadable addr (EACCES) only clears addr_known.
 *
 * Return: 0; -ENODEV if uioN does not exist (or vanished); -EBADMSG for a
 * missing or garbled mandatory file; -ENAMETOOLONG for an overlong name
 * or version; -EACCES; -ENOMEM.
 */
int uio_read_info(unsigned int number, struct uio_device_info *info);

/**
 * uio_find_by_name() - find the first (lowest-numbered) device by name
 * @name:	exact content of the "name" file
 * @number:	set to N on success
 *
 * Devices that cannot be read are skipped.
 *
 * Return: 0, -ENODEV if no device matches, or an error of
 * uio_list_devices().
 */
int uio_find_by_name(const char *name, unsigned int *number);

/**
 * uio_find_by_minor() - find the device whose /dev node has this minor
 * @minor:	minor number, as in the "dev" file
 * @number:	set to N on success
 *
 * Return: 0, -ENODEV if no device matches, or an error of
 * uio_list_devices().
 */
int uio_find_by_minor(unsigned int minor, unsigned int *number);

/**
 * uio_find_by_parent() - find the first device below a parent device
 * @parent:	basename of the "device" link, e.g. "0000:00:04.0"
 * @number:	set to N on success
 *
 * Return: 0, -ENODEV if no device matches, or an error of
 * uio_list_devices().
 */
int uio_find_by_parent(const char *parent, unsigned int *number);

/**
 * uio_find_vector() - find the device of one interrupt vector of a parent
 * @parent:	basename of the parent device, e.g. "0000:00:04.0"
 * @vector:	K; 0 is the device uio_find_by_parent() finds, with the maps
 * @number:	set to N on success
 *
 * uio_pci_generic with several MSI or MSI-X vectors gives vector K > 0 a
 * device of its own, linked from the parent as uio_vectorK.
 *
 * Return: 0, -ENODEV if the parent or the vector has no device, or an
 * error of uio_list_devices().
 */
int uio_find_vector(const char *parent, unsigned int vector,
		    unsigned int *number);

/**
 * uio_open() - open uioN for mapping and interrupt handling
 * @number:	N
 * @devp:	set to the new handle on success
 *
 * Reads the device's info, opens <dev root>/uioN read-write and remembers
 * the current event count as the starting point of uio_wait().
 *
 * Return: 0; an error of uio_read_info(); -ENODEV if the node is missing;
 * -EACCES; -ENOMEM.
 */
int uio_open(unsigned int number, struct uio_dev **devp);

/**
 * uio_open_by_name() - uio_find_by_name() followed by uio_open()
 * @name:	the device's name
 * @devp:	set to the new handle on success
 *
 * Return: as uio_find_by_name() and uio_open().
 */
int uio_open_by_name(const char *name, struct uio_dev **devp);

/**
 * uio_open_by_parent() - uio_find_by_parent() followed by uio_open()
 * @parent:	basename of the parent device, e.g. "0000:00:04.0"
 * @devp:	set to the new handle on success
 *
 * Return: as uio_find_by_parent() and uio_open().
 */
int uio_open_by_parent(const char *parent, struct uio_dev **devp);

/**
 * uio_open_vector() - uio_find_vector() followed by uio_open()
 * @parent:	basename of the parent device, e.g. "0000:00:04.0"
 * @vector:	the interrupt vector K
 * @devp:	set to the new handle on success
 *
 * Return: as uio_find_vector() and uio_open().
 */
int uio_open_vector(const char *parent, unsigned int vector,
		    struct uio_dev **devp);

/**
 * uio_close() - unmap every mapped region and close the device
 * @dev:	the handle; NULL is allowed and does nothing
 *
 * Pointers returned by uio_map() become invalid.
 */
void uio_close(struct uio_dev *dev);

/**
 * uio_info() - the sysfs information read when the device was opened
 * @dev:	the handle
 *
 * The event count in it is not updated; use uio_wait() or uio_read_info().
 *
 * Return: the info, valid until uio_close().
 */
const struct uio_device_info *uio_info(const struct uio_dev *dev);

/**
 * uio_fd() - the file descriptor of /dev/uioN, for an own poll loop
 * @dev:	the handle
 *
 * Do not close it; reading it directly bypasses the missed-event count.
 *
 * Return: the descriptor.
 */
int uio_fd(const struct uio_dev *dev);

/**
 * uio_map() - map a region by index
 * @dev:	the handle
 * @index:	map index M (as in maps/mapM)
 * @ptr:	set to the address of the device's first byte: the mapping
 *		plus the map's offset, plus addr's offset in its page if a
 *		stub left addr unaligned
 * @size:	if not NULL, set to the map's size in bytes
 *
 * Mapping a region twice returns the first mapping again. The mapping is
 * shared, readable and writable.
 *
 * Return: 0; -ENXIO if there is no such map; the map's own error
 * (-EBADMSG, -EOVERFLOW); -EIO if the device is gone; another negative
 * errno of mmap().
 */
int uio_map(struct uio_dev *dev, unsigned int index, void **ptr,
	    size_t *size);

/**
 * uio_map_by_name() - map the first region with this name
 * @dev:	the handle
 * @name:	the map's name
 * @ptr:	as for uio_map()
 * @size:	as for uio_map()
 *
 * Return: as uio_map(); -ENXIO if no map has this name.
 */
int uio_map_by_name(struct uio_dev *dev, const char *name, void **ptr,
		    size_t *size);

/**
 * uio_unmap() - undo uio_map()
 * @dev:	the handle
 * @index:	map index
 *
 * Return: 0, or -ENXIO if the region is not mapped.
 */
int uio_unmap(struct uio_dev *dev, unsigned int index);

/**
 * uio_read_dma() - read the DMA buffer pool of UIO device number
 * @number:	N of uioN
 * @dma:	filled on success
 *
 * Return: 0; -ENOENT if the device has no pool (its stub offers none);
 * -ENODEV if there is no such device; -EBADMSG for malformed sysfs.
 */
int uio_read_dma(unsigned int number, struct uio_dma_info *dma);

/**
 * uio_dma_map() - map DMA buffer index of an open device
 * @dev:	the device, opened by this process (the buffers exist then)
 * @index:	K of dma/bufK
 * @ptr:	the mapping on success
 * @buf:	the buffer's size, bus address and offset on success
 *
 * Unmap with munmap(*ptr, buf->size), or let close/exit do it.
 *
 * Return: 0; -ENXIO if there is no such buffer; -errno of mmap().
 */
int uio_dma_map(struct uio_dev *dev, unsigned int index, void **ptr,
		struct uio_dma_buf_info *buf);

/**
 * uio_wait() - wait for the next event
 * @dev:	the handle
 * @timeout_ms:	longest wait in milliseconds; negative waits forever, 0 only
 *		checks
 * @count:	if not NULL, set to the device's event count
 * @missed:	if not NULL, set to the number of events that happened since
 *		the previous uio_wait() (or uio_open()) besides the one
 *		reported, i.e. new count - previous count - 1
 *
 * Context: may sleep; restarts after signals with the remaining timeout.
 *
 * Return: 0 on an event; -ETIMEDOUT; -EIO if the device is gone or has no
 * interrupt; -EBADMSG on a short read; another negative errno.
 */
int uio_wait(struct uio_dev *dev, int timeout_ms, uint32_t *count,
	     uint32_t *missed);

/**
 * uio_irq_control() - enable or disable the device's interrupt
 * @dev:	the handle
 * @enable:	true writes s32 1, false writes s32 0
 *
 * Drivers that mask their interrupt in the handler (uio_pci_generic) need
 * an enable after every event has been handled.
 *
 * Return: 0; -ENOSYS if the driver has no irqcontrol; -EIO if the device
 * is gone; another negative errno.
 */
int uio_irq_control(struct uio_dev *dev, bool enable);

/**
 * uio_read32() - read a 32-bit device register
 * @base:	a pointer returned by uio_map()
 * @offset:	byte offset of the register, a multiple of 4
 *
 * One 32-bit load that the compiler may neither merge, split, reorder
 * against other register accesses nor drop: the access is volatile, which
 * is what device memory needs (there is no readl() in user space).
 *
 * Return: the register's value.
 */
static inline uint32_t uio_read32(const void *base, size_t offset)
{
	return *(const volatile uint32_t *)((const char *)base + offset);
}

/**
 * uio_write32() - write a 32-bit device register
 * @base:	a pointer returned by uio_map()
 * @offset:	byte offset of the register, a multiple of 4
 * @val:	the value
 *
 * One 32-bit store, volatile like uio_read32().
 */
static inline void uio_write32(void *base, size_t offset, uint32_t val)
{
	*(volatile uint32_t *)((char *)base + offset) = val;
}

#ifdef __cplusplus
}
#endif

#endif /* _LIBUIO_H */
