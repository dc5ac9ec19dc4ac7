#!/usr/bin/env python3
"""Issue 32, a variant's predicted activity change (`carbon-cli variant` with an activity
predictor): alternative minus reference per output, beside the likelihood change.
- A fine-tuned regression checkpoint written by transformers (--activity-model, float32): the
  reference, the alternative and the change equal the recipe's own evaluation of the two
  sequences (regression_reference: padded batches, reverse-complement average, label transform
  undone) within 1e-4 * max(1, |value|); with --activity-window the predictor sees the window
  centred on the site (bases named in the output), compared the same way on the window's text.
- A predictor fitted to measurements (--predictor FILE.json): the three figures equal
  `carbon-cli predict --predictor` on the reference and the alternative sequence (that command's
  parity with scikit-learn is test_probe_fit's), and its held-out accuracy is in the ##output
  lines; stored with the run in a project (--project, --predictor NAME from the same project).
- The likelihood columns are the same with and without a predictor.
- Bad input, refused with the reason before anything is stored: both --predictor and
  --activity-model, an alternative equal to the reference, a record longer than the predictor's
  context without --activity-window."""
import json
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


def close(a, b, tol=1e-4):
    return abs(a - b) <= tol * max(1.0, abs(b))


def variant(args):
    return json.loads(run([CLI, "variant", *args, "--backend", "cpu", "--json", "--quiet"]).stdout)


