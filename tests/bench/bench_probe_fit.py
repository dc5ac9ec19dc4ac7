#!/usr/bin/env python3
"""Fitting a predictor to measurements, end to end (issue 32): `carbon-cli predictor fit` against
what a scikit-learn user does with transformers, on the same model, threads, sequences and folds,
in one run:
  ours: carbon-cli predictor fit --embedding both (embeddings at </dna> and the mean over the DNA
        tokens, ridge with the penalty by leave-one-out error, 5-fold held-out predictions), the
        process's whole wall time (model load included), and its own embedding / fitting split;
  peer: LlamaForCausalLM in bfloat16 (the checkpoint's dtype; its fastest CPU path), right-padded
        batches of --batch, hidden_states[-1] at </dna> and averaged over the DNA tokens, then per
        condition make_pipeline(StandardScaler(), RidgeCV(the same grid)).fit and
        cross_val_predict(PredefinedSplit(our folds)); load, embedding and fitting timed apart.

    python3 tests/bench/bench_probe_fit.py --cli build/bin/carbon-cli --work /tmp/bench-fit \
        [--preset carbon-500m] [--threads 2] [--count 2000] [--length 200] [--batch 16] [--weights native|int8]

The model: `carbon-cli make-test-model --preset PRESET` (random bf16 weights, the real shape). The
table: --count random sequences of --length bases, two conditions (values drawn at random: the
figures here are times, not accuracy). Prints one JSON line; the CPU's flags go with it."""
import json
import os
import random
import subprocess
import sys
import time

import numpy as np
import torch
from sklearn.linear_model import RidgeCV
from sklearn.model_selection import PredefinedSplit, cross_val_predict
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from transformers import LlamaForCausalLM

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from carbon_testlib import bench_arguments, bench_model, cpu_flags, padded_batch  # noqa: E402


def main():
    a = bench_arguments(count=(int, 2000), length=(int, 200), weights=(str, "native"))
    torch.set_num_threads(a.threads)
    lm = bench_model(a)
    rng = random.Random(1)
    seqs = ["".join(rng.choice("ACGT") for _ in range(a.length)) for _ in range(a.count)]
    table = os.path.join(a.work, f"measured-{a.count}x{a.length}.tsv")
    with open(table, "w") as f:
        f.write("name\tsequence\tK562\tHepG2\n")
        for i, s in enumerate(seqs):
            f.write(f"s{i}\t{s}\t{rng.gauss(0, 1)!r}\t{rng.gauss(0, 1)!r}\n")

    out = os.path.join(a.work, "predictor.json")
    t0 = time.perf_counter()
    p = subprocess.run([a.cli, "predictor", "fit", "--model", lm, "--table", table, "--out", out, "--embedding", "both", "--batch",
                        str(a.batch), "--threads", str(a.threads), "--weights", a.weights, "--quiet"], capture_output=True, text=True, check=True)
    ours_s = time.perf_counter() - t0
    line = p.stdout.splitlines()[0]
    ours_embed = float(line.split("embedding ")[1].split(" s")[0])
    ours_fit = float(line.split("fitting ")[1].split(" s")[0])
    probe = json.load(open(out))

    t0 = time.perf_counter()
    model = LlamaForCausalLM.from_pretrained(lm, dtype=torch.bfloat16)
    model.eval()
    t_load = time.perf_counter() - t0
    t0 = time.perf_counter()
    rows = []
    with torch.inference_mode():
        for b in range(0, len(seqs), a.batch):
            ids, mask, lengths = padded_batch(lm, seqs[b:b + a.batch], 0)
            hs = model(input_ids=ids, attention_mask=mask, output_hidden_states=True).hidden_states[-1].float()
            for j, t in enumerate(lengths):
                rows.append(torch.cat([hs[j, t - 1], hs[j, 1:t - 1].mean(0)]).double().numpy())
    X = np.array(rows)
    t_embed = time.perf_counter() - t0
    t0 = time.perf_counter()
    for c in probe["conditions"]:
        idx = c["held_out"]["rows"]
        y = np.array(c["held_out"]["measured"])
        alphas = np.array(c["alphas"])
        make_pipeline(StandardScaler(), RidgeCV(alphas=alphas)).fit(X[idx], y)
        cross_val_predict(make_pipeline(StandardScaler(), RidgeCV(alphas=alphas)), X[idx], y,
                          cv=PredefinedSplit(np.array(c["held_out"]["fold"])))
    t_fit = time.perf_counter() - t0
    peer_s = t_load + t_embed + t_fit
    print(json.dumps({
        "preset": a.preset, "weights": a.weights, "sequences": a.count, "length": a.length, "threads": a.threads, "batch": a.batch,
        "width": X.shape[1], "conditions": len(probe["conditions"]), "folds": probe["cross_validation"]["folds"],
        "ours_s": round(ours_s, 2), "ours_embedding_s": ours_embed, "ours_fitting_s": ours_fit,
        "transformers_sklearn_s": round(peer_s, 2), "peer_load_s": round(t_load, 2), "peer_embedding_s": round(t_embed, 2),
        "peer_fitting_s": round(t_fit, 2), "ratio": round(peer_s / ours_s, 2), "fit_ratio": round(t_fit / max(1e-9, ours_fit), 2),
        "cpu_flags": cpu_flags(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}))


if __name__ == "__main__":
    main()
