#!/usr/bin/env python3
"""Issue 32, predictors fitted to the user's measurements (`carbon-cli predictor fit`, then
`carbon-cli predict --predictor`), against the references the field uses:

- embeddings: transformers' LlamaForCausalLM on the same float32 checkpoint, hidden_states[-1] of
  <dna>SEQUENCE</dna> in right-padded batches (Carbon's clustering/ code): the row at </dna> and
  the mean over the DNA tokens; |ours - transformers| <= 1e-4 * max(1, |transformers|);
- the fit: scikit-learn's make_pipeline(StandardScaler(), RidgeCV(alphas)) on our embeddings
  (float64), the grid ours reports: the chosen penalty equal, the scaler's mean and scale, the
  coefficients and intercept, and cross_val_predict with PredefinedSplit on our folds, each within
  1e-6 of the largest magnitude; Pearson and Spearman equal scipy.stats' (1e-9). Both of our
  solvers are exercised: n < p (Gram matrix, --embedding both) and n > p (covariance, dna-end);
- a synthetic ground truth (a weighted count of two motifs, and GC content, plus noise) whose
  held-out accuracy is reported, with missing values and standard-error columns;
- predict --predictor: the values the stored fit gives our embeddings, the held-out figures beside
  them, and another model refused;
- in a project (--project, --name): listed, predicting as the file does, a second of the same name
  refused with the project unchanged, an unknown name refused listing the names;
- bad input refused with FILE:LINE and the reason, nothing written to --out: NaN, an unknown name,
  a duplicate name, a ragged row, fewer sequences than folds, a sequence longer than the context,
  and a predictor file whose sizes do not agree."""
import json
import os
import random
import subprocess
import sys

from carbon_testlib import bin_path, check, dna_sequence_ids, FAILURES, require_modules, run, work_dir

require_modules("torch", "transformers", "numpy", "sklearn", "scipy")
import numpy as np  # noqa: E402
import torch  # noqa: E402
from scipy import stats  # noqa: E402
from sklearn.linear_model import RidgeCV  # noqa: E402
from sklearn.model_selection import PredefinedSplit, cross_val_predict  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from transformers import LlamaForCausalLM  # noqa: E402

torch.set_num_threads(max(1, os.cpu_count() or 1))
CLI = bin_path("carbon-cli")


def rel_err(ours, ref):
    ours, ref = np.asarray(ours, dtype=np.float64), np.asarray(ref, dtype=np.float64)
    return float(np.max(np.abs(ours - ref)) / max(1e-300, float(np.max(np.abs(ref)))))


def revcomp(s):
    return s.translate(str.maketrans("ACGT", "TGCA"))[::-1]


def count_both(s, motif):
    return sum(s.count(m) for m in {motif, revcomp(motif)})


def synthetic(d, n, rng):
    """n sequences with planted motifs; y1 = 2 * AP-1 sites + 1.5 * ETS sites + noise (standard
    error 0.3 given), y2 = 10 * GC + noise with every 7th value missing (empty or NA)."""
    rows = []
    for i in range(n):
        length = rng.randint(150, 250)
        s = [rng.choice("ACGT") for _ in range(length)]
        for motif, k in (("TGACTCA", rng.randint(0, 3)), ("CCGGAAGT", rng.randint(0, 3))):
            for _ in range(k):
                p = rng.randrange(0, length - len(motif))
                s[p:p + len(motif)] = motif
        s = "".join(s)
        y1 = 2 * count_both(s, "TGACTCA") + 1.5 * count_both(s, "CCGGAAGT") + rng.gauss(0, 0.3)
        gc = (s.count("G") + s.count("C")) / len(s)
        y2 = 10 * gc + rng.gauss(0, 0.2)
        rows.append((f"cre_{i}", s, y1, y2))
    return rows


def write_table(path, rows, fasta_for=()):
    """TSV: name, sequence (empty for the names in fasta_for: resolved from --sequences), K562,
    K562_se, HepG2 (every 7th missing)."""
    with open(path, "w") as f:
        f.write("# synthetic MPRA table\nname\tsequence\tK562\tK562_se\tHepG2\n")
        for i, (name, s, y1, y2) in enumerate(rows):
            y2s = ("" if i % 14 == 0 else "NA") if i % 7 == 0 else repr(y2)
            f.write(f"{name}\t{'' if name in fasta_for else s}\t{y1!r}\t0.3\t{y2s}\n")


