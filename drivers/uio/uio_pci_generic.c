// SPDX-License-Identifier: GPL-2.0-only
/*
 * Generic UIO stub for PCI 2.3 devices.
 *
 * In INTx mode the handler masks the device's INTx with the Interrupt
 * Disable bit of the command register, which PCI 2.3 devices implement
 * together with the Interrupt Status bit, so any such device can share its
 * line. User space unmasks by writing 1 to /dev/uioN, or by clearing
 * Interrupt Disable in config space itself. In MSI and MSI-X modes the
 * device has one vector of its own: every message is one event, and
 * write() masks and unmasks the vector. Bind a device by writing its IDs
 * to new_id; the intr_mode parameter picks the mode.
 */
#include <linux/device.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/uio_driver.h>

#define UIO_PCI_GENERIC_VERSION	"1.0"

enum uio_pci_generic_mode {
	UIO_PCI_GENERIC_AUTO,
	UIO_PCI_GENERIC_INTX,
	UIO_PCI_GENERIC_MSI,
	UIO_PCI_GENERIC_MSIX,
	UIO_PCI_GENERIC_NONE,	/* bound without events; never requested */
};

/* Vectors one device may ask for in msi and msix mode. */
#define UIO_PCI_GENERIC_MAX_VECTORS	32

static const char * const uio_pci_generic_mode_names[] = {
	[UIO_PCI_GENERIC_AUTO]	= "auto",
	[UIO_PCI_GENERIC_INTX]	= "intx",
	[UIO_PCI_GENERIC_MSI]	= "msi",
	[UIO_PCI_GENERIC_MSIX]	= "msix",
	[UIO_PCI_GENERIC_NONE]	= "none",
};

/**
 * struct uio_pci_generic_dev - one bound device
 * @info:	what the UIO core sees
 * @pdev:	the PCI device
 * @mode:	the interrupt mode in use, never UIO_PCI_GENERIC_AUTO
 * @lock:	orders irqcontrol(), open() and release() against each other
 *		and against the unbind's final mask; protects the fields below
 * @leaving:	the device is unbinding: write() fails, INTx stays masked
 * @masked:	MSI modes: write() disabled vector 0 (depth one, never more)
 * @users:	open files of the device, of all its vectors' UIO devices
 * @nvec:	MSI modes: vectors, each but vector 0 with a UIO device of
 *		its own
 */
struct uio_pci_generic_dev {
	struct uio_info	info;
	struct pci_dev	*pdev;
	enum uio_pci_generic_mode mode;
	struct mutex	lock;	/* protects leaving, masked, users */
	bool		leaving;
	bool		masked;
	unsigned int	users;
	unsigned int	nvec;
};

/**
 * struct uio_pci_generic_vec - the UIO device of an extra MSI vector
 * @info:	what the UIO core sees: the vector's events, no maps
 * @gdev:	the device the vector belongs to
 * @masked:	write() disabled the vector; protected by @gdev's lock
 * @link:	name of its link in the PCI device's sysfs directory
 */
struct uio_pci_generic_vec {
	struct uio_info	info;
	struct uio_pci_generic_dev *gdev;
	bool		masked;
	char		link[24];
};

/* What intr_mode asks for one device. */
struct uio_pci_generic_req {
	enum uio_pci_generic_mode mode;
	unsigned int	vectors;
};

/*
 * intr_mode: a default mode and per-device ones, comma-separated, e.g.
 * "msix,0000:00:08.0=msi,0000:00:0e.0=msix:4"; ":N" asks msi or msix for
 * N vectors. Only probe reads it, so a change applies to the next bind.
 * Protected by the module's kernel_param_lock.
 */
static char uio_pci_generic_intr_mode[256] = "auto";

/* The vector count after a mode's ':', from the len bytes at s. */
static int uio_pci_generic_vectors_parse(const char *s, size_t len,
					 unsigned int *vectors)
{
	char num[4];

	if (!len || len >= sizeof(num))
		return -EINVAL;
	memcpy(num, s, len);
	num[len] = '\0';
	if (kstrtouint(num, 10, vectors) || !*vectors ||
	    *vectors > UIO_PCI_GENERIC_MAX_VECTORS)
		return -EINVAL;
	return 0;
}

