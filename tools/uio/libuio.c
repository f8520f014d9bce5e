// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libuio - find, map and drive UIO devices from user space
 *
 * Everything is read from sysfs below a settable root, so the whole
 * library except mmap/poll on a real device can be tested against a fake
 * tree. See libuio.h for the contract of each function.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "libuio.h"

#define __printf(a, b)	__attribute__((format(printf, a, b)))

/* Region slots scanned per directory: enough for maps and for ports. */
#define UIO_MAX_REGIONS	UIO_MAX_MAPS
_Static_assert(UIO_MAX_PORTS <= UIO_MAX_REGIONS, "port slots do not fit");

/* sysfs attributes are at most a page; anything longer is not sysfs. */
#define UIO_ATTR_MAX	4096

struct uio_mapping {
	void	*base;		/* what mmap() returned, NULL if unmapped */
	size_t	len;		/* mapping length, for munmap() */
};

struct uio_dev {
	struct uio_device_info	info;
	int			fd;
	uint32_t		last_event;	/* count seen by the last wait */
	struct uio_mapping	mappings[UIO_MAX_MAPS];	/* by map index */
};

static char uio_sysfs_dir[PATH_MAX];
static char uio_dev_dir[PATH_MAX];
static bool uio_roots_set;

static int uio_copy_root(char *dst, const char *src, const char *env,
			 const char *def)
{
	if (!src)
		src = getenv(env);
	if (!src || !*src)
		src = def;
	if (strlen(src) >= PATH_MAX)
		return -ENAMETOOLONG;
	strcpy(dst, src);
	return 0;
}

int uio_set_root(const char *sysfs_root, const char *dev_root)
{
	char sys[PATH_MAX], dev[PATH_MAX];
	int ret;

	ret = uio_copy_root(sys, sysfs_root, "UIO_SYSFS_ROOT", "/sys");
	if (ret)
		return ret;
	ret = uio_copy_root(dev, dev_root, "UIO_DEV_ROOT", "/dev");
	if (ret)
		return ret;
	/* Only commit both roots once both are valid. */
	strcpy(uio_sysfs_dir, sys);
	strcpy(uio_dev_dir, dev);
	uio_roots_set = true;
	return 0;
}

static void uio_init_roots(void)
{
	if (uio_roots_set)
		return;
	/* An overlong variable falls back to the default root. */
	if (uio_set_root(NULL, NULL))
		uio_set_root("/sys", "/dev");
}

const char *uio_sysfs_root(void)
{
	uio_init_roots();
	return uio_sysfs_dir;
}

const char *uio_dev_root(void)
{
	uio_init_roots();
	return uio_dev_dir;
}

const char *uio_strerror(int err)
{
	if (err < 0)
		err = -err;
	switch (err) {
	case 0:
		return "success";
	case ENODEV:
		return "no such UIO device";
	case ENXIO:
		return "no such map";
	case EACCES:
	case EPERM:
		return "permission denied";
	case EIO:
		return "device gone or without interrupt";
	case EBADMSG:
		return "malformed sysfs entry";
	case EOVERFLOW:
		return "map size, address or offset out of range";
	case ENAMETOOLONG:
		return "name in sysfs too long";
	case ETIMEDOUT:
		return "timed out waiting for an event";
	case ENOSYS:
		return "interrupt control not supported by the driver";
	case ENOMEM:
		return "out of memory";
	case EINVAL:
		return "invalid argument";
	default:
		return "unexpected system error";
	}
}

/* Build "<root>/<fmt...>" into buf; -ENAMETOOLONG if it does not fit. */
static int __printf(4, 5)
uio_path(char *buf, size_t len, const char *root, const char *fmt, ...)
{
	size_t used;
	va_list ap;
	int n;

	n = snprintf(buf, len, "%s/", root);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	used = n;
	va_start(ap, fmt);
	n = vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - used)
		return -ENAMETOOLONG;
	return 0;
}

/*
 * Read a whole attribute, without its trailing newline. A missing file is
 * -ENOENT, an unreadable one -EACCES; the caller decides what they mean.
 * Content that does not fit buf is -ENAMETOOLONG: rejected, not truncated.
 */
