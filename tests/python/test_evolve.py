#!/usr/bin/env python3
"""Issue 32, directed evolution (`carbon-cli evolve`) against a plain Python reference: the same
greedy rule (every single-base edit the template, the constraints and the edit budget allow, in
position then A, C, G, T order; the first best kept when it raises the objective) with
transformers computing the predictions as Carbon's recipe evaluates them (regression_reference),
round for round on a tiny float32 regression checkpoint: the same edit each round (the
reference's best beating its runner-up by more than the two implementations' numerical
difference, so the comparison is decisive), objectives within 1e-4 * max(1, |objective|), the
same number of rounds; every round's design keeps the constraints (checked here independently:
the template, runs of one base over context + design + flank, a forbidden site on either strand
across the junctions, the GC window) and the budget. Bad input: an unknown objective output, a
start that breaks a constraint, a language model without a predictor; nothing written."""
import os
import random
import sqlite3
import subprocess
import sys

from carbon_testlib import bin_path, check, FAILURES, require_modules, run, work_dir

require_modules("torch", "transformers", "numpy", "safetensors")
import numpy as np  # noqa: E402
import torch  # noqa: E402
from regression_reference import TARGETS, make_predictor, reference  # noqa: E402
from fns_reference import fns_reference  # noqa: E402
from transformers import LlamaForCausalLM  # noqa: E402

torch.set_num_threads(max(1, os.cpu_count() or 1))
CLI = bin_path("carbon-cli")
CONTEXT, FLANK = "ACGTGGAA", "TTCAGTCA"
MOTIF, MAX_RUN, GC = "GAATTC", 3, (0.3, 0.7)


def revcomp(s):
    return s.translate(str.maketrans("ACGT", "TGCA"))[::-1]


def constraints_ok(design, template):
    if any(t != "N" and t != b for t, b in zip(template, design)):
        return False
    whole = CONTEXT + design + FLANK
    d0, d1 = len(CONTEXT), len(CONTEXT) + len(design)
    i = 0
    while i < len(whole):
        j = i
        while j < len(whole) and whole[j] == whole[i]:
            j += 1
        if j - i > MAX_RUN and j > d0 and i < d1:
            return False
        i = j
    for m in (MOTIF, revcomp(MOTIF)):
        for s in range(len(whole) - len(m) + 1):
            if s + len(m) > d0 and s < d1 and whole[s:s + len(m)] == m:
                return False
    gc = sum(b in "GC" for b in design) / len(design)
    return GC[0] - 1e-12 <= gc <= GC[1] + 1e-12


def mingap(v):
    return v[0] - max(v[1], v[2])


def plausibility(lm, w, seqs):
    """w x S of each sequence by transformers (the FNS base-level mean, no tags); 0 without the term."""
    if lm is None:
        return [0.0] * len(seqs)
    model, folder = lm
    return [w * fns_reference(model, folder, [], s)[1] for s in seqs]


def reference_evolution(best, start, template, budget, lm=None, w=0.0):
    rounds = [(None, mingap(reference(best, [start], "f32")[0]) + plausibility(lm, w, [start])[0], start, None)]
    cur = start
    while True:
        used = sum(a != b for a, b in zip(cur, start))
        cands, edits = [], []
        for i in range(len(cur)):
            if template[i] != "N":
                continue
            for b in "ACGT":
                if b == cur[i]:
                    continue
                after = used + (cur[i] == start[i]) - (b == start[i])
                c = cur[:i] + b + cur[i + 1:]
                if after > budget or not constraints_ok(c, template):
                    continue
                cands.append(c)
                edits.append(f"{i + 1}{cur[i]}>{b}")
        if not cands:
            return rounds
        objs = [mingap(v) + p for v, p in zip(reference(best, cands, "f32"), plausibility(lm, w, cands))]
        k = int(np.argmax(objs))
        runner_up = max([o for j, o in enumerate(objs) if j != k], default=-np.inf)
        if not objs[k] > rounds[-1][1]:
            return rounds
        rounds.append((edits[k], objs[k], cands[k], objs[k] - runner_up))
        cur = cands[k]


def ours(d, best, start, template, budget, name, extra=()):
    out = os.path.join(d, name)
    run([CLI, "evolve", "--model", best, "--start", start, "--template", template, "--objective", "mingap:K562", "--budget", str(budget),
         "--context", CONTEXT, "--right-flank", FLANK, "--max-homopolymer", str(MAX_RUN), "--forbid", MOTIF, "--gc", f"{GC[0]}-{GC[1]}",
         "--out", out, "--backend", "cpu", "--batch", "32", "--quiet", *extra])
    text = open(out).read()
    rows = [l.split("\t") for l in text.rstrip("\n").split("\n") if not l.startswith("#")]
    check(rows[0] == ["round", "edit", "objective"] + TARGETS + ["candidates", "refused", "tokens", "predicted", "plausibility", "sequence"],
          f"header {rows[0]}")
    check("##stopped=" in text and "##objective=mingap:K562 (K562 - max(HepG2, SKNSH))" in text, f"header lines: {text[:500]}")
    return rows[1:]


