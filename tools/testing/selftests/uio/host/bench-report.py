#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the boots of a `make bench` run into one table, a JSON summary and plots.

    bench-report.py <bench dir> <wall seconds so far> <kernel id>...

For each kernel id reads <dir>/<id>/release, <dir>/<id>/guest.log (RESULT
lines per core and round) and <dir>/<id>/raw.txt (latency samples from the
second serial port); writes <dir>/table.txt, <dir>/summary.json,
<dir>/<id>/samples/ and <dir>/<id>/latency-cdf.png.

The cores take turns within one boot (mainline, ours, mainline, ours, ...):
every metric is taken per round, a ratio ours/mainline is formed per round
from the two phases of that round, and the table shows the per-round
ratios and their median. The mainline and ours columns are the medians
over rounds. Targets are measured against the median ratio and reported as
met or missed; a benchmark never fails on a number: the exit status is
non-zero only when the run itself is broken (no results for a core).
"""
import json
import os
import re
import subprocess
import sys

CORES = ("mainline", "ours")
WAITS = ("read", "poll", "epoll")
HOWS = ("config", "write")
# Interrupt modes of our uio_pci_generic besides INTx, measured on ours only.
MSI_MODES = ("msi", "msix")
LAT_TARGET_KERNELS = ("6.12", "6.12-rt")
MAP_TARGET_KERNELS = ("6.12",)
# Store bursts (ours only): our map, sysfs resourceN, resourceN_wc.
WC_PATHS = ("uio", "res", "res_wc")
WC_SIZES = (4096, 1 << 20)


def parse_log(path):
    """{core: {round: {name: kv, "tput": [kv...]}}}"""
    res = {c: {} for c in CORES}
    cur = None
    if not os.path.exists(path):
        return res
    with open(path, errors="replace") as f:
        for line in f:
            line = line.strip().replace("\r", "")
            m = re.match(r"=== CORE (\w+) ROUND (\d+)$", line)
            if m:
                cur = res.setdefault(m.group(1), {}).setdefault(int(m.group(2)), {})
                continue
            if line.startswith("=== CORE END"):
                cur = None
                continue
            if not line.startswith("RESULT ") or cur is None:
                continue
            fields = line.split()
            kv = dict(x.split("=", 1) for x in fields[2:] if "=" in x)
            if fields[1] == "tput":
                cur.setdefault("tput", []).append(kv)
            else:
                cur[fields[1]] = kv
    return res


def parse_raw(path):
    """{"<core>.r<round>.<test>": ([latency ns], [re-enable ns])}"""
    samples = {}
    cur = None
    if not os.path.exists(path):
        return samples
    with open(path, errors="replace") as f:
        for line in f:
            line = line.strip().replace("\r", "")
            if line.startswith("=== FILE "):
                cur = samples.setdefault(line[9:], ([], []))
            elif line.startswith("==="):
                cur = None
            elif cur is not None and line:
                parts = line.split()
                if len(parts) == 2 and parts[0].isdigit() and parts[1].isdigit():
                    cur[0].append(int(parts[0]))
                    cur[1].append(int(parts[1]))
    return samples


def pct(vals, p):
    s = sorted(vals)
    return s[min(len(s) - 1, len(s) * p // 100)]


def median(xs):
    s = sorted(x for x in xs if x is not None)
    if not s:
        return None
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def num(kv, key):
    try:
        return float(kv[key])
    except (KeyError, TypeError, ValueError):
        return None


def round_metrics(core, rnd, r, raw):
    """The metrics of one core in one round: {key: value}."""
    m = {}
    for w in WAITS:
        for h in HOWS:
            name = "lat_%s_%s" % (w, h)
            if r.get(name, {}).get("status") != "ok":
                continue
            lat, ren = raw.get("%s.r%d.%s" % (core, rnd, name), ([], []))
            for p in (50, 99):
                if lat:
                    m["%s_p%d" % (name, p)] = pct(lat, p) / 1000.0
                    m["ren_%s_%s_p%d" % (w, h, p)] = pct(ren, p) / 1000.0
                else:   # no raw samples: the guest's own percentiles
                    m["%s_p%d" % (name, p)] = (num(r[name], "p%d" % p) or 0) / 1000.0
    for w in WAITS:
        for mode in MSI_MODES:
            name = "lat_%s_write_%s" % (w, mode)
            if r.get(name, {}).get("status") != "ok":
                continue
            lat, _ = raw.get("%s.r%d.%s" % (core, rnd, name), ([], []))
            for p in (50, 99):
                m["lat_%s_%s_p%d" % (w, mode, p)] = (
                    pct(lat, p) if lat else num(r[name], "p%d" % p) or 0) / 1000.0
    # Each core with its own way to re-enable: write(fd, 1) if it has one.
    for w in WAITS:
        for p in (50, 99):
            for h in ("write", "config"):
                k = "lat_%s_%s_p%d" % (w, h, p)
                if k in m:
                    m["lat_%s_native_p%d" % (w, p)] = m[k]
                    break
    runs = r.get("tput", [])
    if runs:
        m["tput_events"] = median([num(x, "events_per_s") for x in runs])
        m["tput_wakeups"] = median([num(x, "reads_per_s") for x in runs])
        m["tput_exact"] = sum(1 for x in runs if x.get("exact") == "1")
        m["tput_runs"] = len(runs)
    for op in ("reg_load", "reg_store", "block_read", "block_write"):
        kv = r.get("mem_" + op, {})
        if kv.get("status") == "ok":
            m["mem_%s_mmap" % op] = num(kv, "mmap_ns")
            m["mem_%s_speedup" % op] = num(kv, "speedup")
    win = r.get("window", {})
    if win.get("status") == "ok":
        m["win_total"] = num(win, "total_ns") / 1e6
    for path in WC_PATHS:
        for size in WC_SIZES:
            kv = r.get("wc_%s_%d" % (path, size), {})
            if kv.get("status") == "ok":
                m["wc_%s_%d" % (path, size)] = num(kv, "ns") / 1e3
    bm = r.get("bigmap", {})
    if bm.get("status") == "ok":
        for k in ("mmap", "touch1", "touch2", "warm", "munmap", "total",
                  "overhead", "overhead_warm"):
            v = num(bm, k + "_ns")
            if v is not None:
                m["big_" + k] = v / 1e6
        m["big_faults"] = num(bm, "faults")
        m["big_size"] = num(bm, "size")
        m["big_congruent"] = num(bm, "congruent_2m")
    elif bm:
        m["big_status"] = bm.get("status")
    return m


# (label, key, unit, target: (op, value, kernel ids) or None)
def rows_for():
    lat_t = ("<=", 1.0, LAT_TARGET_KERNELS)
    rows = []
    for w in WAITS:
        for h in ("config", "native"):
            for p in (50, 99):
                t = lat_t if w != "poll" else None
                rows.append(("lat %-5s %-6s p%d" % (w, h, p),
                             "lat_%s_%s_p%d" % (w, h, p), "us", t))
    # Ours only: INTx is the "native" row above, write(fd, 1) on ours.
    for w in WAITS:
        for mode in MSI_MODES:
            for p in (50, 99):
                rows.append(("lat %-5s %-6s p%d" % (w, mode, p),
                             "lat_%s_%s_p%d" % (w, mode, p), "us", None))
    rows += [
        ("control: cfg write p50", "ren_read_config_p50", "us", None),
        ("control: cfg write p99", "ren_read_config_p99", "us", None),
        ("events/s", "tput_events", "/s", (">=", 1.0, None)),
        ("wakeups/s", "tput_wakeups", "/s", None),
    ]
    for op in ("reg_load", "reg_store", "block_read", "block_write"):
        rows.append(("%s mmap" % op, "mem_%s_mmap" % op, "ns", None))
    rows += [
        ("bigmap mmap", "big_mmap", "ms", None),
        ("bigmap 1st touch", "big_touch1", "ms", None),
        ("bigmap 2nd touch, cold TLB", "big_touch2", "ms", None),
        ("bigmap 3rd touch, warm TLB", "big_warm", "ms", None),
        ("bigmap munmap", "big_munmap", "ms", None),
        ("bigmap mmap+touch+munmap", "big_total", "ms",
         ("<=", 0.6, MAP_TARGET_KERNELS)),
        ("bigmap mapping overhead", "big_overhead", "ms",
         ("<=", 0.1, MAP_TARGET_KERNELS)),
        ("bigmap overhead vs warm", "big_overhead_warm", "ms", None),
        ("bigmap minor faults/map", "big_faults", "", None),
        ("200 x 1 MiB window map+touch", "win_total", "ms",
         ("<=", 1.0, MAP_TARGET_KERNELS)),
    ]
    return rows


def fmt(v, unit):
    if v is None:
        return "-"
    if unit == "/s" or unit == "":
        return "%.0f" % v
    if abs(v) >= 100:
        return "%.0f" % v
    return "%.2f" % v if unit == "ms" else "%.1f" % v


def fmt_ratio(v):
    if v is None:
        return "-"
    return "%.3f" % v if abs(v) < 0.1 else "%.2f" % v


def wc_lines(ours):
    """The store-burst table of ours: medians over rounds, in us."""
    if not any("wc_uio_4096" in r for r in ours):
        return ["wc: not measured (no ivshmem-doorbell BAR2 bound to ours)"]
    fmt_row = "  %-10s %14s %16s %18s"
    lines = ["wc: store bursts into ivshmem BAR2 (prefetchable), ours only, "
             "median us",
             fmt_row % ("burst", "our map (WC)", "resource2 (UC)",
                        "resource2_wc (WC)")]
    for size in WC_SIZES:
        vals = [median([r.get("wc_%s_%d" % (p, size)) for r in ours])
                for p in WC_PATHS]
        lines.append(fmt_row % ("%d KiB" % (size >> 10),
                                *(fmt(v, "us") for v in vals)))
    return lines


def kernel_block(out, kid, summary):
    kdir = os.path.join(out, kid)
    try:
        krel = open(os.path.join(kdir, "release")).read().strip()
    except OSError:
        krel = "?"
    res = parse_log(os.path.join(kdir, "guest.log"))
    raw = parse_raw(os.path.join(kdir, "raw.txt"))
    rounds = sorted(set(res["mainline"]) | set(res["ours"]))
    per = {c: {rn: round_metrics(c, rn, res[c].get(rn, {}), raw) for rn in rounds}
           for c in CORES}
    ks = {"release": krel, "rounds": len(rounds), "rows": {}}
    summary["kernels"][kid] = ks
    lines = ["== %s (%s): %d round(s), cores in turns mainline, ours, ..." %
             (kid, krel, len(rounds)),
             "%-31s %10s %10s  %-24s %7s %11s %s" %
             ("metric", "mainline", "ours", "ours/mainline per round",
              "median", "target", "met?")]
    for label, key, unit, tgt in rows_for():
        mv = median([per["mainline"][rn].get(key) for rn in rounds])
        ov = median([per["ours"][rn].get(key) for rn in rounds])
        if mv is None and ov is None:
            continue
        rat = []
        for rn in rounds:
            a, b = per["ours"][rn].get(key), per["mainline"][rn].get(key)
            rat.append(a / b if a is not None and b else None)
        mr = median(rat)
        ttxt, met = "-", ""
        if tgt and (tgt[2] is None or kid in tgt[2]):
            op, val = tgt[0], tgt[1]
            ttxt = "%s%.1f" % (op, val)
            ok = mr is not None and (mr <= val if op == "<=" else mr >= val)
            if key == "tput_events":
                exact = all(per[c][rn].get("tput_exact") == per[c][rn].get("tput_runs")
                            and per[c][rn].get("tput_runs")
                            for c in CORES for rn in rounds)
                ttxt += ",exact"
                ok = ok and exact
            met = "met" if ok else "MISSED"
        ulabel = label + (" (%s)" % unit if unit not in ("", "/s") else "")
        lines.append("%-31s %10s %10s  %-24s %7s %11s %s" % (
            ulabel, fmt(mv, unit), fmt(ov, unit),
            " ".join(fmt_ratio(x) for x in rat), fmt_ratio(mr), ttxt, met))
        ks["rows"][key] = {"label": label, "unit": unit, "mainline": mv,
                           "ours": ov, "ratios": rat, "median_ratio": mr,
                           "target": ttxt, "met": met or None}
    for c in CORES:
        ex = sum(per[c][rn].get("tput_exact", 0) for rn in rounds)
        tot = sum(per[c][rn].get("tput_runs", 0) for rn in rounds)
        ks.setdefault("tput_exact", {})[c] = [ex, tot]
    lines.append("%-31s %10s %10s" % ("event counts exact",
                 "%d/%d" % tuple(ks["tput_exact"]["mainline"]),
                 "%d/%d" % tuple(ks["tput_exact"]["ours"])))
    big = {c: [per[c][rn] for rn in rounds if "big_size" in per[c][rn]] for c in CORES}
    if big["mainline"] or big["ours"]:
        any_r = (big["ours"] or big["mainline"])[0]
        lines.append("bigmap: %d MiB map, one load per 4 KiB page; ours placed "
                     "2 MiB-congruent: %s" % (any_r["big_size"] / 2**20,
                                              "yes" if all(r.get("big_congruent")
                                                           for r in big["ours"]) else "no"))
    else:
        st = {c: per[c][rounds[0]].get("big_status", "not run") if rounds else "not run"
              for c in CORES}
        lines.append("bigmap: not measured (mainline: %s, ours: %s)" %
                     (st["mainline"], st["ours"]))

    lines += wc_lines([per["ours"][rn] for rn in rounds])

    problems = []
    try:
        with open(os.path.join(kdir, "guest.log"), errors="replace") as f:
            for line in f:
                if re.search(r"BUG:|WARNING:|Oops|general protection|"
                             r"INSMOD FAILED|RMMOD FAILED|QEMU EXIT|nobody cared", line):
                    problems.append(line.strip())
    except OSError:
        problems.append("no guest.log")
    ks["guest_problems"] = problems
    lines.append("guest kernel log problems: %s" % (len(problems) or "none"))
    lines.extend("  " + p for p in problems[:10])
    save_samples(kdir, raw)
    plot(kdir, kid, raw)
    ok = any(per["mainline"][rn] for rn in rounds) and any(per["ours"][rn] for rn in rounds)
    return lines, ok


def save_samples(kdir, raw):
    os.makedirs(os.path.join(kdir, "samples"), exist_ok=True)
    for key, (lat, ren) in raw.items():
        with open(os.path.join(kdir, "samples", key + ".txt"), "w") as f:
            f.write("# latency_ns reenable_ns\n")
            for a, b in zip(lat, ren):
                f.write("%d %d\n" % (a, b))


def plot(kdir, kid, raw):
    """CDF of the pooled samples of all rounds, read() and epoll_wait()."""
    curves = []
    for w in ("read", "epoll"):
        for core, h in (("mainline", "config"), ("ours", "config"), ("ours", "write")):
            s = sorted(v for k, (lat, _) in raw.items()
                       if k.startswith(core + ".r") and k.endswith(".lat_%s_%s" % (w, h))
                       for v in lat)
            if not s:
                continue
            path = os.path.join(kdir, "samples", "cdf-%s.%s_%s.dat" % (core, w, h))
            step = max(1, len(s) // 2000)
            with open(path, "w") as f:
                for i in range(0, len(s), step):
                    f.write("%.3f %.5f\n" % (s[i] / 1000.0, (i + 1) / len(s)))
                f.write("%.3f 1.0\n" % (s[-1] / 1000.0))
            curves.append((path, "%s %s (%s re-enable)" % (core, w, h), core))
    if not curves:
        return
    plots = ["'%s' using 1:2 with lines lw 2 %s title '%s'" %
             (p, "dt 1" if c == "ours" else "dt 2", t) for p, t, c in curves]
    script = "\n".join([
        "set terminal pngcairo size 1100,700",
        "set output '%s'" % os.path.join(kdir, "latency-cdf.png"),
        "set title 'UIO interrupt-to-user latency, %s, QEMU TCG edu (CDF, all rounds)'" % kid,
        "set xlabel 'latency (us, log scale)'",
        "set ylabel 'fraction of samples'",
        "set logscale x",
        "set grid",
        "set key bottom right",
        "set yrange [0:1.01]",
        "plot " + ", \\\n     ".join(plots),
    ]) + "\n"
    gp = os.path.join(kdir, "latency-cdf.gp")
    with open(gp, "w") as f:
        f.write(script)
    subprocess.run(["gnuplot", gp], check=False, stderr=subprocess.DEVNULL)


def main():
    out, wall, kids = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    summary = {"wall_seconds": wall, "kernels": {}}
    lines = ["UIO benchmark: mainline (Debian's uio.ko + uio_pci_generic.ko of the same "
             "kernel) vs ours, QEMU TCG",
             "latency: edu IRQ raised through mmap'd BAR0 until read()/poll()/epoll_wait() "
             "returns; 'native' = each core's own re-enable (write(fd, 1) if it has "
             "irqcontrol, else config space); 'msi' and 'msix' = ours only, "
             "uio_pci_generic in that mode (edu's MSI, ivshmem-doorbell's MSI-X "
             "rung through its doorbell), beside ours' 'native' INTx",
             "bigmap: qxl BAR0 mapped whole: mmap(), 1st touch, munmap(); overhead = "
             "mmap + 1st touch + munmap - 2nd touch (same pages, mapped, TLB flushed "
             "before it as before the 1st); 'vs warm' subtracts a touch with a warm TLB",
             "window: 200 x (mmap() of 1 MiB of the same map, one load per page, "
             "munmap())",
             "values: median over rounds; ratio ours/mainline per round (< 1 ours faster "
             "for times, > 1 ours better for events/s)",
             ""]
    broken = False
    for kid in kids:
        blk, ok = kernel_block(out, kid, summary)
        broken |= not ok
        lines += blk + [""]
    # Mainline's own baseline moves between kernels (6.10 made its handler
    # threaded), so show both sides of each kernel next to each other.
    lines.append("latency baselines, read() + config re-enable (us, median over rounds):")
    lines.append("  %-8s %12s %12s %12s %12s" % ("kernel", "mainline p50", "mainline p99",
                                              "ours p50", "ours p99"))
    for kid in kids:
        r = summary["kernels"][kid]["rows"]
        lines.append("  %-8s %12s %12s %12s %12s" % (
            kid, *(fmt(r.get("lat_read_config_p%d" % p, {}).get(c), "us")
                   for c in CORES for p in (50, 99))))
    lines.append("  mainline 6.12 hands every event to an IRQ thread (threaded since 6.10), "
                 "6.1 wakes the reader from hard IRQ context")
    lines.append("")
    met = [(kid, r["label"], r["met"]) for kid in kids
           for r in summary["kernels"][kid]["rows"].values() if r["met"]]
    lines.append("targets (measured, not asserted): %d met, %d missed" % (
        sum(1 for m in met if m[2] == "met"), sum(1 for m in met if m[2] != "met")))
    for kid, label, m in met:
        if m != "met":
            lines.append("  MISSED: %s %s" % (kid, label))
    lines.append("wall time %d s; per kernel %s/<id>/{guest.log,samples/,latency-cdf.png}; "
                 "summary %s/summary.json" % (wall, out, out))
    table = "\n".join(lines) + "\n"
    with open(os.path.join(out, "table.txt"), "w") as f:
        f.write(table)
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2, sort_keys=True)
        f.write("\n")
    sys.stdout.write(table)
    return 1 if broken or not kids else 0


if __name__ == "__main__":
    sys.exit(main())
