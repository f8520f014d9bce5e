/*
 * Hilscher CIF fieldbus card (Profibus / DeviceNet) behind a PLX 9030
 *
 * BAR0 holds the PLX local configuration registers, of which INTCSR is
 * modelled; BAR2 is the card's 8 KiB dual-ported RAM with a small
 * firmware model: an echoing mailbox and an optional cyclic
 * process-image update.  See docs/specs/hilscher-cif.txt; the DPRAM
 * layout lives in include/hw/misc/cif_dpram.h, shared with the guest
 * side driver and tests.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "hw/pci/pci.h"
#include "hw/qdev-properties.h"
#include "hw/registerfields.h"
#include "hw/misc/cif_dpram.h"
#include "migration/vmstate.h"
#include "qom/object.h"
#include "trace.h"

#define TYPE_HILSCHER_CIF "hilscher-cif"
OBJECT_DECLARE_SIMPLE_TYPE(HilscherCIFState, HILSCHER_CIF)

/* PLX 9030 local configuration registers (BAR0) */
REG32(LAS0RR, CIF_PLX_LAS0RR)
REG32(LAS0BA, CIF_PLX_LAS0BA)
REG32(INTCSR, CIF_PLX_INTCSR)
    FIELD(INTCSR, INT1_EN, 0, 1)
    FIELD(INTCSR, INT1_POL, 1, 1)
    FIELD(INTCSR, INT1_STAT, 2, 1)
    FIELD(INTCSR, PCI_EN, 6, 1)

/* Bits of INTCSR the guest may change; INT1_STAT follows the card. */
#define CIF_INTCSR_WMASK \
    (R_INTCSR_INT1_EN_MASK | R_INTCSR_INT1_POL_MASK | R_INTCSR_PCI_EN_MASK)

/* Virtual time the firmware takes to answer a mailbox message. */
#define CIF_FW_ANSWER_NS (50 * SCALE_US)

struct HilscherCIFState {
    /*< private >*/
    PCIDevice parent_obj;
    /*< public >*/

    MemoryRegion plx;
    MemoryRegion dpram_io;

    /* INTCSR without INT1_STAT, which is derived from the DPRAM flags */
    uint32_t intcsr;
    uint8_t dpram[CIF_DPRAM_SIZE];

    QEMUTimer *fw_timer;        /* mailbox answer */
    QEMUTimer *cycle_timer;     /* next process-image update */
    bool h2c_pending;           /* message seen, not yet answered */
    bool cycle_pending;         /* cycle due, waiting for the host ack */

    /* properties */
    uint16_t subdevice;
    uint32_t cycle_us;
};

static uint32_t cif_dp_get(HilscherCIFState *s, hwaddr off)
{
    return ldl_le_p(s->dpram + off);
}

static void cif_dp_set(HilscherCIFState *s, hwaddr off, uint32_t val)
{
    stl_le_p(s->dpram + off, val);
}

static bool cif_int1_active(HilscherCIFState *s)
{
    return cif_dp_get(s, CIF_DP_C2H_FLAG) != CIF_MBX_EMPTY ||
           cif_dp_get(s, CIF_DP_CYCLE_FLAG) != 0;
}

static uint32_t cif_intcsr_read(HilscherCIFState *s)
{
    return FIELD_DP32(s->intcsr, INTCSR, INT1_STAT, cif_int1_active(s));
}

/*
 * INTA# is a level: asserted while the card requests INT1 and both the
 * local and the PCI side enable it.  The model wires INT1 as active high
 * whatever INT1_POL says; the bit is only stored.
 */
static void cif_update_irq(HilscherCIFState *s)
{
    bool level = FIELD_EX32(s->intcsr, INTCSR, PCI_EN) &&
                 FIELD_EX32(s->intcsr, INTCSR, INT1_EN) &&
                 cif_int1_active(s);

    trace_hilscher_cif_intx(level);
    pci_set_irq(PCI_DEVICE(s), level);
}