/* "<mode>[:<vectors>]" user space may request, from the len bytes at s. */
static int uio_pci_generic_mode_parse(const char *s, size_t len,
				      struct uio_pci_generic_req *req)
{
	const char *colon = memchr(s, ':', len);
	size_t name_len = colon ? colon - s : len;
	int mode;

	req->vectors = 1;
	for (mode = UIO_PCI_GENERIC_AUTO; mode < UIO_PCI_GENERIC_NONE; mode++)
		if (strlen(uio_pci_generic_mode_names[mode]) == name_len &&
		    !strncmp(s, uio_pci_generic_mode_names[mode], name_len))
			break;
	if (mode == UIO_PCI_GENERIC_NONE)
		return -EINVAL;
	req->mode = mode;
	if (!colon)
		return 0;
	if (mode != UIO_PCI_GENERIC_MSI && mode != UIO_PCI_GENERIC_MSIX)
		return -EINVAL;
	return uio_pci_generic_vectors_parse(colon + 1, len - name_len - 1,
					     &req->vectors);
}

/*
 * What spec asks for the device called addr (NULL: only check spec):
 * its last "addr=mode" entry, else the last bare mode, else auto.
 * Returns -EINVAL if spec is malformed.
 */
static int uio_pci_generic_mode_lookup(const char *spec, const char *addr,
				       struct uio_pci_generic_req *req)
{
	struct uio_pci_generic_req dflt = { UIO_PCI_GENERIC_AUTO, 1 };
	struct uio_pci_generic_req entry;
	const char *p = spec;
	bool own = false;