def reference_embeddings(model_dir, seqs, pool):
    model = LlamaForCausalLM.from_pretrained(model_dir, dtype=torch.float32)
    model.eval()
    out = []
    for b in range(0, len(seqs), 8):
        batch = [dna_sequence_ids(model_dir, s) for s in seqs[b:b + 8]]
        width = max(len(x) for x in batch)
        ids = torch.tensor([x + [0] * (width - len(x)) for x in batch])
        mask = torch.tensor([[1] * len(x) + [0] * (width - len(x)) for x in batch])
        with torch.no_grad():
            hs = model(input_ids=ids, attention_mask=mask, output_hidden_states=True).hidden_states[-1].double().numpy()
        for j, x in enumerate(batch):
            end = hs[j, len(x) - 1]
            mean = hs[j, 1:len(x) - 1].mean(axis=0)
            out.append({"dna-end": end, "dna-mean": mean, "both": np.concatenate([end, mean])}[pool])
    return np.array(out)


def fit(d, model, table, out, pool, extra=(), tag=""):
    cv = os.path.join(d, f"cv-{pool}{tag}.tsv")
    npy = os.path.join(d, f"emb-{pool}{tag}.npy")
    p = run([CLI, "predictor", "fit", "--model", model, "--table", table, "--out", out, "--embedding", pool, "--cv-out", cv,
             "--embeddings-out", npy, "--backend", "cpu", "--batch", "8", "--quiet", *extra])
    return p, json.load(open(out)), np.load(npy), [l.rstrip("\n").split("\t") for l in open(cv)][1:]


def compare_with_sklearn(pool, probe, X, cv_rows, names):
    for c in probe["conditions"]:
        rows = c["held_out"]["rows"]
        y = np.array(c["held_out"]["measured"])
        Xc = X[rows]
        alphas = np.array(c["alphas"])
        pipe = make_pipeline(StandardScaler(), RidgeCV(alphas=alphas)).fit(Xc, y)
        scaler, ridge = pipe[0], pipe[1]
        tag = f"{pool}/{c['name']} (n {len(rows)}, p {X.shape[1]})"
        check(float(ridge.alpha_) == c["alphas"][c["alpha_index"]], f"{tag}: penalty {c['alphas'][c['alpha_index']]} vs sklearn {ridge.alpha_}")
        for what, ours, ref in (("mean", c["mean"], scaler.mean_), ("scale", c["scale"], scaler.scale_), ("coef", c["coef"], ridge.coef_),
                                ("intercept", [c["intercept"]], [ridge.intercept_])):
            e = rel_err(ours, ref)
            print(f"  {tag} {what}: relative difference {e:.2e}")
            check(e <= 1e-6, f"{tag}: {what} differs from scikit-learn by {e:.2e} (bound 1e-6)")
        folds = np.array(c["held_out"]["fold"])
        ref_cv = cross_val_predict(make_pipeline(StandardScaler(), RidgeCV(alphas=alphas)), Xc, y, cv=PredefinedSplit(folds))
        e = rel_err(c["held_out"]["predicted"], ref_cv)
        print(f"  {tag} cross_val_predict: relative difference {e:.2e}")
        check(e <= 1e-6, f"{tag}: held-out predictions differ from cross_val_predict by {e:.2e} (bound 1e-6)")
        r, rho = stats.pearsonr(y, ref_cv)[0], stats.spearmanr(y, ref_cv)[0]
        check(abs(c["held_out"]["pearson"] - r) <= 1e-9 and abs(c["held_out"]["spearman"] - rho) <= 1e-9,
              f"{tag}: Pearson/Spearman {c['held_out']['pearson']}/{c['held_out']['spearman']} vs scipy {r}/{rho}")
        mine = [r_ for r_ in cv_rows if r_[1] == c["name"]]
        check([r_[0] for r_ in mine] == [names[i] for i in rows], f"{tag}: --cv-out rows are not the condition's measured rows")
        check([int(r_[2]) - 1 for r_ in mine] == list(folds), f"{tag}: --cv-out folds differ from the predictor's")
        print(f"  {tag}: held-out Pearson r {r:.3f}, Spearman {rho:.3f}; penalty {ridge.alpha_:.3g}")


def refused(d, model, name, text, expect, extra=(), fasta=None):
    table = os.path.join(d, name)
    with open(table, "w") as f:
        f.write(text)
    out = os.path.join(d, name + ".json")
    cmd = [CLI, "predictor", "fit", "--model", model, "--table", table, "--out", out, "--backend", "cpu", "--quiet", *extra]
    if fasta:
        cmd += ["--sequences", fasta]
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    msg = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""
    ok = p.returncode == 1 and all(e in p.stderr for e in expect) and not os.path.exists(out) and not os.path.exists(out + ".partial")
    check(ok, f"{name}: expected a refusal naming {expect}, got status {p.returncode}: {p.stderr[-400:]}")
    print(f"  refused {name}: {msg}")


