#!/usr/bin/env python3
"""One round of directed evolution (issue 32): every single-base edit of a 200-bp design (3L = 600
candidates) predicted by a regression checkpoint and the best kept, `carbon-cli evolve --rounds 1`
against transformers doing the same round (the recipe's evaluation: forward and reverse
complement averaged, batches of --batch) on the same checkpoint, threads and start, in one run.

    python3 tests/bench/bench_evolve_round.py --cli build/bin/carbon-cli --work /tmp/bench-predict \
        [--preset carbon-500m] [--threads 2] [--length 200] [--batch 64] [--weights native,int8]

The checkpoint: bench_regression_checkpoint (carbon_testlib: the preset's random bf16 weights made
a 3-output regression checkpoint by transformers, malinois-style run_config.json). The engine's
process start, model load and the start's own prediction (the same command with --budget 0) are
taken off its time; transformers is timed after its load, in bfloat16 (its fastest CPU path here,
bench_predict.py). Both must pick the same edit unless the best two are within bf16 noise; the
line says which each picked. The engine runs once per --weights. Prints one JSON line."""
import json
import os
import random
import subprocess
import sys
import time

import torch
from transformers import LlamaForSequenceClassification

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from carbon_testlib import bench_arguments, bench_model, bench_regression_checkpoint, cpu_flags, padded_batch  # noqa: E402


def main():
    a = bench_arguments(length=(int, 200), weights=(str, "native,int8"))
    torch.set_num_threads(a.threads)
    lm = bench_model(a)
    best = bench_regression_checkpoint(a, lm)
    rng = random.Random(3)
    start = "".join(rng.choice("ACGT") for _ in range(a.length))
    traj = os.path.join(a.work, "evolve-round.tsv")

    def engine(budget, weights):
        t0 = time.perf_counter()
        subprocess.run([a.cli, "evolve", "--model", best, "--start", start, "--objective", "K562", "--budget", str(budget), "--rounds", "1",
                        "--batch", str(a.batch), "--out", traj, "--backend", "cpu", "--threads", str(a.threads), "--weights", weights,
                        "--quiet"], check=True, capture_output=True)
        return time.perf_counter() - t0

    ours, edits, loads, predicted = {}, {}, {}, {}
    for weights in a.weights.split(","):
        loads[weights] = engine(0, weights)
        ours[weights] = engine(1, weights) - loads[weights]
        rows = [l.rstrip("\n").split("\t") for l in open(traj) if not l.startswith("#")]
        last = dict(zip(rows[0], rows[-1]))
        edits[weights] = last.get("edit")
        predicted[weights] = int(last.get("candidates", 0))  # the round's candidates the engine predicted

    model = LlamaForSequenceClassification.from_pretrained(best, dtype=torch.bfloat16).eval()
    pad = model.config.pad_token_id
    cands = []
    for i, b in enumerate(start):
        for c in "ACGT":
            if c != b:
                cands.append((i, b, c, start[:i] + c + start[i + 1:]))
    comp = str.maketrans("ACGT", "TGCA")
    t0 = time.perf_counter()
    scores = []
    with torch.inference_mode():
        for k in range(0, len(cands), a.batch):
            chunk = [s for *_, s in cands[k:k + a.batch]]
            fwd = model(*padded_batch(best, chunk, pad)[:2]).logits.float()
            rev = model(*padded_batch(best, [s.translate(comp)[::-1] for s in chunk], pad)[:2]).logits.float()
            scores += (0.5 * (fwd + rev))[:, 0].tolist()
    peer_s = time.perf_counter() - t0
    top = max(range(len(cands)), key=lambda k: scores[k])
    i, b, c, _ = cands[top]
    print(json.dumps({
        "preset": a.preset, "length": a.length, "candidates": len(cands), "engine_candidates": predicted, "threads": a.threads, "batch": a.batch,
        "engine_round_s": {w: round(t, 2) for w, t in ours.items()}, "engine_start_and_load_s": {w: round(t, 2) for w, t in loads.items()},
        "transformers_bf16_round_s": round(peer_s, 2), "speedup": {w: round(peer_s / t, 2) for w, t in ours.items()},
        "engine_candidates_per_s": {w: round(len(cands) / t, 1) for w, t in ours.items()},
        "transformers_candidates_per_s": round(len(cands) / peer_s, 1),
        "engine_edit": edits, "transformers_edit": f"{i + 1}{b}>{c}", "cpu_flags": cpu_flags(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}), flush=True)


if __name__ == "__main__":
    main()