	while (*p) {
		size_t len = strcspn(p, ",");
		const char *eq = memchr(p, '=', len);
		const char *name = eq ? eq + 1 : p;

		if (eq == p ||
		    uio_pci_generic_mode_parse(name, p + len - name, &entry))
			return -EINVAL;
		if (!eq) {
			dflt = entry;
		} else if (addr && strlen(addr) == eq - p &&
			   !strncmp(p, addr, eq - p)) {
			*req = entry;
			own = true;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	if (!own)
		*req = dflt;
	return 0;
}

static int uio_pci_generic_intr_mode_set(const char *val,
					 const struct kernel_param *kp)
{
	char spec[sizeof(uio_pci_generic_intr_mode)];
	size_t len = strcspn(val, "\n");
	struct uio_pci_generic_req req;

	if (len >= sizeof(spec))
		return -ENOSPC;
	memcpy(spec, val, len);
	spec[len] = '\0';
	if (uio_pci_generic_mode_lookup(spec, NULL, &req))
		return -EINVAL;
	strscpy(uio_pci_generic_intr_mode, spec,
		sizeof(uio_pci_generic_intr_mode));
	return 0;
}

static int uio_pci_generic_intr_mode_get(char *buf,
					 const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", uio_pci_generic_intr_mode);
}

static const struct kernel_param_ops uio_pci_generic_intr_mode_ops = {
	.set	= uio_pci_generic_intr_mode_set,
	.get	= uio_pci_generic_intr_mode_get,
};
module_param_cb(intr_mode, &uio_pci_generic_intr_mode_ops, NULL, 0644);
MODULE_PARM_DESC(intr_mode,
		 "interrupt mode: auto, intx, msi[:vectors] or msix[:vectors], then per device <pci address>=<mode>, comma-separated (default auto)");

/* What intr_mode asks for pdev now; the set hook keeps it well-formed. */
static void uio_pci_generic_requested_mode(struct pci_dev *pdev,
					   struct uio_pci_generic_req *req)
{
	kernel_param_lock(THIS_MODULE);
	if (uio_pci_generic_mode_lookup(uio_pci_generic_intr_mode,
					pci_name(pdev), req))
		*req = (struct uio_pci_generic_req){ UIO_PCI_GENERIC_AUTO, 1 };
	kernel_param_unlock(THIS_MODULE);
}

static const char * const uio_pci_generic_bar_names[PCI_STD_NUM_BARS] = {
	"BAR0", "BAR1", "BAR2", "BAR3", "BAR4", "BAR5",
};

static struct uio_pci_generic_dev *to_uio_pci_generic(struct uio_info *info)
{
	return container_of(info, struct uio_pci_generic_dev, info);
}

static struct pci_dev *uio_pci_generic_pdev(struct uio_info *info)
{
	return to_uio_pci_generic(info)->pdev;
}

static irqreturn_t uio_pci_generic_handler(int irq, struct uio_info *info)
{
	/* Claims the interrupt only if this device asserted it. */
	if (!pci_check_and_mask_intx(uio_pci_generic_pdev(info)))
		return IRQ_NONE;
	return IRQ_HANDLED;
}

/*
 * Not pcim_intx(): while the device unbinds, its devres list is already
 * released when the core stops calling irqcontrol(), and a managed call in
 * that window would leave an entry that makes the next probe fail.
 */
static void uio_pci_generic_mask_intx(struct pci_dev *pdev, bool mask)
{
	u16 cmd, want;

	pci_read_config_word(pdev, PCI_COMMAND, &cmd);
	if (mask)
		want = cmd | PCI_COMMAND_INTX_DISABLE;
	else
		want = cmd & ~PCI_COMMAND_INTX_DISABLE;
	if (want != cmd)
		pci_write_config_word(pdev, PCI_COMMAND, want);
}

/* The vector is the device's alone: every message is one event. */
static irqreturn_t uio_pci_generic_msi_handler(int irq, struct uio_info *info)
{
	return IRQ_HANDLED;
}

/*
 * The IRQ core masks the vector at the device where it can (MSI-X vector
 * control, the MSI mask bit) and otherwise keeps a message that arrives
 * while disabled pending and replays it on enable_irq(). The masked flag
 * keeps the disable depth at one however often user space writes 0.
 */
static void uio_pci_generic_mask_vector(unsigned int irq, bool *masked,
					bool mask)
{
	if (mask == *masked)
		return;
	if (mask)
		disable_irq(irq);
	else
		enable_irq(irq);
	*masked = mask;
}

static int uio_pci_generic_irqcontrol(struct uio_info *info, s32 irq_on)
{
	struct uio_pci_generic_dev *gdev = to_uio_pci_generic(info);
	int ret = 0;

	mutex_lock(&gdev->lock);
	if (gdev->leaving)
		ret = -EIO;
	else if (gdev->mode == UIO_PCI_GENERIC_INTX)
		uio_pci_generic_mask_intx(gdev->pdev, !irq_on);
	else
		uio_pci_generic_mask_vector(info->irq, &gdev->masked, !irq_on);
	mutex_unlock(&gdev->lock);
	return ret;
}

static struct uio_pci_generic_vec *to_uio_pci_generic_vec(struct uio_info *info)
{
	return container_of(info, struct uio_pci_generic_vec, info);
}

static int uio_pci_generic_vec_irqcontrol(struct uio_info *info, s32 irq_on)
{
	struct uio_pci_generic_vec *vec = to_uio_pci_generic_vec(info);
	struct uio_pci_generic_dev *gdev = vec->gdev;
	int ret = 0;

	mutex_lock(&gdev->lock);
	if (gdev->leaving)
		ret = -EIO;
	else
		uio_pci_generic_mask_vector(info->irq, &vec->masked, !irq_on);
	mutex_unlock(&gdev->lock);
	return ret;
}

/*
 * First step of an unbind, before the core frees the interrupt: from now
 * on write() fails. In INTx mode, also mask INTx for good: a device that
 * a last write() left unmasked and asserting would otherwise hold the
 * shared line up with no handler to claim it until the Interrupt Disable
 * bit is restored, and the kernel disables the line for every device on
 * it ("nobody cared"). An MSI vector is the device's alone: free_irq()
 * shuts it down whatever its disable depth, and the managed device frees
 * the vectors after that.
 */
static void uio_pci_generic_quiesce(void *data)
{
	struct uio_pci_generic_dev *gdev = data;

	mutex_lock(&gdev->lock);
	gdev->leaving = true;
	if (gdev->mode == UIO_PCI_GENERIC_INTX)
		uio_pci_generic_mask_intx(gdev->pdev, true);
	mutex_unlock(&gdev->lock);
}

/*
 * No pin, or a pin the platform routes nowhere (IRQ_NOTCONNECTED, which
 * request_irq() refuses): either way the device is bound without events.
 */
static bool uio_pci_generic_has_irq(const struct pci_dev *pdev)
{
	return pdev->irq && pdev->irq != IRQ_NOTCONNECTED;
}

static bool uio_pci_generic_mode_is_msi(enum uio_pci_generic_mode mode)
{
	return mode == UIO_PCI_GENERIC_MSI || mode == UIO_PCI_GENERIC_MSIX;
}

/*
 * An MSI is a memory write: the first open, of any of the device's
 * vectors, lets the device send them.
 */
static void uio_pci_generic_get(struct uio_pci_generic_dev *gdev)
{
	mutex_lock(&gdev->lock);
	if (!gdev->users++ && uio_pci_generic_mode_is_msi(gdev->mode))
		pci_set_master(gdev->pdev);
	mutex_unlock(&gdev->lock);
}

static void uio_pci_generic_put(struct uio_pci_generic_dev *gdev)
{
	/*
	 * User space may have enabled bus mastering to let the device DMA.
	 * Nobody can program or stop that DMA once the last file of the
	 * device is closed, so do not leave it running into memory the
	 * device no longer owns. Only the last: another process (a DPDK
	 * secondary, a cat of /dev/uioN) closing its file must not stop the
	 * DMA of the process that drives the device.
	 */
	mutex_lock(&gdev->lock);
	if (!--gdev->users)
		pci_clear_master(gdev->pdev);
	mutex_unlock(&gdev->lock);
}

/* The core frees the DMA buffers only after this: no DMA can reach them. */
static void uio_pci_generic_dma_stop(struct uio_info *info)
{
	struct uio_pci_generic_dev *gdev = to_uio_pci_generic(info);

	mutex_lock(&gdev->lock);
	pci_clear_master(gdev->pdev);
	mutex_unlock(&gdev->lock);
}

static int uio_pci_generic_open(struct uio_info *info, struct inode *inode)
{
	uio_pci_generic_get(to_uio_pci_generic(info));
	return 0;
}

static int uio_pci_generic_release(struct uio_info *info, struct inode *inode)
{
	uio_pci_generic_put(to_uio_pci_generic(info));
	return 0;
}

static int uio_pci_generic_vec_open(struct uio_info *info, struct inode *inode)
{
	uio_pci_generic_get(to_uio_pci_generic_vec(info)->gdev);
	return 0;
}

static int uio_pci_generic_vec_release(struct uio_info *info,
				       struct inode *inode)
{
	uio_pci_generic_put(to_uio_pci_generic_vec(info)->gdev);
	return 0;
}

/*
 * The memory BARs Linux 6.1 exposes: 32-bit non-prefetchable ones among
 * the first MAX_UIO_MAPS. They keep 6.1's map numbers and names.
 */
static bool uio_pci_generic_bar_is_mainline(struct pci_dev *pdev, int bar)
{
	return bar < MAX_UIO_MAPS &&
	       pci_resource_flags(pdev, bar) ==
	       (IORESOURCE_MEM | IORESOURCE_SIZEALIGN);
}

/* A memory BAR with an address the device decodes. */
static bool uio_pci_generic_bar_is_mem(struct pci_dev *pdev, int bar)
{
	unsigned long flags = pci_resource_flags(pdev, bar);

	return (flags & IORESOURCE_MEM) &&
	       !(flags & (IORESOURCE_UNSET | IORESOURCE_DISABLED)) &&
	       pci_resource_len(pdev, bar);
}

/*
 * As in Linux 6.1: addr is the page the BAR starts in, offs the BAR's
 * offset in it, and size reaches from addr to the end of the BAR's last
 * page, which is what mmap() maps. Unlike 6.1, a BAR smaller than a page
 * is mappable only if the rest of its page can be kept free for it.
 *
 * A prefetchable BAR is mapped write-combining: the device promises that
 * reads have no side effects and that writes may be merged, which is what
 * lets a store burst reach it at the speed of the bus. Mainline never
 * exposes such BARs (they come after its maps), so no map it numbers
 * changes its caching; non-prefetchable BARs stay uncached.
 */
static void uio_pci_generic_add_mem(struct uio_pci_generic_dev *gdev,
				    unsigned int *nmem, int bar,
				    const char *name)
{
	struct pci_dev *pdev = gdev->pdev;
	struct uio_mem *mem = &gdev->info.mem[*nmem];
	resource_size_t start = pci_resource_start(pdev, bar);

	if (*nmem == MAX_UIO_MAPS) {
		dev_warn(&pdev->dev, "BAR%d not mappable: only %d maps\n",
			 bar, MAX_UIO_MAPS);
		return;
	}
	mem->name = name;
	mem->addr = start & PAGE_MASK;
	mem->offs = start & ~PAGE_MASK;
	mem->size = PAGE_ALIGN(mem->offs + pci_resource_len(pdev, bar));
	mem->memtype = UIO_MEM_PHYS;
	if (devm_uio_reserve_page(&pdev->dev, &pdev->resource[bar])) {
		dev_notice(&pdev->dev, "BAR%d shares its page with other resources, not mappable\n",
			   bar);
		mem->memtype = UIO_MEM_NONE;
	} else if (pci_resource_flags(pdev, bar) & IORESOURCE_PREFETCH) {
		mem->flags = UIO_MEM_FLAG_WC;
	}
	(*nmem)++;
}

/*
 * First the memory BARs Linux 6.1 exposes, named after the device as
 * there, then the other memory BARs (64-bit, prefetchable, BAR5) named
 * "BARn", each group in BAR order: user space that indexes maps as on
 * mainline finds the same BARs at the same numbers. I/O BARs are listed
 * as port regions.
 */
static void uio_pci_generic_add_bars(struct uio_pci_generic_dev *gdev)
{
	struct pci_dev *pdev = gdev->pdev;
	struct uio_info *info = &gdev->info;
	unsigned int nmem = 0, nport = 0;
	int bar;

	for (bar = 0; bar < PCI_STD_NUM_BARS; bar++)
		if (uio_pci_generic_bar_is_mainline(pdev, bar) &&
		    uio_pci_generic_bar_is_mem(pdev, bar))
			uio_pci_generic_add_mem(gdev, &nmem, bar,
						pci_name(pdev));

	for (bar = 0; bar < PCI_STD_NUM_BARS; bar++)
		if (!uio_pci_generic_bar_is_mainline(pdev, bar) &&
		    uio_pci_generic_bar_is_mem(pdev, bar))
			uio_pci_generic_add_mem(gdev, &nmem, bar,
						uio_pci_generic_bar_names[bar]);

	for (bar = 0; bar < PCI_STD_NUM_BARS; bar++) {
		const char *name = uio_pci_generic_bar_names[bar];

		if (!(pci_resource_flags(pdev, bar) & IORESOURCE_IO) ||
		    !pci_resource_len(pdev, bar))
			continue;
		if (nport == MAX_UIO_PORT_REGIONS) {
			dev_warn(&pdev->dev, "%s not listed: only %d port regions\n",
				 name, MAX_UIO_PORT_REGIONS);
			continue;
		}
		info->port[nport].name = name;
		info->port[nport].start = pci_resource_start(pdev, bar);
		info->port[nport].size = pci_resource_len(pdev, bar);
		info->port[nport].porttype = UIO_PORT_X86;
		nport++;
	}
}

/* nvec vectors of the given kind; -errno if the device cannot have them. */
static int uio_pci_generic_alloc_vectors(struct pci_dev *pdev,
					 enum uio_pci_generic_mode mode,
					 unsigned int nvec)
{
	unsigned int type = mode == UIO_PCI_GENERIC_MSIX ? PCI_IRQ_MSIX :
							    PCI_IRQ_MSI;
	int ret;

	ret = pci_alloc_irq_vectors(pdev, nvec, nvec, type);
	return ret < 0 ? ret : 0;
}

/*
 * auto: INTx when the device has a usable pin it can mask (as before MSI
 * support, so existing users see no change), else MSI-X, else MSI, else
 * no events at all.
 */
static int uio_pci_generic_auto_mode(struct pci_dev *pdev)
{
	bool intx = uio_pci_generic_has_irq(pdev);

	if (intx && pci_intx_mask_supported(pdev))
		return UIO_PCI_GENERIC_INTX;
	if (!uio_pci_generic_alloc_vectors(pdev, UIO_PCI_GENERIC_MSIX, 1))
		return UIO_PCI_GENERIC_MSIX;
	if (!uio_pci_generic_alloc_vectors(pdev, UIO_PCI_GENERIC_MSI, 1))
		return UIO_PCI_GENERIC_MSI;
	if (intx) {
		dev_warn(&pdev->dev, "no INTx masking (PCI 2.3) and no MSI, cannot share its interrupt\n");
		return -ENODEV;
	}
	dev_notice(&pdev->dev, "no legacy interrupt and no MSI, events disabled\n");
	return UIO_PCI_GENERIC_NONE;
}

/*
 * The mode the device gets, the requested one or auto's pick. Allocates
 * the vectors of an MSI mode; the managed device frees them on unbind,
 * after the core has freed the interrupts.
 */
static int uio_pci_generic_pick_mode(struct uio_pci_generic_dev *gdev,
				     const struct uio_pci_generic_req *req)
{
	enum uio_pci_generic_mode want = req->mode;
	struct pci_dev *pdev = gdev->pdev;
	int mode = want, ret;

	gdev->nvec = 1;
	switch (want) {
	case UIO_PCI_GENERIC_INTX:
		if (!uio_pci_generic_has_irq(pdev) ||
		    !pci_intx_mask_supported(pdev)) {
			dev_warn(&pdev->dev, "no maskable INTx (PCI 2.3), intr_mode intx impossible\n");
			return -ENODEV;
		}
		break;
	case UIO_PCI_GENERIC_MSI:
	case UIO_PCI_GENERIC_MSIX:
		ret = uio_pci_generic_alloc_vectors(pdev, want, req->vectors);
		if (ret)
			return dev_err_probe(&pdev->dev, ret,
					     "intr_mode %s:%u: cannot enable it\n",
					     uio_pci_generic_mode_names[want],
					     req->vectors);
		gdev->nvec = req->vectors;
		break;
	default:
		mode = uio_pci_generic_auto_mode(pdev);
		if (mode < 0)
			return mode;
		break;
	}
	gdev->mode = mode;
	return 0;
}

static void uio_pci_generic_setup_irq(struct uio_pci_generic_dev *gdev)
{
	struct pci_dev *pdev = gdev->pdev;
	struct uio_info *info = &gdev->info;

	switch (gdev->mode) {
	case UIO_PCI_GENERIC_INTX:
		info->irq = pdev->irq;
		info->irq_flags = IRQF_SHARED;
		info->handler = uio_pci_generic_handler;
		break;
	case UIO_PCI_GENERIC_MSI:
	case UIO_PCI_GENERIC_MSIX:
		info->irq = pci_irq_vector(pdev, 0);
		info->handler = uio_pci_generic_msi_handler;
		/* Masked at the device on write(0), not on the next message. */
		irq_set_status_flags(info->irq, IRQ_DISABLE_UNLAZY);
		/* Messages flow from the bind, as an INTx line would. */
		pci_set_master(pdev);
		break;
	default:
		return;
	}
	info->irqcontrol = uio_pci_generic_irqcontrol;
}

static void uio_pci_generic_vec_remove(void *data)
{
	struct uio_pci_generic_vec *vec = data;

	sysfs_remove_link(&vec->gdev->pdev->dev.kobj, vec->link);
	uio_unregister_device(&vec->info);
}

/*
 * Vector i > 0 gets a UIO device of its own, a child of vector 0's, so
 * that /sys/bus/pci/devices/<addr>/uio/ lists vector 0's alone, where
 * DPDK looks; the PCI device links to it as uio_vector<i>. Its name,
 * "uio_pci_generic:vector<i>", has no blank for tools that split on
 * them. Events only: the maps are vector 0's. Each goes before vector
 * 0's on unbind.
 */
static int uio_pci_generic_add_vector(struct uio_pci_generic_dev *gdev,
				      struct uio_pci_generic_vec *vec,
				      unsigned int i)
{
	struct pci_dev *pdev = gdev->pdev;
	struct uio_info *info = &vec->info;
	int ret;

	vec->gdev = gdev;
	info->name = devm_kasprintf(&pdev->dev, GFP_KERNEL,
				    "uio_pci_generic:vector%u", i);
	if (!info->name)
		return -ENOMEM;
	info->version = UIO_PCI_GENERIC_VERSION;
	info->irq = pci_irq_vector(pdev, i);
	info->handler = uio_pci_generic_msi_handler;
	info->irqcontrol = uio_pci_generic_vec_irqcontrol;
	info->open = uio_pci_generic_vec_open;
	info->release = uio_pci_generic_vec_release;
	irq_set_status_flags(info->irq, IRQ_DISABLE_UNLAZY);

	ret = uio_register_device(&gdev->info.uio_dev->dev, info);
	if (ret)
		return ret;
	snprintf(vec->link, sizeof(vec->link), "uio_vector%u", i);
	ret = sysfs_create_link(&pdev->dev.kobj, &info->uio_dev->dev.kobj,
				vec->link);
	if (ret) {
		uio_unregister_device(info);
		return ret;
	}
	return devm_add_action_or_reset(&pdev->dev, uio_pci_generic_vec_remove,
					vec);
}

static int uio_pci_generic_add_vectors(struct uio_pci_generic_dev *gdev)
{
	struct uio_pci_generic_vec *vecs;
	unsigned int i;
	int ret;

	if (gdev->nvec < 2)
		return 0;
	vecs = devm_kcalloc(&gdev->pdev->dev, gdev->nvec - 1, sizeof(*vecs),
			    GFP_KERNEL);
	if (!vecs)
		return -ENOMEM;
	for (i = 1; i < gdev->nvec; i++) {
		ret = uio_pci_generic_add_vector(gdev, &vecs[i - 1], i);
		if (ret)
			return dev_err_probe(&gdev->pdev->dev, ret,
					     "cannot register vector %u\n", i);
	}
	return 0;
}

static int uio_pci_generic_probe(struct pci_dev *pdev,
				 const struct pci_device_id *id)
{
	struct uio_pci_generic_req req;
	struct uio_pci_generic_dev *gdev;
	u16 cmd;
	int ret;

	uio_pci_generic_requested_mode(pdev, &req);
	/*
	 * User space may leave INTx masked, through write() or config space.
	 * pcim_intx() puts the Interrupt Disable bit back on unbind as its
	 * first call found it; make that call now, because enabling the
	 * device (or MSI) clears the bit, so the device leaves as it came.
	 */
	pci_read_config_word(pdev, PCI_COMMAND, &cmd);
	ret = pcim_intx(pdev, !(cmd & PCI_COMMAND_INTX_DISABLE));
	if (ret)
		return ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return dev_err_probe(&pdev->dev, ret, "cannot enable device\n");

	gdev = devm_kzalloc(&pdev->dev, sizeof(*gdev), GFP_KERNEL);
	if (!gdev)
		return -ENOMEM;

	gdev->pdev = pdev;
	mutex_init(&gdev->lock);
	ret = uio_pci_generic_pick_mode(gdev, &req);
	if (ret)
		return ret;
	pci_set_drvdata(pdev, gdev);
	gdev->info.name = "uio_pci_generic";
	gdev->info.version = UIO_PCI_GENERIC_VERSION;
	gdev->info.open = uio_pci_generic_open;
	gdev->info.release = uio_pci_generic_release;
	gdev->info.dma_pool_dev = &pdev->dev;
	gdev->info.dma_stop = uio_pci_generic_dma_stop;
	uio_pci_generic_setup_irq(gdev);
	uio_pci_generic_add_bars(gdev);

	ret = devm_uio_register_device(&pdev->dev, &gdev->info);
	if (ret)
		return dev_err_probe(&pdev->dev, ret, "cannot register UIO device\n");
	if (!gdev->info.irqcontrol)
		return 0;
	/* Released before the registration: runs first on unbind. */
	ret = devm_add_action_or_reset(&pdev->dev, uio_pci_generic_quiesce,
				       gdev);
	if (ret)
		return ret;
	return uio_pci_generic_add_vectors(gdev);
}

/*
 * The mode in use, while bound: /sys/bus/pci/devices/<addr>/intr_mode,
 * with ":N" for N > 1 vectors as intr_mode takes it.
 */
static ssize_t intr_mode_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	struct uio_pci_generic_dev *gdev = dev_get_drvdata(dev);
	const char *mode = uio_pci_generic_mode_names[gdev->mode];

	if (gdev->nvec > 1)
		return sysfs_emit(buf, "%s:%u\n", mode, gdev->nvec);
	return sysfs_emit(buf, "%s\n", mode);
}
static DEVICE_ATTR_RO(intr_mode);

static struct attribute *uio_pci_generic_attrs[] = {
	&dev_attr_intr_mode.attr,
	NULL
};
ATTRIBUTE_GROUPS(uio_pci_generic);

static struct pci_driver uio_pci_generic_driver = {
	.name		= "uio_pci_generic",
	.id_table	= NULL,	/* bound through new_id only */
	.probe		= uio_pci_generic_probe,
	.dev_groups	= uio_pci_generic_groups,
};
module_pci_driver(uio_pci_generic_driver);

MODULE_DESCRIPTION("Generic UIO stub for PCI 2.3 devices");
MODULE_LICENSE("GPL");
