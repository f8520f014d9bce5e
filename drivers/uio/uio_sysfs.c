// SPDX-License-Identifier: GPL-2.0-only
/*
 * Userspace I/O core: the "maps" and "portio" directories below a device in
 * sysfs, with one mapN or portN group per region the stub describes, and
 * the adding and removal of all of the device's sysfs directories.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/uio_driver.h>

#include "uio_internal.h"

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

int uio_sysfs_add(struct uio_device *idev)
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

void uio_sysfs_del(struct uio_device *idev)
{
	uio_dma_sysfs_del(idev);
	uio_del_regions(idev->ports_dir);
	uio_del_regions(idev->maps_dir);
}
