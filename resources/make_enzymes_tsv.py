#!/usr/bin/env python3
"""Writes resources/enzymes.tsv: the commercially available restriction enzymes of REBASE as
Biopython distributes them (Bio.Restriction.Restriction_Dictionary, made from REBASE's emboss
files), one per line: name, recognition site (IUPAC, 5'->3' on the top strand), the cut positions
in Biopython's convention (fst5, fst3, scd5, scd3, ovhg; '.' where there is no second cut), and
the supplier codes. Run from the repository root with Biopython installed:

    build/venv/bin/python resources/make_enzymes_tsv.py > resources/enzymes.tsv
"""
import Bio
from Bio.Restriction import CommOnly
from Bio.Restriction.Restriction_Dictionary import rest_dict, suppliers

header_line = next((line for line in open(__import__("Bio.Restriction.Restriction_Dictionary",
                                                        fromlist=["x"]).__file__, encoding="utf-8")
                    if "REBASE" in line), "").strip().lstrip("#").strip()


def field(v):
    return "." if v is None else str(v)


print("# Commercially available restriction enzymes (REBASE), as Biopython %s distributes them" % Bio.__version__)
print("# (%s). Written by resources/make_enzymes_tsv.py; do not edit by hand." % header_line.rstrip("."))
print("# Cut positions follow Bio.Restriction: fst5 is the top-strand cut counted from the site's first")
print("# base (a cut after base k of the site is k; negative or past the site: outside it), fst3 the")
print("# bottom-strand cut counted back from the site's end, scd5/scd3 a second cut pair ('.' when none),")
print("# ovhg the overhang (negative 5', positive 3', 0 blunt).")
for code in sorted(suppliers):
    print("# supplier %s: %s" % (code, suppliers[code][0]))
print("name\tsite\tfst5\tfst3\tscd5\tscd3\tovhg\tsuppliers")
for e in sorted(CommOnly, key=str):
    d = rest_dict[str(e)]
    print("\t".join([str(e), d["site"], field(d["fst5"]), field(d["fst3"]), field(d["scd5"]), field(d["scd3"]),
                     field(d["ovhg"]), "".join(sorted(d["suppl"]))]))
