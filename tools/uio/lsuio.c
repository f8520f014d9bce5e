// SPDX-License-Identifier: GPL-2.0
/*
 * lsuio - list UIO devices
 *
 * A thin front end of libuio: one line per device by default, maps with
 * -m, everything with -v, and a versioned JSON document with --json (the
 * only output whose format is stable; see lsuio.8).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libuio.h"

#define LSUIO_VERSION		"1.0"
#define LSUIO_JSON_VERSION	1	/* bump on any incompatible change */

static int opt_maps;		/* -m: show the maps */
static int opt_verbose;		/* -v: show the node, maps and port regions */
static int opt_json;		/* --json: machine-readable output */

static void lsuio_usage(FILE *f)
{
	fprintf(f,
		"Usage: lsuio [<options>]\n"
		"List the Userspace I/O (UIO) devices, one line each.\n"
		"\n"
		"Display options:\n"
		"  -m, --maps\t\tshow each device's memory maps and DMA buffers\n"
		"  -v, --verbose\t\tshow the /dev node, maps and port regions\n"
		"\n"
		"Machine-readable output:\n"
		"  -j, --json\t\tprint a JSON document (format version %d,\n"
		"\t\t\tthe only stable format; see lsuio(8))\n"
		"\n"
		"Other:\n"
		"  -h, --help\t\tshow this help\n"
		"  -V, --version\t\tshow the version\n"
		"\n"
		"Environment: UIO_SYSFS_ROOT (default /sys) and UIO_DEV_ROOT\n"
		"(default /dev) select the trees to read.\n"
		"Exit status: 0 ok, 1 usage error, 2 a device could not be read.\n",
		LSUIO_JSON_VERSION);
}

/* " key=0x..." or " key=<unknown>" */
static void lsuio_print_addr(const char *key, bool known, uint64_t addr,
			     const char *unknown)
{
	if (known)
		printf(" %s=0x%" PRIx64, key, addr);
	else
		printf(" %s=%s", key, unknown);
}

static void lsuio_print_map(const struct uio_map_info *m)
{
	if (m->err) {
		printf("\tmap%u: error: %s\n", m->index, uio_strerror(m->err));
		return;
	}
	printf("\tmap%u: %s", m->index, m->name[0] ? m->name : "-");
	lsuio_print_addr("addr", m->addr_known, m->addr, "unknown");
	printf(" size=0x%" PRIx64 " offset=0x%" PRIx64 "\n", m->size,
	       m->offset);
}

static void lsuio_print_port(const struct uio_port_info *p)
{
	if (p->err) {
		printf("\tport%u: error: %s\n", p->index, uio_strerror(p->err));
		return;
	}
	printf("\tport%u: %s start=0x%" PRIx64 " size=0x%" PRIx64 " type=%s\n",
	       p->index, p->name[0] ? p->name : "-", p->start, p->size,
	       p->porttype);
}

/* The DMA buffer pool, if the device has one. Return: false on an error. */
static bool lsuio_print_dma(unsigned int number)
{
	const struct uio_dma_buf_info *b;
	struct uio_dma_info dma;
	unsigned int i;
	int ret;

	ret = uio_read_dma(number, &dma);
	if (ret == -ENOENT)
		return true;
	if (ret) {
		printf("\tdma: error: %s\n", uio_strerror(ret));
		return false;
	}
	printf("\tdma: buffers=%u size=0x%" PRIx64 " mask=%u iommu=%s\n",
	       dma.count, dma.size, dma.mask_bits, dma.iommu);
	for (i = 0; i < dma.count; i++) {
		b = &dma.bufs[i];
		printf("\tbuf%u:", b->index);
		lsuio_print_addr("dma_addr", b->dma_addr_known, b->dma_addr,
				 "unallocated");
		printf(" size=0x%" PRIx64 " offset=0x%" PRIx64 "\n", b->size,
		       b->offset);
	}
	return true;
}

/* Return: true if every region could be read. */
static bool lsuio_print_plain(const struct uio_device_info *info)
{
	bool ok = true;
	unsigned int i;

	printf("uio%u %s %s events=%" PRIu32 " parent=%s driver=%s\n",
	       info->number, info->name, info->version, info->event,
	       info->parent[0] ? info->parent : "-",
	       info->driver[0] ? info->driver : "-");
	if (opt_verbose)
		printf("\tnode: %s/uio%u dev=%u:%u\n", uio_dev_root(),
		       info->number, info->major, info->minor);
	for (i = 0; i < info->nr_maps; i++) {
		if (opt_maps || opt_verbose)
			lsuio_print_map(&info->maps[i]);
		ok &= !info->maps[i].err;
	}
	if (opt_maps || opt_verbose)
		ok &= lsuio_print_dma(info->number);
	for (i = 0; i < info->nr_ports; i++) {
		if (opt_verbose)
			lsuio_print_port(&info->ports[i]);
		ok &= !info->ports[i].err;
	}
	return ok;
}

