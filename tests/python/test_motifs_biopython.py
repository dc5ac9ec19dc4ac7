"""carbon-cli motifs scan against Biopython's Bio.motifs on real JASPAR matrices (from pyjaspar's
copy of the JASPAR database): the same hits (position, strand) and scores as PSSM.search, for the
JASPAR, MEME and TRANSFAC forms of the same matrices, and p-values within the discretization of
Biopython's own score distribution (both compute it by dynamic programming on a grid)."""
import csv
import os
import random
import sys

sys.path.insert(0, os.path.dirname(__file__))
from carbon_testlib import Checks, bin_path, require_modules, run, work_dir  # noqa: E402

require_modules("Bio", "pyjaspar")
from Bio import motifs  # noqa: E402
from Bio.Seq import Seq  # noqa: E402
from pyjaspar import jaspardb  # noqa: E402

CLI = bin_path("carbon-cli")
W = work_dir("motifs_biopython")
IDS = ["MA0004.1", "MA0139.1", "MA0079.3", "MA0106.3", "MA0108.2", "MA0018.2"]  # Arnt, CTCF, SP1, TP53, TBP, CREB1
PSEUDO = 0.5
PVALUE = 1e-3


def write_meme(ms, path):
    with open(path, "w") as f:
        f.write("MEME version 4\n\nALPHABET= ACGT\n\nstrands: + -\n\nBackground letter frequencies\n"
                "A 0.25 C 0.25 G 0.25 T 0.25\n\n")
        for m in ms:
            n = sum(m.counts[b][0] for b in "ACGT")
            f.write(f"MOTIF {m.matrix_id} {m.name}\nletter-probability matrix: alength= 4 w= {m.length} nsites= {n:g} E= 0\n")
            for j in range(m.length):
                f.write(" ".join(f"{m.counts[b][j] / n:.10f}" for b in "ACGT") + "\n")
            f.write("\n")


def scan(motif_file, fasta, out):
    run([CLI, "motifs", "scan", "--motifs", motif_file, "--in", fasta, "--out", out, "--pvalue", str(PVALUE),
         "--pseudocount", str(PSEUDO)])
    with open(out) as f:
        rows = [r for r in csv.DictReader((line for line in f if not line.startswith("#")), delimiter="\t")]
    return rows


