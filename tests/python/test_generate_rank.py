#!/usr/bin/env python3
"""Issue 32, generate and rank (`carbon-cli generate --objective`): the generator proposes --count
designs, an activity predictor predicts each design's own bases, the designs are ranked by the
objective and the best --keep written and stored.
- A float32 regression checkpoint written by transformers (--activity-model): every kept design's
  outputs equal the recipe's evaluation of its bases (regression_reference) within
  1e-4 * max(1, |value|), its objective is the MinGap of those outputs, the kept designs are the
  best --keep of the same designs generated without ranking (same seed: generation does not
  change), in order, ranks 1..k.
- A predictor fitted to measurements (--predictor NAME from --project): the designs, their
  objective and every output stored (designs.objective, design_predictions with the held-out
  accuracy), the run's settings saying the objective, the predictor, proposed and kept.
- Bad input, refused before any model loads, nothing written: --objective without a predictor,
  --keep without --objective, --keep above --count, an output the predictor does not have."""
import os
import random
import sqlite3
import subprocess
import sys

from carbon_testlib import bin_path, check, FAILURES, require_modules, run, tiny_model, work_dir

require_modules("torch", "transformers", "numpy", "safetensors")
import torch  # noqa: E402
from regression_reference import TARGETS, make_predictor, reference  # noqa: E402

torch.set_num_threads(max(1, os.cpu_count() or 1))
CLI = bin_path("carbon-cli")


def read_fasta(path):
    recs = []
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith(">"):
            recs.append([line[1:], ""])
        elif recs:
            recs[-1][1] += line
    return recs


def fields(header):
    return dict(kv.split("=", 1) for kv in header.split()[1:] if "=" in kv)