static int uio_read_attr(const char *path, char *buf, size_t len)
{
	char data[UIO_ATTR_MAX + 1];
	size_t got = 0;
	ssize_t n;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* One byte more than sysfs ever returns tells "too long". */
	while (got < sizeof(data)) {
		n = read(fd, data + got, sizeof(data) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	err = n < 0 ? -errno : 0;
	close(fd);
	if (err)
		return err;
	if (got == sizeof(data))
		return -ENAMETOOLONG;
	if (got && data[got - 1] == '\n')
		got--;
	data[got] = '\0';
	/* A NUL inside an attribute is not text. */
	if (strlen(data) != got)
		return -EBADMSG;
	if (got >= len)
		return -ENAMETOOLONG;
	memcpy(buf, data, got + 1);
	return 0;
}

/* Parse an unsigned number (decimal, 0x hex or 0 octal), nothing else. */
static int uio_parse_u64(const char *s, uint64_t *val)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -EBADMSG;	/* empty, sign or blank */
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno == ERANGE)
		return -EOVERFLOW;
	if (errno || end == s || *end)
		return -EBADMSG;
	*val = v;
	return 0;
}

static int uio_read_u64(const char *path, uint64_t *val)
{
	char buf[64];
	int ret;

	ret = uio_read_attr(path, buf, sizeof(buf));
	if (ret == -ENAMETOOLONG)
		return -EBADMSG;
	if (ret)
		return ret;
	return uio_parse_u64(buf, val);
}

/* Read a device attribute; missing mandatory files are malformed sysfs. */
static int uio_read_dev_attr(unsigned int number, const char *attr,
			     char *buf, size_t len)
{
	char path[PATH_MAX];
	int ret;

	ret = uio_path(path, sizeof(path), uio_sysfs_root(),
		       "class/uio/uio%u/%s", number, attr);
	if (ret)
		return ret;
	ret = uio_read_attr(path, buf, len);
	return ret == -ENOENT ? -EBADMSG : ret;
}

static int uio_parse_devnum(const char *s, unsigned int *major,
			    unsigned int *minor)
{
	char buf[64], *colon;
	uint64_t ma, mi;

	if (strlen(s) >= sizeof(buf))
		return -EBADMSG;
	strcpy(buf, s);
	colon = strchr(buf, ':');
	if (!colon)
		return -EBADMSG;
	*colon = '\0';
	/* dev is decimal: reject "0x" and octal spellings. */
	if (strspn(buf, "0123456789") != strlen(buf) ||
	    strspn(colon + 1, "0123456789") != strlen(colon + 1))
		return -EBADMSG;
	if (uio_parse_u64(buf, &ma) || uio_parse_u64(colon + 1, &mi))
		return -EBADMSG;
	if (ma > UINT_MAX || mi > UINT_MAX)
		return -EBADMSG;
	*major = ma;
	*minor = mi;
	return 0;
}

