// SPDX-License-Identifier: GPL-2.0
/*
 * cifctl - poke a Hilscher CIF card through uio_cif
 *
 *   cifctl [-d N] info            identity, maps and INTCSR
 *   cifctl [-d N] mailbox TEXT    echo TEXT through the mailbox
 *   cifctl [-d N] cycles COUNT [PERIOD_US]
 *                                 run COUNT process-image cycles
 *
 * Exit status: 0 success, 1 usage, 2 device or protocol error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libuio.h"
#include "cif.h"

#define CIFCTL_TIMEOUT_MS	2000	/* per answer or cycle */

static int cifctl_usage(void)
{
	fprintf(stderr,
		"usage: cifctl [-d N] info\n"
		"       cifctl [-d N] mailbox TEXT\n"
		"       cifctl [-d N] cycles COUNT [PERIOD_US]\n"
		"  -d N   use /dev/uioN instead of the first CIF card\n");
	return 1;
}

static int cifctl_info(struct cif *cif)
{
	const struct uio_device_info *info = uio_info(cif->dev);
	unsigned int i;

	printf("device:\t/dev/uio%u\nname:\t%s\nversion:\t%s\n",
	       cif->uio, info->name, info->version);
	for (i = 0; i < info->nr_maps; i++)
		printf("map%u:\t%s 0x%llx 0x%llx\n", info->maps[i].index,
		       info->maps[i].name,
		       (unsigned long long)info->maps[i].addr,
		       (unsigned long long)info->maps[i].size);
	printf("signature:\t0x%08x\nfirmware:\t0x%08x\nintcsr:\t0x%08x\n",
	       cif_dp_read(cif, CIF_DP_SIGNATURE),
	       cif_dp_read(cif, CIF_DP_FW_VERSION),
	       cif_plx_read(cif, CIF_PLX_INTCSR));
	return 0;
}

static int cifctl_mailbox(struct cif *cif, const char *text)
{
	struct cif_answer ans;
	int ret;

	ret = cif_mbx_send(cif, CIF_CMD_ECHO, text, strlen(text));
	if (!ret)
		ret = cif_mbx_recv(cif, &ans, CIFCTL_TIMEOUT_MS);
	cif_irq_enable(cif, 0);
	if (ret) {
		fprintf(stderr, "cifctl: mailbox: %s\n", uio_strerror(ret));
		return 2;
	}
	printf("status %u len %u: %.*s\n", ans.status, ans.len,
	       (int)ans.len, (char *)ans.data);
	return ans.status == CIF_STATUS_OK ? 0 : 2;
}

static int cifctl_cycles(struct cif *cif, unsigned long n,
			 unsigned long period)
{
	uint32_t pi[4];
	unsigned long i;
	long ret = 0;

	cif_cycle_start(cif, period, n);
	for (i = 0; i < n; i++) {
		ret = cif_cycle_wait(cif, pi, 4, CIFCTL_TIMEOUT_MS);
		if (ret < 0)
			break;
		printf("cycle %ld: %u %u %u %u\n", ret, pi[0], pi[1], pi[2],
		       pi[3]);
	}
	cif_cycle_stop(cif);
	cif_irq_enable(cif, 0);
	if (ret < 0) {
		fprintf(stderr, "cifctl: cycle %lu: %s\n", i + 1,
			uio_strerror(ret));
		return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long n, period = 1000;
	struct cif cif;
	int uio = -1;
	int opt, ret;

	while ((opt = getopt(argc, argv, "d:h")) != -1) {
		switch (opt) {
		case 'd':
			uio = atoi(optarg);
			break;
		default:
			return cifctl_usage();
		}
	}
	if (optind >= argc)
		return cifctl_usage();
	if (uio < 0)
		uio = cif_find();
	if (uio < 0) {
		fprintf(stderr, "cifctl: no CIF card found\n");
		return 2;
	}
	ret = cif_open(&cif, uio);
	if (ret) {
		fprintf(stderr, "cifctl: /dev/uio%d: %s\n", uio,
			uio_strerror(ret));
		return 2;
	}

	if (!strcmp(argv[optind], "info") && argc == optind + 1) {
		ret = cifctl_info(&cif);
	} else if (!strcmp(argv[optind], "mailbox") && argc == optind + 2) {
		ret = cifctl_mailbox(&cif, argv[optind + 1]);
	} else if (!strcmp(argv[optind], "cycles") && argc >= optind + 2 &&
		   argc <= optind + 3) {
		n = strtoul(argv[optind + 1], NULL, 0);
		if (argc == optind + 3)
			period = strtoul(argv[optind + 2], NULL, 0);
		ret = n ? cifctl_cycles(&cif, n, period) : cifctl_usage();
	} else {
		ret = cifctl_usage();
	}
	cif_close(&cif);
	return ret;
}
