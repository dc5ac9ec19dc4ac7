#!/usr/bin/env python3
"""8-bit weights against the stored weights on the carbon-500m preset (issue 34): how far the
scores a biologist reads move when the same model runs with --weights int8 (one scale per row) or
q8_0 (groups of 32), each with the bound docs/architecture.md states:

  per-base log-likelihood   12 random 600-bp sequences, |int8 - native| per base: mean and 99th
                            percentile at most (int8) 0.16 / 0.9 nats, (q8_0) 0.11 / 0.6
  variant effects           80 SNVs over a random 40-kb reference (vep, 400-bp windows, both
                            strands): Spearman with the native run's of site_log_odds at least
                            0.95 (int8) and 0.97 (q8_0), of window_delta_mean (a difference of two
                            400-bp means, so small that the quantisation's noise weighs more) at
                            least 0.85 and 0.93
  FNS designs               300 designs of 80 bp from one context with each weights (own seeds):
                            the native model's mean per-base log p of each design and its GC
                            fraction, two-sample Kolmogorov-Smirnov against native designs: p at
                            least 0.01 for int8 and q8_0, while the same test tells native designs
                            at temperature 1.5 from native designs (p below 1e-4: the test can fail)

The checkpoint is the preset's random weights (the real weights cannot be had here; a random
checkpoint is harder to quantise than a trained one, so the bounds are loose where a trained
model's would be tight). Measured figures are printed. The native run is the default CPU path of
the machine (amx, avx512-bf16 or fp32), so the bounds leave room for its own rounding."""
import os
import random
import sys

from carbon_testlib import FAILURES, bin_path, check, require_modules, run, work_dir

BOUNDS = {  # weights: per-base mean and p99 |diff|, Spearman of site_log_odds and window_delta_mean, KS p
    "int8": {"mean": 0.16, "p99": 0.9, "site_log_odds": 0.95, "window_delta_mean": 0.85, "ks": 0.01},
    "q8_0": {"mean": 0.11, "p99": 0.6, "site_log_odds": 0.97, "window_delta_mean": 0.93, "ks": 0.01},
}


def write_fasta(path, records):
    with open(path, "w") as f:
        for name, seq in records:
            f.write(f">{name}\n{seq}\n")


def read_fasta(path):
    out, name = [], None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith(">"):
                name = line[1:].split()[0]
                out.append([name, ""])
            elif line:
                out[-1][1] += line
    return [(n, s) for n, s in out]


def table(path):
    """A TSV's rows as dicts: '##' lines skipped, the column line with or without a leading '#'."""
    with open(path) as f:
        lines = [l.rstrip("\n") for l in f if l.strip() and not l.startswith("##")]
    head = lines[0].lstrip("#").split("\t")
    return [dict(zip(head, r.split("\t"))) for r in lines[1:]]


