#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn guest console logs into one TAP stream and a verdict.

usage: report.py [tap:]LABEL=LOG ...

Each log holds "=== BEGIN <binary>" ... "=== END <binary> rc=N" blocks of
kselftest output and a "=== DMESG BEGIN/END" block. A binary's results
missing against its plan count as failures (a hang or crash), and every
kernel report in the log (BUG, WARNING, Oops, lockdep, KASAN, ...) counts
as one more failure, and so does a DMAR (IOMMU) fault, unless the kernel
log has it between the markers uio_dma_test writes around the fault it
provokes on purpose. A "tap:" log is the plain TAP output of one host-side
test program. A failed result is followed by the harness's diagnostic
lines of that test, as "# | ..." (the CI log keeps them). The last line
is "N passed, N failed[, N skipped]".
"""
import re
import sys

RESULT = re.compile(r'^(not ok|ok) \d+ (.*?)(?: # (SKIP|TODO)\b ?(.*))?$')
PLAN = re.compile(r'^1\.\.(\d+)$')
KERNEL_REPORT = re.compile(
    r'(BUG:|WARNING:|Oops|general protection fault|Kernel panic|'
    r'possible circular locking|possible recursive locking|'
    r'inconsistent lock state|DEBUG_LOCKS_WARN_ON|KASAN|UBSAN:|'
    r'kmemleak: .*new suspected|unreferenced object|'
    r'INFO: task .* blocked|=== (?:INSMOD|RMMOD) FAILED)')
DMAR_FAULT = re.compile(r'DMAR: (?:\[DMA (?:Read|Write)|DRHD: handling fault)')
DMAR_EXPECTED = 'uio_dma_test: DMAR fault expected from here'
DMAR_UNEXPECTED = 'uio_dma_test: no DMAR fault expected any more'


def tap_result(line, prefix, diag=()):
    """(ok, name, directive, diag) of a TAP result line, or None."""
    m = RESULT.match(line)
    if not m:
        return None
    directive = None
    if m.group(3):
        directive = f'{m.group(3)} {m.group(4) or ""}'.rstrip()
    ok = m.group(1) == 'ok'
    return ok, f'{prefix}: {m.group(2)}', directive, [] if ok else diag


def parse(label, text):
    """Yield (ok, name, directive, diag) for every result and check."""
    current, plan, seen, ended, diag = None, 0, 0, set(), []
    in_dmesg = dmar_expected = False
    for raw in text.splitlines():
        line = raw.rstrip('\r')
        if line.startswith('=== BEGIN '):
            current, plan, seen, diag = line.split()[2], 0, 0, []
            continue
        if line.startswith('=== END ') and current:
            if seen < plan:
                yield (False, f'{label}: {current}: {plan - seen} of '
                       f'{plan} results missing (hang or crash)', None,
                       diag[-20:])
            ended.add(current)
            current = None
            continue
        if line == '=== DMESG BEGIN':
            in_dmesg = True
            continue
        if line == '=== DMESG END':
            in_dmesg = False
            continue
        if in_dmesg and DMAR_EXPECTED in line:
            dmar_expected = True
        elif in_dmesg and DMAR_UNEXPECTED in line:
            dmar_expected = False
        elif in_dmesg and not dmar_expected and DMAR_FAULT.search(line):
            yield (False, f'{label}: kernel log: unexpected DMAR fault: '
                   f'{line.strip()[:140]}', None, [])
            continue
        m = KERNEL_REPORT.search(line)
        if m and (in_dmesg or not current):
            yield (False, f'{label}: kernel log: {line.strip()[:160]}',
                   None, [])
            continue
        if not current:
            continue
        m = PLAN.match(line)
        if m:
            plan = int(m.group(1))
            continue
        if line.startswith('#  RUN '):
            diag = []
        elif line.startswith('#'):
            diag.append(line)
        result = tap_result(line, f'{label}: {current}', diag[-20:])
        if result:
            seen += 1
            yield result
    if current:
        yield (False, f'{label}: {current}: guest stopped mid-run', None,
               diag[-20:])
    if not ended:
        yield False, f'{label}: no test ran (boot failure?)', None, []
    if '=== DMESG END' not in text:
        yield False, f'{label}: guest did not finish (timeout?)', None, []


def parse_tap(label, text):
    """Yield the results of one plain TAP stream, failing a short one."""
    plan, seen = 0, 0
    for line in text.splitlines():
        m = PLAN.match(line)
        if m:
            plan = int(m.group(1))
        result = tap_result(line, label)
        if result:
            seen += 1
            yield result
    if not plan or seen < plan:
        yield False, f'{label}: {seen} of {plan} results (crash?)', None, []


def main(args):
    results = []
    for arg in args:
        label, _, path = arg.partition('=')
        parser = parse
        if label.startswith('tap:'):
            label, parser = label[4:], parse_tap
        try:
            with open(path, errors='replace') as f:
                text = f.read()
        except OSError as e:
            text = ''
            print(f'# {label}: {e}')
        results.extend(parser(label, text))

    print('TAP version 13')
    print(f'1..{len(results)}')
    passed = failed = skipped = 0
    for i, (ok, name, directive, diag) in enumerate(results, 1):
        suffix = f' # {directive}' if directive else ''
        print(f'{"ok" if ok else "not ok"} {i} {name}{suffix}')
        for line in diag:
            print(f'# | {line[:300]}')
        if directive and directive.startswith('SKIP'):
            skipped += 1
        elif ok:
            passed += 1
        else:
            failed += 1
    summary = f'{passed} passed, {failed} failed'
    if skipped:
        summary += f', {skipped} skipped'
    print(summary)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
