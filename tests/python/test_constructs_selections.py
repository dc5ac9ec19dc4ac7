#!/usr/bin/env python3
"""Constructs and selections stored in a project (issue 33), through carbon-cli:

- `project construct P --add NAME --upstream --downstream` stores a construct (upper-cased), listed
  by `project list`; a taken name, a letter other than A/C/G/T (with the part and position), a
  construct with no parts and removing one that is not there are refused, the file unchanged;
- `generate --project P --construct NAME` designs between the construct: the run records the
  construct's name and bases; its upstream ends in GAATT and its downstream starts with C, so with
  EcoRI forbidden no design starts with C or ends in GAATT (a site across a junction), by
  Bio.Restriction over each whole construct, while the same run without --forbid has designs that
  do; refusals: no --project, an unknown name (the project's constructs listed), with --context;
- orders of its designs (`project export --format twist`) are the constructs, with a note naming
  the run's construct; --construct OTHER or --upstream/--downstream order them between those
  instead, with a note; removing the construct from the project leaves the run's orders as they were;
- `select --project P --save-as NAME` chooses among the project's designs that are not discarded
  (or --run ID, --designs ...): the stored selection is the chosen ids in order; its smallest
  pairwise distance (both strands) equals this test's own count and the one reported, and is at
  least that of 20 random choices of the same size; --min-distance leaves no pair closer;
  `project export --selection NAME` orders it in that order; a taken name is refused unless
  --replace (the file unchanged); an unknown score, a score no design has, designs of several
  lengths under Hamming and a count that cannot be reached are reported (the number reached); an
  order mixing designs made in a construct with bare ones names the bare runs; a selection whose
  designs were deleted is refused, never read as "every design".

Drives carbon-cli ($CARBON_BIN) with a tiny model."""
import csv
import os
import random
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from carbon_testlib import Checks, bin_path, fresh_project, require_modules, run, sha256, tiny_model, work_dir  # noqa: E402

require_modules("Bio")
from Bio.Restriction import EcoRI  # noqa: E402
from Bio.Seq import Seq  # noqa: E402

T = Checks()
CLI = bin_path("carbon-cli")
W = work_dir("constructs_selections")
UP, DOWN = "ACTGGCCGTCGTTTTACGAATT", "CTAGCTGGCAACTACCTG"  # EcoRI (GAATTC) across either junction
COMP = str.maketrans("ACGT", "TGCA")


def revcomp(s):
    return s.translate(COMP)[::-1]


def hamming_both(a, b):
    return min(sum(x != y for x, y in zip(a, b)), sum(x != y for x, y in zip(a, revcomp(b))))


def min_pairwise(seqs):
    return min(hamming_both(seqs[i], seqs[j]) for i in range(len(seqs)) for j in range(i + 1, len(seqs)))


def cli(*args):
    return subprocess.run([CLI] + [str(a) for a in args], capture_output=True, text=True)


def refused(label, p, *parts):
    ok = p.returncode != 0 and all(x in p.stderr for x in parts)
    T.check(ok, f"{label}: expected a refusal naming {parts}; got {p.returncode}: {p.stderr.strip()[:400]}")


def query(proj, sql, *args):
    db = sqlite3.connect(proj)
    try:
        return db.execute(sql, args).fetchall()
    finally:
        db.close()


def twist_rows(path):
    with open(path, newline="") as f:
        return list(csv.reader(f))[1:]