def main():
    d = work_dir("variant_activity")
    lm = tiny_model(d)
    best = make_predictor(d, "regressor", lm, "fp32")
    rng = random.Random(5)
    seq = "".join(rng.choice("ACGT") for _ in range(150))
    fasta = os.path.join(d, "rec.fa")
    with open(fasta, "w") as f:
        f.write(">enhancer 1\n" + seq + "\n")
    pos, alt = 61, "G" if seq[60] != "G" else "T"
    mutant = seq[:60] + alt + seq[61:]

    plain = variant(["--model", lm, "--in", fasta, "--pos", str(pos), "--alt", alt])
    j = variant(["--model", lm, "--in", fasta, "--pos", str(pos), "--alt", alt, "--activity-model", best])
    check(all(j[k] == plain[k] for k in plain), f"the likelihood columns move with a predictor: {plain} vs {j}")
    act = j.get("activity", {})
    ref = reference(best, [seq, mutant], "fp32")
    check([o["name"] for o in act.get("outputs", [])] == TARGETS, f"outputs {act.get('outputs')}")
    check(act.get("window_start") == 1 and act.get("window_end") == len(seq), f"window {act}")
    for k, o in enumerate(act.get("outputs", [])):
        check(close(o["reference"], ref[0][k]) and close(o["alternative"], ref[1][k]), f"{o['name']}: {o} vs transformers {ref[:, k]}")
        check(close(o["change"], ref[1][k] - ref[0][k]), f"{o['name']} change {o['change']} vs {ref[1][k] - ref[0][k]}")
        check("measured units" in o["note"], f"note {o['note']}")

    # A window of 60 bases centred on the site.
    j = variant(["--model", lm, "--in", fasta, "--pos", str(pos), "--alt", alt, "--activity-model", best, "--activity-window", "60"])
    act = j["activity"]
    a0, a1 = act["window_start"] - 1, act["window_end"]
    check(a1 - a0 == 60 and a0 <= pos - 1 < a1, f"window {a0}-{a1} around {pos}")
    check(a0 == pos - 1 - 30, f"the site is not in the middle of its window: {a0}-{a1}, site {pos}")
    ref = reference(best, [seq[a0:a1], mutant[a0:a1]], "fp32")
    for k, o in enumerate(act["outputs"]):
        check(close(o["change"], ref[1][k] - ref[0][k]) and close(o["reference"], ref[0][k]),
              f"windowed {o['name']}: {o} vs {ref[:, k]}")

    # A predictor fitted to measurements on the language model's embeddings, as a file and in a project.
    table = os.path.join(d, "measured.tsv")
    with open(table, "w") as f:
        f.write("name\tsequence\tK562\tHepG2\n")
        for i in range(30):
            s = "".join(rng.choice("ACGT") for _ in range(80))
            f.write(f"s{i}\t{s}\t{s.count('GC') + rng.gauss(0, 0.3)!r}\t{s.count('AT') + rng.gauss(0, 0.3)!r}\n")
    probe = os.path.join(d, "probe.json")
    run([CLI, "predictor", "fit", "--model", lm, "--table", table, "--out", probe, "--backend", "cpu", "--quiet"])
    both = os.path.join(d, "both.fa")
    with open(both, "w") as f:
        f.write(f">ref\n{seq}\n>alt\n{mutant}\n")
    pred = run([CLI, "predict", "--model", lm, "--predictor", probe, "--in", both, "--backend", "cpu", "--quiet"]).stdout
    rows = [l.split("\t") for l in pred.splitlines() if l and not l.startswith("#")]
    header, values = rows[0], {r[0]: [float(x) for x in r[2:]] for r in rows[1:]}
    j = variant(["--model", lm, "--in", fasta, "--pos", str(pos), "--alt", alt, "--predictor", probe])
    for k, o in enumerate(j["activity"]["outputs"]):
        check(o["name"] == header[2 + k], f"output {o['name']} vs {header}")
        # predict writes 9 significant digits
        check(close(o["reference"], values["ref"][k], 1e-8) and close(o["alternative"], values["alt"][k], 1e-8)
              and abs(o["change"] - (values["alt"][k] - values["ref"][k])) <= 1e-8 * max(1.0, abs(values["ref"][k])),
              f"fitted {o} vs predict {values}")
        check("held-out Pearson r" in o["note"], f"no held-out accuracy beside {o['name']}: {o['note']}")
    text = run([CLI, "variant", "--model", lm, "--in", fasta, "--pos", str(pos), "--alt", alt, "--predictor", probe, "--backend", "cpu",
                "--quiet"]).stdout
    check("##output=K562: in the table's units; held-out Pearson r" in text and "K562_change" in text.splitlines()[-2],
          f"TSV: {text}")

    project = os.path.join(d, "lab.carbon")
    for ext in ("", "-wal", "-shm"):
        if os.path.exists(project + ext):
            os.remove(project + ext)
    run([CLI, "predictor", "fit", "--model", lm, "--table", table, "--project", project, "--name", "round 1", "--backend", "cpu", "--quiet"])
    j = variant(["--model", lm, "--in", fasta, "--pos", str(pos), "--alt", alt, "--project", project, "--predictor", "round 1"])
    db = sqlite3.connect(project)
    stored = dict(db.execute("SELECT key, value FROM run_settings JOIN runs ON runs.id = run_id WHERE runs.kind = 'variant'").fetchall())
    db.close()
    for o in j["activity"]["outputs"]:
        check(stored.get(f"activity_{o['name']}_change") not in (None, "") and
              close(float(stored[f"activity_{o['name']}_change"]), o["change"], 1e-6), f"stored {o['name']}: {stored}")
    check("'round 1' in " + project in stored.get("activity_predictor", ""), f"stored predictor {stored.get('activity_predictor')}")

    # Bad input.
    def refused(args, needle, what):
        p = subprocess.run([CLI, "variant", "--model", lm, "--in", fasta, "--backend", "cpu", "--quiet", *args], capture_output=True, text=True)
        check(p.returncode != 0 and needle in p.stderr, f"{what}: rc {p.returncode}, {p.stderr[-300:]}")
    refused(["--pos", str(pos), "--alt", alt, "--predictor", probe, "--activity-model", best], "not both", "two predictors")
    refused(["--pos", str(pos), "--alt", seq[60], "--activity-model", best], "equals the reference", "alt equal to the reference")
    long_fa = os.path.join(d, "long.fa")
    with open(long_fa, "w") as f:
        f.write(">long one\n" + "".join(rng.choice("ACGT") for _ in range(4000)) + "\n")
    p = subprocess.run([CLI, "variant", "--model", lm, "--in", long_fa, "--pos", "2000", "--alt", "A", "--activity-model", best,
                        "--window", "200", "--backend", "cpu", "--quiet"], capture_output=True, text=True)
    check(p.returncode != 0 and "'long'" in p.stderr and "more than the 512" in p.stderr and "--activity-window" in p.stderr,
          f"a record longer than the context: {p.returncode} {p.stderr}")

    if FAILURES:
        print(f"{len(FAILURES)} failure(s)", file=sys.stderr)
        return 1
    print("ok: variant activity change equals transformers and carbon-cli predict")
    return 0


if __name__ == "__main__":
    sys.exit(main())