/* Basename of a symlink's target into out; "" if there is no link. */
static int uio_link_base(const char *path, char *out, size_t len)
{
	char target[PATH_MAX];
	const char *base;
	ssize_t n;

	out[0] = '\0';
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return errno == ENOENT || errno == EINVAL ? 0 : -errno;
	target[n] = '\0';
	while (n > 1 && target[n - 1] == '/')
		target[--n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (strlen(base) >= len)
		return -ENAMETOOLONG;
	strcpy(out, base);
	return 0;
}

/* Parse "<prefix><M>" strictly: digits only, no leading zeros. */
static bool uio_parse_index(const char *s, const char *prefix,
			    unsigned int *index)
{
	size_t plen = strlen(prefix);
	uint64_t v;

	if (strncmp(s, prefix, plen))
		return false;
	s += plen;
	if (!*s || strspn(s, "0123456789") != strlen(s) ||
	    (s[0] == '0' && s[1]) || strlen(s) > 9)
		return false;
	if (uio_parse_u64(s, &v))
		return false;
	*index = v;
	return true;
}

/*
 * Check that a map can be described with the types we map it with:
 * a size that fits half the address space, and neither addr + size nor
 * offset + size wrapping around.
 */
static int uio_check_map(const struct uio_map_info *m)
{
	if (!m->size)
		return -EBADMSG;
	if (m->size > SIZE_MAX / 2)
		return -EOVERFLOW;
	if (m->addr_known && m->addr > UINT64_MAX - (m->size - 1))
		return -EOVERFLOW;
	if (m->offset > SIZE_MAX / 2 - m->size)
		return -EOVERFLOW;
	return 0;
}

static void uio_read_map(const char *dir, struct uio_map_info *m)
{
	char path[PATH_MAX], name[UIO_NAME_MAX];
	unsigned int index = m->index;
	int ret;

	memset(m, 0, sizeof(*m));
	m->index = index;

	/* Older kernels have no name: absent is "". */
	if (uio_path(path, sizeof(path), dir, "name"))
		goto too_long;
	ret = uio_read_attr(path, name, sizeof(name));
	if (!ret)
		strcpy(m->name, name);
	else if (ret != -ENOENT)
		m->err = ret;

	if (uio_path(path, sizeof(path), dir, "addr"))
		goto too_long;
	ret = uio_read_u64(path, &m->addr);
	if (!ret)
		m->addr_known = true;
	else if (ret != -EACCES && ret != -EPERM && !m->err)
		/* Unreadable addr (kernel address, non-root) is "unknown". */
		m->err = ret == -ENOENT ? -EBADMSG : ret;

	if (uio_path(path, sizeof(path), dir, "size"))
		goto too_long;
	ret = uio_read_u64(path, &m->size);
	if (ret && !m->err)
		m->err = ret == -ENOENT ? -EBADMSG : ret;

	/* Older kernels have no offset: absent is 0. */
	if (uio_path(path, sizeof(path), dir, "offset"))
		goto too_long;
	ret = uio_read_u64(path, &m->offset);
	if (ret && ret != -ENOENT && !m->err)
		m->err = ret;

	if (!m->err)
		m->err = uio_check_map(m);
	return;

too_long:
	m->err = -ENAMETOOLONG;
}

static void uio_read_port(const char *dir, struct uio_port_info *p)
{
	unsigned int index = p->index;
	char path[PATH_MAX];
	int ret = 0;

	memset(p, 0, sizeof(*p));
	p->index = index;

	if (!uio_path(path, sizeof(path), dir, "name")) {
		ret = uio_read_attr(path, p->name, sizeof(p->name));
		if (ret && ret != -ENOENT)
			p->err = ret;
	}
	if (!uio_path(path, sizeof(path), dir, "start")) {
		ret = uio_read_u64(path, &p->start);
		if (ret && !p->err)
			p->err = ret == -ENOENT ? -EBADMSG : ret;
	}
	if (!uio_path(path, sizeof(path), dir, "size")) {
		ret = uio_read_u64(path, &p->size);
		if (ret && !p->err)
			p->err = ret == -ENOENT ? -EBADMSG : ret;
	}
	if (!uio_path(path, sizeof(path), dir, "porttype")) {
		ret = uio_read_attr(path, p->porttype, sizeof(p->porttype));
		if (ret == -ENOENT)
			strcpy(p->porttype, "port_none");
		else if (ret && !p->err)
			p->err = ret == -ENAMETOOLONG ? -EBADMSG : ret;
	}
	if (!p->err && p->size && p->start > UINT64_MAX - (p->size - 1))
		p->err = -EOVERFLOW;
}

/*
 * Collect the region indices of maps/ or portio/ (sorted, gaps allowed).
 * A missing directory means no regions. Indices beyond max are ignored:
 * no kernel has that many.
 */
static int uio_scan_regions(const char *dir, const char *prefix,
			    unsigned int max, bool *used)
{
	struct dirent *de;
	unsigned int index;
	DIR *d;

	memset(used, 0, max * sizeof(*used));
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		if (uio_parse_index(de->d_name, prefix, &index) &&
		    index < max)
			used[index] = true;
	}
	closedir(d);
	return 0;
}

