#!/usr/bin/env python3
"""How a whole-VCF job divides over GPU workers: a model, not a measurement. The per-variant cost on
a GPU comes from the roofline of gpu_perf_model.py (the reference window of W bp through the
network, then the alternative from the variant on: about half a window more with prefix sharing,
a whole one without; twice that with --rc); the job time on N workers is

    T(N) = start + ceil(shards / N) * (variants per shard) * t_variant

with `start` the Ray, worker and model-load time (workers load in parallel) and shards of equal
size. A CPU figure measured by vep_bench.sh can be given instead (--seconds-per-variant).

    python3 tests/bench/vep_cluster_model.py [--variants 1000000] [--window 8192] [--shards 1500]
        [--start 60] [--gpu "H100 SXM"] [--seconds-per-variant S] [--rc] [--markdown]
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_perf_model as gm  # noqa: E402


def gpu_seconds_per_variant(shape, gpu, window_bp, shared, rc):
    tokens = math.ceil(window_bp / gm.BP_PER_TOKEN)
    t_ref = sum(k.time(gpu) for k in gm.score_window(shape, tokens))
    # The alternative: from the variant on (half the window, attending to the whole prefix: counted
    # as half a window's cost, a slight underestimate of attention), or the whole window.
    t_alt = t_ref * (0.5 if shared else 1.0)
    return (t_ref + t_alt) * (2 if rc else 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variants", type=int, default=1_000_000)
    ap.add_argument("--window", type=int, default=8192)
    ap.add_argument("--shards", type=int, default=1500, help="about 2 Mbp shards of a human genome")
    ap.add_argument("--start", type=float, default=60.0, help="seconds before the first shard runs")
    ap.add_argument("--gpu", default="H100 SXM", choices=list(gm.GPUS))
    ap.add_argument("--seconds-per-variant", type=float, help="a measured per-variant time instead of the roofline")
    ap.add_argument("--rc", action="store_true")
    ap.add_argument("--workers", default="1,2,4,8,16,32,64")
    a = ap.parse_args()
    workers = [int(x) for x in a.workers.split(",")]
    print(f"# {a.variants:,} variants, {a.window:,} bp windows{' with --rc' if a.rc else ''}, {a.shards:,} shards, "
          f"{a.start:.0f} s start; GPU roofline on {a.gpu} (bf16 at peak; predictions, not measurements)\n")
    print("| model | method | s/variant | " + " | ".join(f"{n} worker(s)" for n in workers) + " | efficiency at "
          f"{workers[-1]} |")
    print("|---|---|---:|" + "---:|" * (len(workers) + 1))
    rows = []
    if a.seconds_per_variant:
        rows.append(("measured", "as measured", a.seconds_per_variant))
    else:
        for name, shape in gm.PRESETS.items():
            for shared in (True, False):
                rows.append((name, "prefix shared" if shared else "plain (2 passes)",
                             gpu_seconds_per_variant(shape, gm.GPUS[a.gpu], a.window, shared, a.rc)))
    per_shard = a.variants / a.shards
    for name, method, t in rows:
        times = [a.start + math.ceil(a.shards / n) * per_shard * t for n in workers]
        eff = times[0] / (workers[-1] * times[-1])
        cells = [f"{x / 3600:.2f} h" if x >= 3600 else f"{x / 60:.1f} min" for x in times]
        print(f"| {name} | {method} | {t * 1e3:.2f} ms | " + " | ".join(cells) + f" | {eff * 100:.0f} % |")


if __name__ == "__main__":
    main()
