#!/usr/bin/env python3
"""The transformers peer of `carbon-cli bench`: the same checkpoint, the same prompt ids (read
from the engine's --json report), the same threads; prefill then greedy decode with a KV cache,
at each batch size; peak RSS of this process. Greedy picks are restricted to the DNA 6-mers like
the engine's, but transformers computes the full-vocabulary head (that is how it runs)."""
import argparse
import json
import resource
import time

import torch
from transformers import LlamaForCausalLM


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--report", required=True, help="JSON written by carbon-cli bench --json")
    ap.add_argument("--threads", type=int, required=True)
    ap.add_argument("--dtype", default="bfloat16", choices=["bfloat16", "float32"])
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--device", default="cpu", help="cpu or cuda (tests/gpu/prove.sh)")
    a = ap.parse_args()
    with open(a.report) as f:
        rep = json.load(f)
    torch.set_num_threads(a.threads)
    t0 = time.perf_counter()
    model = LlamaForCausalLM.from_pretrained(rep["model"], dtype=getattr(torch, a.dtype)).eval().to(a.device)

    def sync():
        if a.device.startswith("cuda"):
            torch.cuda.synchronize()
    load_s = time.perf_counter() - t0
    prompts = rep["prompts"]
    decode_tokens = rep["decode_tokens"]
    results = []
    print(f"transformers {a.dtype} on {a.device}, {a.threads} threads (load {load_s:.2f} s)")
    print(f"{'batch':6s} {'prefill tok/s':>14s} {'prefill bp/s':>14s} {'decode tok/s':>14s} {'decode bp/s':>14s}")
    with open(f"{rep['model']}/tokenizer_config.json") as f:
        added = {v["content"]: int(k) for k, v in json.load(f)["added_tokens_decoder"].items()}
    first_kmer = added["<oov>"] + 1
    for run in rep["runs"]:
        b = run["batch"]
        ids = torch.tensor(prompts[:b]).to(a.device)
        best_p = best_d = float("inf")
        for _ in range(a.repeat):
            with torch.inference_mode():
                t0 = time.perf_counter()
                out = model(input_ids=ids, use_cache=True)
                sync()
                best_p = min(best_p, time.perf_counter() - t0)
                past = out.past_key_values
                t0 = time.perf_counter()
                logits = out.logits[:, -1, first_kmer:first_kmer + 4096]
                for _step in range(decode_tokens):
                    nxt = (torch.argmax(logits, dim=-1) + first_kmer).unsqueeze(1)
                    out = model(input_ids=nxt, past_key_values=past, use_cache=True)
                    past = out.past_key_values
                    logits = out.logits[:, -1, first_kmer:first_kmer + 4096]
                sync()
                best_d = min(best_d, time.perf_counter() - t0)
        ptok = b * len(prompts[0]) / best_p  # tokens include <dna>; bases count the 6-mers only
        pbp = b * (len(prompts[0]) - 1) * 6 / best_p
        dtok = b * decode_tokens / best_d
        print(f"{b:<6d} {ptok:14.1f} {pbp:14.1f} {dtok:14.2f} {dtok * 6:14.1f}", flush=True)
        results.append({"batch": b, "prefill_tok_s": ptok, "prefill_bp_s": pbp, "decode_tok_s": dtok,
                        "decode_bp_s": dtok * 6})
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(f"peak memory {peak / 2**30:.2f} GiB (weights {rep['weights_bytes'] / 2**30:.2f} GiB, "
          f"ratio {peak / rep['weights_bytes']:.2f})")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"dtype": a.dtype, "threads": a.threads, "runs": results, "peak_rss_bytes": peak}, f, indent=1)


if __name__ == "__main__":
    main()
