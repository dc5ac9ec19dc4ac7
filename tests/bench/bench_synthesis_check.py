#!/usr/bin/env python3
"""Benchmark (issue 33): checking 100,000 designs against a vendor rule set, carbon-cli check beside
DnaChisel 3.2's own specifications for the same rules, in the same run, on the same designs.

usage: bench_synthesis_check.py CARBON_BIN_DIR [--count N] [--length L] [--rules SET] [--chisel-count N]

The designs: random bases (seed 1), one in five with a planted breach (a 12-base run, a 25-base
direct or inverted repeat, a GC-rich 60-base stretch), written as one FASTA. carbon-cli's whole
process is timed (reading the FASTA, checking, writing the JSON); DnaChisel is timed on the
designs alone (a DnaOptimizationProblem per design, constraints_evaluations()), in this process,
on the first --chisel-count designs (default all). The verdicts of the two are compared design by
design on the designs both checked. Prints one table row per tool."""
import json
import os
import random
import resource
import subprocess
import sys
import time

import dnachisel as dc

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from dnachisel_rules import chisel_specs, parse_rule  # noqa: E402

args = sys.argv[1:]
if not args:
    sys.exit(__doc__)
BIN = args[0]


def opt(name, default):
    return type(default)(args[args.index(name) + 1]) if name in args else default


COUNT, LENGTH, RULES = opt("--count", 100000), opt("--length", 200), opt("--rules", "idt-gblock")
CHISEL = opt("--chisel-count", COUNT)
CLI = os.path.join(BIN, "carbon-cli")
work = "/tmp/bench-synthesis"
os.makedirs(work, exist_ok=True)
rng = random.Random(1)
comp = str.maketrans("ACGT", "TGCA")
designs = []
for i in range(COUNT):
    s = "".join(rng.choice("ACGT") for _ in range(LENGTH))
    if i % 5 == 0:
        kind = rng.randrange(3)
        p = rng.randrange(LENGTH - 60)
        if kind == 0:
            s = s[:p] + rng.choice("ACGT") * 12 + s[p + 12:]
        elif kind == 1:
            w = s[p:p + 25]
            q = rng.randrange(LENGTH - 25)
            w2 = w if rng.random() < 0.5 else w.translate(comp)[::-1]
            s = s[:q] + w2 + s[q + 25:]
        else:
            s = s[:p] + "".join(rng.choice("GC") for _ in range(60)) + s[p + 60:]
    designs.append(s[:LENGTH])
fa = os.path.join(work, "designs.fa")
with open(fa, "w") as f:
    for i, s in enumerate(designs):
        f.write(f">d{i}\n{s}\n")
out = os.path.join(work, "check.json")

t0 = time.perf_counter()
p = subprocess.run(["/usr/bin/time", "-f", "%M", CLI, "check", "--rules", RULES, "--in", fa, "--json", "--out", out],
                   capture_output=True, text=True)
t_carbon = time.perf_counter() - t0
if p.returncode:
    sys.exit(p.stderr)
peak_kb = int(p.stderr.strip().splitlines()[-1])
ours = [bool(r["breaches"]) for r in json.load(open(out))]

rules = [line.strip().split("\t")[0] for line in
         subprocess.run([CLI, "check", "--list-rules", "--rules", RULES], capture_output=True, text=True).stdout.splitlines()[1:]]


specs = []
for line in rules:
    if line.startswith("gc-spread"):
        sys.exit("gc-spread has no DnaChisel counterpart; choose a rule set without it")
    specs += chisel_specs(parse_rule(line))

t0 = time.perf_counter()
theirs = []
for s in designs[:CHISEL]:
    prob = dc.DnaOptimizationProblem(s, constraints=specs, logger=None)
    theirs.append(not all(e.passes for e in prob.constraints_evaluations().evaluations))
t_chisel = time.perf_counter() - t0
agree = sum(a == b for a, b in zip(ours, theirs))
print(f"{COUNT:,} designs of {LENGTH} bp, rule set {RULES} ({len(rules)} rules), {sum(ours):,} break a rule")
print("| tool | designs | time | designs/s | peak memory |")
print("|---|---:|---:|---:|---:|")
print(f"| carbon-cli check (whole process) | {COUNT:,} | {t_carbon:.2f} s | {COUNT / t_carbon:,.0f} | {peak_kb / 1024:.0f} MB |")
print(f"| DnaChisel 3.2.16 (in process) | {CHISEL:,} | {t_chisel:.2f} s | {CHISEL / t_chisel:,.0f} | "
      f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB (this process) |")
print(f"verdicts equal on {agree:,} of {len(theirs):,} designs checked by both")
