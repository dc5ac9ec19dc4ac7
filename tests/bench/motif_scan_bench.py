#!/usr/bin/env python3
"""Scanning a 10 Mbp sequence against 100 JASPAR matrices: `carbon-cli motifs scan` beside
Biopython's Bio.motifs (PSSM.search at the score threshold of the same p-value, both strands), on
the same sequence, matrices, pseudocounts and p-value; wall time of each and their hit counts
(docs/benchmarks.md, issue 18). A benchmark, not a test.
    build/venv/bin/python tests/bench/motif_scan_bench.py [--mbp 10] [--motifs 100] [--pvalue 1e-4]
Needs the build (build/bin/carbon-cli) and the Python packages of tests/setup-test-deps.sh
(Biopython, pyjaspar)."""
import argparse
import os
import random
import subprocess
import sys
import time

from Bio import motifs
from Bio.Seq import Seq
from pyjaspar import jaspardb

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
CLI = os.path.join(ROOT, "build", "bin", "carbon-cli")
PSEUDO = 0.5


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mbp", type=float, default=10)
    ap.add_argument("--motifs", type=int, default=100)
    ap.add_argument("--pvalue", type=float, default=1e-4)
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "bench", "motif_scan"))
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    n = int(a.mbp * 1e6)
    rng = random.Random(1)
    seq = "".join(rng.choice("ACGT") for _ in range(n))
    fasta = os.path.join(a.work, "seq.fa")
    with open(fasta, "w") as f:
        f.write(">random_%d_bp seed 1\n" % n)
        for i in range(0, n, 80):
            f.write(seq[i:i + 80] + "\n")
    db = jaspardb()
    chosen = sorted(db.fetch_motifs(collection="CORE", tax_group=["vertebrates"]), key=lambda m: m.matrix_id)
    chosen = chosen[: a.motifs]
    jaspar = os.path.join(a.work, "motifs.jaspar")
    with open(jaspar, "w") as f:
        f.write(motifs.write(chosen, "jaspar"))
    lengths = [m.length for m in chosen]
    print(f"== {n:,} bp (random, seed 1), {len(chosen)} JASPAR CORE vertebrate matrices "
          f"({chosen[0].matrix_id}..{chosen[-1].matrix_id}, widths {min(lengths)}-{max(lengths)}), "
          f"p <= {a.pvalue}, pseudocount {PSEUDO}, both strands")

    out = os.path.join(a.work, "hits.tsv")
    t0 = time.perf_counter()
    subprocess.run([CLI, "motifs", "scan", "--motifs", jaspar, "--in", fasta, "--out", out, "--pvalue",
                    str(a.pvalue), "--pseudocount", str(PSEUDO)], check=True)
    t_engine = time.perf_counter() - t0
    with open(out) as f:
        engine_hits = sum(1 for line in f if line.strip() and not line.startswith(("#", "sequence", "record")))
    print(f"carbon-cli motifs scan: {t_engine:.2f} s, {engine_hits:,} hits", flush=True)

    s = Seq(seq)
    t0 = time.perf_counter()
    bio_hits = 0
    for m in chosen:
        pssm = m.counts.normalize(pseudocounts=PSEUDO).log_odds()
        threshold = pssm.distribution(precision=1000).threshold_fpr(a.pvalue)
        bio_hits += sum(1 for _ in pssm.search(s, threshold=threshold, both=True))
    t_bio = time.perf_counter() - t0
    # The counts differ where a matrix cannot reach the p-value (a 6-wide matrix's best word has
    # p = 1/4096): threshold_fpr returns the first score whose tail reaches p, so Biopython keeps
    # windows with p above it there, which the engine's exact p-values leave out.
    print(f"Biopython {__import__('Bio').__version__} Bio.motifs: {t_bio:.2f} s, {bio_hits:,} hits "
          f"(score >= ScoreDistribution(precision=1000).threshold_fpr(p))")
    print(f"engine / Biopython: {t_bio / t_engine:.1f}x faster")
    return 0


if __name__ == "__main__":
    sys.exit(main())