def constructs_and_orders(model, proj):
    r = cli("project", "construct", proj, "--add", "mpra", "--upstream", UP.lower(), "--downstream", DOWN, "--description", "MPRA v1")
    T.check(r.returncode == 0 and "construct 'mpra' added (22 bp upstream, 18 bp downstream)" in r.stderr, f"add: {r.stderr}")
    run([CLI, "project", "construct", proj, "--add", "other", "--upstream", "GGGG", "--downstream", "TTTT"])
    listing = run([CLI, "project", "list", proj]).stdout
    T.check("constructs: 2" in listing and "mpra\t22 + 18 bp" in listing, f"project list: {listing}")
    T.check(query(proj, "SELECT upstream FROM constructs WHERE name = 'mpra'") == [(UP,)], "the upstream is stored upper-cased")

    before = sha256(proj)
    refused("a taken name", cli("project", "construct", proj, "--add", "mpra", "--upstream", "A"), "already holds a construct named 'mpra'")
    refused("an N", cli("project", "construct", proj, "--add", "n", "--upstream", "ACGNT"), "construct 'n'", "upstream flank: position 4 is 'N'")
    refused("no parts", cli("project", "construct", proj, "--add", "e", "--upstream", ""), "neither an upstream nor a downstream")
    refused("no sequences given", cli("project", "construct", proj, "--add", "e"), "needs --upstream SEQ and/or --downstream SEQ")
    refused("remove unknown", cli("project", "construct", proj, "--remove", "nope"), "no construct named 'nope'")
    refused("add and remove", cli("project", "construct", proj, "--add", "a", "--remove", "b"), "or --remove NAME")
    T.check(sha256(proj) == before, "a refused construct changed the project")

    gen = [CLI, "generate", "--model", model, "--length", "30", "--count", "40", "--seed", "5", "--quiet"]
    out = os.path.join(W, "d.fa")
    refused("--construct without --project", cli(*gen[1:], "--out", out, "--construct", "mpra"), "--construct NAME names a construct stored in the --project")
    refused("unknown construct", cli(*gen[1:], "--out", out, "--project", proj, "--construct", "mrpa"), "no construct named 'mrpa'", "'mpra'", "'other'")
    refused("with --context", cli(*gen[1:], "--out", out, "--project", proj, "--construct", "mpra", "--context", "ACGT"), "not with --context")
    T.check(sha256(proj) == before, "a refused generate changed the project")

    run(gen + ["--out", out, "--project", proj, "--construct", "mpra", "--forbid", "EcoRI"])
    run(gen + ["--out", os.path.join(W, "free.fa"), "--project", proj, "--construct", "mpra"])
    runs = [r for (r,) in query(proj, "SELECT id FROM runs WHERE kind = 'generate' ORDER BY id")]
    T.check(len(runs) == 2, f"runs {runs}")
    settings = dict(query(proj, "SELECT key, value FROM run_settings WHERE run_id = ?", runs[0]))
    T.check(settings.get("construct") == "mpra" and settings.get("construct_upstream") == UP and settings.get("construct_downstream") == DOWN,
            f"the run records its construct: {[(k, v) for k, v in settings.items() if 'construct' in k]}")
    T.check(settings.get("left_context") == UP and settings.get("right_flank") == DOWN, "the model read the construct's parts")
    forbidden = [b for (b,) in query(proj, "SELECT bases FROM designs WHERE run_id = ?", runs[0])]
    free = [b for (b,) in query(proj, "SELECT bases FROM designs WHERE run_id = ?", runs[1])]
    bad = [d for d in forbidden if EcoRI.search(Seq(UP + d + DOWN), linear=True)]
    T.check(len(forbidden) == 40 and not bad, f"{len(bad)} of {len(forbidden)} constructs hold an EcoRI site: {bad[:3]}")
    across = [d for d in free if d.startswith("C") or d.endswith("GAATT")]
    T.check(across, "without --forbid no design made a site across a junction: the junction check above proves nothing")
    T.check(not [d for d in forbidden if d.startswith("C") or d.endswith("GAATT")], "a design made a site across a junction")

    # Orders: the run's construct by default, said; another construct or flanks when given, said.
    twist = os.path.join(W, "own.csv")
    r = run([CLI, "project", "export", proj, "--format", "twist", "--out", twist])
    rows = twist_rows(twist)
    T.check(len(rows) == 80 and all(s == UP + d + DOWN for (_, s), d in zip(rows, forbidden + free)), "twist rows are the run's constructs")
    T.check(f"run {runs[0]} was made in construct 'mpra' (22 + 18 bp); its designs are ordered in it" in r.stderr, f"notes: {r.stderr}")
    r = run([CLI, "project", "export", proj, "--format", "twist", "--out", twist, "--construct", "other", "--designs", ",".join(map(str, range(1, 4)))])
    rows = twist_rows(twist)
    T.check(all(s.startswith("GGGG") and s.endswith("TTTT") for _, s in rows) and "ordered between the flanks given instead" in r.stderr,
            f"--construct other: {rows[:1]} {r.stderr}")
    refused("--construct and --upstream", cli("project", "export", proj, "--format", "twist", "--out", twist, "--construct", "other", "--upstream", "A"),
            "not both")
    refused("unknown construct in export", cli("project", "export", proj, "--format", "twist", "--out", twist, "--construct", "x"), "no construct named 'x'")
    run([CLI, "project", "construct", proj, "--remove", "mpra"])
    run([CLI, "project", "export", proj, "--format", "twist", "--out", twist])
    T.check(all(s == UP + d + DOWN for (_, s), d in zip(twist_rows(twist), forbidden + free)), "removing the construct changed the run's orders")
    return runs