static int uio_read_regions(unsigned int number, struct uio_device_info *info)
{
	char dir[PATH_MAX], sub[PATH_MAX];
	bool used[UIO_MAX_REGIONS];
	unsigned int i;
	int ret;

	ret = uio_path(dir, sizeof(dir), uio_sysfs_root(),
		       "class/uio/uio%u/maps", number);
	if (ret)
		return ret;
	ret = uio_scan_regions(dir, "map", UIO_MAX_MAPS, used);
	if (ret)
		return ret;
	for (i = 0; i < UIO_MAX_MAPS; i++) {
		struct uio_map_info *m = &info->maps[info->nr_maps];

		if (!used[i])
			continue;
		ret = uio_path(sub, sizeof(sub), dir, "map%u", i);
		if (ret)
			return ret;
		m->index = i;
		uio_read_map(sub, m);
		info->nr_maps++;
	}

	ret = uio_path(dir, sizeof(dir), uio_sysfs_root(),
		       "class/uio/uio%u/portio", number);
	if (ret)
		return ret;
	ret = uio_scan_regions(dir, "port", UIO_MAX_PORTS, used);
	if (ret)
		return ret;
	for (i = 0; i < UIO_MAX_PORTS; i++) {
		struct uio_port_info *p = &info->ports[info->nr_ports];

		if (!used[i])
			continue;
		ret = uio_path(sub, sizeof(sub), dir, "port%u", i);
		if (ret)
			return ret;
		p->index = i;
		uio_read_port(sub, p);
		info->nr_ports++;
	}
	return 0;
}

static bool uio_device_exists(unsigned int number)
{
	char path[PATH_MAX];
	struct stat st;

	if (uio_path(path, sizeof(path), uio_sysfs_root(),
		     "class/uio/uio%u", number))
		return false;
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static int uio_read_info_once(unsigned int number,
			      struct uio_device_info *info)
{
	char buf[UIO_NAME_MAX], path[PATH_MAX];
	uint64_t event;
	int ret;

	memset(info, 0, sizeof(*info));
	info->number = number;

	ret = uio_read_dev_attr(number, "name", info->name,
				sizeof(info->name));
	if (ret)
		return ret;
	ret = uio_read_dev_attr(number, "version", info->version,
				sizeof(info->version));
	if (ret)
		return ret;

	ret = uio_read_dev_attr(number, "event", buf, sizeof(buf));
	if (ret)
		return ret == -ENAMETOOLONG ? -EBADMSG : ret;
	/* event is a decimal u32. */
	if (strspn(buf, "0123456789") != strlen(buf) ||
	    uio_parse_u64(buf, &event) || event > UINT32_MAX)
		return -EBADMSG;
	info->event = event;

	ret = uio_read_dev_attr(number, "dev", buf, sizeof(buf));
	if (ret)
		return ret == -ENAMETOOLONG ? -EBADMSG : ret;
	ret = uio_parse_devnum(buf, &info->major, &info->minor);
	if (ret)
		return ret;

	ret = uio_path(path, sizeof(path), uio_sysfs_root(),
		       "class/uio/uio%u/device", number);
	if (ret)
		return ret;
	ret = uio_link_base(path, info->parent, sizeof(info->parent));
	if (ret)
		return ret;
	if (info->parent[0]) {
		ret = uio_path(path, sizeof(path), uio_sysfs_root(),
			       "class/uio/uio%u/device/driver", number);
		if (ret)
			return ret;
		ret = uio_link_base(path, info->driver, sizeof(info->driver));
		if (ret)
			return ret;
	}

	return uio_read_regions(number, info);
}

int uio_read_info(unsigned int number, struct uio_device_info *info)
{
	int ret;

	if (!info)
		return -EINVAL;
	if (!uio_device_exists(number))
		return -ENODEV;
	ret = uio_read_info_once(number, info);
	/* Files vanishing under us means the device went away. */
	if (ret && !uio_device_exists(number))
		return -ENODEV;
	return ret;
}

static int uio_cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a;
	unsigned int y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

int uio_list_devices(unsigned int **numbers, size_t *count)
{
	unsigned int *list = NULL, *bigger, n;
	size_t nr = 0, cap = 0;
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int ret;

	if (!numbers || !count)
		return -EINVAL;
	*numbers = NULL;
	*count = 0;
	ret = uio_path(path, sizeof(path), uio_sysfs_root(), "class/uio");
	if (ret)
		return ret;
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		if (!uio_parse_index(de->d_name, "uio", &n))
			continue;
		if (nr == cap) {
			cap = cap ? cap * 2 : 16;
			bigger = realloc(list, cap * sizeof(*list));
			if (!bigger) {
				ret = -ENOMEM;
				goto free_list;
			}
			list = bigger;
		}
		list[nr++] = n;
	}
	closedir(d);
	if (nr)
		qsort(list, nr, sizeof(*list), uio_cmp_uint);
	*numbers = list;
	*count = nr;
	return 0;

free_list:
	closedir(d);
	free(list);
	return ret;
}

