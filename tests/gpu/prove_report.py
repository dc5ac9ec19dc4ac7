#!/usr/bin/env python3
"""The GPU proof's report (tests/gpu/prove.sh writes it to OUT/report.md): the phase table with each
phase's wall time, then every benchmark figure beside the roofline the performance model
(tests/bench/gpu_perf_model.py) predicts for that shape on this GPU, and the issue's goals (issue 30,
on the Carbon-3B shape): batch-1 decode at >= 80 % of the HBM roofline, batched FNS generation at
>= 200 kbp/s, scoring 8 kb windows at >= 400 kbp/s, speculative decoding at >= 2.5x at about 87 %
acceptance and never below 0.95x. A dry run (no GPU) prints the figures but judges no goal. The last
line is RESULT: PASS or RESULT: FAIL; a bench that did not run on the CUDA backend is a failure."""
import argparse
import glob
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import gpu_perf_model as pm  # noqa: E402

# The H200's published figures (NVIDIA H200 data sheet: 4.8 TB/s HBM3e, the H100 SXM's compute).
GPUS = dict(pm.GPUS, **{"H200 SXM": dict(bw=4.8e12, bf16=989e12, fp32=67e12, fp64=34e12)})


def gpu_model(name):
    """The performance model's GPU for an nvidia-smi name (the H100 SXM stands in when unknown)."""
    for key, model in (("H200", "H200 SXM"), ("H100", "H100 SXM"), ("A100", "A100 80GB SXM"), ("L40S", "L40S"),
                       ("4090", "RTX 4090")):
        if key in name:
            return model, True
    return "H100 SXM", False


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def step_time(shape, batch, cached, gpu, fns=True):
    return sum(k.time(gpu) for k in pm.decode_step(shape, batch, cached, fns))