static uint64_t cif_plx_read(void *opaque, hwaddr addr, unsigned size)
{
    HilscherCIFState *s = opaque;
    unsigned shift = (addr & 3) * 8;
    uint32_t val;

    switch (addr & ~3ULL) {
    case A_LAS0RR:
        val = CIF_PLX_LAS0RR_RESET;
        break;
    case A_LAS0BA:
        val = CIF_PLX_LAS0BA_RESET;
        break;
    case A_INTCSR:
        val = cif_intcsr_read(s);
        break;
    default:
        qemu_log_mask(LOG_UNIMP, "%s: unmodelled PLX register 0x%02"
                      HWADDR_PRIx "\n", __func__, addr);
        return 0;
    }
    return extract32(val, shift, size * 8);
}

static void cif_plx_write(void *opaque, hwaddr addr, uint64_t val64,
                          unsigned size)
{
    HilscherCIFState *s = opaque;
    unsigned shift = (addr & 3) * 8;

    switch (addr & ~3ULL) {
    case A_LAS0RR:
    case A_LAS0BA:
        qemu_log_mask(LOG_GUEST_ERROR, "%s: PLX register 0x%02" HWADDR_PRIx
                      " is read-only in this model\n", __func__, addr);
        break;
    case A_INTCSR: {
        uint32_t v = deposit32(s->intcsr, shift, size * 8, val64);

        s->intcsr = v & CIF_INTCSR_WMASK;
        trace_hilscher_cif_intcsr_write(s->intcsr);
        cif_update_irq(s);
        break;
    }
    default:
        qemu_log_mask(LOG_UNIMP, "%s: unmodelled PLX register 0x%02"
                      HWADDR_PRIx "\n", __func__, addr);
        break;
    }
}

static const MemoryRegionOps cif_plx_ops = {
    .read = cif_plx_read,
    .write = cif_plx_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 1,
        .max_access_size = 4,
    },
    .impl = {
        .min_access_size = 1,
        .max_access_size = 4,
    },
};

/* Answer the pending host message, unless the host still owns c2h. */
static void cif_fw_answer(void *opaque)
{
    HilscherCIFState *s = opaque;
    uint32_t cmd, len, status;

    if (!s->h2c_pending ||
        cif_dp_get(s, CIF_DP_C2H_FLAG) != CIF_MBX_EMPTY) {
        return;
    }
    cmd = cif_dp_get(s, CIF_DP_H2C_CMD);
    len = cif_dp_get(s, CIF_DP_H2C_LEN);
    if (cmd != CIF_CMD_ECHO) {
        status = CIF_STATUS_BAD_CMD;
        len = 0;
    } else if (len > CIF_MBX_DATA_SIZE) {
        status = CIF_STATUS_BAD_LEN;
        len = 0;
    } else {
        status = CIF_STATUS_OK;
        memcpy(s->dpram + CIF_DP_C2H_DATA, s->dpram + CIF_DP_H2C_DATA, len);
    }
    cif_dp_set(s, CIF_DP_C2H_CMD, cmd);
    cif_dp_set(s, CIF_DP_C2H_LEN, len);
    cif_dp_set(s, CIF_DP_C2H_STATUS, status);
    cif_dp_set(s, CIF_DP_H2C_FLAG, CIF_MBX_EMPTY);
    cif_dp_set(s, CIF_DP_C2H_FLAG, CIF_MBX_FULL);
    s->h2c_pending = false;
    trace_hilscher_cif_mbx_answer(cmd, len, status);
    cif_update_irq(s);
}

static void cif_fw_kick(HilscherCIFState *s)
{
    if (s->h2c_pending && !timer_pending(s->fw_timer)) {
        timer_mod(s->fw_timer,
                  qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + CIF_FW_ANSWER_NS);
    }
}

static void cif_cycle_arm(HilscherCIFState *s)
{
    uint64_t us = MAX(cif_dp_get(s, CIF_DP_CYCLE_US), CIF_CYCLE_MIN_US);

    timer_mod(s->cycle_timer,
              qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + us * SCALE_US);
}

static void cif_cycle_post(HilscherCIFState *s)
{
    uint32_t count = cif_dp_get(s, CIF_DP_CYCLE_COUNT) + 1;
    uint32_t limit = cif_dp_get(s, CIF_DP_CYCLE_LIMIT);
    int i;

    for (i = 0; i < CIF_PI_WORDS; i++) {
        cif_dp_set(s, CIF_DP_PI_IN + 4 * i, count + i);
    }
    cif_dp_set(s, CIF_DP_CYCLE_COUNT, count);
    cif_dp_set(s, CIF_DP_CYCLE_FLAG, 1);
    s->cycle_pending = false;
    trace_hilscher_cif_cycle(count);
    if (limit && count >= limit) {
        cif_dp_set(s, CIF_DP_CYCLE_CTRL, 0);
    } else {
        cif_cycle_arm(s);
    }
    cif_update_irq(s);
}