enum uio_match {
	UIO_MATCH_NAME,
	UIO_MATCH_MINOR,
	UIO_MATCH_PARENT,
};

static int uio_find(enum uio_match how, const char *s, unsigned int minor,
		    unsigned int *number)
{
	struct uio_device_info *info;
	unsigned int *list;
	size_t nr, i;
	bool hit;
	int ret;

	if (!number || (how != UIO_MATCH_MINOR && !s))
		return -EINVAL;
	ret = uio_list_devices(&list, &nr);
	if (ret)
		return ret;
	info = malloc(sizeof(*info));
	if (!info) {
		free(list);
		return -ENOMEM;
	}
	ret = -ENODEV;
	for (i = 0; i < nr; i++) {
		if (uio_read_info(list[i], info))
			continue;
		if (how == UIO_MATCH_NAME)
			hit = !strcmp(info->name, s);
		else if (how == UIO_MATCH_PARENT)
			hit = info->parent[0] && !strcmp(info->parent, s);
		else
			hit = info->minor == minor;
		if (hit) {
			*number = list[i];
			ret = 0;
			break;
		}
	}
	free(info);
	free(list);
	return ret;
}

int uio_find_by_name(const char *name, unsigned int *number)
{
	return uio_find(UIO_MATCH_NAME, name, 0, number);
}

int uio_find_by_minor(unsigned int minor, unsigned int *number)
{
	return uio_find(UIO_MATCH_MINOR, NULL, minor, number);
}

int uio_find_by_parent(const char *parent, unsigned int *number)
{
	return uio_find(UIO_MATCH_PARENT, parent, 0, number);
}

int uio_find_vector(const char *parent, unsigned int vector,
		    unsigned int *number)
{
	char path[PATH_MAX], target[PATH_MAX];
	const char *base;
	unsigned int first;
	ssize_t len;
	int ret;

	ret = uio_find_by_parent(parent, &first);
	if (ret || !vector) {
		if (!ret)
			*number = first;
		return ret;
	}
	/* Vector 0's device link leads to the parent, which links the rest. */
	ret = uio_path(path, sizeof(path), uio_sysfs_root(),
		       "class/uio/uio%u/device/uio_vector%u", first, vector);
	if (ret)
		return ret;
	len = readlink(path, target, sizeof(target) - 1);
	if (len < 0)
		return errno == ENOENT ? -ENODEV : -errno;
	target[len] = '\0';
	base = strrchr(target, '/');
	if (!uio_parse_index(base ? base + 1 : target, "uio", number))
		return -ENODEV;
	return 0;
}

int uio_open(unsigned int number, struct uio_dev **devp)
{
	char path[PATH_MAX];
	struct uio_dev *dev;
	int ret;

	if (!devp)
		return -EINVAL;
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	ret = uio_read_info(number, &dev->info);
	if (ret)
		goto free_dev;
	ret = uio_path(path, sizeof(path), uio_dev_root(), "uio%u", number);
	if (ret)
		goto free_dev;
	dev->fd = open(path, O_RDWR | O_CLOEXEC);
	if (dev->fd < 0) {
		ret = errno == ENOENT ? -ENODEV : -errno;
		goto free_dev;
	}
	/* The kernel starts this open file at the current count, too. */
	dev->last_event = dev->info.event;
	*devp = dev;
	return 0;

free_dev:
	free(dev);
	return ret;
}

int uio_open_by_name(const char *name, struct uio_dev **devp)
{
	unsigned int number;
	int ret;

	ret = uio_find_by_name(name, &number);
	return ret ? ret : uio_open(number, devp);
}

int uio_open_by_parent(const char *parent, struct uio_dev **devp)
{
	unsigned int number;
	int ret;

	ret = uio_find_by_parent(parent, &number);
	return ret ? ret : uio_open(number, devp);
}

