"""carbon-cli generate --require-matrices: in 1,000 sampled designs, every design holds a window of a
required JASPAR matrix (either strand) lying wholly inside the span asked for, judged by Biopython's
own log-odds scores and the exact p-value of every 6-mer word (all 4,096 enumerated), and by
carbon-cli motifs scan (the grid the constraint is judged on, to the last window); the same
request without the constraint leaves designs without one, so the check can fail. Also: spans that
cannot hold the matrix and options without --require-matrices are refused with the reason."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from carbon_testlib import Checks, bin_path, require_modules, run, work_dir  # noqa: E402

require_modules("Bio", "pyjaspar")
from test_generate_forbid_matrices import arnt_setup, read_fasta, window_hits  # noqa: E402

CLI = bin_path("carbon-cli")
W = work_dir("generate_require_matrices")
CONTEXT = "ATGCGCTAGCTACGATCGATCGTAGCTAGCTAGCTAGCTAC"
PVALUE = 1e-3
COUNT = 1000
LENGTH = 60
SPAN = (21, 50)  # 1-based, inclusive, as --require-within takes it


def span_hits(pssm, pv, design, strict):
    """Windows wholly inside SPAN whose p-value is surely (strict) or possibly at most PVALUE."""
    return window_hits(pssm, pv, design, range(SPAN[0] - 1, SPAN[1] - pssm.length + 1), PVALUE, strict)


def generate(model, out, extra):
    run([CLI, "generate", "--model", model, "--context", CONTEXT, "--length", str(LENGTH), "--count", str(COUNT),
         "--seed", "11", "--temperature", "1.3", "--out", out, "--quiet"] + extra)
    return read_fasta(out)


def refused(args, *words):
    p = subprocess.run([CLI, "generate"] + args, capture_output=True, text=True)
    return p.returncode == 1 and all(w in p.stderr for w in words), p.stderr.strip()


def main():
    c = Checks()
    model, jaspar, pssm, pv = arnt_setup(W)

    free = generate(model, os.path.join(W, "free.fa"), [])
    bound = generate(model, os.path.join(W, "bound.fa"),
                     ["--require-matrices", jaspar, "--require-pvalue", str(PVALUE),
                      "--require-within", f"{SPAN[0]}-{SPAN[1]}"])
    c.check(len(free) == COUNT and len(bound) == COUNT, f"expected {COUNT} designs each, got {len(free)}, {len(bound)}")
    free_without = sum(1 for d in free if not span_hits(pssm, pv, d, strict=False))
    c.check(free_without > 0, "every free design already held Arnt in the span: the check below could not fail")
    for i, d in enumerate(bound):
        c.check(len(d) == LENGTH, f"design {i + 1} has {len(d)} bases, not {LENGTH}")
        if not span_hits(pssm, pv, d, strict=False):
            c.check(False, f"design {i + 1}: no Arnt window at p <= {PVALUE} inside {SPAN[0]}-{SPAN[1]}: {d}")
    # Exactly, on the application's own terms: carbon-cli motifs scan (the score grid the constraint
    # is judged on) finds a hit inside the span in every design.
    scan = os.path.join(W, "bound.tsv")
    run([CLI, "motifs", "scan", "--motifs", jaspar, "--in", os.path.join(W, "bound.fa"), "--out", scan,
         "--pvalue", str(PVALUE)])
    inside = set()
    for line in open(scan):
        f = line.rstrip("\n").split("\t")
        if line.startswith("#") or f[0] == "record":
            continue
        if int(f[3]) >= SPAN[0] and int(f[4]) <= SPAN[1]:
            inside.add(f[0])
    c.check(len(inside) == COUNT, f"carbon-cli motifs scan finds Arnt inside the span in {len(inside)} of {COUNT} designs")
    sure = sum(1 for d in bound if span_hits(pssm, pv, d, strict=True))
    print(f"{COUNT} designs: {free_without} free designs lack Arnt at p <= {PVALUE} in {SPAN[0]}-{SPAN[1]}; every "
          f"constrained one holds it ({sure} beyond 0.01 bit of the threshold)")

    out = os.path.join(W, "never.fa")
    base = ["--model", model, "--context", CONTEXT, "--length", "12", "--out", out]
    ok, err = refused(base + ["--require-matrices", jaspar, "--require-within", "10-13"], "required matrix",
                      "design positions 10-13", "inside the 12 bp design")
    c.check(ok, f"a span past the design should be refused: {err}")
    ok, err = refused(base + ["--require-matrices", jaspar, "--require-within", "3-7"], "hold its 6 positions")
    c.check(ok, f"a span shorter than the matrix should be refused: {err}")
    ok, err = refused(base + ["--require-matrices", jaspar, "--require-within", "7-3"], "--require-within", "FROM <= TO")
    c.check(ok, f"a reversed span should be refused: {err}")
    ok, err = refused(base + ["--require-pvalue", "1e-3"], "--require-matrices FILE")
    c.check(ok, f"--require-pvalue alone should be refused: {err}")
    c.check(not os.path.exists(out), "a refused run left an output file")
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