def selections(model, proj, construct_runs):
    run([CLI, "generate", "--model", model, "--length", "24", "--count", "300", "--seed", "9", "--temperature", "1.5", "--quiet",
         "--out", os.path.join(W, "many.fa"), "--project", proj])
    run_id = query(proj, "SELECT max(id) FROM runs")[0][0]
    designs = dict(query(proj, "SELECT id, bases FROM designs WHERE run_id = ?", run_id))
    r = run([CLI, "select", "--project", proj, "--run", run_id, "--count", "25", "--save-as", "diverse", "--min-distance", "4"])
    chosen = [d for (d,) in query(proj, "SELECT design_id FROM selection_designs JOIN selections ON id = selection_id "
                                        "WHERE name = 'diverse' ORDER BY ord")]
    T.check(len(chosen) == 25 and all(c in designs for c in chosen), f"stored selection {chosen}")
    seqs = [designs[c] for c in chosen]
    smallest = min_pairwise(seqs)
    T.check(f"smallest hamming distance between two chosen: {smallest} (both strands)" in r.stderr, f"reported: {r.stderr} (counted {smallest})")
    T.check(smallest >= 4, f"near-duplicates left: smallest {smallest}")
    rng = random.Random(3)
    randoms = [min_pairwise(rng.sample(list(designs.values()), 25)) for _ in range(20)]
    T.check(smallest >= max(randoms), f"smallest {smallest} vs random choices {randoms}")
    best = max(designs, key=lambda i: (query(proj, "SELECT design_logp FROM designs WHERE id = ?", i)[0][0], -i))
    T.check(chosen[0] == best, "the first chosen is the best-scoring design")
    settings = query(proj, "SELECT settings FROM selections WHERE name = 'diverse'")[0][0]
    T.check('"method":"greedy max-min"' in settings and '"min_distance":4' in settings, f"settings {settings}")

    twist = os.path.join(W, "selection.csv")
    run([CLI, "project", "export", proj, "--format", "twist", "--out", twist, "--selection", "diverse"])
    T.check([s for _, s in twist_rows(twist)] == seqs, "the order of a selection is the selection's, in its order")
    T.check("selections: 1" in run([CLI, "project", "list", proj]).stdout, "project list shows the selection")

    before = sha256(proj)
    sel = [CLI, "select", "--project", proj]
    refused("a taken name", cli(*sel[1:], "--run", run_id, "--count", "5", "--save-as", "diverse"), "selection 'diverse' exists already")
    refused("unknown score", cli(*sel[1:], "--run", run_id, "--count", "5", "--save-as", "s", "--score", "gc"), "neither a design column")
    refused("a prediction no design has", cli(*sel[1:], "--run", run_id, "--count", "5", "--save-as", "s", "--score", "p.json:K562"),
            "no design has a prediction of 'K562' by 'p.json'")
    refused("two lengths", cli(*sel[1:], "--count", "5", "--save-as", "s"), "the Hamming distance needs one length")
    refused("unknown design", cli(*sel[1:], "--designs", "1,99999", "--count", "5", "--save-as", "s"), "no design with id 99999")
    refused("no name", cli(*sel[1:], "--run", run_id, "--count", "5"), "--save-as")
    refused("--save-as without --project", cli("select", "--in", os.path.join(W, "many.fa"), "--count", "5", "--out", "x.fa", "--save-as", "s"),
            "--save-as goes with --project")
    refused("a missing project", cli("select", "--project", os.path.join(W, "none.carbon"), "--count", "5", "--save-as", "s"), "no such project")
    T.check(sha256(proj) == before, "a refused selection changed the project")

    # A count that cannot be reached: what was reached is said, and stored.
    r = run(sel + ["--run", run_id, "--count", "400", "--save-as", "all", "--distance", "edit"])
    n = query(proj, "SELECT count(*) FROM selection_designs JOIN selections ON id = selection_id WHERE name = 'all'")[0][0]
    T.check(n == 300 and "chose 300 of the 400 asked for" in r.stderr, f"unreachable count: {n} stored, {r.stderr}")
    # --replace swaps it whole; the edit distance takes both lengths.
    r = run(sel + ["--count", "10", "--save-as", "all", "--replace", "--distance", "edit", "--out", os.path.join(W, "all.fa")])
    n = query(proj, "SELECT count(*) FROM selection_designs JOIN selections ON id = selection_id WHERE name = 'all'")[0][0]
    with open(os.path.join(W, "all.fa")) as f:
        fasta = f.read()
    T.check(n == 10 and fasta.count(">") == 10 and "selection_rank=10" in fasta, f"--replace: {n} stored; {fasta[:200]}")
    # An order mixing designs made in a construct with bare ones says which are bare.
    mixed = [query(proj, "SELECT min(id) FROM designs WHERE run_id = ?", construct_runs[0])[0][0], chosen[0]]
    r = run([CLI, "project", "export", proj, "--format", "twist", "--out", twist, "--designs", ",".join(map(str, mixed))])
    T.check(f"run(s) {run_id} were made in no construct: their designs are ordered without flanks" in r.stderr, f"mixed order: {r.stderr}")
    # A selection whose designs were all deleted orders nothing (not every design).
    run(sel + ["--designs", ",".join(map(str, chosen[:2])), "--count", "2", "--save-as", "gone"])
    db = sqlite3.connect(proj)
    db.execute("PRAGMA foreign_keys = ON")
    db.execute(f"DELETE FROM designs WHERE id IN ({chosen[0]}, {chosen[1]})")
    db.commit()
    db.close()
    refused("an emptied selection", cli("project", "export", proj, "--format", "twist", "--out", twist, "--selection", "gone"),
            "selection 'gone' holds no designs any more")
    refused("--designs with no id", cli("project", "export", proj, "--format", "twist", "--out", twist, "--designs", ","), "names no design id")
    # Discarded designs are not candidates unless named.
    db = sqlite3.connect(proj)
    db.execute("UPDATE designs SET flag = 'discarded' WHERE run_id = ?", (run_id,))
    db.commit()
    db.close()
    r = cli(*sel[1:], "--run", run_id, "--count", "5", "--save-as", "none")
    refused("only discarded designs", r, f"run {run_id} has no designs that are not discarded")


def main():
    model = tiny_model(W)
    proj = fresh_project(W, "constructs.carbon")
    runs = constructs_and_orders(model, proj)
    selections(model, proj, runs)
    return T.done()


if __name__ == "__main__":
    sys.exit(main())
