/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Hilscher CIF card as modelled by QEMU's hilscher-cif device: layout of
 * the PLX 9030 INTCSR register and of the simplified firmware interface
 * in the 8 KiB dual-ported RAM.  Shared by the QEMU model, the user-space
 * driver (tools/uio/cif) and the selftests, so it is plain C with no
 * kernel or QEMU types.  qemu/docs/specs/hilscher-cif.txt is the prose.
 *
 * All DPRAM cells are 32-bit little-endian words at the offsets below.
 */
#ifndef CIF_DPRAM_H
#define CIF_DPRAM_H

/* PCI identity: a PLX 9030 bridge, told apart by its subsystem IDs. */
#define CIF_PCI_VENDOR_PLX		0x10b5
#define CIF_PCI_DEVICE_PLX9030		0x9030
#define CIF_PCI_SUBVENDOR_HILSCHER	0x1518
#define CIF_PCI_SUBDEVICE_PROFIBUS	0x0430
#define CIF_PCI_SUBDEVICE_DEVICENET	0x0432

/* BAR0: PLX 9030 local configuration registers */
#define CIF_BAR0_SIZE		0x80
#define CIF_PLX_LAS0RR		0x00	/* RO, local space 0 range */
#define CIF_PLX_LAS0RR_RESET	0x0fffe000u	/* 8 KiB memory window */
#define CIF_PLX_LAS0BA		0x14	/* RO, local space 0 base */
#define CIF_PLX_LAS0BA_RESET	0x00000001u	/* enabled, at 0 */
#define CIF_PLX_INTCSR		0x4c	/* interrupt control/status */
#define CIF_INTCSR_INT1_EN	0x01u	/* RW, local INT1 enable */
#define CIF_INTCSR_INT1_POL	0x02u	/* RW, INT1 active high */
#define CIF_INTCSR_INT1_STAT	0x04u	/* RO, card requests INT1 */
#define CIF_INTCSR_PCI_EN	0x40u	/* RW, PCI INTA# enable */
#define CIF_INTCSR_RESET	(CIF_INTCSR_INT1_POL | CIF_INTCSR_PCI_EN)

/* BAR2: dual-ported RAM */
#define CIF_DPRAM_SIZE		0x2000

/* Identification, written by the card at reset */
#define CIF_DP_SIGNATURE	0x0000	/* CIF_SIGNATURE */
#define CIF_SIGNATURE		0x31464943u	/* "CIF1" */
#define CIF_DP_FW_VERSION	0x0004	/* CIF_FW_VERSION */
#define CIF_FW_VERSION		0x00010000u	/* 1.0 */

/* Cyclic process-image update (see the spec for the pacing rule) */
#define CIF_DP_CYCLE_US		0x0010	/* period; reset: cycle-us */
#define CIF_DP_CYCLE_LIMIT	0x0014	/* stop after N cycles, 0: never */
#define CIF_DP_CYCLE_CTRL	0x0018	/* write 1: start, 0: stop */
#define CIF_CYCLE_RUN		0x1u
#define CIF_DP_CYCLE_COUNT	0x001c	/* cycles posted since start */
#define CIF_DP_CYCLE_FLAG	0x0020	/* card: 1 = new image, host: 0 */
#define CIF_DP_CYCLE_DEFER	0x0024	/* cycles held back for the ack */
#define CIF_CYCLE_MIN_US	100u	/* shorter periods are raised */

/* Mailbox flag cell values */
#define CIF_MBX_EMPTY		0x0u
#define CIF_MBX_FULL		0x1u

/* Mailbox commands and answer status words */
#define CIF_CMD_ECHO		0x1u	/* answer = copy of the payload */
#define CIF_STATUS_OK		0x0u
#define CIF_STATUS_BAD_CMD	0x1u
#define CIF_STATUS_BAD_LEN	0x2u

/* Host to card mailbox */
#define CIF_DP_H2C_FLAG		0x0100	/* host sets FULL, card EMPTY */
#define CIF_DP_H2C_CMD		0x0104
#define CIF_DP_H2C_LEN		0x0108	/* payload bytes */
#define CIF_DP_H2C_DATA		0x0110

/* Card to host mailbox */
#define CIF_DP_C2H_FLAG		0x0400	/* card sets FULL, host EMPTY */
#define CIF_DP_C2H_CMD		0x0404	/* command being answered */
#define CIF_DP_C2H_LEN		0x0408
#define CIF_DP_C2H_STATUS	0x040c	/* CIF_STATUS_* */
#define CIF_DP_C2H_DATA		0x0410

#define CIF_MBX_DATA_SIZE	0x0200	/* payload bytes per mailbox */

/* Input process image, rewritten every cycle: word i = count + i */
#define CIF_DP_PI_IN		0x1000
#define CIF_PI_WORDS		64

/* Free for the host, never touched by the card */
#define CIF_DP_SCRATCH		0x1800
#define CIF_SCRATCH_SIZE	0x0800

#endif /* CIF_DPRAM_H */
