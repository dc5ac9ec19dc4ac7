#!/usr/bin/env python3
"""Benchmark (issue 33): choosing 200 diverse designs out of 10,000, carbon-cli select beside the
same greedy max-min written with NumPy (what a lab would otherwise script: a vectorised Hamming
distance on both strands, one row of distances per chosen design), in the same run, on the same
designs; and carbon-cli select --project over the same designs stored in a project (reading them,
choosing, storing the selection).

usage: bench_select.py CARBON_BIN_DIR [--count N] [--length L] [--choose K] [--repeats R]

The designs: random bases (seed 1), a design_logp each (seed 2). carbon-cli's whole process is
timed; NumPy is timed on the choice alone (the designs already in memory as a uint8 matrix). The
two choices are compared: the same designs in the same order (ties broken alike: the better score,
then the earlier design). Prints one table row per tool."""
import os
import random
import resource
import sqlite3
import subprocess
import sys
import time

import numpy as np

args = sys.argv[1:]
if not args:
    sys.exit(__doc__)
BIN = args[0]


def opt(name, default):
    return type(default)(args[args.index(name) + 1]) if name in args else default


COUNT, LENGTH, CHOOSE, REPEATS = opt("--count", 10000), opt("--length", 200), opt("--choose", 200), opt("--repeats", 3)
CLI = os.path.join(BIN, "carbon-cli")
work = "/tmp/bench-select"
os.makedirs(work, exist_ok=True)
rng = random.Random(1)
designs = ["".join(rng.choice("ACGT") for _ in range(LENGTH)) for _ in range(COUNT)]
srng = random.Random(2)
scores = [round(-1.2 - srng.random(), 6) for _ in range(COUNT)]
fa = os.path.join(work, "designs.fa")
with open(fa, "w") as f:
    for i, (s, x) in enumerate(zip(designs, scores)):
        f.write(f">d{i} design_logp={x}\n{s}\n")


def timed(cmd):
    best = None
    for _ in range(REPEATS):
        t = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True)
        dt = time.perf_counter() - t
        if p.returncode != 0:
            sys.exit(f"{' '.join(cmd)} failed: {p.stderr}")
        best = dt if best is None else min(best, dt)
    return best, p


def numpy_choice():
    code = {ord("A"): 0, ord("C"): 1, ord("G"): 2, ord("T"): 3}
    m = np.array([[code[c] for c in s.encode()] for s in designs], dtype=np.uint8)
    rc = (3 - m)[:, ::-1]  # A<->T, C<->G, reversed
    sc = np.array(scores)
    t = time.perf_counter()
    order = np.lexsort((np.arange(COUNT), -sc))  # best first, ties by index
    nearest = np.full(COUNT, np.iinfo(np.int64).max)
    taken = np.zeros(COUNT, bool)
    chosen = [int(order[0])]
    rank = np.empty(COUNT, np.int64)
    rank[order] = np.arange(COUNT)
    while len(chosen) < CHOOSE:
        c = chosen[-1]
        taken[c] = True
        d = np.minimum((m != m[c]).sum(1), (m != rc[c]).sum(1))
        np.minimum(nearest, d, out=nearest)
        cand = np.where(taken, -1, nearest)
        best = cand.max()
        ties = np.flatnonzero(cand == best)
        chosen.append(int(ties[np.argmin(rank[ties])]))  # the better score, then the earlier
    return time.perf_counter() - t, chosen


t_cli, p = timed([CLI, "select", "--in", fa, "--count", str(CHOOSE), "--out", os.path.join(work, "chosen.fa")])
cli_names = [line[1:].split()[0] for line in open(os.path.join(work, "chosen.fa")) if line.startswith(">")]
cli_chosen = [int(n[1:]) for n in cli_names]
t_np, np_chosen = numpy_choice()
same = cli_chosen == np_chosen

# The same designs in a project: carbon-cli select --project over the stored designs.
proj = os.path.join(work, "designs.carbon")
for ext in ("", "-wal", "-shm"):
    if os.path.exists(proj + ext):
        os.remove(proj + ext)
subprocess.run([CLI, "project", "import", proj, "--fasta", fa], check=True, capture_output=True)
db = sqlite3.connect(proj)  # designs of one run, as generate --project stores them
db.execute("INSERT INTO runs(id, kind, started, status) VALUES(1, 'generate', '2026-11-28T00:00:00Z', 'finished')")
db.executemany("INSERT INTO designs(run_id, name, bases, design_logp, ranking_logp, rank, created) VALUES(1, ?, ?, ?, ?, ?, '')",
               [(f"d{i}", s, x, x, i + 1) for i, (s, x) in enumerate(zip(designs, scores))])
db.commit()
db.close()
tp = []
for k in range(REPEATS):
    t = time.perf_counter()
    q = subprocess.run([CLI, "select", "--project", proj, "--count", str(CHOOSE), "--save-as", "bench", "--replace"],
                       capture_output=True, text=True)
    tp.append(time.perf_counter() - t)
    if q.returncode != 0:
        sys.exit(f"select --project failed: {q.stderr}")
db = sqlite3.connect(proj)
stored = [r[0] for r in db.execute("SELECT d.name FROM selection_designs s JOIN designs d ON d.id = s.design_id ORDER BY s.ord")]
db.close()
same_project = [int(n[1:]) for n in stored] == cli_chosen

print(f"{COUNT} designs of {LENGTH} bp, choose {CHOOSE}, Hamming on both strands, best of {REPEATS}")
print("| tool | time | same choice |")
print("|---|---:|---|")
print(f"| carbon-cli select (whole process) | {t_cli:.3f} s | - |")
print(f"| NumPy greedy max-min (the choice alone) | {t_np:.3f} s | {'yes' if same else 'NO'} |")
print(f"| carbon-cli select --project (read, choose, store) | {min(tp):.3f} s | {'yes' if same_project else 'NO'} |")
print("stderr:", p.stderr.strip())
print(f"peak RSS of this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
sys.exit(0 if same and same_project else 1)
