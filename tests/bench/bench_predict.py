#!/usr/bin/env python3
"""Predictions per second (issue 32): `carbon-cli predict` against transformers'
LlamaForSequenceClassification doing the same (the recipe's evaluation: right-padded batches,
forward and reverse complement averaged) on the same checkpoint, threads and sequences, in one run.

    python3 tests/bench/bench_predict.py --cli build/bin/carbon-cli --work /tmp/bench-predict \
        [--preset carbon-500m] [--threads 2] [--count 64] [--lengths 200,1000] [--batch 16]

The checkpoint: `carbon-cli make-test-model --preset PRESET` (random bf16 weights, the real
shape) turned into a regression checkpoint by transformers (save_pretrained, a random 3-output
head) with a malinois-style run_config.json. transformers runs in bfloat16 (the checkpoint's
dtype; its fastest CPU path) and in float32; the engine with the kernels it takes by default.
Prints one JSON line per length with both rates and the ratio; the engine's process start and model
load (a run of one sequence) are taken off its time, as transformers' is timed after its load."""
import json
import os
import random
import subprocess
import time

import sys

import torch
from transformers import LlamaForSequenceClassification

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from carbon_testlib import bench_arguments, bench_model, bench_regression_checkpoint, cpu_flags, padded_batch  # noqa: E402


def main():
    a = bench_arguments(count=(int, 64), lengths=(str, "200,1000"))
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
        out = os.path.join(a.work, f"pred-{length}.tsv")

        def engine(path):
            t0 = time.perf_counter()
            subprocess.run([a.cli, "predict", "--model", best, "--in", path, "--out", out, "--backend", "cpu", "--threads",
                            str(a.threads), "--batch", str(a.batch), "--quiet"], check=True)
            return time.perf_counter() - t0

        # The process start and model load, measured with one sequence, are taken off: transformers'
        # time below starts after its load too.
        one = os.path.join(a.work, f"one-{length}.fa")
        with open(one, "w") as f:
            f.write(f">s0\n{seqs[0]}\n")
        load_s = engine(one)
        total_s = engine(fasta)
        if total_s - load_s < 0.5 * load_s:  # the work is lost in the start-up's noise: no figure
            print(json.dumps({"length": length, "sequences": a.count, "error": f"{a.count} sequences take {total_s:.2f} s "
                              f"against {load_s:.2f} s for one: too little work to time; ask for more --count"}), flush=True)
            continue
        engine_s = (total_s - load_s) * a.count / max(1, a.count - 1)
        peers = {}
        for dtype in (torch.bfloat16, torch.float32):
            model = LlamaForSequenceClassification.from_pretrained(best, dtype=dtype).eval()
            pad = model.config.pad_token_id
            t0 = time.perf_counter()
            with torch.no_grad():
                for strand in (seqs, [s.translate(str.maketrans("ACGT", "TGCA"))[::-1] for s in seqs]):
                    for b in range(0, len(strand), a.batch):
                        ids, mask, _ = padded_batch(best, strand[b:b + a.batch], pad)
                        model(input_ids=ids, attention_mask=mask)
            peers[str(dtype).replace("torch.", "")] = time.perf_counter() - t0
            del model
        best_peer = min(peers.values())
        print(json.dumps({"length": length, "sequences": a.count, "threads": a.threads, "batch": a.batch,
                          "engine_seq_per_s": round(a.count / engine_s, 2),
                          "engine_seconds": round(engine_s, 2), "engine_seconds_incl_load": round(total_s, 2),
                          "transformers_seq_per_s": {k: round(a.count / v, 2) for k, v in peers.items()},
                          "speedup_vs_best_transformers": round(best_peer / engine_s, 2), "cpu_flags": cpu_flags(),
                          "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}), flush=True)


if __name__ == "__main__":
    main()
