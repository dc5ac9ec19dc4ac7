#!/usr/bin/env python3
"""The CUDA backend's performance model: what each decode step and each scored window must move and
compute, kernel by kernel, for a model's shape, and the time that implies on a GPU from its published
bandwidth and arithmetic rates (a roofline per kernel). These are predictions, not measurements: the
figures a GPU run of tests/gpu/prove.sh reports are judged against them.

    python3 tests/bench/gpu_perf_model.py [--model DIR ...] [--context TOKENS] [--markdown]

Without --model it uses the shapes of the three Carbon presets (carbon-spec.md's table); with it, the
shape comes from each folder's config.json, so a real checkpoint gives its own figures.

Kernel plan per decode step (issue 13's kernels, docs/kernels.md), per layer: RMSNorm, q/k/v
projections, RoPE, the KV append, paged decode attention (split-K) and its combine, o projection,
RMSNorm fused with the residual, gate and up projections, SwiGLU, down projection; then the final
RMSNorm, the DNA head (4,096 rows) and the FNS step (or, direct, a 4,096-way sample). Projections at
batch <= 8 run on the project's GEMV (weights read once per pass of 8 rows, fp32 FMAs on CUDA cores);
above 8 on cuBLASLt (weights read once, bf16 tensor cores). Activations and the KV cache in bf16.
"""
import argparse
import json
import math
import os

DNA_ROWS = 4096
BP_PER_TOKEN = 6
ACT = 2  # bf16 activations and cache

PRESETS = {
    "carbon-500m": dict(layers=28, hidden=1024, ffn=3072, heads=16, kv_heads=8, head_dim=64, vocab=155776, tied=True,
                        context=8192),
    "carbon-3b": dict(layers=30, hidden=3072, ffn=8448, heads=32, kv_heads=4, head_dim=96, vocab=155776, tied=True,
                      context=32768),
    "carbon-8b": dict(layers=32, hidden=4096, ffn=14336, heads=32, kv_heads=8, head_dim=128, vocab=155776, tied=False,
                      context=32768),
}

# Published figures (vendor data sheets, dense, no sparsity): memory bandwidth in B/s, bf16 tensor
# rate with fp32 accumulation, fp32 CUDA-core rate and fp64 rate, in FLOP/s.
GPUS = {
    "H100 SXM": dict(bw=3.35e12, bf16=989e12, fp32=67e12, fp64=34e12),
    "A100 80GB SXM": dict(bw=2.039e12, bf16=312e12, fp32=19.5e12, fp64=9.7e12),
    "L40S": dict(bw=0.864e12, bf16=362e12, fp32=91.6e12, fp64=1.43e12),
    "RTX 4090": dict(bw=1.008e12, bf16=165e12, fp32=82.6e12, fp64=1.29e12),
}


def shape_from_config(path):
    with open(os.path.join(path, "config.json"), encoding="utf-8") as f:
        c = json.load(f)
    heads = c["num_attention_heads"]
    return dict(layers=c["num_hidden_layers"], hidden=c["hidden_size"], ffn=c["intermediate_size"], heads=heads,
                kv_heads=c.get("num_key_value_heads", heads),
                head_dim=c.get("head_dim") or c["hidden_size"] // heads, vocab=c["vocab_size"],
                tied=bool(c.get("tie_word_embeddings", False)), context=c.get("max_position_embeddings", 8192))


class Kernel:
    """One launch: bytes it must move, FLOPs and on which units they run."""

    def __init__(self, name, nbytes, flops, unit, count=1):
        self.name, self.bytes, self.flops, self.unit, self.count = name, nbytes, flops, unit, count

    def time(self, gpu):
        return self.count * max(self.bytes / gpu["bw"], self.flops / gpu[self.unit])


def projection(name, n, k, batch, count=1):
    passes = 1 if batch > 8 else math.ceil(batch / 8)
    nbytes = 2 * n * k * passes + ACT * batch * k + ACT * batch * n
    return Kernel(name, nbytes, 2 * batch * n * k, "bf16" if batch > 8 else "fp32", count)