def hbm_time(shape, batch, cached, gpu):
    """Bytes a decode step must move over the memory bandwidth: the HBM roofline."""
    return sum(k.bytes * k.count for k in pm.decode_step(shape, batch, cached)) / gpu["bw"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--logs", required=True)
    ap.add_argument("--carry", required=True)
    ap.add_argument("--models", required=True)
    ap.add_argument("--small", required=True)
    ap.add_argument("--large", required=True)
    ap.add_argument("--dry-run", type=int, default=0)
    ap.add_argument("--elapsed", type=int, default=0)
    ap.add_argument("--status", type=int, default=0)
    a = ap.parse_args()
    dry = a.dry_run == 1
    failures = []
    out = []
    p = out.append

    gpu_line = ""
    if os.path.exists(os.path.join(a.logs, "gpu.txt")):
        with open(os.path.join(a.logs, "gpu.txt"), encoding="utf-8") as f:
            gpu_line = f.readline().strip()
    gname, known = gpu_model(gpu_line)
    gpu = GPUS[gname]
    p(f"# GPU proof{' (DRY RUN: no GPU, the CUDA backend on the host seam)' if dry else ''}\n")
    p(f"- GPU: {gpu_line or 'none'}; roofline from the published figures of the {gname}"
      f" ({gpu['bw'] / 1e12:.2f} TB/s, {gpu['bf16'] / 1e12:.0f} TFLOP/s bf16)"
      + ("" if known or dry else " (this GPU is not in the model: the H100's figures stand in)"))
    libs = os.path.join(a.logs, "cuda-libs.txt")
    if os.path.exists(libs):
        with open(libs, encoding="utf-8") as f:
            p("- CUDA libraries of the plugin: " + "; ".join(line.strip() for line in f if line.strip()))
    manifest = os.path.join(a.carry, "MANIFEST.txt")
    if os.path.exists(manifest):
        with open(manifest, encoding="utf-8") as f:
            for line in f.read().split("\n\n")[0].splitlines()[1:]:
                p(f"- carry {line}")
    p(f"- whole run: {a.elapsed} s\n")

    p("## Phases\n")
    p("| phase | result | seconds | limit s | note |")
    p("|---|---|---:|---:|---|")
    phases = {}
    with open(os.path.join(a.logs, "phases.tsv"), encoding="utf-8") as f:
        for line in f:
            cols = line.rstrip("\n").split("\t") + [""] * 5
            phases[cols[0]] = cols[1]
            p(f"| {cols[0]} | {cols[1]} | {cols[2]} | {cols[3]} | {cols[4].strip()} |")
    if dry:
        p("\nSkipped in a dry run, because they need a GPU: the gpu-labelled programs print SKIP (no device); "
          "every figure below is the host execution layer's, which says nothing about a GPU's speed. "
          "What the dry run proves: the carry is complete and its programs start, every phase's command "
          "runs end to end through the CUDA backend's code (on the host seam), and this report is written.")

    shapes = {}
    for name in (a.small, a.large):
        if os.path.exists(os.path.join(a.models, name, "config.json")):
            shapes[name] = pm.shape_from_config(os.path.join(a.models, name))

    def bench(workload, model):
        j = load(os.path.join(a.logs, f"bench-{workload}-{model}.json"))
        if j is not None and not str(j.get("backend", "")).startswith("CUDA, "):
            failures.append(f"bench {workload} {model} ran on '{j.get('backend')}', not the CUDA backend")
        return j

    goals = []  # (goal, measured, verdict)

    p("\n## Prefill and decode (carbon-cli bench --workload forward)\n")
    p("| model | batch | prefill tok/s | decode tok/s | decode µs/step | roofline µs/step | HBM-only µs/step | of HBM roofline |")
    p("|---|---:|---:|---:|---:|---:|---:|---:|")
    for model in (a.small, a.large):
        j = bench("forward", model)
        if not j or model not in shapes:
            p(f"| {model} | - | not run | | | | | |")
            continue
        cached = j["prompt_tokens"] + 1 + j["decode_tokens"] // 2
        for r in j["runs"]:
            b = r["batch"]
            t = b / r["decode_tok_s"]
            roof = step_time(shapes[model], b, cached, gpu)
            hbm = hbm_time(shapes[model], b, cached, gpu)
            p(f"| {model} | {b} | {r['prefill_tok_s']:,.0f} | {r['decode_tok_s']:,.1f} | {t * 1e6:,.0f} | {roof * 1e6:,.0f} "
              f"| {hbm * 1e6:,.0f} | {hbm / t * 100:.1f} % |")
            if model == a.large and b == 1:
                goals.append(("batch-1 decode at >= 80 % of the HBM roofline", f"{hbm / t * 100:.1f} %", hbm / t >= 0.8))

    p("\n## Generation, FNS and direct (carbon-cli bench --workload generate)\n")
    p("| model | mode | batch | bp/s | roofline bp/s | of roofline |")
    p("|---|---|---:|---:|---:|---:|")
    fns_over_direct = []
    for model in (a.small, a.large):
        j = bench("generate", model)
        if not j or model not in shapes:
            p(f"| {model} | - | - | not run | | |")
            continue
        by = {}
        for r in j["runs"]:
            cached = 7 + r["length_bp"] // 12  # the 42 bp context, then half the design on average
            roof = r["batch"] * pm.BP_PER_TOKEN / step_time(shapes[model], r["batch"], cached, gpu, r["mode"] == "fns")
            by[(r["mode"], r["batch"])] = r["bp_s"]
            p(f"| {model} | {r['mode']} | {r['batch']} | {r['bp_s']:,.0f} | {roof:,.0f} | {r['bp_s'] / roof * 100:.1f} % |")
        fns = [v for (m, _), v in by.items() if m == "fns"]
        if model == a.large and fns:
            goals.append(("batched FNS generation at >= 200 kbp/s", f"{max(fns) / 1e3:,.1f} kbp/s", max(fns) >= 200e3))
        ratios = [by[("direct", b)] / by[("fns", b)] for (m, b) in by if m == "fns" and ("direct", b) in by]
        if ratios:
            fns_over_direct.append(f"{model}: FNS takes {min(ratios):.3f}-{max(ratios):.3f}x the time of direct over the "
                                   "batch sizes.")
    for line in fns_over_direct:
        p(f"\n{line}")

    p("\n## Scoring windows, base level (carbon-cli bench --workload score)\n")
    p("| model | window bp | batch | windows | bp/s | roofline bp/s (100 % of every rate) | of roofline |")
    p("|---|---:|---:|---:|---:|---:|---:|")
    for model in (a.small, a.large):
        j = bench("score", model)
        if not j or model not in shapes:
            p(f"| {model} | - | - | - | not run | | |")
            continue
        for r in j["runs"]:
            tokens = (r["window_bp"] + 5) // 6
            roof = r["window_bp"] / sum(k.time(gpu) for k in pm.score_window(shapes[model], tokens))
            p(f"| {model} | {r['window_bp']:,} | {r['batch']} | {r['windows']} | {r['bp_s']:,.0f} | {roof:,.0f} "
              f"| {r['bp_s'] / roof * 100:.1f} % |")
        if model == a.large and j["runs"] and j["runs"][0]["window_bp"] == 8192:
            best = max(r["bp_s"] for r in j["runs"])
            goals.append(("scoring 8 kb windows at >= 400 kbp/s", f"{best / 1e3:,.1f} kbp/s", best >= 400e3))

    p(f"\n## Speculative decoding, {a.large} with the {a.small} draft (greedy FNS, identity verification)\n")
    j = bench("speculative", a.large)
    if j:
        p("| batch | target alone bp/s | with draft bp/s | speed-up | acceptance | tokens per pass | switch-off on | "
          "designs identical |")
        p("|---:|---:|---:|---:|---:|---:|---:|---|")
        for r in j["runs"]:
            p(f"| {r['batch']} | {r['plain_bp_s']:,.0f} | {r['speculative_bp_s']:,.0f} | {r['speedup']:.2f}x "
              f"| {r['acceptance'] * 100:.1f} % | {r['tokens_per_target_pass']:.2f} | {r['auto_disable_speedup']:.2f}x"
              f"{' (switched off)' if r['auto_disable_switched_off'] else ''} | {'yes' if r['identical'] else 'NO'} |")
            if not r["identical"]:
                failures.append(f"speculative designs differ from the target alone's at batch {r['batch']}")
        floor = min(r["auto_disable_speedup"] for r in j["runs"])
        goals.append(("speculative never below 0.95x (switch-off on)", f"{floor:.2f}x", floor >= 0.95))
    else:
        p("not run")
    oracle = os.path.join(a.logs, "oracle.log")
    rows = []
    if os.path.exists(oracle):
        with open(oracle, encoding="utf-8") as f:
            for line in f:
                m = re.match(r"\|\s*([\d.]+)\s*\|\s*([\d.]+)%\s*\|\s*([\d.]+)\s*\|\s*([\d.]+)x\s*\|\s*([\d.]+)x\s*\|\s*(\w+)", line)
                if m:
                    rows.append([float(m.group(i)) for i in range(1, 6)] + [m.group(6)])
    if rows:
        p("\nAgreement set apart from cost (bench_spec_oracle: the draft runs every pass, its proposal is the target's "
          "own token with probability alpha; random weights give no agreeing 500M draft):\n")
        p("| alpha | acceptance | tokens per pass | speed-up in run | wall clock vs alone | designs identical |")
        p("|---:|---:|---:|---:|---:|---|")
        for r in rows:
            p(f"| {r[0]:.2f} | {r[1]:.1f} % | {r[2]:.2f} | {r[3]:.2f}x | {r[4]:.2f}x | {r[5]} |")
        near = min(rows, key=lambda r: abs(r[1] - 87))
        goals.append(("speculative at >= 2.5x at about 87 % acceptance",
                      f"{near[4]:.2f}x at {near[1]:.1f} % (alpha {near[0]:.2f})", near[4] >= 2.5))

    models_tsv = os.path.join(a.logs, "models.tsv")
    if os.path.exists(models_tsv):
        with open(models_tsv, encoding="utf-8") as f:
            made = [line.rstrip("\n").split("\t") for line in f if line.strip()]
        p("\n## Checkpoints written here (make-test-model, random weights)\n")
        for name, secs, size in made:
            p(f"- {name}: {secs} s ({size})")

    p("\n## The issue's goals (Carbon-3B shape)\n")
    if dry:
        p("Not judged: a dry run has no GPU; the figures above are the host layer's.")
    elif not goals:
        p("No goal could be judged: the benchmarks did not run.")
    for g, measured, ok in goals if not dry else []:
        p(f"- {g}: {measured}: **{'met' if ok else 'NOT MET'}**")
    p("")
    for f in failures:
        p(f"FAILURE: {f}")
    ok = a.status == 0 and not failures
    p(f"RESULT: {'PASS' if ok else 'FAIL'}{' (dry run)' if dry else ''}")
    print("\n".join(out))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
