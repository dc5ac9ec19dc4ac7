"""carbon-cli generate --forbid-matrices: in 1,000 sampled designs, no window touching a design (either
strand, including the windows that reach into the left context and the right flank) matches a
forbidden JASPAR matrix, judged by Biopython's own log-odds scores and by the exact p-value of every
6-mer word (all 4,096 enumerated); the same request without the constraint does produce such
matches, so the check can fail. Also: a p-value of 1 is refused, and one so loose that no design exists ends with the reason."""
import itertools
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from carbon_testlib import Checks, bin_path, require_modules, run, work_dir  # noqa: E402

require_modules("Bio", "pyjaspar")
from Bio import motifs  # noqa: E402
from Bio.Seq import Seq  # noqa: E402
from pyjaspar import jaspardb  # noqa: E402

CLI = bin_path("carbon-cli")
W = work_dir("generate_forbid_matrices")
CONTEXT = "ATGCGCTAGCTACGATCGATCGTAGCTAGCTAGCTAGCTAC"
FLANK = "CACGTGACGTCA"  # holds the Arnt consensus, so windows reaching into it matter
PSEUDO = 0.5
PVALUE = 1e-2
COUNT = 1000  # the issue: no hit above the threshold in 1,000 sampled designs
LENGTH = 60


def read_fasta(path):
    seqs, cur = [], None
    for line in open(path):
        line = line.strip()
        if line.startswith(">"):
            cur = []
            seqs.append(cur)
        elif cur is not None:
            cur.append(line)
    return ["".join(s) for s in seqs]


def exact_pvalue(pssm):
    """P(score >= s) over all 4^L words under the uniform background, for every word's score."""
    scores = sorted(sum(pssm[b][j] for j, b in enumerate(w)) for w in itertools.product("ACGT", repeat=pssm.length))
    n = len(scores)

    def p(s):
        lo = 0
        hi = n
        while lo < hi:  # first index with score >= s
            mid = (lo + hi) // 2
            if scores[mid] < s:
                lo = mid + 1
            else:
                hi = mid
        return (n - lo) / n
    return p


def window_hits(pssm, pv, seq, starts, pvalue, strict):
    """Windows of seq starting at `starts` whose p-value on either strand is surely (strict) or
    possibly at most pvalue: (start, strand, score) each."""
    fwd = pssm.calculate(Seq(seq))
    rev = pssm.reverse_complement().calculate(Seq(seq))
    hits = []
    for start in starts:
        for strand, score in (("+", float(fwd[start])), ("-", float(rev[start]))):
            # The engine rounds the matrix to 1/1000 bit for its threshold: allow that either way.
            p = pv(score - 0.01) if strict else pv(score + 0.01)
            if p <= pvalue:
                hits.append((start, strand, score))
    return hits


def touching_hits(pssm, pv, design, strict):
    """Windows touching the design whose p-value is surely (strict) or possibly at most PVALUE."""
    full = CONTEXT + design + FLANK
    d0, d1 = len(CONTEXT), len(CONTEXT) + len(design)
    starts = [s for s in range(len(full) - pssm.length + 1) if s < d1 and s + pssm.length > d0]
    return window_hits(pssm, pv, full, starts, PVALUE, strict)


def generate(model, out, extra):
    run([CLI, "generate", "--model", model, "--context", CONTEXT, "--right-flank", FLANK, "--length", str(LENGTH),
         "--count", str(COUNT), "--seed", "7", "--temperature", "1.3", "--out", out, "--quiet"] + extra)
    return read_fasta(out)


def arnt_setup(work):
    """The tiny model (seed 5) and JASPAR's Arnt (MA0004.1) in `work`: (model folder, the matrix file,
    Biopython's log-odds matrix at pseudocount PSEUDO, its exact p-value function)."""
    model = os.path.join(work, "tiny")
    if not os.path.exists(os.path.join(model, "config.json")):
        run([CLI, "make-test-model", "--out", model, "--seed", "5"])
    arnt = jaspardb().fetch_motif_by_id("MA0004.1")
    jaspar = os.path.join(work, "arnt.jaspar")
    with open(jaspar, "w") as f:
        f.write(motifs.write([arnt], "jaspar"))
    pssm = arnt.counts.normalize(pseudocounts=PSEUDO).log_odds()
    return model, jaspar, pssm, exact_pvalue(pssm)


def main():
    c = Checks()
    model, jaspar, pssm, pv = arnt_setup(W)

    free = generate(model, os.path.join(W, "free.fa"), [])
    bound = generate(model, os.path.join(W, "bound.fa"),
                     ["--forbid-matrices", jaspar, "--forbid-pvalue", str(PVALUE), "--max-backtracks", "100000"])
    c.check(len(free) == COUNT and len(bound) == COUNT, f"expected {COUNT} designs each, got {len(free)}, {len(bound)}")
    free_hits = sum(len(touching_hits(pssm, pv, d, strict=True)) for d in free)
    c.check(free_hits > 0, "without the constraint no design matched Arnt: the check below could not fail")
    for i, d in enumerate(bound):
        c.check(len(d) == LENGTH, f"design {i + 1} has {len(d)} bases, not {LENGTH}")
        for start, strand, score in touching_hits(pssm, pv, d, strict=True):
            c.check(False, f"design {i + 1}: Arnt ({strand}) at {start + 1} of context+design+flank, score {score:.3f}")
    near = sum(len(touching_hits(pssm, pv, d, strict=False)) for d in bound)
    print(f"{COUNT} designs: {free_hits} Arnt windows at p <= {PVALUE} touch the free designs, none touch the "
          f"constrained ones ({near} within 0.01 bit of the threshold)")

    # The consensus word alone has p = 1/4096; a p-value of 1 would forbid every window.
    never = os.path.join(W, "never.fa")
    if os.path.exists(never):
        os.remove(never)
    p = subprocess.run([CLI, "generate", "--model", model, "--context", CONTEXT, "--length", "12", "--out",
                        never, "--forbid-matrices", jaspar, "--forbid-pvalue", "1"],
                       capture_output=True, text=True)
    c.check(p.returncode == 1 and "--forbid-pvalue" in p.stderr and "every window" in p.stderr,
            f"--forbid-pvalue 1 should be refused: status {p.returncode}, {p.stderr.strip()}")
    c.check(not os.path.exists(never), "a refused run left an output file")
    # A threshold so loose that no design exists: refused with the reason, no output.
    p = subprocess.run([CLI, "generate", "--model", model, "--context", CONTEXT, "--length", "12", "--out", never,
                        "--forbid-matrices", jaspar, "--forbid-pvalue", "0.9", "--max-backtracks", "50"],
                       capture_output=True, text=True)
    c.check(p.returncode == 1 and "cannot be met" in p.stderr and "matrices" in p.stderr,
            f"--forbid-pvalue 0.9 should end in 'cannot be met ... matrices': status {p.returncode}, {p.stderr.strip()}")
    c.check(not os.path.exists(never), "a failed run left an output file")
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
