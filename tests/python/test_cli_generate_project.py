#!/usr/bin/env python3
"""carbon-cli generate --project stores each design whole: the run with its settings, the design
with its scores, and its per-base tracks, whose mean log p must equal the design_logp the FASTA
header reports (both come from the same model, one from generation, one from a scoring pass).
A context and flank longer than the model reads are fitted by the engine's one rule before the run
(the flank keeps a quarter of the context, the left context its nearest bases, the whole context
used): the run stores what the model read, and the tracks are read in that same place, so their
mean is still the design's log p."""
import os
import re
import sqlite3
import subprocess
import sys

from carbon_testlib import SKIP, bin_path, run, work_dir


def main():
    cli = bin_path("carbon-cli")
    d = work_dir("cli-generate-project")
    model = os.path.join(d, "tiny")
    if not os.path.exists(os.path.join(model, "config.json")):
        run([cli, "make-test-model", "--out", model, "--seed", "5"])
    project = os.path.join(d, "p.carbon")
    fasta = os.path.join(d, "designs.fasta")
    if os.path.exists(project):
        os.remove(project)
    p = subprocess.run([cli, "project", "list", project], capture_output=True, text=True)
    if "built without SQLite" in p.stderr:
        print("SKIP: this carbon-cli was built without SQLite project support")
        return SKIP
    run([cli, "generate", "--model", model, "--context", "ATGCGCTAGCTACGATCGATCGTAGCTAGCTAGCTAGCTAC",
         "--template", "NNNNNTATAAANNNNNNNNNNN", "--count", "4", "--seed", "3", "--right-flank", "ACGTTGCA",
         "--forbid", "GAATTC", "--out", fasta, "--project", project, "--quiet"])
    headers = [line for line in open(fasta) if line.startswith(">")]
    by_stream = {}
    for h in headers:
        fields = dict(kv.split("=", 1) for kv in h.split()[1:])
        by_stream[int(fields["stream"])] = float(fields["design_logp"])
    con = sqlite3.connect(project)
    rows = con.execute("select id, stream_index, design_logp from designs").fetchall()
    failures = []
    if len(rows) != 4:
        failures.append(f"expected 4 designs, found {len(rows)}")
    for design_id, stream, logp in rows:
        kinds = {k: (n, w) for k, n, w in con.execute(
            "select kind, length, width from tracks where design_id = ?", (design_id,))}
        if set(kinds) != {"logp", "dist_acgt", "entropy_bits"}:
            failures.append(f"design {design_id}: tracks {sorted(kinds)}")
            continue
        out = os.path.join(d, f"d{design_id}.bedgraph")
        run([cli, "project", "export", project, "--format", "bedgraph", "--design", str(design_id), "--out", out])
        vals = [float(line.split()[3]) for line in open(out) if re.match(r"^\S+\t\d+\t\d+\t", line)]
        mean = sum(vals) / len(vals)
        if len(vals) != 22 or abs(mean - by_stream[stream]) > 1e-4 or abs(logp - by_stream[stream]) > 1e-4:
            failures.append(f"design {design_id}: {len(vals)} values, mean {mean:.5f}, stored {logp:.5f}, "
                            f"header {by_stream[stream]:.5f}")
    failures += long_context(cli, d)
    for f in failures:
        print("FAIL:", f)
    print(f"{0 if failures else 1} passed, {1 if failures else 0} failed")
    return 1 if failures else 0


def long_context(cli, d):
    import random
    failures = []
    model = os.path.join(d, "tiny128")
    if not os.path.exists(os.path.join(model, "config.json")):
        run([cli, "make-test-model", "--out", model, "--seed", "5", "--max-position", "128"])
    rng = random.Random(11)
    left = "".join(rng.choice("ACGT") for _ in range(3000))
    right = "".join(rng.choice("ACGT") for _ in range(3000))
    project = os.path.join(d, "long.carbon")
    fasta = os.path.join(d, "long.fasta")
    if os.path.exists(project):
        os.remove(project)
    p = run([cli, "generate", "--model", model, "--context", left, "--right-flank", right, "--length", "22", "--count", "2",
             "--seed", "4", "--out", fasta, "--project", project, "--quiet"])
    con = sqlite3.connect(project)
    settings = dict(con.execute("select key, value from run_settings"))
    kept_left, kept_right = settings["left_context"], settings["right_flank"]
    flank_tokens = (5 + len(kept_right) + 5) // 6 + 1
    # <dna> (no tags), the context's 6-mers, the design's 4 tokens, the flank and </dna>: 128.
    used = 1 + len(kept_left) // 6 + (len(kept_left) % 6 + 22 + 5) // 6 + flank_tokens
    if not (left.endswith(kept_left) and right.startswith(kept_right) and flank_tokens == 128 // 4 and used == 128):
        failures.append(f"long context: stored {len(kept_left)} bp of context and {len(kept_right)} bp of flank "
                        f"({flank_tokens} flank tokens, {used} tokens in all)")
    stored_context = con.execute("select bases from sequences where name = 'context'").fetchall()
    if stored_context != [(kept_left,)]:
        failures.append("long context: the stored context sequence is not the context the model read")
    if "left context trimmed to its nearest" not in p.stderr or "right flank trimmed to its first" not in p.stderr:
        failures.append(f"long context: the trims were not reported: {p.stderr}")
    for design_id, logp in con.execute("select id, design_logp from designs"):
        out = os.path.join(d, f"long{design_id}.bedgraph")
        run([cli, "project", "export", project, "--format", "bedgraph", "--design", str(design_id), "--out", out])
        vals = [float(line.split()[3]) for line in open(out) if re.match(r"^\S+\t\d+\t\d+\t", line)]
        if len(vals) != 22 or abs(sum(vals) / len(vals) - logp) > 1e-4:
            failures.append(f"long context: design {design_id}: track mean {sum(vals) / len(vals):.5f}, design_logp {logp:.5f}")
    return failures


if __name__ == "__main__":
    sys.exit(main())