int uio_open_vector(const char *parent, unsigned int vector,
		    struct uio_dev **devp)
{
	unsigned int number;
	int ret;

	ret = uio_find_vector(parent, vector, &number);
	return ret ? ret : uio_open(number, devp);
}

void uio_close(struct uio_dev *dev)
{
	unsigned int i;

	if (!dev)
		return;
	for (i = 0; i < UIO_MAX_MAPS; i++)
		uio_unmap(dev, i);
	close(dev->fd);
	free(dev);
}

const struct uio_device_info *uio_info(const struct uio_dev *dev)
{
	return &dev->info;
}

int uio_fd(const struct uio_dev *dev)
{
	return dev->fd;
}

static const struct uio_map_info *uio_find_map(const struct uio_dev *dev,
					       unsigned int index)
{
	unsigned int i;

	for (i = 0; i < dev->info.nr_maps; i++)
		if (dev->info.maps[i].index == index)
			return &dev->info.maps[i];
	return NULL;
}

int uio_map(struct uio_dev *dev, unsigned int index, void **ptr,
	    size_t *size)
{
	const struct uio_map_info *m;
	size_t page, len, inpage;
	struct uio_mapping *mp;
	void *base;

	if (!dev || !ptr)
		return -EINVAL;
	m = index < UIO_MAX_MAPS ? uio_find_map(dev, index) : NULL;
	if (!m)
		return -ENXIO;
	if (m->err)
		return m->err;
	page = sysconf(_SC_PAGESIZE);
	/*
	 * The kernel maps the pages that addr .. addr + size - 1 touches,
	 * from the page addr is in. The region starts offset bytes into
	 * addr's page: stubs page-align addr and give the region's place in
	 * offset (uio_pci_generic, uio_cif), or give an unaligned addr and
	 * offset 0 (Linux 6.1's uio_pdrv_genirq); addr % page + offset is
	 * right for both. An unreadable addr counts as page aligned.
	 * uio_check_map() keeps offset + size far from SIZE_MAX.
	 */
	inpage = m->addr_known ? m->addr & (page - 1) : 0;
	len = (inpage + m->size + page - 1) & ~(page - 1);
	if (m->offset >= page || inpage + m->offset >= len)
		return -EOVERFLOW;
	mp = &dev->mappings[index];
	if (!mp->base) {
		base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
			    dev->fd, (off_t)index * page);
		if (base == MAP_FAILED)
			return -errno;
		mp->base = base;
		mp->len = len;
	}
	*ptr = (char *)mp->base + inpage + m->offset;
	if (size)
		*size = m->size;
	return 0;
}

int uio_map_by_name(struct uio_dev *dev, const char *name, void **ptr,
		    size_t *size)
{
	unsigned int i;

	if (!dev || !name)
		return -EINVAL;
	for (i = 0; i < dev->info.nr_maps; i++)
		if (!strcmp(dev->info.maps[i].name, name))
			return uio_map(dev, dev->info.maps[i].index, ptr, size);
	return -ENXIO;
}

int uio_unmap(struct uio_dev *dev, unsigned int index)
{
	struct uio_mapping *mp;

	if (!dev)
		return -EINVAL;
	if (index >= UIO_MAX_MAPS || !dev->mappings[index].base)
		return -ENXIO;
	mp = &dev->mappings[index];
	munmap(mp->base, mp->len);
	mp->base = NULL;
	mp->len = 0;
	return 0;
}

/* Read class/uio/uio<number>/dma/<file> as a number. */
static int uio_read_dma_u64(unsigned int number, const char *file,
			    uint64_t *val)
{
	char path[PATH_MAX];
	int ret;

	ret = uio_path(path, sizeof(path), uio_sysfs_root(),
		       "class/uio/uio%u/dma/%s", number, file);
	return ret ? ret : uio_read_u64(path, val);
}

static int uio_read_dma_buf(unsigned int number, unsigned int index,
			    uint64_t size, struct uio_dma_buf_info *b)
{
	char file[32];
	int ret;

	b->index = index;
	b->size = size;
	snprintf(file, sizeof(file), "buf%u/offset", index);
	ret = uio_read_dma_u64(number, file, &b->offset);
	if (ret)
		return ret == -ENOENT ? -EBADMSG : ret;
	snprintf(file, sizeof(file), "buf%u/dma_addr", index);
	ret = uio_read_dma_u64(number, file, &b->dma_addr);
	/* ENODATA: not allocated, nobody has the device open. */
	b->dma_addr_known = !ret;
	return ret && ret != -ENODATA ? ret : 0;
}