def check_stored(project, rows, start):
    """The run stored by --project: the start and each round's design, with objective, outputs and edits."""
    db = sqlite3.connect(project)
    run_id, kind, status = db.execute("SELECT id, kind, status FROM runs").fetchone()
    settings = dict(db.execute("SELECT key, value FROM run_settings WHERE run_id = ?", (run_id,)).fetchall())
    check(kind == "evolve" and status == "finished" and settings.get("objective") == "mingap:K562"
          and settings.get("rounds") == str(len(rows) - 1) and settings.get("stopped"), f"stored run {kind} {status} {settings}")
    designs = db.execute("SELECT id, name, bases, rank, objective FROM designs WHERE run_id = ? ORDER BY rank", (run_id,)).fetchall()
    check(len(designs) == len(rows), f"{len(designs)} designs stored for {len(rows)} rows")
    seq = db.execute("SELECT bases FROM sequences").fetchall()
    check(seq == [(start,)], f"the start is not the stored sequence: {seq}")
    for (did, name, bases, rank, objective), row in zip(designs, rows):
        check(bases == row[-1] and rank == int(row[0]) and abs(objective - float(row[2])) <= 1e-8 * max(1.0, abs(objective)),
              f"design {name}: {bases} {rank} {objective} vs {row}")
        check(name == ("start" if rank == 0 else f"round {rank}: {row[1]}"), f"design name {name} for {row[1]}")
        preds = dict(db.execute("SELECT output, value FROM design_predictions WHERE design_id = ?", (did,)).fetchall())
        check(set(preds) == set(TARGETS) and all(abs(preds[t] - float(row[3 + j])) <= 1e-8 * max(1.0, abs(preds[t]))
                                                 for j, t in enumerate(TARGETS)), f"design {name}: predictions {preds}")
        marked = sorted(p for p, in db.execute("SELECT start FROM regions WHERE design_id = ? AND kind = 'annotation'", (did,)))
        check(marked == [i for i in range(len(start)) if bases[i] != start[i]], f"design {name}: edits marked at {marked}")
    db.close()


