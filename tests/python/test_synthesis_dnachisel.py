#!/usr/bin/env python3
"""Synthesis checks against DnaChisel 3.2 (issue 33), rule by rule.

A corpus of sequences built to sit on each rule's boundary (a length of min-1, min, max, max+1; GC
counts one either side of a bound, over the whole sequence and in one window; runs of exactly the
limit and one more, on either strand and at either end; k-mers repeated at k-1, k and k+1, direct
and inverted, overlapping, palindromic; hairpin stems of S-1, S and S+1 bases whose partner starts
exactly at the window's edge or one past it, and near the sequence's end where DnaChisel cuts the
window; sites at the ends, overlapping, on the bottom strand, IUPAC sites and palindromes) is
checked by `carbon-cli check --json` and by DnaChisel's own specifications:

    length        SequenceLengthBounds      gc           EnforceGCContent(min, max)
    gc-window     EnforceGCContent(min, max, window)
    homopolymer   AvoidPattern("NxA") + AvoidPattern("NxC")   (both strands: T and G runs too)
    repeat        UniquifyAllKmers(k)       hairpin      AvoidHairpins(stem, window)
    forbid        AvoidPattern(ENZYME_site) / AvoidPattern(IUPAC) (Bio.Restriction's sites)

and every verdict and every location must be equal. gc-spread (Twist's highest-minus-lowest 50-bp
window rule) has no DnaChisel counterpart: it is held to a direct numpy computation. The built-in
rule sets are checked the same way on the whole corpus. Bad rules files are refused with file,
line and reason.

Drives carbon-cli ($CARBON_BIN)."""
import json
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from carbon_testlib import Checks, bin_path, require_modules, run, work_dir  # noqa: E402

require_modules("dnachisel", "numpy")
from dnachisel_rules import chisel_locations, parse_rule  # noqa: E402

T = Checks()
CLI = bin_path("carbon-cli")
WORK = work_dir("synthesis")
rng = random.Random(3301)
COMP = str.maketrans("ACGT", "TGCA")


def revcomp(s):
    return s.translate(COMP)[::-1]


def rand(n, gc=None):
    if gc is None:
        return "".join(rng.choice("ACGT") for _ in range(n))
    return "".join(rng.choice("GC") if rng.random() < gc else rng.choice("AT") for _ in range(n))


def with_gc(n, count):
    """n bases holding exactly `count` G/C, shuffled, no long runs forced."""
    bases = [rng.choice("GC") for _ in range(count)] + [rng.choice("AT") for _ in range(n - count)]
    rng.shuffle(bases)
    return "".join(bases)


def plant(seq, pos, part):
    return seq[:pos] + part + seq[pos + len(part):]


# ---- the corpus: for each rule, sequences on its boundary -------------------------------------

def corpus_length(lo, hi):
    out = []
    for n in (1, lo - 1, lo, lo + 1, hi - 1, hi, hi + 1):
        if n >= 1:
            out += [rand(n) for _ in range(3)]
    return out


def corpus_gc(lo, hi, count):
    out = []
    for _ in range(count):
        n = rng.randint(20, 400)
        bound = rng.choice((lo, hi))
        c = int(round(bound * n)) + rng.choice((-1, 0, 0, 1))
        out.append(with_gc(n, max(0, min(n, c))))
    return out


