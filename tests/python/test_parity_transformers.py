#!/usr/bin/env python3
"""Parity of the CPU engine with Hugging Face transformers' LlamaForCausalLM on tiny random
checkpoints written by `carbon-cli make-test-model`: tied and untied heads, GQA with a head_dim
that is not a power of two, YaRN, llama3, sharded safetensors, f32, bf16 and f16.

Criteria (per variant, over every position of a 300-token prompt):
- the engine against transformers in float32 on the same weights (bf16/f16 weights upcast, which
  is exactly what the engine computes with): max |dlogit| <= 1e-3;
- greedy continuation of 200 tokens over the full vocabulary: identical token for token;
- bf16 checkpoints against transformers computing in bfloat16: the difference is explained by
  bf16 activation rounding; the bound is 4 * max |transformers_bf16 - transformers_f32| + 1e-3
  AND an absolute 0.05 * (max |logit| + 1): bf16 rounding of activations (8 mantissa bits,
  relative error 2^-9 per operation) stays a few percent of the logit scale through a 2-layer
  network; a real error (a wrong RoPE frequency, a missing norm) breaks it by far.
The prompt is fed in chunks (prefill, two single-token decodes, prefill again) to exercise the
KV cache. On the CPU these run the fp32-activation kernels (CARBON_CPU_KERNELS=fp32); the kernels
the engine takes by default are run too, and where they round matmul inputs to bf16 (CPUs with
AVX-512 BF16 or AMX) they are held to the bf16 bound against transformers bfloat16 for bf16
checkpoints, and to 0.05 * (max |logit| + 1) against transformers float32 for the others; their
greedy continuations are reported.

CARBON_PARITY_BACKEND=cuda (tests/gpu/prove.sh, on a GPU) runs the same comparison through the CUDA
backend: fp32 checkpoints keep every criterion (fp32 GEMMs); bf16 and f16 checkpoints compute with
bf16/f16 GEMM inputs there, so they are held to the bf16 bound (bf16) or to 0.05 * (max |logit| + 1)
against transformers float32 (f16), and their greedy continuations are reported, not required.
CARBON_PARITY_VARIANTS=name,... runs only the named variants."""
import json
import os
import sys

from carbon_testlib import bin_path, dna_ids, require_modules, run, work_dir

require_modules("torch", "transformers", "numpy")
import numpy as np  # noqa: E402
import torch  # noqa: E402
from transformers import LlamaForCausalLM  # noqa: E402

torch.set_num_threads(max(1, os.cpu_count() or 1))

VARIANTS = [
    # name, make-test-model options, dtype
    ("tied-f32", ["--dtype", "f32", "--tie"], "f32"),
    ("untied-gqa-hd24-f32", ["--dtype", "f32", "--untie", "--hidden", "96", "--heads", "4", "--kv-heads", "2",
                              "--head-dim", "24", "--intermediate", "200", "--layers", "3"], "f32"),
    ("gqa-hd48-6x2-f32", ["--dtype", "f32", "--hidden", "288", "--heads", "6", "--kv-heads", "2", "--head-dim", "48",
                          "--intermediate", "300"], "f32"),
    ("yarn-f32", ["--dtype", "f32", "--rope", "yarn", "--rope-theta", "500000"], "f32"),
    ("llama3-f32", ["--dtype", "f32", "--rope", "llama3", "--rope-parameters-form"], "f32"),
    ("sharded-untied-bf16", ["--dtype", "bf16", "--untie", "--shard-mb", "4"], "bf16"),
    ("yarn-bf16", ["--dtype", "bf16", "--rope", "yarn"], "bf16"),
    ("f16-compact-vocab", ["--dtype", "f16", "--compact-vocab", "--list-kmers"], "f16"),
]
PROMPT_LEN = 300
GREEDY = 200
TOL_F32 = 1e-3
BACKEND = os.environ.get("CARBON_PARITY_BACKEND", "cpu")
CUDA_HEAD_DIMS = (16, 24, 64, 96, 128)  # engine/src/gpu/cuda_backend.cpp, kernels/attention_checks.h
# CARBON_PARITY_VARIANTS=name,name: only those variants (the GPU proof's dry run, where the CUDA
# backend runs on the host seam, takes one); an unknown name is an error, never an empty run.
_only = [v for v in os.environ.get("CARBON_PARITY_VARIANTS", "").split(",") if v]
_unknown = sorted(set(_only) - {v[0] for v in VARIANTS})
if _unknown:
    sys.exit(f"CARBON_PARITY_VARIANTS: no variant named {', '.join(_unknown)} (there are {', '.join(v[0] for v in VARIANTS)})")
