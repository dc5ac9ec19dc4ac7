#!/usr/bin/env python3
"""Parity of `carbon-cli score` with Hugging Face transformers on tiny float32 checkpoints written
by `carbon-cli make-test-model` (tied, and untied with GQA and head_dim 24).

- Token-level score: the reference score() of the Carbon article, i.e. log_softmax over the full
  vocabulary gathered at the targets, mean over the targets from the first 6-mer through </dna>
  (metadata tags, when given, are context only): per-sequence mean within 1e-4.
- Base-level score and track: the 4,096 DNA logits softmaxed, marginalized per base position,
  log of the observed base (clamped at 1e-12 as score_sequence() does), mean over A/C/G/T bases:
  per-sequence mean and every per-base logp within 1e-4.
Sequences include one with N (its 6-mer is <oov>), one whose length is not a multiple of 6, a
lowercase one and a run with metadata tags. The token ids are built here from carbon-spec.md's
layout rule and the tags with the `tokenizers` library, independently of the engine."""
import csv
import json
import math
import os
import sys

from carbon_testlib import bin_path, require_modules, run, work_dir

# The CPU engine's fp32-activation kernels, which these 1e-4 bounds against transformers float32
# are for; where the CPU has bf16 dot products the default kernels round matmul inputs to bf16,
# and test_parity_transformers.py holds those to transformers bfloat16.
os.environ["CARBON_CPU_KERNELS"] = "fp32"

require_modules("torch", "transformers", "numpy", "tokenizers")
import numpy as np  # noqa: E402
import torch  # noqa: E402
from tokenizers import Tokenizer  # noqa: E402
from transformers import LlamaForCausalLM  # noqa: E402
from fns_reference import fns_reference  # noqa: E402

torch.set_num_threads(max(1, os.cpu_count() or 1))

MODELS = [
    ("tied-f32", ["--dtype", "f32", "--tie"]),
    ("untied-gqa-hd24-f32", ["--dtype", "f32", "--untie", "--hidden", "96", "--heads", "4", "--kv-heads", "2",
                             "--head-dim", "24", "--intermediate", "200", "--layers", "3"]),
]
TOL = 1e-4


def sequences():
    rng = np.random.default_rng(7)
    rand = lambda n: "".join("ACGT"[i] for i in rng.integers(0, 4, size=n))  # noqa: E731
    return [
        ("plain60", rand(60)),
        ("with_N", rand(20) + "NNN" + rand(10) + "N" + rand(13)),
        ("len61", rand(61)),
        ("lower", rand(12).lower() + rand(30)),
        ("long301", rand(301)),
    ]


def main():
    failures = []
    seqs = sequences()
    for k, (name, opts) in enumerate(MODELS):
        d = os.path.join(work_dir("scoring-parity"), name)
        run([bin_path("carbon-cli"), "make-test-model", "--out", d, "--seed", str(300 + k)] + opts)
        fasta = os.path.join(d, "in.fasta")
        with open(fasta, "w") as f:
            for sname, s in seqs:
                f.write(f">{sname}\n")
                for i in range(0, len(s), 50):
                    f.write(s[i:i + 50] + "\n")
        model = LlamaForCausalLM.from_pretrained(d, dtype=torch.float32).eval()
        bpe = Tokenizer.from_file(os.path.join(d, "tokenizer.json"))
        for tags in ["", "<plant>,<promoter>"]:
            tracks = os.path.join(d, "tracks.tsv")
            cmd = [bin_path("carbon-cli"), "score", "--model", d, "--in", fasta, "--json", "--tracks", tracks,
                   "--backend", "cpu", "--quiet"]
            if tags:
                cmd += ["--tags", tags]
            ours = {r["name"]: r for r in json.loads(run(cmd).stdout)}
            ours_track = {}
            with open(tracks) as f:
                for row in csv.DictReader(f, delimiter="\t"):
                    ours_track.setdefault(row["name"], []).append(float("nan") if row["logp"] == "NA" else float(row["logp"]))
            tag_text = "".join(t if t.startswith("<") else f"<{t}>" for t in tags.split(",") if t)
            tag_ids = bpe.encode(tag_text, add_special_tokens=False).ids if tag_text else []
            for sname, s in seqs:
                token_mean, base_mean, track = fns_reference(model, d, tag_ids, s)
                got = ours[sname]
                dt = abs(got["token_mean_logp"] - token_mean)
                db = abs(got["base_mean_logp"] - base_mean)
                mine = ours_track[sname]
                dtrack = 0.0
                if len(mine) != len(track):
                    failures.append(f"{name}/{sname}/tags={tags!r}: track has {len(mine)} rows for {len(track)} bases")
                else:
                    for a, b in zip(mine, track):
                        if math.isnan(a) != math.isnan(b):
                            dtrack = float("inf")
                        elif not math.isnan(a):
                            dtrack = max(dtrack, abs(a - b))
                print(f"{name:22s} {sname:8s} tags={tags or '-':20s} token {got['token_mean_logp']:.6f} vs {token_mean:.6f} "
                      f"(|d| {dt:.1e}); base {got['base_mean_logp']:.6f} vs {base_mean:.6f} (|d| {db:.1e}); "
                      f"track max|d| {dtrack:.1e}", flush=True)
                if not dt <= TOL:
                    failures.append(f"{name}/{sname}/tags={tags!r}: token-level mean differs by {dt:.3e}")
                if not db <= TOL:
                    failures.append(f"{name}/{sname}/tags={tags!r}: base-level mean differs by {db:.3e}")
                if not dtrack <= TOL:
                    failures.append(f"{name}/{sname}/tags={tags!r}: per-base logp differs by {dtrack:.3e}")
        del model
    for f in failures:
        print("FAIL:", f)
    print("passed" if not failures else f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