def decode_step(s, batch, cached, fns=True):
    """Kernels of one decode step: `batch` sequences, each with `cached` tokens in its cache."""
    H, F, L = s["hidden"], s["ffn"], s["layers"]
    nh, nkv, d = s["heads"], s["kv_heads"], s["head_dim"]
    chunks = math.ceil(max(cached, 1) / 256)
    ks = [
        Kernel("embedding", batch * H * (2 + ACT) + 4 * batch, 0, "fp32"),
        Kernel("rmsnorm", 2 * batch * H * ACT + 2 * H, 4 * batch * H, "fp32", L),
        projection("q", nh * d, H, batch, L),
        projection("k", nkv * d, H, batch, L),
        projection("v", nkv * d, H, batch, L),
        Kernel("rope", 2 * batch * (nh + nkv) * d * ACT, 3 * batch * (nh + nkv) * d, "fp32", L),
        Kernel("kv append", 4 * batch * nkv * d * ACT, 0, "fp32", L),
        Kernel("attention decode", batch * (2 * cached * nkv * d * ACT + 2 * nh * d * ACT)
               + 4 * batch * nh * chunks * (d + 2), 4 * batch * nh * d * cached, "fp32", L),
        Kernel("attention combine", 4 * batch * nh * chunks * (d + 2) + batch * nh * d * ACT, 0, "fp32", L),
        projection("o", H, nh * d, batch, L),
        Kernel("rmsnorm+residual", 4 * batch * H * ACT + 2 * H, 5 * batch * H, "fp32", L),
        projection("gate", F, H, batch, L),
        projection("up", F, H, batch, L),
        Kernel("swiglu", 3 * batch * F * ACT, 5 * batch * F, "fp32", L),
        projection("down", H, F, batch, L),
        Kernel("final rmsnorm", 2 * batch * H * ACT + 2 * H, 4 * batch * H, "fp32"),
        projection("DNA head", DNA_ROWS, H, batch),
    ]
    if fns:
        ks.append(Kernel("FNS step", batch * (DNA_ROWS * 4 + 22) + 248 * batch, 1.3e5 * batch, "fp64"))
    else:
        ks.append(Kernel("sample (direct)", batch * (DNA_ROWS * 4 + 22) + 8 * batch, 3 * DNA_ROWS * batch, "fp32"))
    return ks