/* Print a JSON string; bytes outside printable ASCII become \u00XX. */
static void lsuio_json_str(const char *s)
{
	const unsigned char *p;

	putchar('"');
	for (p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if (*p < 0x20 || *p >= 0x7f)
			printf("\\u%04x", *p);
		else
			putchar(*p);
	}
	putchar('"');
}

static void lsuio_json_str_or_null(const char *s)
{
	if (s[0])
		lsuio_json_str(s);
	else
		printf("null");
}

static void lsuio_json_error(int err)
{
	printf("\"error\":");
	lsuio_json_str(uio_strerror(err));
	printf(",\"errno\":%d", err < 0 ? -err : err);
}

static bool lsuio_print_json(const struct uio_device_info *info)
{
	bool ok = true;
	unsigned int i;

	printf("{\"device\":\"uio%u\",\"number\":%u,\"name\":", info->number,
	       info->number);
	lsuio_json_str(info->name);
	printf(",\"version\":");
	lsuio_json_str(info->version);
	printf(",\"events\":%" PRIu32 ",\"major\":%u,\"minor\":%u,\"parent\":",
	       info->event, info->major, info->minor);
	lsuio_json_str_or_null(info->parent);
	printf(",\"driver\":");
	lsuio_json_str_or_null(info->driver);
	printf(",\"maps\":[");
	for (i = 0; i < info->nr_maps; i++) {
		const struct uio_map_info *m = &info->maps[i];

		printf("%s{\"index\":%u,", i ? "," : "", m->index);
		if (m->err) {
			lsuio_json_error(m->err);
			ok = false;
		} else {
			printf("\"name\":");
			lsuio_json_str(m->name);
			if (m->addr_known)
				printf(",\"addr\":\"0x%" PRIx64 "\"", m->addr);
			else
				printf(",\"addr\":null");
			printf(",\"size\":%" PRIu64 ",\"offset\":%" PRIu64,
			       m->size, m->offset);
		}
		putchar('}');
	}
	printf("],\"portio\":[");
	for (i = 0; i < info->nr_ports; i++) {
		const struct uio_port_info *p = &info->ports[i];

		printf("%s{\"index\":%u,", i ? "," : "", p->index);
		if (p->err) {
			lsuio_json_error(p->err);
			ok = false;
		} else {
			printf("\"name\":");
			lsuio_json_str(p->name);
			printf(",\"start\":%" PRIu64 ",\"size\":%" PRIu64
			       ",\"porttype\":", p->start, p->size);
			lsuio_json_str(p->porttype);
		}
		putchar('}');
	}
	printf("]}");
	return ok;
}

static const struct option lsuio_options[] = {
	{ "maps",	no_argument,	NULL, 'm' },
	{ "verbose",	no_argument,	NULL, 'v' },
	{ "json",	no_argument,	NULL, 'j' },
	{ "help",	no_argument,	NULL, 'h' },
	{ "version",	no_argument,	NULL, 'V' },
	{ NULL,		0,		NULL, 0 }
};

int main(int argc, char **argv)
{
	struct uio_device_info *info;
	unsigned int *list;
	int c, ret, status = 0;
	size_t nr, i;

	while ((c = getopt_long(argc, argv, "mvjhV", lsuio_options,
				NULL)) != -1) {
		switch (c) {
		case 'm':
			opt_maps++;
			break;
		case 'v':
			opt_verbose++;
			break;
		case 'j':
			opt_json++;
			break;
		case 'h':
			lsuio_usage(stdout);
			return 0;
		case 'V':
			printf("lsuio %s (JSON format %d)\n", LSUIO_VERSION,
			       LSUIO_JSON_VERSION);
			return 0;
		default:
			lsuio_usage(stderr);
			return 1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "lsuio: unexpected argument '%s'\n",
			argv[optind]);
		lsuio_usage(stderr);
		return 1;
	}

	ret = uio_list_devices(&list, &nr);
	if (ret) {
		fprintf(stderr, "lsuio: %s/class/uio: %s\n", uio_sysfs_root(),
			uio_strerror(ret));
		return 2;
	}
	info = malloc(sizeof(*info));
	if (!info) {
		fprintf(stderr, "lsuio: %s\n", uio_strerror(-ENOMEM));
		free(list);
		return 2;
	}

	if (opt_json)
		printf("{\"lsuio_json_version\":%d,\"devices\":[",
		       LSUIO_JSON_VERSION);
	for (i = 0; i < nr; i++) {
		if (opt_json)
			printf("%s\n", i ? "," : "");
		ret = uio_read_info(list[i], info);
		if (ret) {
			status = 2;
			fprintf(stderr, "lsuio: uio%u: %s\n", list[i],
				uio_strerror(ret));
			if (opt_json) {
				printf("{\"device\":\"uio%u\",\"number\":%u,",
				       list[i], list[i]);
				lsuio_json_error(ret);
				putchar('}');
			}
			continue;
		}
		if (!(opt_json ? lsuio_print_json(info) :
		      lsuio_print_plain(info)))
			status = 2;
	}
	if (opt_json)
		printf("\n]}\n");
	free(info);
	free(list);
	if (fflush(stdout))
		status = 2;
	return status;
}