/*
 * A cycle that comes due while the host has not acknowledged the last
 * one is held back until the acknowledgement, so every posted cycle is
 * exactly one INT1 request and none is lost.
 */
static void cif_cycle_tick(void *opaque)
{
    HilscherCIFState *s = opaque;

    if (!(cif_dp_get(s, CIF_DP_CYCLE_CTRL) & CIF_CYCLE_RUN)) {
        return;
    }
    if (cif_dp_get(s, CIF_DP_CYCLE_FLAG) != 0) {
        uint32_t deferred = cif_dp_get(s, CIF_DP_CYCLE_DEFER) + 1;

        cif_dp_set(s, CIF_DP_CYCLE_DEFER, deferred);
        s->cycle_pending = true;
        trace_hilscher_cif_cycle_held(deferred);
        return;
    }
    cif_cycle_post(s);
}

static void cif_cycle_start(HilscherCIFState *s)
{
    cif_dp_set(s, CIF_DP_CYCLE_CTRL, CIF_CYCLE_RUN);
    cif_dp_set(s, CIF_DP_CYCLE_COUNT, 0);
    cif_dp_set(s, CIF_DP_CYCLE_DEFER, 0);
    cif_dp_set(s, CIF_DP_CYCLE_FLAG, 0);
    s->cycle_pending = false;
    cif_cycle_arm(s);
}

static void cif_cycle_stop(HilscherCIFState *s)
{
    cif_dp_set(s, CIF_DP_CYCLE_CTRL, 0);
    s->cycle_pending = false;
    timer_del(s->cycle_timer);
}

/* React to a host write that touched the 32-bit cell at @cell. */
static void cif_dpram_cell_written(HilscherCIFState *s, hwaddr cell)
{
    uint32_t val = cif_dp_get(s, cell);

    switch (cell) {
    case CIF_DP_H2C_FLAG:
        if (val != CIF_MBX_EMPTY) {
            s->h2c_pending = true;
            cif_fw_kick(s);
        }
        break;
    case CIF_DP_C2H_FLAG:
        cif_update_irq(s);
        cif_fw_kick(s);
        break;
    case CIF_DP_CYCLE_CTRL:
        if (val & CIF_CYCLE_RUN) {
            cif_cycle_start(s);
        } else {
            cif_cycle_stop(s);
        }
        cif_update_irq(s);
        break;
    case CIF_DP_CYCLE_FLAG:
        cif_update_irq(s);
        if (val == 0 && s->cycle_pending) {
            cif_cycle_post(s);
        }
        break;
    default:
        break;
    }
}

static uint64_t cif_dpram_read(void *opaque, hwaddr addr, unsigned size)
{
    HilscherCIFState *s = opaque;

    return ldn_le_p(s->dpram + addr, size);
}

static void cif_dpram_write(void *opaque, hwaddr addr, uint64_t val,
                            unsigned size)
{
    HilscherCIFState *s = opaque;

    stn_le_p(s->dpram + addr, size, val);
    cif_dpram_cell_written(s, addr & ~3ULL);
}

static const MemoryRegionOps cif_dpram_ops = {
    .read = cif_dpram_read,
    .write = cif_dpram_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 1,
        .max_access_size = 4,
    },
    .impl = {
        .min_access_size = 1,
        .max_access_size = 4,
    },
};

static void cif_realize(PCIDevice *pdev, Error **errp)
{
    HilscherCIFState *s = HILSCHER_CIF(pdev);

    if (s->subdevice != CIF_PCI_SUBDEVICE_PROFIBUS &&
        s->subdevice != CIF_PCI_SUBDEVICE_DEVICENET) {
        error_setg(errp, "subdevice must be 0x%x (Profibus) or 0x%x "
                   "(DeviceNet)", CIF_PCI_SUBDEVICE_PROFIBUS,
                   CIF_PCI_SUBDEVICE_DEVICENET);
        return;
    }
    pci_set_word(pdev->config + PCI_SUBSYSTEM_ID, s->subdevice);
    pdev->config[PCI_INTERRUPT_PIN] = 1;

    memory_region_init_io(&s->plx, OBJECT(s), &cif_plx_ops, s,
                          "hilscher-cif-plx", CIF_BAR0_SIZE);
    memory_region_init_io(&s->dpram_io, OBJECT(s), &cif_dpram_ops, s,
                          "hilscher-cif-dpram", CIF_DPRAM_SIZE);
    pci_register_bar(pdev, 0, PCI_BASE_ADDRESS_SPACE_MEMORY, &s->plx);
    pci_register_bar(pdev, 2, PCI_BASE_ADDRESS_SPACE_MEMORY, &s->dpram_io);

    s->fw_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, cif_fw_answer, s);
    s->cycle_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, cif_cycle_tick, s);
}

