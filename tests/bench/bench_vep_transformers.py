#!/usr/bin/env python3
"""The transformers peer for the vep benchmark: the same windowed deltas computed the
straightforward way, two full passes per (variant, alt) (the reference window, then the
alternative window), each base's log p from the marginal of the 6-mer softmax (the reference FNS
code's arithmetic). Reads the windows and alleles from a `carbon-cli vep` output, so both score
the same windows, and reports variants per second and the largest gap to the engine's deltas.

    python3 bench_vep_transformers.py --model DIR --reference REF.fa --scores VEP.tsv --threads N [--limit K]
"""
import argparse
import json
import math
import time

import torch
from transformers import LlamaForCausalLM

CODE = {"A": 0, "T": 1, "C": 2, "G": 3}


def read_fasta(path):
    seqs, name, parts = {}, None, []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith(">"):
                if name:
                    seqs[name] = "".join(parts).upper()
                name, parts = line[1:].split()[0], []
            elif line:
                parts.append(line)
    if name:
        seqs[name] = "".join(parts).upper()
    return seqs


def tokens(seq, first, oov):
    out = []
    for i in range(0, len(seq), 6):
        block = seq[i:i + 6].ljust(6, "A")  # the reference tokenizer pads the last block with A
        if any(c not in CODE for c in block):
            out.append(oov)
        else:
            out.append(first + sum(CODE[c] << (2 * (5 - j)) for j, c in enumerate(block)))
    return out


def mean_logp(model, seq, dna, first, oov, onehot):
    ids = torch.tensor([[dna] + tokens(seq, first, oov)])
    with torch.inference_mode():
        logits = model(input_ids=ids).logits[0, :-1, first:first + 4096].float()  # row k predicts 6-mer k
    p = torch.softmax(logits, dim=-1)
    marg = torch.einsum("tv,vjc->tjc", p, onehot)  # [tokens, 6, 4]
    total, n = 0.0, 0
    for i, c in enumerate(seq):
        if c in CODE:
            total += math.log(max(float(marg[i // 6, i % 6, CODE[c]]), 1e-12))
            n += 1
    return total / n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--reference", required=True)
    ap.add_argument("--scores", required=True)
    ap.add_argument("--threads", type=int, required=True)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--dtype", default="float32")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    model = LlamaForCausalLM.from_pretrained(a.model, dtype=getattr(torch, a.dtype)).eval()
    with open(f"{a.model}/tokenizer_config.json") as f:
        added = {v["content"]: int(k) for k, v in json.load(f)["added_tokens_decoder"].items()}
    dna, oov = added["<dna>"], added["<oov>"]
    first = oov + 1
    idx = torch.arange(4096)
    onehot = torch.nn.functional.one_hot(torch.stack([(idx >> (2 * (5 - j))) & 3 for j in range(6)], 1), 4).float()
    genome = read_fasta(a.reference)
    rows = []
    with open(a.scores) as f:
        for line in f:
            if line.startswith("#"):
                continue
            r = line.rstrip("\n").split("\t")
            if r[5] in ("ok", "window_clipped"):
                rows.append(r)
    if a.limit:
        rows = rows[:a.limit]
    worst = 0.0
    t0 = time.perf_counter()
    for r in rows:
        chrom, pos, ref, alt = r[0], int(r[1]), r[3], r[4].upper()
        w0, w1 = int(r[6]) - 1, int(r[7])
        win = genome[chrom][w0:w1]
        q = pos - 1 - w0
        alt_win = win[:q] + alt + win[q + len(ref):]
        delta = mean_logp(model, alt_win, dna, first, oov, onehot) - mean_logp(model, win, dna, first, oov, onehot)
        worst = max(worst, abs(delta - float(r[9])))
    secs = time.perf_counter() - t0
    print(f"transformers ({a.dtype}, 2 passes per variant): {len(rows)} variants in {secs:.2f} s = {len(rows) / secs:.2f} variants/s; "
          f"largest |delta - engine delta| {worst:.2e}")


if __name__ == "__main__":
    main()