def main():
    require_modules("numpy", "scipy")
    import numpy as np
    from scipy.stats import ks_2samp, spearmanr

    cli = bin_path("carbon-cli")
    w = work_dir("int8_fidelity")
    model = os.path.join(w, "carbon-500m")
    if not os.path.exists(os.path.join(model, "config.json")):
        run([cli, "make-test-model", "--preset", "carbon-500m", "--out", model])
    rng = random.Random(34)
    common = ["--threads", str(min(os.cpu_count() or 1, 4)), "--quiet"]
    weights = ["native", "int8", "q8_0"]

    # Per-base log-likelihood.
    seqs = os.path.join(w, "seqs.fa")
    write_fasta(seqs, [(f"s{i}", "".join(rng.choice("ACGT") for _ in range(600))) for i in range(12)])
    logp = {}
    for wt in weights:
        out = os.path.join(w, f"tracks-{wt}.tsv")
        run([cli, "score", "--model", model, "--in", seqs, "--tracks", out, "--weights", wt] + common)
        logp[wt] = np.array([float(r["logp"]) for r in table(out) if r["logp"] != "NA"])
    check(len(logp["native"]) == 12 * 600, f"tracks of 7200 bases, got {len(logp['native'])}")
    for wt in ("int8", "q8_0"):
        d = np.abs(logp[wt] - logp["native"])
        mean, p99 = float(d.mean()), float(np.percentile(d, 99))
        print(f"{wt}: per-base |log p - native| over {len(d)} bases: mean {mean:.4f} nats, p99 {p99:.4f}, max {d.max():.4f}")
        check(mean <= BOUNDS[wt]["mean"], f"{wt} per-base mean |diff| {mean:.4f} > {BOUNDS[wt]['mean']}")
        check(p99 <= BOUNDS[wt]["p99"], f"{wt} per-base p99 |diff| {p99:.4f} > {BOUNDS[wt]['p99']}")
        check(mean > 0, f"{wt}: the weights really are 8-bit (some base differs)")

    # Variant effects over a VCF.
    chrom = "".join(rng.choice("ACGT") for _ in range(40000))
    ref = os.path.join(w, "ref.fa")
    with open(ref, "w") as f:
        f.write(">chrT\n" + "\n".join(chrom[i:i + 60] for i in range(0, len(chrom), 60)) + "\n")
    positions = sorted(rng.sample(range(1000, 39000), 80))
    vcf = os.path.join(w, "snvs.vcf")
    with open(vcf, "w") as f:
        f.write("##fileformat=VCFv4.2\n##contig=<ID=chrT,length=40000>\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n")
        for i, p in enumerate(positions):
            r = chrom[p - 1]
            f.write(f"chrT\t{p}\tv{i}\t{r}\t{rng.choice([b for b in 'ACGT' if b != r])}\t.\t.\t.\n")
    vep = {}
    for wt in weights:
        out = os.path.join(w, f"vep-{wt}.tsv")
        if os.path.exists(out):
            os.remove(out)
        run([cli, "vep", "--model", model, "--reference", ref, "--vcf", vcf, "--out", out, "--window", "400", "--rc", "--weights", wt]
            + common)
        rows = table(out)
        check(len(rows) == 80 and all(r["status"] == "ok" for r in rows), f"vep {wt}: 80 rows, all ok")
        vep[wt] = rows
    for wt in ("int8", "q8_0"):
        for col in ("window_delta_mean", "site_log_odds"):
            a = [float(r[col]) for r in vep["native"]]
            b = [float(r[col]) for r in vep[wt]]
            rho = spearmanr(a, b).statistic
            print(f"{wt}: vep {col} Spearman with native over {len(a)} SNVs: {rho:.4f}")
            check(rho >= BOUNDS[wt][col], f"{wt} vep {col} Spearman {rho:.4f} < {BOUNDS[wt][col]}")

    # FNS design distributions.
    context = "".join(rng.choice("ACGT") for _ in range(120))
    designs = {}
    runs = [("native", "native", 11, "1"), ("int8", "int8", 12, "1"), ("q8_0", "q8_0", 13, "1"), ("hot", "native", 15, "1.5")]
    for label, wt, seed, temp in runs:
        out = os.path.join(w, f"designs-{label}.fa")
        run([cli, "generate", "--model", model, "--length", "80", "--count", "300", "--seed", str(seed), "--temperature", temp,
             "--context", context, "--out", out, "--weights", wt] + common)
        designs[label] = read_fasta(out)
        check(len(designs[label]) == 300, f"{label}: 300 designs")
    stats = {}
    for label in designs:
        scored = os.path.join(w, f"designs-{label}.tsv")
        run([cli, "score", "--model", model, "--in", os.path.join(w, f"designs-{label}.fa"), "--tracks", scored] + common)
        per = {}
        for r in table(scored):
            if r["logp"] != "NA":
                per.setdefault(r["name"], []).append(float(r["logp"]))
        stats[label] = {
            "mean log p (native)": np.array([np.mean(v) for v in per.values()]),
            "GC fraction": np.array([sum(c in "GC" for c in s) / len(s) for _, s in designs[label]]),
        }
    for label in ("int8", "q8_0", "hot"):
        for name in ("mean log p (native)", "GC fraction"):
            p = ks_2samp(stats[label][name], stats["native"][name]).pvalue
            print(f"{label}: FNS designs' {name} against native designs: KS p = {p:.3g} "
                  f"(medians {np.median(stats[label][name]):.4f} vs {np.median(stats['native'][name]):.4f})")
            if label == "hot":
                if name == "mean log p (native)":
                    check(p < 1e-4, f"the two-sample test tells temperature 1.5 from 1 (p {p:.3g})")
            else:
                check(p >= BOUNDS[label]["ks"], f"{label} FNS {name}: KS p {p:.3g} < {BOUNDS[label]['ks']}")

    print(f"{len(FAILURES)} failure(s)")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