static void cif_exit(PCIDevice *pdev)
{
    HilscherCIFState *s = HILSCHER_CIF(pdev);

    timer_free(s->cycle_timer);
    timer_free(s->fw_timer);
}

/*
 * Reset values (docs/specs/hilscher-cif.txt): INTCSR = PCI_EN | INT1_POL
 * as the card's serial EEPROM loads it, INT1 disabled; DPRAM cleared
 * except signature, firmware version and the cycle period from the
 * cycle-us property, which also starts the cycle when non-zero.
 */
static void cif_reset(DeviceState *dev)
{
    HilscherCIFState *s = HILSCHER_CIF(dev);

    timer_del(s->fw_timer);
    timer_del(s->cycle_timer);
    s->intcsr = CIF_INTCSR_RESET;
    s->h2c_pending = false;
    s->cycle_pending = false;
    memset(s->dpram, 0, sizeof(s->dpram));
    cif_dp_set(s, CIF_DP_SIGNATURE, CIF_SIGNATURE);
    cif_dp_set(s, CIF_DP_FW_VERSION, CIF_FW_VERSION);
    cif_dp_set(s, CIF_DP_CYCLE_US, s->cycle_us);
    if (s->cycle_us) {
        cif_cycle_start(s);
    }
    cif_update_irq(s);
}

static const VMStateDescription cif_vmstate = {
    .name = TYPE_HILSCHER_CIF,
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (VMStateField[]) {
        VMSTATE_PCI_DEVICE(parent_obj, HilscherCIFState),
        VMSTATE_UINT32(intcsr, HilscherCIFState),
        VMSTATE_UINT8_ARRAY(dpram, HilscherCIFState, CIF_DPRAM_SIZE),
        VMSTATE_TIMER_PTR(fw_timer, HilscherCIFState),
        VMSTATE_TIMER_PTR(cycle_timer, HilscherCIFState),
        VMSTATE_BOOL(h2c_pending, HilscherCIFState),
        VMSTATE_BOOL(cycle_pending, HilscherCIFState),
        VMSTATE_END_OF_LIST()
    }
};

static Property cif_properties[] = {
    DEFINE_PROP_UINT16("subdevice", HilscherCIFState, subdevice,
                       CIF_PCI_SUBDEVICE_PROFIBUS),
    DEFINE_PROP_UINT32("cycle-us", HilscherCIFState, cycle_us, 0),
    DEFINE_PROP_END_OF_LIST(),
};

static void cif_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);

    k->realize = cif_realize;
    k->exit = cif_exit;
    k->vendor_id = CIF_PCI_VENDOR_PLX;
    k->device_id = CIF_PCI_DEVICE_PLX9030;
    k->subsystem_vendor_id = CIF_PCI_SUBVENDOR_HILSCHER;
    k->subsystem_id = CIF_PCI_SUBDEVICE_PROFIBUS;
    k->revision = 0x01;
    k->class_id = PCI_CLASS_NETWORK_OTHER;
    dc->desc = "Hilscher CIF Profibus/DeviceNet card (PLX 9030)";
    dc->reset = cif_reset;
    dc->vmsd = &cif_vmstate;
    device_class_set_props(dc, cif_properties);
    set_bit(DEVICE_CATEGORY_MISC, dc->categories);
}

static const TypeInfo cif_info = {
    .name = TYPE_HILSCHER_CIF,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(HilscherCIFState),
    .class_init = cif_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_CONVENTIONAL_PCI_DEVICE },
        { },
    },
};

static void cif_register_types(void)
{
    type_register_static(&cif_info);
}

type_init(cif_register_types)
