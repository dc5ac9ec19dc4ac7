#!/usr/bin/env python3
"""Issue 31, class 8: what the first hostile-input round left. One FASTA reader for every command
(score, variant, ism and motifs read plain, gzip and bgzip FASTA as `project import` does, to the
same bytes), wrong-typed fields of tokenizer.json / tokenizer_config.json named by their key,
a context or right flank that is not sequence refused with its position (N and the other IUPAC
codes still read, with a notice), make-test-model refusing absurd sizes at once within a small
memory limit, and a motif count of 1e308 refused as an overflow instead of reading probability 0."""
import gzip
import json
import os
import random
import shutil
import subprocess
import sys

from carbon_testlib import Checks, bin_path, run, run_limited, tiny_model, work_dir

CLI = bin_path("carbon-cli")
W = work_dir("hostile_leftovers")


def cli(*args, mem_mb=4096, timeout=120):
    return run_limited([CLI, *args], timeout=timeout, mem_mb=mem_mb)


def main():
    c = Checks()
    model = tiny_model(W)
    rng = random.Random(8)
    text = "".join(f">r{i} record {i}\n" + "".join(rng.choice("ACGTacgtN") for _ in range(130)) + "\n" for i in range(3))
    plain = os.path.join(W, "in.fa")
    with open(plain, "w") as f:
        f.write(text)
    with gzip.open(plain + ".gz", "wt") as f:
        f.write(text)
    have_bgzip = shutil.which("bgzip") is not None
    if have_bgzip:
        with open(os.path.join(W, "in.bgz.fa.gz"), "wb") as f:
            subprocess.run(["bgzip", "-c", plain], stdout=f, check=True)

    # One FASTA reader: gzip and bgzip give what the plain file gives, for every command.
    inputs = [plain + ".gz"] + ([os.path.join(W, "in.bgz.fa.gz")] if have_bgzip else [])
    if not have_bgzip:
        print("SKIP the bgzip half: bgzip (Debian: tabix) is not installed")
    motifs = os.path.join(W, "m.jaspar")
    with open(motifs, "w") as f:
        f.write(">M1 m\nA [ 9 0 0 ]\nC [ 0 9 0 ]\nG [ 0 0 9 ]\nT [ 1 1 1 ]\n")
    commands = {
        "score": lambda src, out: ["score", "--model", model, "--in", src, "--quiet"],
        "variant": lambda src, out: ["variant", "--model", model, "--in", src, "--record", "r1", "--pos", "60", "--alt", "G",
                                     "--window", "60"],
        "ism": lambda src, out: ["ism", "--model", model, "--in", src, "--record", "r2", "--region", "10-12", "--out", out,
                                 "--window", "60", "--quiet"],
        "motifs scan": lambda src, out: ["motifs", "scan", "--motifs", motifs, "--in", src, "--out", out],
    }
    for name, make in commands.items():
        want_out = os.path.join(W, name.replace(" ", "_") + "-plain.tsv")
        want = cli(*make(plain, want_out))
        c.check(want.returncode == 0, f"{name} on plain FASTA: {want.stderr[-300:]}")
        for src in inputs:
            got_out = os.path.join(W, name.replace(" ", "_") + "-gz.tsv")
            got = cli(*make(src, got_out))
            same = got.stdout == want.stdout and (not os.path.exists(want_out) or open(got_out).read() == open(want_out).read())
            c.check(got.returncode == 0 and same, f"{name} on {os.path.basename(src)}: exit {got.returncode} {got.stderr[-300:]}")

    # tokenizer files: a wrong-typed field is named by its key, never the JSON library's words.
    def tokenizer_case(label, file, edit, *needles):
        bad = os.path.join(W, "tok-bad")
        shutil.rmtree(bad, ignore_errors=True)
        shutil.copytree(model, bad)
        path = os.path.join(bad, file)
        with open(path) as f:
            t = json.load(f)
        edit(t)
        with open(path, "w") as f:
            json.dump(t, f)
        p = cli("info", "--model", bad)
        c.check(p.returncode == 1, f"{label}: exit {p.returncode}")
        c.check(all(n in p.stderr for n in needles) and "json.exception" not in p.stderr, f"{label}: {p.stderr[-300:]}")

    tokenizer_case("model.type a number", "tokenizer.json", lambda t: t["model"].__setitem__("type", 5),
                   "tokenizer.json model: 'type' must be a string, not a number")
    tokenizer_case("model.unk_token a number", "tokenizer.json", lambda t: t["model"].__setitem__("unk_token", 5),
                   "'unk_token' must be a string")
    tokenizer_case("pre_tokenizer a number", "tokenizer.json", lambda t: t.__setitem__("pre_tokenizer", 5),
                   "pre_tokenizer must be an object, not a number")
    tokenizer_case("normalizer an array", "tokenizer.json", lambda t: t.__setitem__("normalizer", [1]),
                   "normalizer must be an object, not an array")
    tokenizer_case("pretokenizers a number", "tokenizer.json", lambda t: t["pre_tokenizer"].__setitem__("pretokenizers", 3),
                   "'pretokenizers' must be an array")
    tokenizer_case("added_tokens_decoder an array", "tokenizer_config.json", lambda t: t.__setitem__("added_tokens_decoder", [1]),
                   "tokenizer_config.json: added_tokens_decoder must be an object, not an array")
    tokenizer_case("an added token's id a string", "tokenizer.json", lambda t: t["added_tokens"][0].__setitem__("id", "x"),
                   "added_tokens", "is not a non-negative integer")

    # A context or right flank that is not sequence: refused with its position.
    gen = ["generate", "--model", model, "--length", "12", "--out", os.path.join(W, "g.fa"), "--quiet"]
    for opt, value, needle in [("--right-flank", "!!!xyz", "the right flank holds '!' at position 1"),
                               ("--right-flank", "ACGT ACGT", "the right flank holds ' ' at position 5"),
                               ("--context", "ACGT7", "the context holds '7' at position 5"),
                               ("--context", "ACGTX", "the context holds 'X' at position 5")]:
        p = cli(*gen, opt, value)
        c.check(p.returncode == 1 and needle in p.stderr, f"{opt} {value!r}: exit {p.returncode} {p.stderr[-300:]}")
    p = cli(*gen[:-1], "--right-flank", "ACGTNNACGT")
    c.check(p.returncode == 0 and "right flank position 5-6: not A/C/G/T" in p.stderr, f"flank with N: {p.stderr[-300:]}")

    # make-test-model: absurd sizes refused at once, inside 1 GB of address space.
    for args, needle in [(["--preset", "carbon-8b", "--layers", "4000"], "on disk"),
                         (["--preset", "tiny", "--max-position", "2000000000"], "outside"),
                         (["--preset", "tiny", "--hidden", "64", "--heads", "3"], "multiple")]:
        p = cli("make-test-model", *args, "--out", os.path.join(W, "absurd"), mem_mb=1024, timeout=30)
        c.check(p.returncode == 1 and needle in p.stderr, f"make-test-model {' '.join(args)}: exit {p.returncode} {p.stderr[-300:]}")
    c.check(not os.path.exists(os.path.join(W, "absurd", "model.safetensors")), "make-test-model wrote an absurd checkpoint")

    # A count that would overflow a column's sum.
    with open(os.path.join(W, "big.jaspar"), "w") as f:
        f.write(">M1 big\nA [ 1e308 1 ]\nC [ 1e308 1 ]\nG [ 1 1 ]\nT [ 1 1 ]\n")
    p = cli("motifs", "scan", "--motifs", os.path.join(W, "big.jaspar"), "--in", plain, "--out", os.path.join(W, "o.tsv"))
    c.check(p.returncode == 1 and "big.jaspar:2: '1e308' is larger than any count" in p.stderr, f"1e308 count: {p.stderr[-300:]}")
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