def main():
    c = Checks()
    jdb = jaspardb()
    ms = [jdb.fetch_motif_by_id(i) for i in IDS]
    rng = random.Random(11)
    seqs = {f"s{k}": "".join(rng.choice("ACGT") for _ in range(n)) for k, n in enumerate([3000, 17, 1200])}
    # Plant each motif's consensus and its reverse complement so every motif has hits on both strands.
    s0 = list(seqs["s0"])
    for k, m in enumerate(ms):
        cons = str(m.consensus)
        s0[100 + 400 * k: 100 + 400 * k + len(cons)] = cons
        rc = str(Seq(cons).reverse_complement())
        s0[300 + 400 * k: 300 + 400 * k + len(rc)] = rc
    seqs["s0"] = "".join(s0)
    fasta = os.path.join(W, "seqs.fa")
    with open(fasta, "w") as f:
        for name, s in seqs.items():
            f.write(f">{name}\n{s}\n")

    jaspar = os.path.join(W, "m.jaspar")
    transfac = os.path.join(W, "m.transfac")
    meme = os.path.join(W, "m.meme")
    with open(jaspar, "w") as f:
        f.write(motifs.write(ms, "jaspar"))
    with open(transfac, "w") as f:
        for m in ms:  # as JASPAR's TRANSFAC downloads: AC, ID, then the matrix under "PO"
            f.write(f"AC {m.matrix_id}\nXX\nID {m.name}\nXX\nDE {m.matrix_id} {m.name} ; From JASPAR\nPO\tA\tC\tG\tT\n")
            for j in range(m.length):
                f.write(f"{j + 1:02d}\t" + "\t".join(f"{m.counts[b][j]:g}" for b in "ACGT") + "\n")
            f.write("XX\n//\n")
    write_meme(ms, meme)

    # Biopython: PSSM.search on both strands, thresholded by the p-value from its own distribution.
    expected = {}
    for m in ms:
        pssm = m.counts.normalize(pseudocounts=PSEUDO).log_odds()
        dist = pssm.distribution(precision=10 ** 3)
        for name, s in seqs.items():
            if len(s) < m.length:  # no window (Biopython's search fails on such a sequence)
                continue
            for pos, score in pssm.search(Seq(s), threshold=-1e9, both=True):
                pos = int(pos)
                start = pos if pos >= 0 else pos + len(s)
                strand = "+" if pos >= 0 else "-"
                # P(score >= s) on Biopython's grid, bracketed: its grid rounds each of the L entries
                # to a step, so a window's sum lies within L + 2 steps of the score's own bin.
                i = int((float(score) - dist.min_score + 0.5 * dist.step) // dist.step)
                slack = m.length + 2
                lo = sum(dist.bg_density[max(0, i + slack):])
                hi = sum(dist.bg_density[max(0, i - slack):])
                expected[(name, m.matrix_id, start + 1, strand)] = (float(score), lo, hi)

    outputs = {}
    for label, path in (("jaspar", jaspar), ("transfac", transfac), ("meme", meme)):
        rows = scan(path, fasta, os.path.join(W, f"hits-{label}.tsv"))
        outputs[label] = rows
        c.check(len(rows) > 0, f"{label}: no hits at all")
        worst_score = 0.0
        outside = 0
        for r in rows:
            key = (r["record"], r["motif_id"], int(r["start"]), r["strand"])
            if key not in expected:
                c.check(False, f"{label}: hit {key} is not a window Biopython scores")
                continue
            score, lo, hi = expected[key]
            worst_score = max(worst_score, abs(float(r["score"]) - score))
            pv = float(r["pvalue"])
            if not (lo * (1 - 1e-4) <= pv <= hi * (1 + 1e-4)):
                outside += 1
                c.check(False, f"{label}: {key} p-value {pv:.4e} outside Biopython's [{lo:.4e}, {hi:.4e}]")
        c.check(worst_score < 2e-4, f"{label}: scores differ from Biopython's by up to {worst_score:.2e} bits")
        # Every window Biopython puts clearly under the threshold is reported, and none clearly over it.
        got = {(r["record"], r["motif_id"], int(r["start"]), r["strand"]) for r in rows}
        for key, (_, lo, hi) in expected.items():
            if hi < PVALUE * 0.999:
                c.check(key in got, f"{label}: Biopython's hit {key} (p at most {hi:.2e}) is missing")
            if lo > PVALUE * 1.001:
                c.check(key not in got, f"{label}: {key} (Biopython's p at least {lo:.2e}) reported over the threshold")
        # The planted consensus sites are found on the strand they were planted on.
        for k, m in enumerate(ms):
            c.check(("s0", m.matrix_id, 101 + 400 * k, "+") in got, f"{label}: planted {m.matrix_id} (+) not found")
            c.check(("s0", m.matrix_id, 301 + 400 * k, "-") in got, f"{label}: planted {m.matrix_id} (-) not found")
        print(f"{label}: {len(rows)} hits, largest score difference {worst_score:.2e} bits, {outside} p-values outside "
              "Biopython's bracket")
    # The three formats of one matrix give the same output.
    c.check(outputs["jaspar"] == outputs["transfac"], "JASPAR and TRANSFAC forms of the same matrices give other hits")
    same_meme = [(r["record"], r["motif_id"], r["start"], r["strand"]) for r in outputs["meme"]] == \
        [(r["record"], r["motif_id"], r["start"], r["strand"]) for r in outputs["jaspar"]]
    c.check(same_meme, "the MEME form (probabilities x nsites) gives other hits than the JASPAR counts")
    # A bad motif file: FILE:LINE and exit status 1, nothing written.
    bad = os.path.join(W, "bad.jaspar")
    with open(bad, "w") as f:
        f.write(">M1 x\nA [1 2]\nC [1 2 3]\nG [1 2]\nT [1 2]\n")
    out = os.path.join(W, "bad.tsv")
    if os.path.exists(out):
        os.remove(out)
    import subprocess
    p = subprocess.run([CLI, "motifs", "scan", "--motifs", bad, "--in", fasta, "--out", out], capture_output=True, text=True)
    c.check(p.returncode == 1 and f"{bad}:3" in p.stderr and "different lengths" in p.stderr, f"bad motif file: {p.stderr!r}")
    c.check(not os.path.exists(out), "a refused scan left an output file")
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