if _only:
    VARIANTS = [v for v in VARIANTS if v[0] in _only]


def prompt_ids(model_dir, seed):
    dna, _, _, first_kmer = dna_ids(model_dir)
    rng = np.random.default_rng(seed)
    text = [int(x) for x in rng.integers(0, 256, size=5)]  # byte tokens exist in every BPE vocabulary
    kmers = [first_kmer + int(x) for x in rng.integers(0, 4096, size=PROMPT_LEN - 6)]
    return text + [dna] + kmers


def hf_logits_and_greedy(model, ids, n_greedy):
    with torch.no_grad():
        out = model(input_ids=torch.tensor([ids]), use_cache=True)
        logits = out.logits[0].float().numpy()
        past = out.past_key_values
        nxt = int(torch.argmax(out.logits[0, -1]))
        gen = []
        for i in range(n_greedy):
            gen.append(nxt)
            if i + 1 == n_greedy:
                break
            out = model(input_ids=torch.tensor([[nxt]]), past_key_values=past, use_cache=True)
            past = out.past_key_values
            nxt = int(torch.argmax(out.logits[0, -1]))
    return logits, gen


def engine_logits(d, ids_file, n, vocab, kernels):
    """Every position's logits and the greedy continuation from carbon_forward with CARBON_CPU_KERNELS."""
    logits_file = os.path.join(d, f"engine-{kernels}.f32")
    greedy_file = os.path.join(d, f"engine-greedy-{kernels}.json")
    run([bin_path("carbon_forward"), "--model", d, "--ids", ids_file, "--logits", logits_file,
         "--greedy", str(GREEDY), "--greedy-out", greedy_file, "--chunks", "200,1,1,98", "--backend", BACKEND],
        env=dict(os.environ, CARBON_CPU_KERNELS=kernels))
    with open(greedy_file) as f:
        return np.fromfile(logits_file, dtype=np.float32).reshape(n, vocab), json.load(f)


def cpu_kernels_taken(d):
    """The CPU backend's description under the default kernels (`carbon-cli info`)."""
    env = dict(os.environ)
    env.pop("CARBON_CPU_KERNELS", None)
    out = run([bin_path("carbon-cli"), "info", "--model", d], env=env).stdout
    return next((line.split(None, 1)[1] for line in out.splitlines() if line.startswith("backend")), "")