int uio_read_dma(unsigned int number, struct uio_dma_info *dma)
{
	char path[PATH_MAX];
	uint64_t count, bits;
	unsigned int i;
	int ret;

	if (!dma)
		return -EINVAL;
	memset(dma, 0, sizeof(*dma));
	if (!uio_device_exists(number))
		return -ENODEV;
	ret = uio_read_dma_u64(number, "count", &count);
	if (ret)
		return ret;
	if (count > UIO_MAX_DMA_BUFS)
		return -EBADMSG;
	ret = uio_read_dma_u64(number, "size", &dma->size);
	if (!ret)
		ret = uio_read_dma_u64(number, "dma_mask", &bits);
	if (!ret)
		ret = uio_path(path, sizeof(path), uio_sysfs_root(),
			       "class/uio/uio%u/dma/iommu", number);
	if (!ret)
		ret = uio_read_attr(path, dma->iommu, sizeof(dma->iommu));
	if (ret)
		return ret == -ENOENT || ret == -ENAMETOOLONG ? -EBADMSG : ret;
	dma->mask_bits = bits;
	dma->count = count;
	for (i = 0; i < dma->count; i++) {
		ret = uio_read_dma_buf(number, i, dma->size, &dma->bufs[i]);
		if (ret)
			return ret;
	}
	return 0;
}

int uio_dma_map(struct uio_dev *dev, unsigned int index, void **ptr,
		struct uio_dma_buf_info *buf)
{
	struct uio_dma_info dma;
	void *base;
	int ret;

	if (!dev || !ptr || !buf)
		return -EINVAL;
	ret = uio_read_dma(dev->info.number, &dma);
	if (ret == -ENOENT)
		return -ENXIO;
	if (ret)
		return ret;
	if (index >= dma.count || !dma.bufs[index].dma_addr_known)
		return -ENXIO;
	base = mmap(NULL, dma.size, PROT_READ | PROT_WRITE, MAP_SHARED,
		    dev->fd, (off_t)dma.bufs[index].offset);
	if (base == MAP_FAILED)
		return -errno;
	*ptr = base;
	*buf = dma.bufs[index];
	return 0;
}

static int64_t uio_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int uio_wait(struct uio_dev *dev, int timeout_ms, uint32_t *count,
	     uint32_t *missed)
{
	int64_t deadline = 0, left;
	struct pollfd pfd;
	int32_t val;
	ssize_t n;
	int ret;

	if (!dev)
		return -EINVAL;
	if (timeout_ms > 0)
		deadline = uio_now_ms() + timeout_ms;
	for (;;) {
		left = timeout_ms;
		if (timeout_ms > 0) {
			left = deadline - uio_now_ms();
			if (left < 0)
				left = 0;
		}
		pfd.fd = dev->fd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		ret = poll(&pfd, 1, (int)left);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0)
			return -errno;
		if (!ret)
			return -ETIMEDOUT;
		/*
		 * Readable or error: read() tells which (EIO when the device
		 * is gone). EAGAIN only if the caller made the fd
		 * non-blocking and someone else consumed the event.
		 */
		do {
			n = read(dev->fd, &val, sizeof(val));
		} while (n < 0 && errno == EINTR);
		if (n < 0 && errno == EAGAIN)
			continue;
		if (n < 0)
			return -errno;
		if (n != sizeof(val))
			return -EBADMSG;
		break;
	}
	if (count)
		*count = (uint32_t)val;
	if (missed)
		*missed = (uint32_t)val - dev->last_event - 1;
	dev->last_event = (uint32_t)val;
	return 0;
}

int uio_irq_control(struct uio_dev *dev, bool enable)
{
	int32_t val = enable ? 1 : 0;
	ssize_t n;

	if (!dev)
		return -EINVAL;
	do {
		n = write(dev->fd, &val, sizeof(val));
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n == sizeof(val) ? 0 : -EIO;
}
