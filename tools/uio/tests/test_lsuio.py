#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests of lsuio against fake sysfs trees; TAP output.

    test_lsuio.py [<substring>]    run only the tests whose name contains it

The plain output is compared exactly; --json output is parsed with the json
module and compared field by field. LSUIO names the binary (default:
../lsuio next to this script).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
LSUIO = os.environ.get("LSUIO", os.path.join(HERE, "..", "lsuio"))
NOBODY = 65534


class Tree:
    """A fake /sys (and /dev) in a temporary directory."""

    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="test_lsuio.")
        os.chmod(self.root, 0o755)
        self.sys = os.path.join(self.root, "sys")
        self.dev = os.path.join(self.root, "dev")
        os.makedirs(os.path.join(self.sys, "class", "uio"))
        os.makedirs(self.dev)
        self.devdirs = {}

    def put(self, rel, content, mode=None):
        path = os.path.join(self.sys, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(content.encode("latin-1") if isinstance(content, str)
                    else content)
        if mode is not None:
            os.chmod(path, mode)

    def device(self, n, parent, name, version="1.0", event=0, link=True):
        d = "devices/%s/uio/uio%d" % (parent, n)
        self.devdirs[n] = d
        self.put(d + "/name", name + "\n")
        self.put(d + "/version", version + "\n")
        self.put(d + "/event", "%d\n" % event)
        self.put(d + "/dev", "243:%d\n" % n)
        if link:
            os.symlink("../../../" + parent.split("/")[-1],
                       os.path.join(self.sys, d, "device"))
        os.symlink("../../" + d,
                   os.path.join(self.sys, "class/uio/uio%d" % n))

    def map(self, n, m, name, addr, size, offset, addr_mode=None):
        base = "%s/maps/map%d/" % (self.devdirs[n], m)
        self.put(base + "name", name + "\n")
        self.put(base + "addr", addr + "\n", addr_mode)
        self.put(base + "size", size + "\n")
        self.put(base + "offset", offset + "\n")

    def pci_parent(self, addr, driver):
        os.makedirs(os.path.join(self.sys, "bus/pci/drivers", driver),
                    exist_ok=True)
        d = os.path.join(self.sys, "devices/pci0000:00", addr)
        os.makedirs(d, exist_ok=True)
        os.symlink("../../../bus/pci/drivers/" + driver,
                   os.path.join(d, "driver"))

    def run(self, *args, as_nobody=False):
        env = dict(os.environ, UIO_SYSFS_ROOT=self.sys, UIO_DEV_ROOT=self.dev)

        def drop():
            os.setgid(NOBODY)
            os.setuid(NOBODY)

        p = subprocess.run([LSUIO] + list(args), env=env, capture_output=True,
                           timeout=10,
                           preexec_fn=drop if as_nobody and os.geteuid() == 0
                           else None)
        return p.returncode, p.stdout.decode("latin-1"), \
            p.stderr.decode("latin-1")

    def cleanup(self):
        shutil.rmtree(self.root)


def good_tree():
    t = Tree()
    t.pci_parent("0000:00:04.0", "uio_pci_generic")
    t.device(0, "pci0000:00/0000:00:04.0", "uio_pci_generic", "0.01.0", 7)
    t.map(0, 0, "BAR0", "0xfea00000", "0x100000", "0x0")
    t.map(0, 2, "BAR2", "0xfe000000", "0x30", "16")
    t.put(t.devdirs[0] + "/portio/port0/name", "BAR1\n")
    t.put(t.devdirs[0] + "/portio/port0/start", "0xc000\n")
    t.put(t.devdirs[0] + "/portio/port0/size", "0x20\n")
    t.put(t.devdirs[0] + "/portio/port0/porttype", "port_x86\n")
    t.device(2, "platform/uio_test.0", "uio_test", "1.0", 0)
    t.device(10, "virtual/x", "orphan", "2", 3, link=False)
    return t


failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("# check failed: %s" % what)


def check_eq(got, want, what):
    if got != want:
        failures.append(what)
        print("# %s: got %r, expected %r" % (what, got, want))


PLAIN = (
    "uio0 uio_pci_generic 0.01.0 events=7 parent=0000:00:04.0 "
    "driver=uio_pci_generic\n"
    "uio2 uio_test 1.0 events=0 parent=uio_test.0 driver=-\n"
    "uio10 orphan 2 events=3 parent=- driver=-\n")


def test_plain_lists_one_line_per_device(t):
    rc, out, err = t.run()
    check_eq(rc, 0, "exit status")
    check_eq(out, PLAIN, "stdout")
    check_eq(err, "", "stderr")


def test_maps_option_adds_map_lines(t):
    rc, out, _ = t.run("-m")
    check_eq(rc, 0, "exit status")
    lines = out.splitlines(True)
    check_eq(lines, [
        PLAIN.splitlines(True)[0],
        "\tmap0: BAR0 addr=0xfea00000 size=0x100000 offset=0x0\n",
        "\tmap2: BAR2 addr=0xfe000000 size=0x30 offset=0x10\n",
        PLAIN.splitlines(True)[1],
        PLAIN.splitlines(True)[2],
    ], "lines")


def test_verbose_adds_node_and_ports(t):
    rc, out, _ = t.run("-v")
    check_eq(rc, 0, "exit status")
    check("\tnode: %s/uio0 dev=243:0\n" % t.dev in out, "node line")
    check("\tport0: BAR1 start=0xc000 size=0x20 type=port_x86\n" in out,
          "port line")
    check("\tmap2: BAR2 " in out, "-v implies maps")


def test_json_is_versioned_and_complete(t):
    rc, out, _ = t.run("--json")
    check_eq(rc, 0, "exit status")
    doc = json.loads(out)
    check_eq(doc["lsuio_json_version"], 1, "format version")
    devs = doc["devices"]
    check_eq([d["number"] for d in devs], [0, 2, 10], "device numbers")
    d = devs[0]
    check_eq(d["device"], "uio0", "device")
    check_eq(d["name"], "uio_pci_generic", "name")
    check_eq(d["version"], "0.01.0", "version")
    check_eq(d["events"], 7, "events")
    check_eq((d["major"], d["minor"]), (243, 0), "major:minor")
    check_eq(d["parent"], "0000:00:04.0", "parent")
    check_eq(d["driver"], "uio_pci_generic", "driver")
    check_eq(d["maps"], [
        {"index": 0, "name": "BAR0", "addr": "0xfea00000",
         "size": 0x100000, "offset": 0},
        {"index": 2, "name": "BAR2", "addr": "0xfe000000",
         "size": 0x30, "offset": 16},
    ], "maps")
    check_eq(d["portio"], [{"index": 0, "name": "BAR1", "start": 0xc000,
                            "size": 0x20, "porttype": "port_x86"}], "portio")
    check_eq(devs[1]["driver"], None, "driver without link")
    check_eq(devs[2]["parent"], None, "parent without link")
    check_eq(devs[2]["maps"], [], "no maps")


def test_json_unreadable_addr_is_null(t):
    t.map(2, 0, "mem", "0xffff888001234000", "0x1000", "0x0",
          addr_mode=0o400)
    rc, out, err = t.run("--json", as_nobody=True)
    check_eq(rc, 0, "exit status")
    check_eq(err, "", "stderr")
    m = json.loads(out)["devices"][1]["maps"][0]
    check_eq(m["addr"], None, "addr")
    check_eq(m["size"], 0x1000, "size")
    rc, out, _ = t.run("-m", as_nobody=True)
    check("\tmap0: mem addr=unknown size=0x1000 offset=0x0\n" in out,
          "plain unknown addr")


def test_unreadable_device_exits_2_and_lists_others(t):
    t.put(t.devdirs[2] + "/event", "garbage\n")
    rc, out, err = t.run()
    check_eq(rc, 2, "exit status")
    check_eq(out, PLAIN.splitlines(True)[0] + PLAIN.splitlines(True)[2],
             "stdout")
    check_eq(err, "lsuio: uio2: malformed sysfs entry\n", "stderr")
    rc, out, _ = t.run("--json")
    check_eq(rc, 2, "json exit status")
    devs = json.loads(out)["devices"]
    check_eq(devs[1], {"device": "uio2", "number": 2,
                       "error": "malformed sysfs entry", "errno": 74},
             "error entry")
    check_eq(devs[2]["name"], "orphan", "next device")


def test_bad_map_exits_2_with_map_error(t):
    t.map(0, 1, "huge", "0x0", "0x8000000000000000", "0")
    rc, out, _ = t.run("--json")
    check_eq(rc, 2, "exit status")
    maps = json.loads(out)["devices"][0]["maps"]
    check_eq(maps[1], {"index": 1, "errno": 75,
                       "error": "map size, address or offset out of range"},
             "map error")
    check_eq(maps[2]["name"], "BAR2", "later map")
    rc, out, _ = t.run("-m")
    check_eq(rc, 2, "plain exit status")
    check("\tmap1: error: map size, address or offset out of range\n" in out,
          "plain map error")


def test_json_escapes_strings(t):
    t.put(t.devdirs[2] + "/name", b'a"b\\c\td\xe9\n')
    rc, out, _ = t.run("--json")
    check_eq(rc, 0, "exit status")
    check(all(ord(c) < 128 for c in out), "pure ASCII")
    check_eq(json.loads(out)["devices"][1]["name"], 'a"b\\c\td\xe9', "name")


def test_no_uio_class_is_empty_list(t):
    shutil.rmtree(os.path.join(t.sys, "class"))
    rc, out, err = t.run()
    check_eq((rc, out, err), (0, "", ""), "plain")
    rc, out, _ = t.run("-j")
    check_eq(rc, 0, "json exit status")
    check_eq(json.loads(out), {"lsuio_json_version": 1, "devices": []},
             "json")


def test_usage_errors_exit_1(t):
    rc, out, err = t.run("-x")
    check_eq(rc, 1, "unknown option")
    check_eq(out, "", "no stdout")
    check("Usage: lsuio" in err, "usage on stderr")
    rc, _, _ = t.run("extra")
    check_eq(rc, 1, "extra argument")
    rc, _, _ = t.run("--maps=1")
    check_eq(rc, 1, "argument to flag")


def test_help_is_grouped(t):
    rc, out, err = t.run("-h")
    check_eq(rc, 0, "exit status")
    check_eq(err, "", "stderr")
    for group in ("Display options:", "Machine-readable output:", "Other:"):
        check(group in out, group)
    rc, out, _ = t.run("-V")
    check_eq(rc, 0, "-V exit status")
    check("JSON format 1" in out, "-V names the format")


TESTS = [v for k, v in list(globals().items()) if k.startswith("test_")]


def main():
    flt = sys.argv[1] if len(sys.argv) > 1 else None
    tests = [f for f in TESTS if not flt or flt in f.__name__]
    print("TAP version 13")
    print("1..%d" % len(tests))
    bad = 0
    for i, f in enumerate(tests, 1):
        del failures[:]
        t = good_tree()
        try:
            f(t)
        except Exception as e:  # a crash is a failure, not an abort
            failures.append(repr(e))
            print("# exception: %r" % e)
        finally:
            t.cleanup()
        name = f.__name__[5:]
        print("%sok %d - %s" % ("not " if failures else "", i, name))
        sys.stdout.flush()
        bad += bool(failures)
    print("# %d passed, %d failed" % (len(tests) - bad, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
