#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Register-level checks of QEMU's hilscher-cif model, no guest kernel.

Runs the built QEMU under the qtest accelerator, programs the card's BARs
through PCI configuration cycles on ports 0xcf8/0xcfc, steps the virtual
clock by hand and compares what it reads with docs/specs/hilscher-cif.txt.
INTx is observed through the Interrupt Status bit of the PCI status
register, which QEMU keeps in step with the device's INTx level.

  cif-qtest.py [path/to/qemu-system-x86_64]   (default: build-qemu.sh)

Prints TAP; exit status 0 when every check passed.
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "../../../../.."))
HEADER = os.path.join(TOP, "tools/uio/cif/cif_dpram.h")

SLOT = 4
BAR0 = 0xFE000000
BAR2 = 0xFE002000
PCI_STATUS_INTERRUPT = 0x08


def load_header():
    """The #defines of cif_dpram.h as a dict, so the test shares its numbers."""
    defs = {}
    pat = re.compile(r"#define\s+(CIF_\w+)\s+\(?(0x[0-9a-fA-F]+|\d+)u?\)?")
    with open(HEADER) as f:
        for line in f:
            m = pat.match(line)
            if m:
                defs[m.group(1)] = int(m.group(2), 0)
    defs["CIF_INTCSR_RESET"] = defs["CIF_INTCSR_INT1_POL"] | defs["CIF_INTCSR_PCI_EN"]
    return defs


H = load_header()