def main():
    d = work_dir("probe-fit")
    model = os.path.join(d, "tiny-f32")
    if not os.path.exists(os.path.join(model, "config.json")):
        run([CLI, "make-test-model", "--out", model, "--seed", "5", "--dtype", "f32"])
    other = os.path.join(d, "tiny-other")
    if not os.path.exists(os.path.join(other, "config.json")):
        run([CLI, "make-test-model", "--out", other, "--seed", "6", "--dtype", "f32"])
    hidden = json.load(open(os.path.join(model, "config.json")))["hidden_size"]
    rng = random.Random(32)
    n = hidden + 40 if 2 * hidden > hidden + 40 else 2 * hidden - 8  # n < 2H (Gram) and n > H (covariance)
    rows = synthetic(d, n, rng)
    rows[3] = (rows[3][0], rows[3][1][:100] + "N" + rows[3][1][101:].lower(), rows[3][2], rows[3][3])  # an N, lower case
    names = [r[0] for r in rows]
    in_fasta = set(names[::5])
    fasta = os.path.join(d, "constructs.fa")
    with open(fasta, "w") as f:
        for name, s, _, _ in rows:
            if name in in_fasta:
                f.write(f">{name} from the FASTA\n{s}\n")
    table = os.path.join(d, "measured.tsv")
    write_table(table, rows, fasta_for=in_fasta)
    seqs = [r[1] for r in rows]

    for pool in ("both", "dna-end"):
        out = os.path.join(d, f"predictor-{pool}.json")
        p, probe, X, cv_rows = fit(d, model, table, out, pool, ["--sequences", fasta])
        print(p.stdout.strip())
        ref = reference_embeddings(model, seqs, pool)
        e = float(np.max(np.abs(X - ref) / np.maximum(1.0, np.abs(ref))))
        print(f"  {pool}: embeddings {X.shape} against transformers: max |diff| / max(1, |ref|) = {e:.2e}")
        check(X.shape == ref.shape and e <= 1e-4, f"{pool}: embeddings differ from transformers' hidden states by {e:.2e} (bound 1e-4)")
        compare_with_sklearn(pool, probe, X, cv_rows, names)
        check(probe["table"]["hash"].startswith("fnv1a64:") and probe["embedding"]["pool"] == pool and
              probe["cross_validation"]["folds"] == 5, f"{pool}: provenance {probe['table']}, {probe['embedding']}")
        for cond in ("K562", "HepG2"):
            check(f"\n  {cond}: held-out Pearson r " in p.stdout, f"{pool}: the report does not give {cond}'s held-out figures: {p.stdout}")
        k562 = next(c for c in probe["conditions"] if c["name"] == "K562")
        check(k562["noise_ceiling"] is not None and 0 < k562["noise_ceiling"] <= 1, f"{pool}: K562 noise ceiling {k562['noise_ceiling']}")
        hep = next(c for c in probe["conditions"] if c["name"] == "HepG2")
        check(hep["n"] == n - len(range(0, n, 7)), f"{pool}: HepG2 fitted on {hep['n']} rows; the table measured {n - len(range(0, n, 7))}")

    # A learnable truth: on random weights the motif counts are not linear in the embeddings (the
    # report above says so, plainly); a value that is linear in them plus noise must be found again.
    X = np.load(os.path.join(d, "emb-dna-end.npy"))
    w = np.random.default_rng(3).normal(size=X.shape[1])
    planted = X @ w
    planted = planted + np.random.default_rng(4).normal(scale=0.3 * planted.std(), size=len(planted))
    ptable = os.path.join(d, "planted.tsv")
    with open(ptable, "w") as f:
        f.write("name\tsequence\tplanted\n")
        for (name, s, _, _), v in zip(rows, planted):
            f.write(f"{name}\t{s}\t{float(v)!r}\n")
    p, probe, _, cv_rows = fit(d, model, ptable, os.path.join(d, "predictor-planted.json"), "dna-end", tag="-planted")
    c = probe["conditions"][0]
    print(f"  planted linear truth (noise 0.3 sd): held-out Pearson r {c['held_out']['pearson']:.3f}, penalty {c['alphas'][c['alpha_index']]:.3g}")
    check(c["held_out"]["pearson"] > 0.8, f"a linear truth with 30% noise found with held-out r {c['held_out']['pearson']:.3f} (expected > 0.8; 0.88 on 2026-11-27)")
    compare_with_sklearn("planted", probe, X, cv_rows, names)

    # predict --predictor: the stored fit applied to our embeddings, with the held-out figures.
    probe = json.load(open(os.path.join(d, "predictor-both.json")))
    X = np.load(os.path.join(d, "emb-both.npy"))
    qfa = os.path.join(d, "query.fa")
    with open(qfa, "w") as f:
        for name, s, _, _ in rows[:12]:
            f.write(f">{name}\n{s}\n")
    pred_out = os.path.join(d, "pred.tsv")
    run([CLI, "predict", "--model", model, "--predictor", os.path.join(d, "predictor-both.json"), "--in", qfa, "--out", pred_out,
         "--backend", "cpu", "--quiet"])
    text = open(pred_out).read()
    body = [l.split("\t") for l in text.rstrip("\n").split("\n") if not l.startswith("#")]
    check(body[0] == ["name", "length", "K562", "HepG2"], f"predict header {body[0]}")
    for j, c in enumerate(probe["conditions"]):
        expect = c["intercept"] + ((X[:12] - np.array(c["mean"])) / np.array(c["scale"])) @ np.array(c["coef"])
        got = np.array([float(r[2 + j]) for r in body[1:]])
        e = rel_err(got, expect)
        check(e <= 1e-7, f"predict --predictor {c['name']}: differs from the stored fit by {e:.2e}")
        check(f"##output={c['name']}: in the table's units; held-out Pearson r" in text, f"no held-out figures for {c['name']}: {text[:600]}")
    p = subprocess.run([CLI, "predict", "--model", other, "--predictor", os.path.join(d, "predictor-both.json"), "--in", qfa, "--out",
                        os.path.join(d, "pred-other.tsv"), "--backend", "cpu", "--quiet"], capture_output=True, text=True)
    check(p.returncode == 1 and "fitted on the model at" in p.stderr and not os.path.exists(os.path.join(d, "pred-other.tsv")),
          f"another model was not refused: {p.returncode} {p.stderr[-300:]}")
    print("  refused another model:", p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "")
    bad = dict(probe)
    bad["conditions"] = [dict(probe["conditions"][0])]
    bad["conditions"][0]["coef"] = bad["conditions"][0]["coef"][:-1]
    bad_path = os.path.join(d, "predictor-bad.json")
    json.dump(bad, open(bad_path, "w"))
    p = subprocess.run([CLI, "predict", "--model", model, "--predictor", bad_path, "--in", qfa, "--out", os.path.join(d, "pred-bad.tsv"),
                        "--backend", "cpu", "--quiet"], capture_output=True, text=True)
    check(p.returncode == 1 and "conditions[0].coef" in p.stderr and "entries" in p.stderr, f"a short coef list: {p.returncode} {p.stderr[-300:]}")

    # The weights the embeddings were computed with are part of the provenance: native above; a fit
    # on int8 embeddings says int8, applies under native weights with its held-out figures said to
    # be int8's, and under int8 without that note. A file from before the field reads as native;
    # an unknown value is refused by name.
    check(probe["model"].get("weights") == "native", f"the fit's weights: {probe['model']}")
    int8_path = os.path.join(d, "predictor-int8.json")
    run([CLI, "predictor", "fit", "--model", model, "--table", table, "--sequences", fasta, "--out", int8_path,
         "--weights", "int8", "--backend", "cpu", "--quiet"])
    check(json.load(open(int8_path))["model"]["weights"] == "int8", "a fit with --weights int8 does not record int8")
    for weights, noted in (("native", True), ("int8", False)):
        out = os.path.join(d, f"pred-int8-probe-{weights}.tsv")
        run([CLI, "predict", "--model", model, "--predictor", int8_path, "--in", qfa, "--out", out, "--weights", weights, "--backend", "cpu",
             "--quiet"])
        said = "measured with int8 weights; these predictions use native" in open(out).read()
        check(said == noted, f"predicting under {weights} weights with an int8 fit: the note {'missing' if noted else 'wrongly there'}")
    old = dict(probe)
    old["model"] = {k: v for k, v in probe["model"].items() if k != "weights"}
    old_path = os.path.join(d, "predictor-old.json")
    json.dump(old, open(old_path, "w"))
    out = os.path.join(d, "pred-old.tsv")
    run([CLI, "predict", "--model", model, "--predictor", old_path, "--in", qfa, "--out", out, "--backend", "cpu", "--quiet"])
    check("measured with" not in open(out).read(), "a predictor file without model.weights is not read as native")
    odd = dict(probe)
    odd["model"] = dict(probe["model"], weights="fp4")
    odd_path = os.path.join(d, "predictor-fp4.json")
    json.dump(odd, open(odd_path, "w"))
    p = subprocess.run([CLI, "predict", "--model", model, "--predictor", odd_path, "--in", qfa, "--out", os.path.join(d, "pred-fp4.tsv"),
                        "--backend", "cpu", "--quiet"], capture_output=True, text=True)
    check(p.returncode == 1 and "model.weights" in p.stderr and "fp4" in p.stderr and not os.path.exists(os.path.join(d, "pred-fp4.tsv")),
          f"an unknown model.weights: {p.returncode} {p.stderr[-300:]}")

    # In a project: stored by name with its provenance, listed, predicting exactly as the file does.
    project = os.path.join(d, "lab.carbon")
    for ext in ("", "-wal", "-shm"):
        if os.path.exists(project + ext):
            os.remove(project + ext)
    run([CLI, "predictor", "fit", "--model", model, "--table", table, "--sequences", fasta, "--project", project, "--name", "round 1",
         "--backend", "cpu", "--quiet"])
    listing = run([CLI, "project", "list", project]).stdout
    check("predictors: 1" in listing and "round 1\tfitted" in listing and "conditions K562,HepG2" in listing, f"project list: {listing}")
    pred_project = os.path.join(d, "pred-project.tsv")
    run([CLI, "predict", "--model", model, "--project", project, "--predictor", "round 1", "--in", qfa, "--out", pred_project,
         "--backend", "cpu", "--quiet"])
    body_project = [l for l in open(pred_project).read().split("\n") if not l.startswith("#")]
    check(body_project == [l for l in text.split("\n") if not l.startswith("#")], "the stored predictor predicts otherwise than its file")
    check("##predictor='round 1' in " + project in open(pred_project).read(), "the output does not say which stored predictor")
    before = open(project, "rb").read()
    p = subprocess.run([CLI, "predictor", "fit", "--model", model, "--table", table, "--sequences", fasta, "--project", project, "--name",
                        "round 1", "--backend", "cpu", "--quiet"], capture_output=True, text=True)
    check(p.returncode == 1 and "already holds a predictor named 'round 1'" in p.stderr and open(project, "rb").read() == before,
          f"a second 'round 1': {p.returncode} {p.stderr[-300:]}")
    p = subprocess.run([CLI, "predict", "--model", model, "--project", project, "--predictor", "round 2", "--in", qfa, "--backend", "cpu",
                        "--quiet"], capture_output=True, text=True)
    check(p.returncode == 1 and "no predictor named 'round 2'" in p.stderr and "'round 1'" in p.stderr, f"an unknown name: {p.stderr[-300:]}")

    # Bad input: FILE:LINE and the reason, nothing written.
    head = "name\tsequence\tK562\n"
    good = "".join(f"g{i}\t{rows[i][1]}\t{rows[i][2]!r}\n" for i in range(8))
    refused(d, model, "nan.tsv", head + good + "x\tACGTACGT\tnan\n", ["nan.tsv:10:", "NaN"])
    refused(d, model, "inf.tsv", head + good + "x\tACGTACGT\t-inf\n", ["inf.tsv:10:"])
    refused(d, model, "dup.tsv", head + good + "g3\tACGTACGT\t1.0\n", ["dup.tsv:10:", "g3"])
    refused(d, model, "ragged.tsv", head + good + "x\tACGTACGT\n", ["ragged.tsv:10:"])
    refused(d, model, "unknown.tsv", "name\tK562\n" + "".join(f"{names[i]}\t1.0\n" for i in range(0, 25, 5)) + "nowhere\t2.0\n",
            ["unknown.tsv:7:", "nowhere"], fasta=fasta)
    refused(d, model, "noseq.tsv", "name\tK562\nalpha\t1.0\nbeta\t2.0\n", ["noseq.tsv:2:", "--sequences"])
    refused(d, model, "few.tsv", head + "".join(f"g{i}\t{rows[i][1]}\t{rows[i][2]!r}\n" for i in range(3)), ["few.tsv", "K562", "fewer than the 5 folds"])
    ctx = json.load(open(os.path.join(model, "config.json")))["max_position_embeddings"]
    refused(d, model, "long.tsv", head + good + "long\t" + "ACGT" * (ctx * 2) + "\t1.0\n", ["long.tsv:10", "context"])

    if FAILURES:
        print(f"{len(FAILURES)} failure(s)", file=sys.stderr)
        sys.exit(1)
    print("probe fit: embeddings, scikit-learn parity, predict --predictor and refusals all pass")


if __name__ == "__main__":
    main()
