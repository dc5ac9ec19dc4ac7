"""carbon-cli bench --workload generate|score|speculative (what the GPU proof, tests/gpu/prove.sh, reads)
on tiny CPU models: each writes one JSON row per batch size with the fields the proof's report uses,
and its figures agree with the work done (bp/s = batch x bases / seconds; every scored window is one
model window); the speculative workload's designs equal the target alone's and it says so; options of
another workload, a speculative run without --draft and an unknown workload or mode are refused."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from carbon_testlib import Checks, bin_path, run, work_dir  # noqa: E402

CLI = bin_path("carbon-cli")
W = work_dir("cli_bench_workloads")


def bench(model, workload, *args):
    out = os.path.join(W, f"{workload}.json")
    if os.path.exists(out):
        os.remove(out)
    p = subprocess.run([CLI, "bench", "--model", model, "--backend", "cpu", "--threads", "1", "--workload", workload,
                        "--json", out, *args], capture_output=True, text=True)
    report = None
    if p.returncode == 0:
        with open(out, encoding="utf-8") as f:
            report = json.load(f)
    return p, report


def close(a, b, rel=0.02):
    return abs(a - b) <= rel * max(abs(a), abs(b))


def main():
    c = Checks()
    target, draft = os.path.join(W, "tiny"), os.path.join(W, "tiny-1layer")
    for d, extra in ((target, []), (draft, ["--layers", "1"])):
        if not os.path.exists(os.path.join(d, "config.json")):
            run([CLI, "make-test-model", "--out", d, "--seed", "1", *extra])

    p, r = bench(target, "generate", "--batches", "1,3", "--mode", "fns,direct", "--length", "30")
    if c.check(p.returncode == 0, f"generate: status {p.returncode}: {p.stderr.strip()}"):
        c.check(r["workload"] == "generate" and r["backend"].startswith("CPU, "), f"generate: header {r['workload']}, {r['backend']}")
        rows = [(x["mode"], x["batch"]) for x in r["runs"]]
        c.check(rows == [("fns", 1), ("fns", 3), ("direct", 1), ("direct", 3)], f"generate: rows {rows}")
        for x in r["runs"]:
            c.check(x["length_bp"] == 30 and close(x["bp_s"], x["batch"] * 30 / x["seconds"]),
                    f"generate: bp/s {x['bp_s']} is not batch x 30 bp / {x['seconds']} s")

    p, r = bench(target, "score", "--batches", "2", "--window-bp", "600")
    if c.check(p.returncode == 0, f"score: status {p.returncode}: {p.stderr.strip()}"):
        x = r["runs"][0]
        c.check(x["batch"] == 2 and x["window_bp"] == 600 and x["windows"] == 2, f"score: row {x}")
        c.check(close(x["bp_s"], 2 * 600 / x["seconds"]), f"score: bp/s {x['bp_s']} is not 1,200 bp / {x['seconds']} s")

    p, r = bench(target, "speculative", "--draft", draft, "--batches", "1,2", "--length", "36")
    if c.check(p.returncode == 0, f"speculative: status {p.returncode}: {p.stderr.strip()}"):
        c.check(r["draft"].endswith("tiny-1layer") and [x["batch"] for x in r["runs"]] == [1, 2], f"speculative: {r['draft']}")
        for x in r["runs"]:
            c.check(x["identical"] is True, f"speculative batch {x['batch']}: designs differ from the target alone's")
            c.check(0 <= x["acceptance"] <= 1 and x["tokens_per_target_pass"] >= 1, f"speculative: stats {x}")
            c.check(close(x["speedup"], x["plain_seconds"] / x["speculative_seconds"]), f"speculative: speed-up {x}")
            c.check(close(x["auto_disable_speedup"], x["plain_seconds"] / x["auto_disable_seconds"]),
                    f"speculative: switch-off speed-up {x}")

    for args, message in (
        (["score", "--length", "30"], "--length is not an option of --workload score"),
        (["generate", "--window-bp", "600"], "--window-bp is not an option of --workload generate"),
        (["forward", "--draft", draft], "--draft is not an option of --workload forward"),
        (["speculative"], "--workload speculative needs --draft DIR"),
        (["bogus"], "--workload must be forward, generate, score or speculative, not 'bogus'"),
        (["generate", "--mode", "fns,guided"], "--mode: 'guided' is not fns or direct"),
    ):
        p, _ = bench(target, *args)
        c.check(p.returncode == 1 and message in p.stderr, f"{args}: status {p.returncode}, {p.stderr.strip()}")
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
