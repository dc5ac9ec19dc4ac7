#!/usr/bin/env python3
"""The structure's figures, from the tree as it stands (issue 28's before-and-after numbers):
source files and lines per folder, the largest folder's share of the lines, the largest files,
and every #include that runs from a lower layer back up to a higher one.

    python3 tests/tools/structure_figures.py [ROOT]

Layers, bottom up: kernels, engine, storage, runs (storage/runs), ui, app. An include is resolved
by the public header paths (carbon/kernels/..., carbon/storage/..., carbon/runs/..., other
carbon/... = engine) or, for a quoted name, as a file beside the includer or in its layer's
source folders. Product code only (tests, benchmarks and tools are not counted). Exit status 1
when an include runs back up."""
import collections
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
SOURCES = (".h", ".hpp", ".cpp", ".cc", ".cu", ".cuh", ".inc")
LAYERS = ["kernels", "engine", "storage", "runs", "ui", "app"]
TOP = ["kernels", "engine", "storage", "ui", "app"]


def layer_of(rel):
    if rel.startswith("storage/runs/"):
        return "runs"
    return rel.split("/", 1)[0]


files = {}
for top in TOP:
    for d, _, names in os.walk(os.path.join(ROOT, top)):
        for n in names:
            if n.endswith(SOURCES):
                p = os.path.join(d, n)
                rel = os.path.relpath(p, ROOT)
                with open(p, encoding="utf-8", errors="replace") as f:
                    files[rel] = f.read().splitlines()

by_name = collections.defaultdict(list)
for rel in files:
    by_name[os.path.basename(rel)].append(rel)


def resolve(includer, target):
    if target.startswith("carbon/kernels/"):
        return "kernels"
    if target.startswith("carbon/storage/"):
        return "storage"
    if target.startswith("carbon/runs/"):
        return "runs"
    if target.startswith("carbon/"):
        return "engine"
    beside = os.path.normpath(os.path.join(os.path.dirname(includer), target))
    if beside in files:
        return layer_of(beside)
    same = [r for r in by_name.get(os.path.basename(target), []) if r.endswith(target)]
    mine = [r for r in same if layer_of(r) == layer_of(includer)]
    if mine:
        return layer_of(mine[0])
    return layer_of(same[0]) if same else None


folders = collections.Counter()
folder_files = collections.Counter()
for rel, lines in files.items():
    folders[os.path.dirname(rel)] += len(lines)
    folder_files[os.path.dirname(rel)] += 1
total = sum(folders.values())
print(f"product source: {len(files)} files, {total} lines in {len(folders)} folders")
print(f"{'folder':44} {'files':>5} {'lines':>7} {'share':>6}")
for folder, n in sorted(folders.items(), key=lambda kv: -kv[1]):
    print(f"{folder:44} {folder_files[folder]:5} {n:7} {100 * n / total:5.1f}%")
largest = max(folders.items(), key=lambda kv: kv[1])
print(f"largest folder: {largest[0]} with {100 * largest[1] / total:.1f}% of the lines")
print("largest files: " + ", ".join(f"{r} {len(l)}" for r, l in sorted(files.items(), key=lambda kv: -len(kv[1]))[:8]))

upward = []
for rel, lines in files.items():
    here = LAYERS.index(layer_of(rel))
    for i, line in enumerate(lines, 1):
        m = re.match(r'\s*#\s*include\s*["<]([^">]+)[">]', line)
        if not m:
            continue
        to = resolve(rel, m.group(1))
        if to is not None and LAYERS.index(to) > here:
            upward.append(f"{rel}:{i}: {layer_of(rel)} includes {m.group(1)} ({to})")
print(f"includes from a lower layer up to a higher one: {len(upward)}")
for u in upward:
    print("  " + u)
sys.exit(1 if upward else 0)
