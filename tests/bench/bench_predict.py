#!/usr/bin/env python3
"""Predictions per second (issue 32): `carbon-cli predict` against transformers'
LlamaForSequenceClassification doing the same (the recipe's evaluation: right-padded batches,
forward and reverse complement averaged) on the same checkpoint, threads and sequences, in one run.

    python3 tests/bench/bench_predict.py --cli build/bin/carbon-cli --work /tmp/bench-predict \
        [--preset carbon-500m] [--threads 2] [--count 64] [--lengths 200,1000] [--batch 16] \
        [--weights native,int8]

The checkpoint: `carbon-cli make-test-model --preset PRESET` (random bf16 weights, the real
shape) turned into a regression checkpoint by transformers (save_pretrained, a random 3-output
head) with a malinois-style run_config.json. The engine runs once per --weights (the kernels it
takes by default). transformers runs in bfloat16 (the checkpoint's dtype; its fastest CPU path),
in float32, and in float32 with PyTorch's dynamic int8 quantisation of every Linear
(torch.ao.quantization.quantize_dynamic, qint8: PyTorch's own 8-bit CPU inference). Prints one
JSON line per length with every rate, each engine run's speed-up over the fastest peer, and its
fidelity: per output, the Pearson r and the largest difference of its predictions from
transformers float32's, the latter over float32's spread (standard deviation) across the
sequences. The engine's process start and model load (a run of one sequence) are taken off its
time, as transformers' is timed after its load."""
import json
import os
import random
import subprocess
import time

import sys

import numpy as np
import torch
from transformers import LlamaForSequenceClassification

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from carbon_testlib import bench_arguments, bench_model, bench_regression_checkpoint, cpu_flags, padded_batch  # noqa: E402


def main():
    a = bench_arguments(count=(int, 64), lengths=(str, "200,1000"), weights=(str, "native,int8"))
    torch.set_num_threads(a.threads)
    lm = bench_model(a)
    best = bench_regression_checkpoint(a, lm)
    rng = random.Random(1)
    for length in [int(x) for x in a.lengths.split(",")]:
        seqs = ["".join(rng.choice("ACGT") for _ in range(length)) for _ in range(a.count)]
        fasta = os.path.join(a.work, f"seqs-{length}.fa")
        with open(fasta, "w") as f:
            for i, s in enumerate(seqs):
                f.write(f">s{i}\n{s}\n")

        def engine(path, weights, out):
            t0 = time.perf_counter()
            subprocess.run([a.cli, "predict", "--model", best, "--in", path, "--out", out, "--backend", "cpu", "--threads",
                            str(a.threads), "--batch", str(a.batch), "--weights", weights, "--quiet"], check=True)
            return time.perf_counter() - t0

        # The process start and model load, measured with one sequence, are taken off: transformers'
        # time below starts after its load too.
        one = os.path.join(a.work, f"one-{length}.fa")
        with open(one, "w") as f:
            f.write(f">s0\n{seqs[0]}\n")
        ours, values, too_short = {}, {}, None
        for weights in a.weights.split(","):
            out = os.path.join(a.work, f"pred-{length}-{weights}.tsv")
            load_s = engine(one, weights, out)
            total_s = engine(fasta, weights, out)
            if total_s - load_s < 0.5 * load_s:  # the work is lost in the start-up's noise: no figure
                too_short = f"{a.count} sequences take {total_s:.2f} s against {load_s:.2f} s for one with {weights} weights"
                break
            ours[weights] = (total_s - load_s) * a.count / max(1, a.count - 1)
            rows = [l.rstrip("\n").split("\t") for l in open(out) if not l.startswith("#")]
            values[weights] = [[float(x) for x in r[2:]] for r in rows[1:]]
        if too_short:
            print(json.dumps({"length": length, "sequences": a.count, "error": too_short + ": too little work to time; ask for more --count"}),
                  flush=True)
            continue
        peers, peer_values = {}, {}
        comp = str.maketrans("ACGT", "TGCA")
        for name in ("bfloat16", "float32", "float32+dynamic-int8"):
            model = LlamaForSequenceClassification.from_pretrained(best, dtype=torch.bfloat16 if name == "bfloat16" else torch.float32).eval()
            if name.endswith("int8"):
                model = torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
            pad = model.config.pad_token_id
            t0 = time.perf_counter()
            sums = []
            with torch.no_grad():
                for strand in (seqs, [s.translate(comp)[::-1] for s in seqs]):
                    got = []
                    for b in range(0, len(strand), a.batch):
                        ids, mask, _ = padded_batch(best, strand[b:b + a.batch], pad)
                        got += model(input_ids=ids, attention_mask=mask).logits.float().tolist()
                    sums.append(got)
            peers[name] = time.perf_counter() - t0
            peer_values[name] = [[0.5 * (x + y) for x, y in zip(f, r)] for f, r in zip(*sums)]
            del model
        best_peer = min(peers.values())
        ref = np.array(peer_values["float32"])

        def fidelity(v):
            v = np.array(v)
            return [{"pearson_r": round(float(np.corrcoef(v[:, j], ref[:, j])[0, 1]), 4),
                     "max_abs_diff_over_sd": round(float(np.abs(v[:, j] - ref[:, j]).max() / ref[:, j].std()), 3)}
                    for j in range(ref.shape[1])]

        print(json.dumps({"length": length, "sequences": a.count, "threads": a.threads, "batch": a.batch,
                          "engine_seq_per_s": {w: round(a.count / s, 2) for w, s in ours.items()},
                          "transformers_seq_per_s": {k: round(a.count / v, 2) for k, v in peers.items()},
                          "speedup_vs_best_transformers": {w: round(best_peer / s, 2) for w, s in ours.items()},
                          "fidelity_vs_transformers_float32": {**{w: fidelity(values[w]) for w in ours},
                                                               **{k: fidelity(peer_values[k]) for k in peers if k != "float32"}},
                          "cpu_flags": cpu_flags(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}), flush=True)


if __name__ == "__main__":
    main()
