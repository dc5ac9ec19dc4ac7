#!/usr/bin/env python3
"""Restriction enzymes by name against Biopython's Bio.Restriction (issue 33):

- the compiled-in table (resources/enzymes.tsv) holds exactly Bio.Restriction's commercially
  available enzymes (CommOnly) with their sites, cut positions (fst5, fst3, scd5, scd3), overhangs,
  suppliers and palindromy;
- for every enzyme, the cuts the engine finds equal `enzyme.search(seq, linear=True)` on random
  sequences (lengths 0 to 2,000, some with N, some with planted sites of every enzyme on both
  strands, near both ends) and on the sample project's sequences;
- every site the engine reports is a site on that strand, and every cut Biopython reports comes
  from a site the engine reports;
- generated designs with enzymes forbidden (`carbon-cli generate --forbid EcoRI,BsaI,...` between a
  context and a right flank that each end in part of a site) hold no site of them in the design or
  across its junctions, by Bio.Restriction's own search.

Drives tests/tools/carbon_enzyme_cuts and carbon-cli ($CARBON_BIN)."""
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(__file__))
from carbon_testlib import Checks, bin_path, require_modules, run, tiny_model, work_dir  # noqa: E402

require_modules("Bio")
from Bio.Restriction import CommOnly  # noqa: E402
from Bio.Restriction.Restriction_Dictionary import rest_dict  # noqa: E402
from Bio.Seq import Seq  # noqa: E402

T = Checks()
TOOL = bin_path("carbon_enzyme_cuts")
CLI = bin_path("carbon-cli")
WORK = work_dir("enzymes")
ENZYMES = sorted(CommOnly, key=str)
COMP = str.maketrans("ACGTRYSWKMBDHVN", "TGCAYRSWMKVHDBN")


def revcomp(s):
    return s.translate(COMP)[::-1]


def concrete(site, rng):
    """One DNA sequence the IUPAC site matches."""
    pick = {"A": "A", "C": "C", "G": "G", "T": "T", "R": "AG", "Y": "CT", "S": "CG", "W": "AT", "K": "GT", "M": "AC",
            "B": "CGT", "D": "AGT", "H": "ACT", "V": "ACG", "N": "ACGT"}
    return "".join(rng.choice(pick[c]) for c in site)


# --- the table -------------------------------------------------------------------------------
table = json.loads(run([TOOL, "--table"]).stdout)
T.check([e["name"] for e in table] == [str(e) for e in ENZYMES],
        f"enzymes: {len(table)} in ours, {len(ENZYMES)} in Bio.Restriction CommOnly")
for row in table:
    d = rest_dict.get(row["name"])
    if not T.check(d is not None, f"{row['name']} is not in Biopython's dictionary"):
        continue
    want = {"site": d["site"], "fst5": d["fst5"], "fst3": d["fst3"], "scd5": d["scd5"], "scd3": d["scd3"],
            "ovhg": d["ovhg"], "suppliers": "".join(sorted(d["suppl"]))}
    got = {k: row[k] for k in want}
    T.check(got == want, f"{row['name']}: {got} vs Biopython {want}")
    enz = next(e for e in ENZYMES if str(e) == row["name"])
    T.check(row["palindromic"] == enz.is_palindromic(), f"{row['name']}: palindromic {row['palindromic']}")
print(f"table: {len(table)} enzymes, as Bio.Restriction has them")

# --- cut positions ------------------------------------------------------------------------------
rng = random.Random(33)
seqs = []
for length in [0, 1, 5, 11, 40, 200, 1000, 2000] + [rng.randrange(0, 600) for _ in range(12)]:
    seqs.append("".join(rng.choice("ACGT") for _ in range(length)))
for _ in range(6):  # with N
    s = [rng.choice("ACGTN" if rng.random() < 0.1 else "ACGT") for _ in range(300)]
    seqs.append("".join(s))
# Every enzyme's site planted on both strands, at both ends and inside.
planted = []
for e in ENZYMES:
    site = rest_dict[str(e)]["site"]
    a = concrete(site, rng)
    b = revcomp(concrete(site, rng))
    filler = "".join(rng.choice("ACGT") for _ in range(40))
    planted.append(a + filler + b + filler[:7] + a)
for i in range(0, len(planted), 25):
    seqs.append("".join(planted[i:i + 25]))
sample = []
name, buf = None, []
for line in open(os.path.join(os.path.dirname(__file__), "..", "..", "resources", "sample", "sample.fa")):
    line = line.strip()
    if line.startswith(">"):
        if buf:
            sample.append("".join(buf).upper())
        buf = []
    elif line:
        buf.append(line)
if buf:
    sample.append("".join(buf).upper())
T.check(len(sample) >= 3, f"the sample project's sequences: {len(sample)}")
seqs += sample
path = os.path.join(WORK, "seqs.txt")
with open(path, "w") as f:
    f.write("\n".join(seqs) + "\n")
