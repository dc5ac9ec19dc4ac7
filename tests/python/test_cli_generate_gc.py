#!/usr/bin/env python3
"""carbon-cli generate --gc: a window as fractions (0.4-0.6) or as percentages (40%-60%) gives the
same designs, each within the window (the header keeps the window as written); a window written as bare percentages (40-60), mixed
spellings, or a bound that is not a finite number are refused with a message that shows how to
write it, before any model is loaded."""
import os
import subprocess
import sys

from carbon_testlib import Checks, bin_path, run, work_dir


def main():
    c = Checks()
    cli = bin_path("carbon-cli")
    d = work_dir("cli-generate-gc")
    model = os.path.join(d, "tiny")
    if not os.path.exists(os.path.join(model, "config.json")):
        run([cli, "make-test-model", "--out", model, "--seed", "5"])

    def generate(window, out):
        return subprocess.run([cli, "generate", "--model", model, "--length", "30", "--count", "4", "--seed", "3",
                               "--gc", window, "--out", out, "--quiet"], capture_output=True, text=True)

    outs = {}
    for window in ("0.4-0.6", "40%-60%"):
        out = os.path.join(d, window.replace("%", "pct") + ".fa")
        r = generate(window, out)
        c.check(r.returncode == 0, f"--gc {window}: exit {r.returncode}: {r.stderr}")
        with open(out) as f:
            outs[window] = f.read()
        seqs = [line.strip() for line in outs[window].splitlines() if line and not line.startswith(">")]
        c.check(len(seqs) == 4, f"--gc {window}: {len(seqs)} designs")
        for s in seqs:
            gc = sum(c in "GC" for c in s) / len(s)
            c.check(0.4 - 1e-9 <= gc <= 0.6 + 1e-9, f"--gc {window}: design {s} has GC {gc:.3f}")
    # The headers keep the window as the user wrote it (gc=0.4-0.6 / gc=40%-60%); all else is the same.
    def without_window(text, window):
        return text.replace(" gc=" + window + " ", " gc=WINDOW ")
    c.check(without_window(outs["0.4-0.6"], "0.4-0.6") == without_window(outs["40%-60%"], "40%-60%"),
          "fractions and percentages gave different designs")

    missing = os.path.join(d, "no-model")  # refusals come before the model is read
    for window, expect in (("40-60", "for percentages write 40%-60%"),
                           ("40%-0.6", "both as percentages"),
                           ("nan-0.6", "'nan' is not a number"),
                           ("0.4", "MIN-MAX"),
                           ("0.7-0.3", "0 <= min <= max <= 1")):
        r = subprocess.run([cli, "generate", "--model", model if window == "0.7-0.3" else missing, "--length", "30",
                            "--gc", window, "--out", os.path.join(d, "x.fa")], capture_output=True, text=True)
        c.check(r.returncode == 1 and expect in r.stderr, f"--gc {window}: exit {r.returncode}, stderr {r.stderr!r}")

    return c.done()


if __name__ == "__main__":
    sys.exit(main())