def main():
    d = work_dir("generate_rank")
    lm = tiny_model(d)
    best = make_predictor(d, "regressor", lm, "fp32")
    common = ["generate", "--model", lm, "--length", "48", "--count", "8", "--seed", "4", "--backend", "cpu", "--quiet"]
    all_fa, ranked_fa = os.path.join(d, "all.fa"), os.path.join(d, "ranked.fa")
    run([CLI, *common, "--out", all_fa])
    run([CLI, *common, "--out", ranked_fa, "--objective", "mingap:K562", "--activity-model", best, "--keep", "3"])
    proposed = [s for _, s in read_fasta(all_fa)]
    kept = read_fasta(ranked_fa)
    check(len(proposed) == 8 and len(kept) == 3, f"{len(proposed)} proposed, {len(kept)} kept")
    ref = reference(best, proposed, "fp32")
    gap = [row[0] - max(row[1:]) for row in ref]
    order = sorted(range(len(proposed)), key=lambda i: -gap[i])
    for k, (header, bases) in enumerate(kept):
        f = fields(header)
        check(f.get("rank") == str(k + 1), f"rank of kept design {k}: {header}")
        i = proposed.index(bases) if bases in proposed else -1
        check(i == order[k], f"kept design {k} is proposal {i}, the objective's order is {order[:3]}")
        if i < 0:
            continue
        for j, t in enumerate(TARGETS):
            v = float(f.get(t, "nan"))
            check(abs(v - ref[i][j]) <= 1e-4 * max(1.0, abs(ref[i][j])), f"design {k} {t}: {v} vs transformers {ref[i][j]}")
        obj = float(f.get("objective", "nan"))
        check(abs(obj - gap[i]) <= 2e-4 * max(1.0, abs(gap[i])), f"design {k} objective {obj} vs {gap[i]}")

    # A fitted predictor stored in a project, and the ranked run stored there.
    rng = random.Random(2)
    table = os.path.join(d, "measured.tsv")
    with open(table, "w") as f:
        f.write("name\tsequence\tK562\tHepG2\n")
        for i in range(30):
            s = "".join(rng.choice("ACGT") for _ in range(48))
            f.write(f"s{i}\t{s}\t{s.count('G') + rng.gauss(0, 0.3)!r}\t{s.count('A') + rng.gauss(0, 0.3)!r}\n")
    project = os.path.join(d, "lab.carbon")
    for ext in ("", "-wal", "-shm"):
        if os.path.exists(project + ext):
            os.remove(project + ext)
    run([CLI, "predictor", "fit", "--model", lm, "--table", table, "--project", project, "--name", "round 1", "--backend", "cpu", "--quiet"])
    p = run([CLI, *common, "--out", os.path.join(d, "stored.fa"), "--objective", "sum:K562=1,HepG2=-0.5", "--project", project,
             "--predictor", "round 1", "--keep", "4"])
    check("kept the best 4 of 8" in p.stderr and "held-out Pearson r" in p.stderr, f"report: {p.stderr[-600:]}")
    kept = read_fasta(os.path.join(d, "stored.fa"))
    db = sqlite3.connect(project)
    run_id, = db.execute("SELECT max(id) FROM runs WHERE kind = 'generate'").fetchone()
    settings = dict(db.execute("SELECT key, value FROM run_settings WHERE run_id = ?", (run_id,)).fetchall())
    check(settings.get("objective") == "sum:K562=1,HepG2=-0.5" and settings.get("proposed") == "8" and settings.get("kept") == "4"
          and "'round 1' in " + project in settings.get("ranked_by", ""), f"run settings {settings}")
    rows = db.execute("SELECT id, bases, rank, objective FROM designs WHERE run_id = ? ORDER BY rank", (run_id,)).fetchall()
    check([r[2] for r in rows] == [1, 2, 3, 4] and [r[1] for r in rows] == [s for _, s in kept], f"stored designs {rows}")
    for (did, bases, rank, objective), (header, _) in zip(rows, kept):
        f = fields(header)
        check(abs(objective - float(f["objective"])) <= 1e-8 * max(1.0, abs(objective)), f"stored objective {objective} vs {header}")
        preds = dict((o, (v, h)) for o, v, h in db.execute("SELECT output, value, held_out FROM design_predictions WHERE design_id = ?", (did,)))
        check(set(preds) == {"K562", "HepG2"}, f"design {rank}: predictions {preds}")
        for o, (v, h) in preds.items():
            check(abs(v - float(f[o])) <= 1e-8 * max(1.0, abs(v)) and "held-out Pearson r" in h, f"design {rank} {o}: {v} {h} vs {header}")
        check(abs(objective - (preds["K562"][0] - 0.5 * preds["HepG2"][0])) <= 1e-9 * max(1.0, abs(objective)), f"objective of design {rank}")
    check(rows[0][3] >= rows[-1][3], "stored designs are not best first")
    db.close()

    # Bad input: refused, nothing written.
    before = open(project, "rb").read()
    bad = os.path.join(d, "bad.fa")

    def refused(extra, needle, what):
        if os.path.exists(bad):
            os.remove(bad)
        q = subprocess.run([CLI, *common, "--out", bad, *extra], capture_output=True, text=True)
        check(q.returncode != 0 and needle in q.stderr and not os.path.exists(bad), f"{what}: rc {q.returncode}, {q.stderr[-400:]}")
    refused(["--objective", "K562"], "--objective needs a predictor", "objective without a predictor")
    refused(["--keep", "2"], "give --objective SPEC", "keep without objective")
    refused(["--objective", "K562", "--activity-model", best, "--keep", "9"], "--keep 9 is more than the 8", "keep above count")
    refused(["--objective", "mingap:GM12878", "--activity-model", best], "GM12878", "an unknown output")
    refused(["--objective", "K562", "--project", project, "--predictor", "round 9"], "round 9", "an unknown stored predictor")
    check(open(project, "rb").read() == before, "a refused command changed the project")

    if FAILURES:
        print(f"{len(FAILURES)} failure(s)", file=sys.stderr)
        return 1
    print("ok: generate-and-rank equals the recipe's evaluation and stores what ranked each design")
    return 0


if __name__ == "__main__":
    sys.exit(main())
