#!/usr/bin/env python3
"""carbon-cli select (issue 33): designs to order out of a FASTA of designs.

- 600 designs in 40 families of near-identical ones (some reverse complemented): choosing 40
  takes one per family; the smallest distance it reports equals this test's own count over the
  chosen set (both strands); the first is the best score; the output keeps the records in the
  order chosen with selection_rank added; at least as far apart as 20 random choices of 40.
- --min-distance leaves no pair closer than D; --min-score keeps only designs scoring at least X;
  NA scores are never chosen; asking for more than there are chooses all and says so.
- --distance edit takes designs of different lengths; hamming refuses them with file and line;
  a record without the score key, or with a score that is not a number, is refused with its line.

Drives carbon-cli ($CARBON_BIN); needs no model."""
import os
import random
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from carbon_testlib import Checks, bin_path, work_dir  # noqa: E402

T = Checks()
CLI = bin_path("carbon-cli")
WORK = work_dir("select")
COMP = str.maketrans("ACGT", "TGCA")


def revcomp(s):
    return s.translate(COMP)[::-1]


def hamming(a, b):
    return sum(x != y for x, y in zip(a, b))


def edit(a, b):
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def dist(a, b, kind="hamming"):
    f = hamming if kind == "hamming" else edit
    return min(f(a, b), f(a, revcomp(b)))


def min_pairwise(seqs, kind="hamming"):
    return min((dist(seqs[i], seqs[j], kind) for i in range(len(seqs)) for j in range(i + 1, len(seqs))), default=None)


def write_fasta(path, records):
    with open(path, "w") as f:
        for name, score, seq in records:
            f.write(f">{name} design_logp={score} length={len(seq)}\n{seq}\n")


def read_fasta(path):
    out = []
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith(">"):
            out.append([line[1:], ""])
        elif line:
            out[-1][1] += line
    return out


def select(args, expect_ok=True):
    p = subprocess.run([CLI, "select"] + args, capture_output=True, text=True)
    if expect_ok and p.returncode != 0:
        T.check(False, f"select {' '.join(args)} failed: {p.stderr}")
    return p


rng = random.Random(3)
records = []
for f in range(40):
    root = "".join(rng.choice("ACGT") for _ in range(80))
    for k in range(15):
        s = list(root)
        for _ in range(rng.randrange(0, 3)):
            s[rng.randrange(80)] = rng.choice("ACGT")
        s = "".join(s)
        records.append((f"f{f}_{k}", round(rng.uniform(-2, -0.5), 4), revcomp(s) if k % 3 == 0 else s))
designs = os.path.join(WORK, "designs.fasta")
write_fasta(designs, records)
out = os.path.join(WORK, "chosen.fasta")
p = select(["--in", designs, "--count", "40", "--out", out])
chosen = read_fasta(out)
T.check(len(chosen) == 40, f"{len(chosen)} chosen")
families = {h.split()[0].split("_")[0] for h, _ in chosen}
T.check(len(families) == 40, f"one per family: {len(families)} families among the chosen")
seqs = [s for _, s in chosen]
m = re.search(r"smallest hamming distance between two chosen: (\d+)", p.stderr)
T.check(m and int(m.group(1)) == min_pairwise(seqs), f"reported {m and m.group(1)} vs counted {min_pairwise(seqs)}: {p.stderr}")
best = max(records, key=lambda r: r[1])
T.check(chosen[0][0].split()[0] == best[0], f"first chosen {chosen[0][0].split()[0]}, best score {best[0]}")
T.check([int(re.search(r"selection_rank=(\d+)", h).group(1)) for h, _ in chosen] == list(range(1, 41)), "selection ranks 1..40")
by_name = {r[0]: r for r in records}
T.check(all(by_name[h.split()[0]][2] == s for h, s in chosen), "the chosen records are unchanged")
ours = min_pairwise(seqs)
for _ in range(20):
    pick = rng.sample(records, 40)
    T.check(min_pairwise([r[2] for r in pick]) <= ours, "a random choice of 40 is farther apart than ours")

# Near-duplicates, thresholds, NA, too few.
p = select(["--in", designs, "--count", "1000", "--min-distance", "5", "--out", out])
kept = [s for _, s in read_fasta(out)]
T.check(len(kept) >= 40 and min_pairwise(kept) >= 5, f"--min-distance 5: {len(kept)} kept, closest {min_pairwise(kept)}")
T.check("note: chose" in p.stderr, f"asking for more than there are says so: {p.stderr}")
p = select(["--in", designs, "--count", "10", "--min-score", "-1", "--out", out])
T.check(all(by_name[h.split()[0]][1] >= -1 for h, _ in read_fasta(out)), "--min-score -1 keeps only designs scoring at least -1")
na = os.path.join(WORK, "na.fasta")
with open(na, "w") as f:
    f.write(">a design_logp=NA\nACGTACGT\n>b design_logp=-3\nACGTTTTT\n>c design_logp=-1\nGGGGACGT\n")
p = select(["--in", na, "--count", "3", "--out", out])
T.check([h.split()[0] for h, _ in read_fasta(out)] == ["c", "b"], f"NA never chosen: {read_fasta(out)}")

# Lengths and bad headers.
mixed = os.path.join(WORK, "mixed.fasta")
with open(mixed, "w") as f:
    f.write(">a design_logp=-1\nACGTACGTAC\n>b design_logp=-2\nACGTACGTACGTA\n>c design_logp=-3\nTTTTTTTTTTTT\n")
p = select(["--in", mixed, "--count", "2", "--out", out], expect_ok=False)
T.check(p.returncode == 1 and f"{mixed}:3" in p.stderr and "--distance edit" in p.stderr, f"hamming on two lengths: {p.stderr}")
p = select(["--in", mixed, "--count", "2", "--distance", "edit", "--out", out])
got = [s for _, s in read_fasta(out)]
m = re.search(r"smallest edit distance between two chosen: (\d+)", p.stderr)
T.check(len(got) == 2 and m and int(m.group(1)) == min_pairwise(got, "edit"), f"edit distance: {got} {p.stderr}")
bad = os.path.join(WORK, "bad.fasta")
with open(bad, "w") as f:
    f.write(">a design_logp=-1\nACGT\n>b other=1\nACGA\n")
p = select(["--in", bad, "--count", "1", "--out", out], expect_ok=False)
T.check(p.returncode == 1 and f"{bad}:3" in p.stderr and "design_logp=" in p.stderr, f"missing key: {p.stderr}")
with open(bad, "w") as f:
    f.write(">a design_logp=-1\nACGT\n>b design_logp=high\nACGA\n")
p = select(["--in", bad, "--count", "1", "--out", out], expect_ok=False)
T.check(p.returncode == 1 and f"{bad}:3" in p.stderr and "not a number" in p.stderr, f"bad score: {p.stderr}")
p = select(["--in", designs, "--out", out], expect_ok=False)
T.check(p.returncode == 1 and "--count" in p.stderr, f"no --count: {p.stderr}")
sys.exit(T.done())