def main():
    d = work_dir("evolve")
    lm = os.path.join(d, "lm-f32")
    if not os.path.exists(os.path.join(lm, "config.json")):
        run([CLI, "make-test-model", "--out", lm, "--dtype", "f32", "--seed", "5"])
    best = make_predictor(d, "evo", lm, "f32")
    rng = random.Random(7)
    runs = 0
    for trial in range(40):
        if runs == 3:
            break
        L = 36
        start = "".join(rng.choice("ACGT") for _ in range(L))
        template = "".join(start[i] if i in (5, 20) else "N" for i in range(L))
        if not constraints_ok(start, template):
            continue
        budget = (2, 3, 4)[runs]
        ref = reference_evolution(best, start, template, budget)
        rows = ours(d, best, start, template, budget, f"trajectory-{runs}.tsv")
        runs += 1
        print(f"  run {runs}: budget {budget}, {len(ref) - 1} round(s); reference margins "
              f"{[round(float(r[3]), 6) for r in ref[1:]]}; objective {ref[0][1]:.5f} -> {ref[-1][1]:.5f}")
        project = None
        if runs == 1:  # the first run is also stored in a project
            project = os.path.join(d, "evolve.carbon")
            for ext in ("", "-wal", "-shm"):
                if os.path.exists(project + ext):
                    os.remove(project + ext)
            rows = ours(d, best, start, template, budget, f"trajectory-{runs}-stored.tsv", ["--project", project])
            check_stored(project, rows, start)
        check(len(rows) == len(ref), f"run {runs}: {len(rows) - 1} rounds, the reference {len(ref) - 1}")
        # Each round's candidates are forked from the current design at their edit: fewer tokens
        # forwarded than the candidates whole (two strands of 8 tokens each here).
        for row in rows[1:]:
            cands, tokens = int(row[-6]), int(row[-4])
            check(0 < tokens < cands * 2 * 8, f"run {runs} round {row[0]}: {tokens} tokens forwarded for {cands} candidates")
        for k, (row, r) in enumerate(zip(rows, ref)):
            obj = float(row[2])
            check(abs(obj - r[1]) <= 1e-4 * max(1.0, abs(r[1])), f"run {runs} round {k}: objective {obj} vs the reference's {r[1]}")
            if k > 0:
                decisive = r[3] > 1e-3
                check(not decisive or row[1] == r[0], f"run {runs} round {k}: edit {row[1]}, the reference's {r[0]} (margin {r[3]:.2e})")
                check(obj > float(rows[k - 1][2]), f"run {runs} round {k}: the objective fell")
            design = row[-1]
            check(constraints_ok(design, template), f"run {runs} round {k}: {design} breaks a constraint")
            check(sum(a != b for a, b in zip(design, start)) <= budget, f"run {runs} round {k}: over the budget")
    check(runs == 3, f"only {runs} starts kept the constraints")

    # The plausibility term: the objective plus W x S, S the language model's base-level mean log p
    # (no tags), against the same reference with transformers' FNS marginals (fns_reference).
    lm_model = LlamaForCausalLM.from_pretrained(lm, dtype=torch.float32).eval()
    for w in (0.5, 4.0):
        for trial in range(40):
            L = 36
            start = "".join(rng.choice("ACGT") for _ in range(L))
            template = "N" * L
            if constraints_ok(start, template):
                break
        ref = reference_evolution(best, start, template, 2, (lm_model, lm), w)
        rows = ours(d, best, start, template, 2, f"trajectory-plausible-{w}.tsv", ["--plausibility", str(w), "--plausibility-model", lm])
        print(f"  plausibility {w}: {len(ref) - 1} round(s); margins {[round(float(r[3]), 6) for r in ref[1:]]}")
        check(len(rows) == len(ref), f"plausibility {w}: {len(rows) - 1} rounds, the reference {len(ref) - 1}")
        for k, (row, r) in enumerate(zip(rows, ref)):
            obj = float(row[2])
            check(abs(obj - r[1]) <= 1e-4 * max(1.0, abs(r[1])), f"plausibility {w} round {k}: objective {obj} vs {r[1]}")
            s_ref = plausibility((lm_model, lm), 1.0, [r[2]])[0]
            check(abs(float(row[-2]) - s_ref) <= 1e-4, f"plausibility {w} round {k}: S {row[-2]} vs transformers {s_ref}")
            check(abs(float(row[-3]) + w * float(row[-2]) - obj) <= 1e-6 * max(1.0, abs(obj)), f"round {k}: predicted + w S != objective")
            if k > 0:
                check(r[3] <= 1e-3 or row[1] == r[0], f"plausibility {w} round {k}: edit {row[1]}, the reference's {r[0]} (margin {r[3]:.2e})")
    # Proposals drawn from the language model's per-base distributions: N candidates a round.
    out = os.path.join(d, "proposals.tsv")
    run([CLI, "evolve", "--model", best, "--start", start, "--objective", "mingap:K562", "--budget", "3", "--proposals", "10", "--seed", "5",
         "--plausibility-model", lm, "--out", out, "--backend", "cpu", "--quiet"])
    text = open(out).read()
    rows = [l.split("\t") for l in text.rstrip("\n").split("\n") if not l.startswith("#")][1:]
    check("##proposals=10 per round" in text and len(rows) >= 2 and all(int(r[-6]) == 10 for r in rows[1:]),
          f"proposals: {text[:800]}")
    check(all(float(rows[k][2]) > float(rows[k - 1][2]) for k in range(1, len(rows))), "proposals: the objective fell")
    p = subprocess.run([CLI, "evolve", "--model", best, "--start", start, "--objective", "K562", "--budget", "2", "--plausibility", "1",
                        "--out", os.path.join(d, "pl.tsv"), "--backend", "cpu", "--quiet"], capture_output=True, text=True)
    check(p.returncode == 1 and "--plausibility-model" in p.stderr and not os.path.exists(os.path.join(d, "pl.tsv")),
          f"plausibility without a language model: {p.stderr[-300:]}")
    p = subprocess.run([CLI, "evolve", "--model", best, "--start", start, "--objective", "K562", "--budget", "2", "--plausibility", "1",
                        "--plausibility-model", best, "--out", os.path.join(d, "pl.tsv"), "--backend", "cpu", "--quiet"],
                       capture_output=True, text=True)
    check(p.returncode == 1 and "sequence-regression checkpoint" in p.stderr and not os.path.exists(os.path.join(d, "pl.tsv")),
          f"a regression checkpoint as the plausibility model: {p.stderr[-300:]}")

    # Bad input: refused by name, nothing written.
    start = "ACGTACGTTGCAACGTACGTTGCAACGTACGTTGCA"
    for name, args, expect in (
        ("unknown output", ["--objective", "Jurkat"], "not an output of the predictor"),
        ("start breaks", ["--objective", "K562", "--max-homopolymer", "1"], "breaks the design's constraints at position"),
        ("no budget", ["--objective", "K562"], None),
    ):
        out = os.path.join(d, "bad.tsv")
        cmd = [CLI, "evolve", "--model", best, "--start", start, "--out", out, "--backend", "cpu", "--quiet", *args]
        if name != "no budget":
            cmd += ["--budget", "3"]
        p = subprocess.run(cmd, capture_output=True, text=True)
        want = expect or "give --budget N"
        check(p.returncode == 1 and want in p.stderr and not os.path.exists(out), f"{name}: {p.returncode} {p.stderr[-300:]}")
    p = subprocess.run([CLI, "evolve", "--model", lm, "--start", start, "--objective", "K562", "--budget", "2", "--out", os.path.join(d, "lm.tsv"),
                        "--backend", "cpu", "--quiet"], capture_output=True, text=True)
    check(p.returncode == 1 and "regression" in p.stderr and not os.path.exists(os.path.join(d, "lm.tsv")),
          f"a language model without --predictor: {p.stderr[-300:]}")

    if FAILURES:
        print(f"{len(FAILURES)} failure(s)", file=sys.stderr)
        return 1
    print("evolve: round for round with the Python reference; constraints and budget kept; bad input refused")
    return 0


if __name__ == "__main__":
    sys.exit(main())