ours = json.loads(run([TOOL, path]).stdout)
sites = json.loads(run([TOOL, "--sites", path]).stdout)
compared = mismatched = 0
for e in ENZYMES:
    name = str(e)
    for i, s in enumerate(seqs):
        want = sorted(e.search(Seq(s), linear=True)) if s else []
        got = ours[name][i]
        compared += 1
        if got != want:
            mismatched += 1
            if mismatched <= 10:
                T.check(False, f"{name} on sequence {i} ({len(s)} bp): ours {got[:8]} vs Bio.Restriction {want[:8]}")
        site = rest_dict[name]["site"]
        for start, reverse in sites[name][i]:
            motif = revcomp(site) if reverse else site
            window = s[start:start + len(site)]
            ok = len(window) == len(site) and all(m == "N" or w in {"A": "A", "C": "C", "G": "G", "T": "T", "R": "AG",
                                                                     "Y": "CT", "S": "CG", "W": "AT", "K": "GT", "M": "AC",
                                                                     "B": "CGT", "D": "AGT", "H": "ACT", "V": "ACG"}[m]
                                                   for m, w in zip(motif, window))
            if not ok:
                T.check(False, f"{name}: reported site at {start} ({'bottom' if reverse else 'top'}) is {window}")
T.check(mismatched == 0, f"{mismatched} of {compared} (enzyme, sequence) cut lists differ from Bio.Restriction")
print(f"cuts: {compared} (enzyme, sequence) pairs over {len(seqs)} sequences equal Bio.Restriction.search")

# --- generation with enzymes forbidden ---------------------------------------------------------------
model = tiny_model(os.path.join(WORK, "model"))
forbid = ["EcoRI", "BsaI", "BsmBI", "HindIII", "NotI"]
context = "ACGT" * 5 + "GAAT"    # EcoRI's GAATTC would need the design to start with TC
flank = "CTCTTT" + "ACGT" * 3    # BsaI's GGTCTC would end in the flank's CTC
out = os.path.join(WORK, "designs.fasta")
run([CLI, "generate", "--model", model, "--length", "80", "--count", "30", "--seed", "4", "--context", context,
     "--right-flank", flank, "--forbid", ",".join(forbid), "--out", out])
designs = []
for line in open(out):
    line = line.strip()
    if line.startswith(">"):
        designs.append("")
    elif line and designs:
        designs[-1] += line
T.check(len(designs) == 30, f"{len(designs)} designs")
for d in designs:
    whole = context + d + flank
    for name in forbid:
        e = next(x for x in ENZYMES if str(x) == name)
        site = rest_dict[name]["site"]
        n = len(site)
        # A window touching the design: any start from len(context) - n + 1 to the design's end.
        lo = max(0, len(context) - n + 1)
        hi = len(context) + len(d)
        segment = whole[lo:hi + n - 1]
        T.check(not e.search(Seq(segment), linear=True) and site not in segment and revcomp(site) not in segment,
                f"{name} in a design or its junctions: ...{segment}...")
print(f"generation: {len(designs)} designs with {', '.join(forbid)} forbidden hold none of their sites")

# --- generation with sites required at a place ---------------------------------------------------------
# EcoRI's site from design base 12, BsaI's read on the bottom strand from base 40 (so it cuts
# upstream of it), BamHI forbidden: Bio.Restriction finds the EcoRI and BsaI sites there and no
# BamHI site, in every design.
out = os.path.join(WORK, "required.fasta")
run([CLI, "generate", "--model", model, "--length", "70", "--count", "20", "--seed", "5", "--context", context,
     "--require-site", "EcoRI@12,BsaI@40:-", "--forbid", "BamHI", "--out", out])
designs = []
for line in open(out):
    line = line.strip()
    if line.startswith(">"):
        T.check("require_sites=EcoRI@12,BsaI@40:-" in line, f"the header does not say the required sites: {line[:200]}")
        designs.append("")
    elif line and designs:
        designs[-1] += line
T.check(len(designs) == 20 and len(set(designs)) > 1, f"{len(designs)} designs, {len(set(designs))} distinct")
eco = next(x for x in ENZYMES if str(x) == "EcoRI")
bsa = next(x for x in ENZYMES if str(x) == "BsaI")
bam = next(x for x in ENZYMES if str(x) == "BamHI")
for d in designs:
    T.check(d[11:17] == "GAATTC" and 12 + eco.fst5 in eco.search(Seq(d), linear=True),
            f"EcoRI not at design base 12: {d}")
    T.check(d[39:45] == revcomp("GGTCTC") and any(c < 40 for c in bsa.search(Seq(d), linear=True)),
            f"BsaI not on the bottom strand at design base 40: {d}")
    T.check(not bam.search(Seq(context + d), linear=True), f"BamHI in a design: {d}")
print(f"generation: {len(designs)} designs hold EcoRI at base 12 and BsaI (bottom strand) at base 40")
sys.exit(T.done())