def main():
    failures = []
    rows = []
    skipped = []
    for k, (name, opts, dtype) in enumerate(VARIANTS):
        hd = int(opts[opts.index("--head-dim") + 1]) if "--head-dim" in opts else None
        if BACKEND == "cuda" and hd is not None and hd not in CUDA_HEAD_DIMS:
            print(f"SKIP {name}: head_dim {hd} is not one the CUDA attention kernels are built for "
                  f"({', '.join(map(str, CUDA_HEAD_DIMS))}); the CPU backend's run covers it")
            skipped.append(name)
            continue
        d = os.path.join(work_dir("parity"), name)
        run([bin_path("carbon-cli"), "make-test-model", "--out", d, "--seed", str(100 + k)] + opts)
        ids = prompt_ids(d, k)
        ids_file = os.path.join(d, "prompt.json")
        with open(ids_file, "w") as f:
            json.dump(ids, f)
        with open(os.path.join(d, "config.json")) as f:
            vocab = json.load(f)["vocab_size"]
        ours, ours_greedy = engine_logits(d, ids_file, len(ids), vocab, "fp32")
        default_path = cpu_kernels_taken(d) if BACKEND == "cpu" else None
        rounded = default_path is not None and "bf16 matmul inputs" in default_path
        if rounded:
            auto, auto_greedy = engine_logits(d, ids_file, len(ids), vocab, "auto")

        ref32 = LlamaForCausalLM.from_pretrained(d, dtype=torch.float32).eval()
        ref_logits, ref_greedy = hf_logits_and_greedy(ref32, ids, GREEDY)
        d32 = float(np.max(np.abs(ours - ref_logits)))
        scale = float(np.max(np.abs(ref_logits)))
        same = sum(1 for a, b in zip(ours_greedy, ref_greedy) if a == b)
        first_diff = next((i for i, (a, b) in enumerate(zip(ours_greedy, ref_greedy)) if a != b), None)
        row = f"{name:24s} max|d| vs f32 {d32:.2e} (logit scale {scale:.1f}), greedy {same}/{GREEDY} identical"
        exact = BACKEND == "cpu" or dtype == "f32"
        if not exact:
            row += f" [{BACKEND}: {dtype} GEMM inputs]"
            if dtype == "f16" and d32 > 0.05 * (scale + 1):
                failures.append(f"{name}: max |dlogit| {d32:.3f} > {0.05 * (scale + 1):.3f} against transformers float32")
        elif d32 > TOL_F32:
            failures.append(f"{name}: max |dlogit| {d32:.3e} > {TOL_F32} against transformers float32")
        if exact and ours_greedy != ref_greedy:
            failures.append(f"{name}: greedy continuation differs from transformers at step {first_diff}")
        if dtype == "bf16":
            ref16 = LlamaForCausalLM.from_pretrained(d, dtype=torch.bfloat16).eval()
            with torch.no_grad():
                l16 = ref16(input_ids=torch.tensor([ids])).logits[0].float().numpy()
            hf_gap = float(np.max(np.abs(l16 - ref_logits)))
            ours_gap = float(np.max(np.abs(ours - l16)))
            bound = min(4 * hf_gap + 1e-3, 0.05 * (scale + 1))
            row += f"; vs transformers bf16 {ours_gap:.3f} (bf16 vs f32 in transformers {hf_gap:.3f}, bound {bound:.3f})"
            if ours_gap > bound:
                failures.append(f"{name}: max |dlogit| {ours_gap:.3f} against transformers bfloat16 exceeds {bound:.3f}")
            if rounded:
                auto_gap = float(np.max(np.abs(auto - l16)))
                row += f"; default kernels vs transformers bf16 {auto_gap:.3f}"
                if auto_gap > bound:
                    failures.append(f"{name}: default CPU kernels ({default_path}): max |dlogit| {auto_gap:.3f} "
                                    f"against transformers bfloat16 exceeds {bound:.3f}")
            del ref16
        elif rounded:
            auto_gap = float(np.max(np.abs(auto - ref_logits)))
            row += f"; default kernels vs f32 {auto_gap:.3f}"
            if auto_gap > 0.05 * (scale + 1):
                failures.append(f"{name}: default CPU kernels ({default_path}): max |dlogit| {auto_gap:.3f} "
                                f"against transformers float32 exceeds {0.05 * (scale + 1):.3f}")
        if rounded:
            row += f" (greedy {sum(1 for a, b in zip(auto_greedy, ref_greedy) if a == b)}/{GREEDY} identical)"
        del ref32
        rows.append(row)
        print(row, flush=True)
    for f in failures:
        print("FAIL:", f)
    n_fail = len(failures)
    failed = len({f.split(':')[0] for f in failures})
    print(f"{len(VARIANTS) - len(skipped) - failed} passed, {failed} failed"
          + (f", {len(skipped)} skipped ({', '.join(skipped)})" if skipped else ""))
    return 1 if n_fail else 0


if __name__ == "__main__":
    sys.exit(main())
