#!/usr/bin/env python3
"""Registers, static shared memory, stack and barriers per kernel and GPU architecture, as ptxas -v
reports them, compared with the checked-in table kernels/resource_usage.tsv (CTest:
kernels.resource_usage). A kernel change that moves a figure must update the table in the same
commit: run the command this script prints with --update.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

from cxx_names import demangle

HEADER = (
    "# Registers, static shared memory, stack frame and named barriers per kernel and architecture, as\n"
    "# ptxas -v reports them (tests/kernels/check_resource_usage.py; CTest kernels.resource_usage).\n"
    "# A kernel change that moves a figure updates this file in the same commit (--update).\n"
)
COLUMNS = ["kernel", "arch", "registers", "shared_bytes", "stack_bytes", "barriers", "source"]

ENTRY = re.compile(r"Compiling entry function '([^']+)' for '(sm_\d+)'")
STACK = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
USED = re.compile(r"Used (\d+) registers")
BARRIERS = re.compile(r"used (\d+) barriers")
SMEM = re.compile(r"(\d+) bytes smem")


def parse_ptxas(text, source):
    """(mangled kernel, arch) -> figures, from nvcc -Xptxas=-v output."""
    rows, current = {}, None
    for line in text.splitlines():
        m = ENTRY.search(line)
        if m:
            current = (m.group(1), m.group(2))
            rows[current] = {"registers": "0", "shared_bytes": "0", "stack_bytes": "0", "barriers": "0",
                             "source": source}
            continue
        if current is None:
            continue
        m = STACK.search(line)
        if m:
            rows[current]["stack_bytes"] = m.group(1)
            continue
        m = USED.search(line)
        if m:
            rows[current]["registers"] = m.group(1)
            b, s = BARRIERS.search(line), SMEM.search(line)
            rows[current]["barriers"] = b.group(1) if b else "0"
            rows[current]["shared_bytes"] = s.group(1) if s else "0"
            current = None
    return rows


def measure(args):
    flags = shlex.split(args.flags)
    gencodes = []
    for arch in args.archs.split(","):
        number, _, kind = arch.partition("-")
        if kind in ("", "real"):  # PTX-only targets are not assembled by ptxas
            gencodes.append(f"-gencode=arch=compute_{number},code=sm_{number}")
    measured = {}
    with tempfile.TemporaryDirectory() as tmp:
        for src in args.sources:
            # Device code only (-fatbin): ptxas reports the same figures as for -c, without the host
            # compilation, which is a third of the time.
            cmd = [args.nvcc, "-fatbin", src, "-o", os.path.join(tmp, "k.fatbin"), f"-std={args.std}", *flags, "-Xptxas=-v",
                   *[f"-I{i}" for i in args.include], *gencodes]
            done = subprocess.run(cmd, capture_output=True, text=True)
            if done.returncode != 0:
                sys.stderr.write(done.stdout + done.stderr)
                sys.exit(f"nvcc failed on {src}: {shlex.join(cmd)}")
            measured.update(parse_ptxas(done.stdout + done.stderr, os.path.basename(src)))
    names = demangle(sorted({k for k, _ in measured}))
    return {(names[k], arch): figures for (k, arch), figures in measured.items()}


def load(path):
    table = {}
    if not os.path.exists(path):
        return table
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            cells = line.split("\t")
            if cells[0] == "kernel":
                continue
            row = dict(zip(COLUMNS, cells))
            table[(row["kernel"], row["arch"])] = {c: row.get(c, "") for c in COLUMNS[2:]}
    return table


def write(path, table):
    with open(path, "w", encoding="utf-8") as f:
        f.write(HEADER)
        f.write("\t".join(COLUMNS) + "\n")
        for (kernel, arch) in sorted(table):
            f.write("\t".join([kernel, arch] + [table[(kernel, arch)][c] for c in COLUMNS[2:]]) + "\n")


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--nvcc", required=True)
    p.add_argument("--std", default="c++20")
    p.add_argument("--archs", required=True, help="CMake CUDA_ARCHITECTURES entries, comma-separated: 80-real,...")
    p.add_argument("--table", required=True)
    p.add_argument("--include", action="append", default=[])
    p.add_argument("--flags", default="", help="the kernels' nvcc flags, one string")
    p.add_argument("--update", action="store_true", help="rewrite the table with what ptxas reports")
    p.add_argument("sources", nargs="+")
    args = p.parse_args()

    measured = measure(args)
    if not measured:
        sys.exit("ptxas reported no kernels: is -Xptxas=-v output parsed correctly?")
    if args.update:
        write(args.table, measured)
        print(f"wrote {len(measured)} rows to {args.table}")
        return 0

    expected = load(args.table)
    diffs = []
    for key in sorted(set(expected) | set(measured)):
        kernel, arch = key
        if key not in expected:
            figures = ", ".join(f"{c} {measured[key][c]}" for c in COLUMNS[2:6])
            diffs.append(f"  new      {kernel} [{arch}]: {figures}")
        elif key not in measured:
            diffs.append(f"  gone     {kernel} [{arch}]")
        else:
            changed = [f"{c} {expected[key][c]} -> {measured[key][c]}" for c in COLUMNS[2:6]
                       if expected[key][c] != measured[key][c]]
            if changed:
                diffs.append(f"  changed  {kernel} [{arch}]: " + ", ".join(changed))
    if diffs:
        print(f"ptxas's resource usage differs from {args.table}:")
        print("\n".join(diffs))
        print("If the change is intended, update the table:\n  " +
              shlex.join([sys.executable, *sys.argv, "--update"]))
        return 1
    print(f"{len(measured)} kernel/architecture rows match {args.table}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
