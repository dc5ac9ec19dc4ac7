#!/usr/bin/env python3
"""Hostile and unlucky model inputs (issue 15, engine classes 2, 3, 4 and 10), each run under a
memory limit (ulimit -v 8 GB) and a timeout: named pipes in place of model files (refused, never
waited on), more threads than the machine has, config values that the weights contradict or whose
numbers overflow, NaN weights, designs past the model's context, requests whose memory plan does
not fit, a test checkpoint that would not fit on the disk, and --help on every command. Every
case asserts the exit status and the message (what and where)."""
import json
import os
import resource
import shutil
import struct
import subprocess

from carbon_testlib import bin_path, run, work_dir

LIMIT = 8_000_000 * 1024  # ulimit -v 8000000 (kB), as the report
FAILURES = []


def limited():
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def cli(*args, timeout=120):
    """(exit status, stdout, stderr); a case that outlives its timeout is a failure (a hang)."""
    try:
        p = subprocess.run([bin_path("carbon-cli"), *map(str, args)], capture_output=True, text=True,
                           timeout=timeout, preexec_fn=limited)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return "timeout", "", f"no answer within {timeout} s"


def expect(name, result, status, *needles):
    rc, out, err = result
    missing = [n for n in needles if n not in err]
    if rc != status or missing:
        FAILURES.append(f"{name}: exit {rc} (want {status}), missing {missing} in: {err.strip()[-400:]}")
    else:
        print(f"ok   {name}")


def copy_model(src, dst):
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst)
    return dst


def edit_config(model, **values):
    path = os.path.join(model, "config.json")
    with open(path) as f:
        cfg = json.load(f)
    cfg.update(values)
    with open(path, "w") as f:
        json.dump(cfg, f)
    return path


def poison_tensor(model, name):
    """Writes NaN (bf16 0x7FC0) over every element of tensor `name` in model.safetensors."""
    path = os.path.join(model, "model.safetensors")
    with open(path, "r+b") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        begin, end = header[name]["data_offsets"]
        f.seek(8 + n + begin)
        f.write(b"\xc0\x7f" * ((end - begin) // 2))


def main():
    d = work_dir("cli-hostile-model")
    model = os.path.join(d, "tiny")
    if not os.path.exists(os.path.join(model, "config.json")):
        run([bin_path("carbon-cli"), "make-test-model", "--out", model, "--seed", "4"])
    fasta = os.path.join(d, "in.fa")
    with open(fasta, "w") as f:
        f.write(">s1\nACGTACGGTACCATGCATGCAAATTTGGGCCCATGCATCGATCGAT\n")
    with open(os.path.join(model, "config.json")) as f:
        context = json.load(f)["max_position_embeddings"]

    # Class 2: a named pipe in place of a model file is refused at once.
    for name in ("config.json", "model.safetensors", "tokenizer.json"):
        m = copy_model(model, os.path.join(d, "fifo"))
        os.remove(os.path.join(m, name))
        os.mkfifo(os.path.join(m, name))
        expect(f"FIFO as {name}", cli("info", "--model", m, timeout=30), 1, os.path.join(m, name), "is a named pipe")
    # More threads than the machine has: runs with what it has, and says so (no hang).
    rc, out, err = cli("generate", "--model", model, "--length", "12", "--count", "2", "--threads", "1000",
                       "--quiet", "--out", "-", timeout=120)
    expect("--threads 1000 under ulimit -v", (rc, out, err), 0, "1000 threads requested", "hardware thread")

    # Class 3: a config value alone must not size an allocation.
    m = copy_model(model, os.path.join(d, "layers"))
    cfg = edit_config(m, num_hidden_layers=2147483647)
    expect("num_hidden_layers 2147483647", cli("score", "--model", m, "--in", fasta), 1, cfg,
           "num_hidden_layers=2147483647", "hold 2 layer(s)")
    # A request whose caches cannot fit is refused with both numbers before any work.
    expect("10 kbp x 100,000 designs", cli("generate", "--model", model, "--length", "10000", "--count", "100000",
                                            "--out", os.path.join(d, "x.fa")), 1, "need about", "is available")
    # A test checkpoint that cannot fit on the disk is refused before anything is written.
    huge = os.path.join(d, "huge")
    shutil.rmtree(huge, ignore_errors=True)
    expect("make-test-model --hidden 1048576", cli("make-test-model", "--out", huge, "--hidden", "1048576"), 1,
           "this checkpoint needs", "free")
    if os.path.exists(huge):
        FAILURES.append("make-test-model left the folder it refused to fill")

    # Class 4: numbers that become NaN are refused where they arise, never scored as NA.
    m = copy_model(model, os.path.join(d, "theta"))
    cfg = edit_config(m, rope_theta=1e-300)
    expect("rope_theta 1e-300 (score)", cli("score", "--model", m, "--in", fasta), 1, cfg, "non-finite rotary")
    expect("rope_theta 1e-300 (generate)", cli("generate", "--model", m, "--length", "12", "--out", "-"), 1,
           "non-finite rotary")
    m = copy_model(model, os.path.join(d, "overflow"))
    with open(os.path.join(m, "config.json")) as f:
        text = f.read().replace('"rms_norm_eps": ', '"rms_norm_eps": 1e400, "x": ')
    with open(os.path.join(m, "config.json"), "w") as f:
        f.write(text)
    expect("a number that overflows (1e400)", cli("info", "--model", m), 1, os.path.join(m, "config.json"),
           "malformed JSON")
    m = copy_model(model, os.path.join(d, "nan"))
    poison_tensor(m, "model.norm.weight")
    expect("NaN weights (score)", cli("score", "--model", m, "--in", fasta), 1, "non-finite logit (NaN)", m)
    expect("NaN weights (generate)", cli("generate", "--model", m, "--length", "12", "--out", os.path.join(d, "n.fa")),
           1, "non-finite logit (NaN)")
    if os.path.exists(os.path.join(d, "n.fa")):
        FAILURES.append("a failed generate left its output file")
    # Past the model's context: a design that cannot fit is refused; a context that cannot fit is
    # trimmed at its far end, and the run says so.
    expect("a design longer than the context",
           cli("generate", "--model", model, "--length", str(6 * context + 600), "--out", os.path.join(d, "l.fa")),
           1, f"reads at most {context} tokens", "design at most")
    rc, out, err = cli("generate", "--model", model, "--context", "ACGT" * (2 * context), "--length", "30",
                       "--quiet", "--out", "-", timeout=300)
    expect("a context longer than the model's", (rc, out, err), 0, "left context trimmed to its nearest")

    # Class 10: every command answers --help.
    for command in ("make-test-model", "info", "models", "generate", "score", "variant", "ism", "bench", "project"):
        rc, out, err = cli(command, "--help", timeout=30)
        if rc != 0 or not out.startswith(f"usage: carbon-cli {command}"):
            FAILURES.append(f"{command} --help: exit {rc}, {out[:60]!r} {err[:120]!r}")
        else:
            print(f"ok   {command} --help")

    for f in FAILURES:
        print("FAIL:", f)
    print(f"{'1 passed, 0 failed' if not FAILURES else '0 passed, 1 failed'}")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    raise SystemExit(main())