def corpus_gc_window(w, lo, hi, count):
    out = []
    for _ in range(count):
        n = rng.randint(max(1, w - 3), 4 * w + 30)
        s = with_gc(n, n // 2)
        # one window pushed to a bound (or one past it), sometimes two far apart, sometimes near
        for _k in range(rng.choice((1, 1, 2, 3))):
            if n < w:
                break
            start = rng.choice((0, n - w, rng.randint(0, n - w)))
            bound = rng.choice((lo, hi))
            c = int(round(bound * w)) + rng.choice((-1, 0, 1))
            s = plant(s, start, with_gc(w, max(0, min(w, c))))
        if rng.random() < 0.2 and n >= 2 * w + 60:
            # an all-AT or all-GC stretch whose out-of-bounds windows start over 48 to 52 positions
            # in a row: where DnaChisel's grouping (starts less than 50 apart) splits them
            span = w + rng.randint(47, 52)
            start = rng.randint(0, n - span)
            s = plant(s, start, rand(span, rng.choice((0.0, 1.0))))
        out.append(s)
    return out


def corpus_homopolymer(bases, mx, count):
    out = []
    for _ in range(count):
        n = rng.randint(mx + 2, 300)
        s = rand(n, 0.5)
        for _k in range(rng.choice((1, 1, 2, 3))):
            b = rng.choice("ACGT")
            run_len = rng.choice((mx - 1, mx, mx, mx + 1, mx + 1, mx + 3))
            run_len = max(1, min(run_len, n))
            pos = rng.choice((0, n - run_len, rng.randint(0, n - run_len)))
            s = plant(s, pos, b * run_len)
        out.append(s)
    return out


def corpus_repeat(k, count):
    out = []
    for _ in range(count):
        n = rng.randint(2 * k + 2, 400)
        s = rand(n)
        kind = rng.randrange(6)
        size = rng.choice((k - 1, k, k + 1, k + 5))
        if size > n // 2:
            size = n // 2
        word = rand(size)
        a = rng.randint(0, n - size)
        b = rng.randint(0, n - size)
        if kind == 0:        # direct repeat
            s = plant(plant(s, a, word), b, word)
        elif kind == 1:      # inverted repeat
            s = plant(plant(s, a, word), b, revcomp(word))
        elif kind == 2:      # tandem: overlapping copies
            s = plant(s, a, (word * 3)[: min(n - a, 2 * size + 3)])
        elif kind == 3:      # a palindrome once (its own reverse complement): not a repeat alone
            half = rand(k // 2)
            s = plant(s, a, half + revcomp(half))
        elif kind == 4:      # at both ends
            s = plant(plant(s, 0, word), n - size, rng.choice((word, revcomp(word))))
        out.append(s)        # kind 5: random
    return out


def corpus_hairpin(stem, window, count):
    out = []
    for _ in range(count):
        n = rng.randint(2 * stem + 5, 2 * window + 50)
        s = rand(n)
        for _k in range(rng.choice((1, 1, 2))):
            size = rng.choice((stem - 1, stem, stem, stem + 1, stem + 4))
            word = rand(size)
            i = rng.randint(0, max(0, n - 2 * size - 1))
            # the partner so that it ends exactly at the window's edge, one past it, or inside
            gap_end = rng.choice((i + window, i + window + 1, i + window - 1, i + 2 * size, rng.randint(i + 2 * size, i + window + 5)))
            j = gap_end - size
            if rng.random() < 0.25:          # near the end, where DnaChisel cuts the window
                j = n - size - rng.choice((0, 0, 1, 2))
            if j < i + size or j + size > n:
                continue
            s = plant(plant(s, i, word), j, revcomp(word))
        out.append(s)
    return out


def corpus_sites(sites, count):
    out = []
    for _ in range(count):
        n = rng.randint(10, 250)
        s = rand(n)
        for _k in range(rng.choice((0, 1, 1, 2, 3))):
            site = rng.choice(sites)
            inst = "".join(rng.choice({"N": "ACGT", "R": "AG", "Y": "CT", "W": "AT", "S": "GC", "K": "GT", "M": "AC",
                                       "B": "CGT", "D": "AGT", "H": "ACT", "V": "ACG"}.get(c, c)) for c in site)
            if rng.random() < 0.4:
                inst = revcomp(inst)
            if len(inst) > n:
                continue
            pos = rng.choice((0, n - len(inst), rng.randint(0, n - len(inst))))
            s = plant(s, pos, inst)
            if rng.random() < 0.2 and pos + 2 * len(inst) - 2 <= n:      # overlapping copies
                s = plant(s, pos + len(inst) - 2, inst)
        out.append(s)
    return out


# ---- carbon-cli ---------------------------------------------------------------------------------

def write_fasta(path, seqs):
    with open(path, "w") as f:
        for i, s in enumerate(seqs):
            f.write(f">s{i}\n{s}\n")


def carbon_check(rules_arg, seqs, tag):
    fa = os.path.join(WORK, f"{tag}.fa")
    write_fasta(fa, seqs)
    out = os.path.join(WORK, f"{tag}.json")
    run([CLI, "check", "--rules", rules_arg, "--in", fa, "--json", "--out", out])
    return json.load(open(out))


def rules_file(tag, lines):
    path = os.path.join(WORK, f"{tag}.rules")
    with open(path, "w") as f:
        f.write("carbon-synthesis-rules 1\nname test " + tag + "\n")
        for line in lines:
            f.write(f"rule {line} | test corpus\n")
    return path


def compare(tag, rule_lines, seqs, reference):
    """Each of rule_lines in a rules file of its own; every sequence's breaches against reference(rule, seq)."""
    mismatches = 0
    breaking = 0
    for k, line in enumerate(rule_lines):
        got = carbon_check(rules_file(f"{tag}-{k}", [line]), seqs, f"{tag}-{k}")
        T.check(len(got) == len(seqs), f"{tag}: {len(got)} results for {len(seqs)} sequences")
        for rec, seq in zip(got, seqs):
            T.check(all(b["line"] == 3 for b in rec["breaches"]), f"{tag}: a breach names line {rec['breaches']}")
            ours = sorted(tuple(x) for b in rec["breaches"] for x in b["locations"])
            theirs = reference(parse_rule(line), seq)
            breaking += bool(theirs)
            if ours != theirs:
                mismatches += 1
                if mismatches <= 5:
                    T.check(False, f"{tag} {rec['name']} rule '{line}' len {len(seq)}: ours {ours[:8]} dnachisel {theirs[:8]}\n{seq}")
    T.check(mismatches == 0, f"{tag}: {mismatches} disagreements")
    print(f"{tag}: {len(seqs)} sequences x {len(rule_lines)} rules, {breaking} breaches, all equal" if not mismatches else
          f"{tag}: {mismatches} disagreements")
    return len(seqs)


def chisel_reference(rule, seq):
    return chisel_locations(seq, rule)


total = 0
total += compare("length", ["length min=40 max=300", "length min=1 max=1"], corpus_length(40, 300) + corpus_length(1, 1), chisel_reference)
total += compare("gc", ["gc min=0.25 max=0.65", "gc min=30% max=30%"],
                 corpus_gc(0.25, 0.65, 1200) + corpus_gc(0.30, 0.30, 300), chisel_reference)
total += compare("gc-window", ["gc-window window=50 min=0.25 max=0.65", "gc-window window=20 min=0.3 max=0.8"],
                 corpus_gc_window(50, 0.25, 0.65, 900) + corpus_gc_window(20, 0.3, 0.8, 600), chisel_reference)
total += compare("homopolymer", ["homopolymer bases=ACGT max=9", "homopolymer bases=GC max=5", "homopolymer bases=AT max=3"],
                 corpus_homopolymer("ACGT", 9, 700) + corpus_homopolymer("GC", 5, 500) + corpus_homopolymer("AT", 3, 300),
                 chisel_reference)
total += compare("repeat", ["repeat k=20", "repeat k=8"], corpus_repeat(20, 1000) + corpus_repeat(8, 500), chisel_reference)
total += compare("hairpin", ["hairpin stem=20 window=200", "hairpin stem=6 window=30"],
                 corpus_hairpin(20, 200, 1000) + corpus_hairpin(6, 30, 600), chisel_reference)
SITES = ["GGTCTC", "CGTCTC", "GAATTC", "GGCCNNNNNGGCC", "GCNGC", "ACNNNNGTAYC"]
total += compare("forbid", ["forbid sites=BsaI,BsmBI,EcoRI,SfiI", "forbid sites=GCNGC,ACNNNNGTAYC,GRCGYC"],
                 corpus_sites(SITES + ["GACGCC", "GGCGTC"], 1600), chisel_reference)
total += compare("gc-spread", ["gc-spread window=50 max=52%", "gc-spread window=10 max=0.6"],
                 corpus_gc_window(50, 0.1, 0.9, 700) + corpus_gc_window(10, 0.0, 1.0, 500),
                 chisel_reference)
T.check(total >= 10000, f"the corpus holds {total} sequences (at least 10,000 asked)")
print(f"corpus: {total} boundary sequences")

# ---- the built-in rule sets, whole, on a mixed corpus -----------------------------------------
listing = run([CLI, "check", "--list-rules"]).stdout
mixed = corpus_homopolymer("ACGT", 9, 80) + corpus_repeat(20, 80) + corpus_hairpin(20, 200, 80) + corpus_gc(0.25, 0.65, 80) + \
    corpus_length(300, 5000)[:8] + [rand(n) for n in (125, 300, 350, 3000)]
for rid in ("twist-oligo-pool", "twist-gene-fragment", "idt-gblock", "idt-opool"):
    T.check(rid in listing, f"--list-rules does not list {rid}")
    text = run([CLI, "check", "--list-rules", "--rules", rid]).stdout.splitlines()[1:]
    rules = [line.strip().split("\t")[0] for line in text]
    T.check(all("\t" in line and line.split("\t")[1].strip() for line in text), f"{rid}: a rule without its source")
    got = carbon_check(rid, mixed, "builtin-" + rid)
    bad = 0
    for rec, seq in zip(got, mixed):
        ours = sorted(tuple(x) for b in rec["breaches"] for x in b["locations"])
        theirs = []
        for line in rules:
            theirs += chisel_locations(seq, parse_rule(line))
        if ours != sorted(theirs):
            bad += 1
            if bad <= 3:
                T.check(False, f"{rid} {rec['name']}: ours {ours[:6]} reference {sorted(theirs)[:6]}")
    T.check(bad == 0, f"{rid}: {bad} of {len(mixed)} disagree")
    print(f"{rid}: {len(rules)} rules, {len(mixed)} sequences, {sum(1 for r in got if r['breaches'])} break one, all equal to DnaChisel")

# ---- constructs: a site made only by the junction counts ----------------------------------------
fa = os.path.join(WORK, "junction.fa")
write_fasta(fa, ["TCTCAAAAACCCCCGGGGGTTTTTACGTACGTACGT"])
jr = rules_file("junction", ["forbid sites=BsaI"])
alone = json.loads(run([CLI, "check", "--rules", jr, "--in", fa, "--json"]).stdout)
framed = json.loads(run([CLI, "check", "--rules", jr, "--in", fa, "--json", "--upstream", "ACGTGG", "--downstream", "ACGT"]).stdout)
T.check(not alone[0]["breaches"], "the design alone holds no BsaI site")
T.check(framed[0]["breaches"] and framed[0]["breaches"][0]["locations"] == [[4, 10]],
        f"the junction's BsaI site (GG + TCTC at construct 5-10) is not found: {framed}")

# ---- bad rules files ------------------------------------------------------------------------------
BAD = [
    ("carbon-synthesis-rules 2\nname x\nrule length min=1 max=2 | s\n", ":1:", "carbon-synthesis-rules 1"),
    ("carbon-synthesis-rules 1\nname x\nrule length min=10 max=2 | s\n", ":3:", "above max"),
    ("carbon-synthesis-rules 1\nname x\nrule gc min=0.7 max=0.2 | s\n", ":3:", "above max"),
    ("carbon-synthesis-rules 1\nname x\nrule gc min=0.2 max=1.5 | s\n", ":3:", "fraction"),
    ("carbon-synthesis-rules 1\nname x\nrule gc min=abc max=0.5 | s\n", ":3:", "not a number"),
    ("carbon-synthesis-rules 1\nname x\nrule hairpin stem=30 window=40 | s\n", ":3:", "twice the stem"),
    ("carbon-synthesis-rules 1\nname x\n\nrule forbid sites=BsaJ | s\n", ":4:", "neither"),
    ("carbon-synthesis-rules 1\nname x\nrule length min=1 max=2\n", ":3:", "no source"),
    ("carbon-synthesis-rules 1\nname x\nrule glow min=1 | s\n", ":3:", "unknown rule kind"),
    ("carbon-synthesis-rules 1\nname x\nrule repeat k=20 colour=red | s\n", ":3:", "unknown key colour"),
    ("carbon-synthesis-rules 1\nname x\nrule homopolymer bases=AC max=5 | s\n", ":3:", "AT, GC or ACGT"),
    ("carbon-synthesis-rules 1\nname x\nrule length min=10 max=20 | s\nrule length min=30 max=40 | s\n", ":4:", "no length together"),
    ("carbon-synthesis-rules 1\nname x\n", "", "no rules"),
    ("", "", "empty"),
]
fa_one = os.path.join(WORK, "one.fa")
write_fasta(fa_one, ["ACGTACGTAC"])
for k, (text, where, why) in enumerate(BAD):
    path = os.path.join(WORK, f"bad{k}.rules")
    open(path, "w").write(text)
    p = subprocess.run([CLI, "check", "--rules", path, "--in", fa_one], capture_output=True, text=True)
    T.check(p.returncode == 1 and path + where in p.stderr and why in p.stderr,
            f"bad rules file {k} ({why}): exit {p.returncode}, {p.stderr.strip()[:300]}")
p = subprocess.run([CLI, "check", "--rules", "twist-oligo-pol", "--in", fa_one], capture_output=True, text=True)
T.check(p.returncode == 1 and "twist-oligo-pool" in p.stderr, f"a misspelt rule set is not refused with the list: {p.stderr[:300]}")
write_fasta(fa_one, ["ACGTNACGT"])
p = subprocess.run([CLI, "check", "--rules", "twist-oligo-pool", "--in", fa_one], capture_output=True, text=True)
T.check(p.returncode == 1 and ":1: s0: position 5 holds 'N'" in p.stderr, f"an N is not refused with its place: {p.stderr[:300]}")
sys.exit(T.done())
