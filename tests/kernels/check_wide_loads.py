#!/usr/bin/env python3
"""The bandwidth-bound kernels listed in kernels/wide_loads.txt must read global memory 128 bits at
a time: each listed .cu file is compiled to PTX for every given architecture, and every kernel whose
demangled name matches the line's pattern must contain a 128-bit global load (nvcc 13 spells them
ld.global.nc.v4.u32 / ld.global.nc.v4.f32 for __ldg of uint4 / float4, ld.global.v4.* without
__ldg; v2 of 64-bit elements is 128 bits too). A pattern that matches no kernel is an error, so a
renamed kernel cannot pass silently. CTest: kernels.wide_loads (label kernels-nvcc).
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

from cxx_names import demangle

ENTRY = re.compile(r"^\s*(?:\.visible\s+|\.weak\s+)?\.entry\s+([A-Za-z_$][\w$]*)\s*\(", re.M)
# ld.global[.qualifiers].v4.{b,u,s,f}32 or .v2.{b,u,s,f}64; qualifiers include nc, ca, cg, cs, lu,
# L1::no_allocate, L2::128B, ...
WIDE = re.compile(r"\bld\.global(?:\.[\w:]+)*?\.(?:v4\.[busf]32|v2\.[busf]64)\b")
ANY_GLOBAL_LOAD = re.compile(r"\bld\.global(?:\.[\w:]+)*")


def read_list(path):
    """[(line number, source .cu path, compiled pattern)] from the list file."""
    entries = []
    base = os.path.dirname(os.path.abspath(path))
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split(None, 1)
            if len(parts) != 2:
                sys.exit(f"{path}:{number}: expected '<file.cu> <kernel name pattern>', got {line!r}")
            source, pattern = parts
            try:
                regex = re.compile(pattern.strip())
            except re.error as e:
                sys.exit(f"{path}:{number}: bad pattern {pattern!r}: {e}")
            entries.append((number, os.path.join(base, source), pattern.strip(), regex))
    return entries


def entry_bodies(ptx):
    """{mangled kernel name: PTX text from its .entry line to the next entry}."""
    matches = list(ENTRY.finditer(ptx))
    bodies = {}
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(ptx)
        bodies[m.group(1)] = ptx[m.start():end]
    return bodies


def compile_ptx(args, source, arch, tmp):
    out = os.path.join(tmp, f"{os.path.basename(source)}.{arch}.ptx")
    flags = [f for f in shlex.split(args.flags) if not f.startswith("-Xptxas")]  # no ptxas for -ptx
    cmd = [args.nvcc, "-ptx", source, "-o", out, f"-std={args.std}", f"-arch=compute_{arch}", *flags,
           *[f"-I{i}" for i in args.include]]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        sys.exit(f"nvcc failed: {shlex.join(cmd)}")
    with open(out, encoding="utf-8") as f:
        return f.read()


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--nvcc", required=True)
    p.add_argument("--std", default="c++20")
    p.add_argument("--archs", default="80,90", help="compute capabilities, comma-separated: 80,90")
    p.add_argument("--list", required=True, help="kernels/wide_loads.txt")
    p.add_argument("--include", action="append", default=[])
    p.add_argument("--flags", default="", help="the kernels' nvcc flags, one string (-Xptxas ones are dropped)")
    args = p.parse_args()

    entries = read_list(args.list)
    if not entries:
        sys.exit(f"{args.list} lists no kernels")
    failures, checked = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for source in sorted({e[1] for e in entries}):
            for arch in args.archs.split(","):
                bodies = entry_bodies(compile_ptx(args, source, arch, tmp))
                names = demangle(sorted(bodies))
                for number, _, pattern, regex in (e for e in entries if e[1] == source):
                    matched = [m for m in sorted(bodies) if regex.search(names[m])]
                    if not matched:
                        failures.append(f"{args.list}:{number}: no kernel in {os.path.basename(source)} "
                                        f"(compute_{arch}) matches {pattern!r}")
                        continue
                    for mangled in matched:
                        checked += 1
                        wide = len(WIDE.findall(bodies[mangled]))
                        loads = sorted(set(ANY_GLOBAL_LOAD.findall(bodies[mangled])))
                        if wide == 0:
                            failures.append(f"  compute_{arch} {names[mangled]}: no 128-bit global load "
                                            f"(global loads: {', '.join(loads) or 'none'})")
    if failures:
        print("kernels without 128-bit global loads in their PTX:")
        print("\n".join(failures))
        return 1
    print(f"{checked} kernel/architecture pairs load 128 bits at a time ({args.list})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
