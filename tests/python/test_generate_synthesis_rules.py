#!/usr/bin/env python3
"""Designs generated under a vendor's synthesis rules break none of them (issue 33).

For each built-in rule set, `carbon-cli generate --rules SET` makes 1,000 designs between an
upstream and a downstream flank (given as the context and the right flank: the construct that will
be ordered), and every construct, upstream + design + downstream, is checked by DnaChisel 3.2's own
specifications for the set's rules (gc-spread, which DnaChisel lacks, by numpy) and by `carbon-cli
check`: none may break a rule, across the junctions included. The same request without --rules
must break the set's rules in some designs (the tiny test model repeats itself and drifts in GC),
so the check is not passed by designs that could not have failed. One set runs in direct (6-mer)
mode, the others in FNS mode; the FASTA headers and a stored run record the rule set.

Drives carbon-cli ($CARBON_BIN)."""
import json
import os
import random
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(__file__))
from carbon_testlib import Checks, bin_path, require_modules, run, tiny_model, work_dir  # noqa: E402

require_modules("dnachisel", "numpy")
from dnachisel_rules import chisel_locations, parse_rule  # noqa: E402

T = Checks()
CLI = bin_path("carbon-cli")
WORK = work_dir("synthesis-generate")
MODEL = tiny_model(WORK)
rng = random.Random(77)


def broken_rules(seq, rules):
    """The rules (as --list-rules writes them) the sequence breaks, by DnaChisel (and numpy)."""
    return [line for line in rules if chisel_locations(seq, parse_rule(line))]


def read_fasta(path):
    recs = []
    for line in open(path):
        line = line.strip()
        if line.startswith(">"):
            recs.append([line[1:], ""])
        elif line:
            recs[-1][1] += line
    return recs


def balanced(n):
    """n bases, half G/C, no run over 3 (flanks that break no rule on their own)."""
    while True:
        s = "".join(rng.choice("GC") if i % 2 else rng.choice("AT") for i in range(n))
        s = "".join(rng.sample(s, len(s)))
        if all(s[i:i + 4] != s[i] * 4 for i in range(len(s) - 3)):
            return s


UP, DOWN = balanced(40), balanced(40)
SETS = [("twist-oligo-pool", 200, "direct"), ("twist-gene-fragment", 300, "fns"), ("idt-gblock", 300, "fns"), ("idt-opool", 200, "fns"),
        ("twist-oligo-pool", 200, "fns")]
for rid, length, mode in SETS:
    rules = [line.strip().split("\t")[0] for line in run([CLI, "check", "--list-rules", "--rules", rid]).stdout.splitlines()[1:]]
    common = [CLI, "generate", "--model", MODEL, "--length", length, "--count", 1000, "--mode", mode, "--seed", 5,
              "--context", UP, "--right-flank", DOWN, "--quiet"]
    rid_mode = f"{rid}-{mode}"
    plain = os.path.join(WORK, f"{rid_mode}-plain.fa")
    run(common + ["--out", plain])
    ruled = os.path.join(WORK, f"{rid_mode}.fa")
    gen = run(common + ["--rules", rid, "--out", ruled])
    designs = read_fasta(ruled)
    T.check(len(designs) == 1000, f"{rid}: {len(designs)} designs")
    T.check(all(f" rules={rid}" in h for h, _ in designs), f"{rid}: a header does not name the rule set")
    broken = 0
    for h, d in designs:
        bad = broken_rules(UP + d + DOWN, rules)
        if bad:
            broken += 1
            if broken <= 3:
                T.check(False, f"{rid}: {h.split()[0]} breaks {bad} (DnaChisel)\n{UP + d + DOWN}")
    T.check(broken == 0, f"{rid}: {broken} of 1000 constructs break a rule by DnaChisel")
    # carbon-cli check agrees on the constructs
    fa = os.path.join(WORK, f"{rid_mode}-designs.fa")
    with open(fa, "w") as f:
        for k, (_h, d) in enumerate(designs):
            f.write(f">d{k}\n{d}\n")
    checked = json.loads(run([CLI, "check", "--rules", rid, "--in", fa, "--json", "--upstream", UP, "--downstream", DOWN]).stdout)
    T.check(all(not r["breaches"] for r in checked), f"{rid}: carbon-cli check finds a breach: "
            f"{next((r for r in checked if r['breaches']), None)}")
    # without the rules, some designs break them: the check above could have failed
    plain_broken = sum(1 for _h, d in read_fasta(plain)[:300] if broken_rules(UP + d + DOWN, rules))
    T.check(plain_broken > 0, f"{rid}: no design made without --rules breaks a rule, so the test proves nothing")
    print(f"{rid} ({mode}, {length} bp + 80 bp of flanks): 1,000 designs under the rules, none breaks one by DnaChisel; "
          f"without --rules {plain_broken} of 300 do")

# The rule set is recorded with a stored run.
proj = os.path.join(WORK, "rules.carbon")
if os.path.exists(proj):
    os.remove(proj)
run([CLI, "generate", "--model", MODEL, "--length", 120, "--count", 3, "--rules", "idt-opool", "--out",
     os.path.join(WORK, "stored.fa"), "--project", proj, "--quiet"])
with sqlite3.connect(proj) as con:
    settings = dict(con.execute("select key, value from run_settings"))
T.check(settings.get("synthesis_rules") == "idt-opool", f"the stored run does not record the rule set: {settings}")
# A design shorter than the vendor makes is said in a note (it may be part of a longer construct).
note = run([CLI, "generate", "--model", MODEL, "--length", 100, "--count", 1, "--rules", "twist-gene-fragment", "--out",
            os.path.join(WORK, "short.fa"), "--quiet"]).stderr
T.check("300-5000 bases; the design is 100" in note, f"no note on the design's length: {note}")
sys.exit(T.done())