class QTest:
    """One QEMU process speaking the qtest protocol on stdin/stdout."""

    def __init__(self, qemu, devargs):
        self.p = subprocess.Popen(
            [qemu, "-machine", "pc", "-accel", "qtest", "-qtest", "stdio",
             "-display", "none", "-nodefaults", "-monitor", "none",
             "-serial", "none", "-parallel", "none",
             "-device", "hilscher-cif,addr=%02x.0%s" % (SLOT, devargs)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)

    def cmd(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        while True:
            resp = self.p.stdout.readline()
            if not resp:
                raise RuntimeError("QEMU died: " + self.p.stderr.read())
            if not resp.startswith("IRQ"):
                break
        parts = resp.split()
        if parts[0] != "OK":
            raise RuntimeError("%s -> %s" % (line, resp.strip()))
        return int(parts[1], 0) if len(parts) > 1 else None

    def cfg_addr(self, reg):
        self.cmd("outl 0xcf8 0x%x" % (0x80000000 | SLOT << 11 | (reg & ~3)))

    def cfg_read(self, reg):
        self.cfg_addr(reg)
        return self.cmd("inl 0xcfc")

    def cfg_write(self, reg, val):
        self.cfg_addr(reg)
        self.cmd("outl 0xcfc 0x%x" % val)

    def readl(self, addr):
        return self.cmd("readl 0x%x" % addr)

    def writel(self, addr, val):
        self.cmd("writel 0x%x 0x%x" % (addr, val))

    def step_us(self, us):
        self.cmd("clock_step %d" % (us * 1000))

    def intx(self):
        return bool((self.cfg_read(0x04) >> 16) & PCI_STATUS_INTERRUPT)

    def setup_bars(self):
        self.cfg_write(0x10, BAR0)
        self.cfg_write(0x18, BAR2)
        self.cfg_write(0x04, 0x0002)  # memory space enable

    def plx(self, off):
        return self.readl(BAR0 + off)

    def dp(self, off):
        return self.readl(BAR2 + off)

    def dp_w(self, off, val):
        self.writel(BAR2 + off, val)

    def close(self):
        self.p.stdin.close()
        self.p.kill()
        self.p.wait()


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def check(self, name, got, want):
        self.n += 1
        ok = got == want
        if not ok:
            self.failed += 1
        print("%s %d %s%s" % ("ok" if ok else "not ok", self.n, name,
                              "" if ok else " # got %r want %r" % (got, want)))


def test_identity(t, qemu):
    for sub in (H["CIF_PCI_SUBDEVICE_PROFIBUS"], H["CIF_PCI_SUBDEVICE_DEVICENET"]):
        q = QTest(qemu, ",subdevice=0x%x" % sub)
        t.check("ids 0x%x: vendor/device" % sub, q.cfg_read(0x00),
                H["CIF_PCI_DEVICE_PLX9030"] << 16 | H["CIF_PCI_VENDOR_PLX"])
        t.check("ids 0x%x: subsystem" % sub, q.cfg_read(0x2C),
                sub << 16 | H["CIF_PCI_SUBVENDOR_HILSCHER"])
        t.check("ids 0x%x: class/revision" % sub, q.cfg_read(0x08), 0x02800001)
        t.check("ids 0x%x: interrupt pin A" % sub, (q.cfg_read(0x3C) >> 8) & 0xFF, 1)
        for bar, want in ((0x10, 0x100000000 - H["CIF_BAR0_SIZE"]), (0x14, 0),
                          (0x18, 0x100000000 - H["CIF_DPRAM_SIZE"]), (0x1C, 0)):
            q.cfg_write(bar, 0xFFFFFFFF)
            t.check("ids 0x%x: BAR at 0x%x sizes" % (sub, bar), q.cfg_read(bar), want)
        q.close()
    p = subprocess.run([qemu, "-machine", "pc", "-accel", "qtest", "-display",
                        "none", "-nodefaults", "-device",
                        "hilscher-cif,subdevice=0x431"],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True,
                       timeout=20)
    t.check("subdevice=0x431 refused", (p.returncode != 0,
                                        "subdevice must be" in p.stderr), (True, True))


def test_reset_values(t, qemu):
    q = QTest(qemu, "")
    q.setup_bars()
    t.check("LAS0RR reset", q.plx(H["CIF_PLX_LAS0RR"]), H["CIF_PLX_LAS0RR_RESET"])
    t.check("LAS0BA reset", q.plx(H["CIF_PLX_LAS0BA"]), H["CIF_PLX_LAS0BA_RESET"])
    t.check("INTCSR reset", q.plx(H["CIF_PLX_INTCSR"]), H["CIF_INTCSR_RESET"])
    q.writel(BAR0 + H["CIF_PLX_LAS0RR"], 0)
    t.check("LAS0RR read-only", q.plx(H["CIF_PLX_LAS0RR"]), H["CIF_PLX_LAS0RR_RESET"])
    q.writel(BAR0 + H["CIF_PLX_INTCSR"], 0xFFFFFFFF)
    t.check("INTCSR writable bits", q.plx(H["CIF_PLX_INTCSR"]), 0x43)
    t.check("signature", q.dp(H["CIF_DP_SIGNATURE"]), H["CIF_SIGNATURE"])
    t.check("firmware version", q.dp(H["CIF_DP_FW_VERSION"]), H["CIF_FW_VERSION"])
    t.check("cycle off without cycle-us", q.dp(H["CIF_DP_CYCLE_CTRL"]), 0)
    t.check("byte read of DPRAM", q.cmd("readb 0x%x" % (BAR2 + 1)), 0x49)
    # Misaligned, oversized and out-of-range accesses must not stop QEMU;
    # the memory core splits or drops them before they reach the model.
    q.cmd("readl 0x%x" % (BAR0 + 0x4E))
    q.cmd("writel 0x%x 0x1" % (BAR2 + 0x1FFE))
    q.cmd("writeq 0x%x 0x1122334455667788" % (BAR2 + H["CIF_DP_SCRATCH"]))
    t.check("8-byte write lands as two words",
            (q.dp(H["CIF_DP_SCRATCH"]), q.dp(H["CIF_DP_SCRATCH"] + 4)),
            (0x55667788, 0x11223344))
    t.check("bad accesses survived", q.dp(H["CIF_DP_SIGNATURE"]), H["CIF_SIGNATURE"])
    q.close()


def test_mailbox_and_intx(t, qemu):
    q = QTest(qemu, "")
    q.setup_bars()
    intcsr = BAR0 + H["CIF_PLX_INTCSR"]
    q.dp_w(H["CIF_DP_H2C_DATA"], 0x64636261)
    q.dp_w(H["CIF_DP_H2C_CMD"], H["CIF_CMD_ECHO"])
    q.dp_w(H["CIF_DP_H2C_LEN"], 4)
    q.dp_w(H["CIF_DP_H2C_FLAG"], H["CIF_MBX_FULL"])
    t.check("no answer before 50 us", q.dp(H["CIF_DP_C2H_FLAG"]), 0)
    q.step_us(60)
    t.check("answer flag", q.dp(H["CIF_DP_C2H_FLAG"]), H["CIF_MBX_FULL"])
    t.check("h2c taken", q.dp(H["CIF_DP_H2C_FLAG"]), H["CIF_MBX_EMPTY"])
    t.check("answer payload", (q.dp(H["CIF_DP_C2H_STATUS"]), q.dp(H["CIF_DP_C2H_LEN"]),
                               q.dp(H["CIF_DP_C2H_DATA"])), (0, 4, 0x64636261))
    t.check("INT1 status set", q.readl(intcsr), 0x46)
    t.check("INTx low while INT1 masked", q.intx(), False)
    q.writel(intcsr, 0x43)
    t.check("INTx high once INT1 enabled", q.intx(), True)
    q.writel(intcsr, 0x03)
    t.check("INTx low without PCI_EN", q.intx(), False)
    q.writel(intcsr, 0x43)
    q.dp_w(H["CIF_DP_C2H_FLAG"], 0)
    t.check("ack drops INT1 status", q.readl(intcsr), 0x43)
    t.check("ack drops INTx", q.intx(), False)
    q.close()


def test_cycles(t, qemu):
    q = QTest(qemu, ",cycle-us=1000")
    q.setup_bars()
    t.check("cycle-us loads CYCLE_US", q.dp(H["CIF_DP_CYCLE_US"]), 1000)
    t.check("cycle-us starts cycles", q.dp(H["CIF_DP_CYCLE_CTRL"]), 1)
    q.step_us(1001)
    t.check("first cycle", (q.dp(H["CIF_DP_CYCLE_COUNT"]), q.dp(H["CIF_DP_CYCLE_FLAG"]),
                            q.dp(H["CIF_DP_PI_IN"] + 8)), (1, 1, 3))
    q.step_us(5000)
    t.check("unacked cycles held back", (q.dp(H["CIF_DP_CYCLE_COUNT"]),
                                         q.dp(H["CIF_DP_CYCLE_DEFER"])), (1, 1))
    q.dp_w(H["CIF_DP_CYCLE_FLAG"], 0)
    t.check("ack posts the held cycle", q.dp(H["CIF_DP_CYCLE_COUNT"]), 2)
    q.dp_w(H["CIF_DP_CYCLE_FLAG"], 0)
    q.dp_w(H["CIF_DP_CYCLE_US"], 10)
    q.dp_w(H["CIF_DP_CYCLE_LIMIT"], 3)
    q.dp_w(H["CIF_DP_CYCLE_CTRL"], 1)
    for _ in range(5):
        q.step_us(100)
        q.dp_w(H["CIF_DP_CYCLE_FLAG"], 0)
    t.check("limit stops after 3 (period floor 100 us)",
            (q.dp(H["CIF_DP_CYCLE_COUNT"]), q.dp(H["CIF_DP_CYCLE_CTRL"])), (3, 0))
    q.close()


def main():
    if len(sys.argv) > 1:
        qemu = sys.argv[1]
    else:
        qemu = subprocess.run([os.path.join(HERE, "build-qemu.sh")],
                              capture_output=True, text=True,
                              check=True).stdout.splitlines()[-1]
    tests = (test_identity, test_reset_values, test_mailbox_and_intx, test_cycles)
    t = Tap()
    print("TAP version 13")
    for test in tests:
        try:
            test(t, qemu)
        except (RuntimeError, OSError, subprocess.SubprocessError) as e:
            t.check(test.__name__ + " ran", str(e), None)
    print("1..%d" % t.n)
    print("# %d/%d passed" % (t.n - t.failed, t.n))
    return 1 if t.failed else 0


if __name__ == "__main__":
    sys.exit(main())