def score_window(s, tokens):
    """Prefill of one window of `tokens` with the DNA head at every position (base-level scoring)."""
    H, F, L = s["hidden"], s["ffn"], s["layers"]
    nh, nkv, d = s["heads"], s["kv_heads"], s["head_dim"]
    w = L * 2 * (H * nh * d + 2 * H * nkv * d + nh * d * H + 3 * H * F) + 2 * DNA_ROWS * H
    gemm_flops = 2 * tokens * (w // 2)
    attn_flops = L * 2 * nh * d * tokens * (tokens + 1)
    act = L * tokens * ACT * (6 * H + 3 * F + 2 * (nh + 2 * nkv) * d)
    return [Kernel("GEMMs (cuBLASLt)", w + act, gemm_flops, "bf16"),
            Kernel("attention prefill", L * (nh * d * ACT * tokens * tokens / 64 + 4 * tokens * nh * d * ACT),
                   attn_flops, "fp32"),
            Kernel("FNS marginals", tokens * DNA_ROWS * 4 * 2, 1.3e5 * tokens, "fp64")]


def weights_bytes(s):
    H, F, L = s["hidden"], s["ffn"], s["layers"]
    nh, nkv, d = s["heads"], s["kv_heads"], s["head_dim"]
    per_layer = 2 * (H * nh * d + 2 * H * nkv * d + nh * d * H + 3 * H * F) + 4 * H
    head = 0 if s["tied"] else 2 * s["vocab"] * H
    return L * per_layer + 2 * s["vocab"] * H + head + 2 * H


def kv_per_token(s):
    return 2 * s["layers"] * s["kv_heads"] * s["head_dim"] * ACT


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", action="append", default=[], help="model folder (config.json); repeatable")
    ap.add_argument("--contexts", default="256,1366", help="cached tokens per sequence during decode (default 256: "
                    "short prompts and 1 kbp designs, as the published throughput figures; 1,366: an 8 kbp context)")
    ap.add_argument("--batches", default="1,16,64,256")
    args = ap.parse_args()
    shapes = {os.path.basename(os.path.normpath(m)): shape_from_config(m) for m in args.model} or PRESETS
    batches = [int(b) for b in args.batches.split(",")]

    contexts = [int(c) for c in args.contexts.split(",")]
    print("# Predicted decode on GPUs (a roofline per kernel; predictions, not measurements)\n")
    print("| model | cached tokens | batch | MB moved per step | GFLOP per step | " +
          " | ".join(f"{g} µs/step (kbp/s FNS)" for g in GPUS) + " |")
    print("|---|---:|---:|---:|---:|" + "---:|" * len(GPUS))
    for name, s in shapes.items():
        for ctx in contexts:
            for b in batches:
                ks = decode_step(s, b, ctx)
                nbytes = sum(k.bytes * k.count for k in ks)
                flops = sum(k.flops * k.count for k in ks)
                cells = []
                for g in GPUS.values():
                    t = sum(k.time(g) for k in ks)
                    cells.append(f"{t * 1e6:,.0f} ({b * BP_PER_TOKEN / t / 1e3:,.0f})")
                print(f"| {name} | {ctx:,} | {b} | {nbytes / 1e6:,.1f} | {flops / 1e9:,.2f} | " + " | ".join(cells) + " |")
    ctx = contexts[0]
    print(f"\n# Where the batch-1 step goes on an H100 SXM ({ctx} cached tokens; share of the roofline time) and what "
          "launches cost\n")
    print("| model | weight GEMVs | attention | elementwise + FNS | roofline µs | launches x 2 µs (no graph) "
          "| FNS over direct, batch 1 / 256 |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    h100 = GPUS["H100 SXM"]
    proj = {"q", "k", "v", "o", "gate", "up", "down", "DNA head"}
    for name, s in shapes.items():
        ks = decode_step(s, 1, ctx)
        t = sum(k.time(h100) for k in ks)
        tw = sum(k.time(h100) for k in ks if k.name in proj)
        ta = sum(k.time(h100) for k in ks if k.name.startswith("attention"))
        launches = sum(k.count for k in ks)
        over = []
        for b in (1, 256):
            f = sum(k.time(h100) for k in decode_step(s, b, ctx, True))
            d = sum(k.time(h100) for k in decode_step(s, b, ctx, False))
            over.append(f"{(f - d) * 1e6:.2f} µs ({(f / d - 1) * 100:.3f} %)")
        print(f"| {name} | {tw / t * 100:.1f} % | {ta / t * 100:.1f} % | {(t - tw - ta) / t * 100:.1f} % | "
              f"{t * 1e6:,.0f} | {launches * 2:,} µs | {' / '.join(over)} |")

    print("\n# Scoring 8,192 bp windows (1,366 tokens, DNA head at every position)\n")
    print("| model | TFLOP per window | " + " | ".join(f"{g} kbp/s at 100 % / at 50 % of bf16 peak" for g in GPUS)
          + " |")
    print("|---|---:|" + "---:|" * len(GPUS))
    for name, s in shapes.items():
        ks = score_window(s, 1366)
        flops = sum(k.flops for k in ks)
        cells = []
        for g in GPUS.values():
            t = sum(k.time(g) for k in ks)
            t_half = sum(max(k.bytes / g["bw"], k.flops / (g[k.unit] * 0.5)) for k in ks)
            cells.append(f"{8192 / t / 1e3:,.0f} / {8192 / t_half / 1e3:,.0f}")
        print(f"| {name} | {flops / 1e12:.2f} | " + " | ".join(cells) + " |")

    print("\n# Memory: weights and KV cache (bf16)\n")
    print("| model | weights GB | KV per token KB | 32k-token cache GB | native context cache GB |")
    print("|---|---:|---:|---:|---:|")
    for name, s in shapes.items():
        print(f"| {name} | {weights_bytes(s) / 1e9:.2f} | {kv_per_token(s) / 1e3:.1f} | "
              f"{kv_per_token(s) * 32768 / 1e9:.2f} | {kv_per_token(s) * s['context'] / 1e9:.2f} |")
    if "carbon-3b" in shapes and "carbon-500m" in shapes:
        t, d = shapes["carbon-3b"], shapes["carbon-500m"]
        draft_ctx = min(32768, d["context"])
        full = weights_bytes(t) + kv_per_token(t) * 32768 + weights_bytes(d) + kv_per_token(d) * draft_ctx
        emb = 2 * t["vocab"] * t["hidden"] + 2 * d["vocab"] * d["hidden"]
        dna = 2 * DNA_ROWS * (t["hidden"] + d["hidden"])
        print(f"\nCarbon-3B with a 32,768-token cache plus the 500M draft (its cache at its native {draft_ctx:,} tokens): "
              f"{full / 1e9:.2f} GB with both embedding tables on the device; {(full - emb + dna) / 1e9:.2f} GB with the "
              "embedding tables in pinned host memory (the gather reads batch x hidden x 2 bytes over PCIe per step), "
              "only the 4,096 DNA head rows on the device and the full head loaded only for token-level scores.")


if __name__ == "__main__":
    main()
