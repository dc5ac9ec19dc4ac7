#!/usr/bin/env python3
"""The transformers peer for FNS benchmarks: base-level (FNS) and direct 6-mer generation, and
base-level scoring, written the way the reference FNS code works (marginals of the 6-mer
softmax), on the same checkpoint, threads and sizes as tests/bench/fns_bench.sh gives the engine.
Greedy choice, KV cache, batch of `count` designs."""
import argparse
import json
import time

import torch
from transformers import LlamaForCausalLM


def kmer_tables(first_kmer):
    idx = torch.arange(4096)
    bases = torch.stack([(idx >> (2 * (5 - j))) & 3 for j in range(6)], dim=1)  # [4096, 6], A=0 T=1 C=2 G=3
    onehot = torch.nn.functional.one_hot(bases, 4).float()  # [4096, 6, 4]
    return bases, onehot


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--threads", type=int, required=True)
    ap.add_argument("--count", type=int, default=8)
    ap.add_argument("--length", type=int, default=600)
    ap.add_argument("--score-length", type=int, default=3000)
    ap.add_argument("--dtype", default="float32")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    model = LlamaForCausalLM.from_pretrained(a.model, dtype=getattr(torch, a.dtype)).eval()
    with open(f"{a.model}/tokenizer_config.json") as f:
        added = {v["content"]: int(k) for k, v in json.load(f)["added_tokens_decoder"].items()}
    dna, close, first = added["<dna>"], added["</dna>"], added["<oov>"] + 1
    bases, onehot = kmer_tables(first)
    weights = (4 ** torch.arange(5, -1, -1))
    g = torch.Generator().manual_seed(0)
    ctx = torch.randint(0, 4096, (a.count, 7), generator=g) + first
    prompt = torch.cat([torch.full((a.count, 1), dna), ctx], dim=1)
    n_tok = (a.length + 5) // 6
    out = {}
    for mode in ("fns", "direct"):
        with torch.inference_mode():
            t0 = time.perf_counter()
            o = model(input_ids=prompt, use_cache=True)
            past = o.past_key_values
            for step in range(n_tok):
                logits = o.logits[:, -1, first:first + 4096].float()
                if mode == "direct":
                    choice = torch.argmax(logits, dim=-1)
                else:
                    p = torch.softmax(logits, dim=-1)  # normalized over the 6-mers, as the engine
                    marg = torch.einsum("bv,vjc->bjc", p, onehot)  # [batch, 6, 4]
                    choice = (marg.argmax(-1) * weights).sum(-1)
                if step + 1 == n_tok:
                    break
                o = model(input_ids=(choice + first).unsqueeze(1), past_key_values=past, use_cache=True)
                past = o.past_key_values
            secs = time.perf_counter() - t0
        out[mode] = a.count * a.length / secs
        print(f"transformers {mode:6s} generation: {a.count} x {a.length} bp in {secs:.2f} s = {out[mode]:.1f} bp/s")
    # Base-level scoring of one sequence of score-length bases (closed form).
    n = a.score_length // 6
    seq = torch.randint(0, 4096, (1, n), generator=g) + first
    ids = torch.cat([torch.tensor([[dna]]), seq, torch.tensor([[close]])], dim=1)
    with torch.inference_mode():
        t0 = time.perf_counter()
        logits = model(input_ids=ids).logits[0, :-2, first:first + 4096].float()
        p = torch.softmax(logits, dim=-1)
        marg = torch.einsum("tv,vjc->tjc", p, onehot)
        obs = bases[seq[0] - first]
        logp = torch.log(torch.gather(marg, 2, obs.unsqueeze(-1))).mean()
        secs = time.perf_counter() - t0
    print(f"transformers scoring: {n * 6} bp in {secs:.2f} s = {n * 6 / secs:.1f} bp/s (mean logp {logp:.3f})")


if __name__ == "__main__":
    main()
