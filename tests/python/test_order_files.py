#!/usr/bin/env python3
"""Order files of designs as constructs (issue 33), each read back by the field's own reader:
- `--format idt`: the .xlsx through openpyxl: a sheet per plate ("Plate 1", "Plate 2" for 100
  constructs on 96-well plates; one for 384), the headings Well Position, Name, Sequence, wells in
  column order (A1, B1, ... H1, A2) or row order (A1, A2, ... A12, B1), each sequence the
  upstream flank + the design + the downstream flank;
- `--format twist`: the CSV through the csv module (Name,Sequence);
- `--format constructs-genbank`: Biopython's GenBank parser: one record per construct, its
  sequence the construct's, the flanks and the design as misc_feature at their places;
- `--format constructs-fasta`: the same sequences;
- designs named with characters vendors refuse or twice are renamed (noted), discarded designs
  are left out unless named; bad flanks, plates, fills and ids are refused with the reason, and a
  file already at --out is left as it was."""
import csv
import io
import os
import sqlite3
import subprocess
import sys

from carbon_testlib import FAILURES, bin_path, check, fresh_project, require_modules, run, tiny_model, work_dir

require_modules("openpyxl", "Bio")
import openpyxl  # noqa: E402
from Bio import SeqIO  # noqa: E402

CLI = bin_path("carbon-cli")
W = work_dir("order_files")
UP, DOWN = "ACTGGCCGTCGTTTTACAACG", "ccaggaaacagctatgac"  # a primer each; the lower case is upper-cased


def designs(proj):
    """{design id: (name, bases)} in the project, through sqlite3."""
    db = sqlite3.connect(proj)
    rows = db.execute("SELECT id, name, bases FROM designs ORDER BY run_id, rank").fetchall()
    db.close()
    return {i: (n, b) for i, n, b in rows}


def export(proj, fmt, out, *extra):
    return run([CLI, "project", "export", proj, "--format", fmt, "--out", out, "--upstream", UP, "--downstream", DOWN] + list(extra))


def well_order(n, rows, cols, by_columns):
    out = []
    for i in range(n):
        k = i % (rows * cols)
        r, c = (k % rows, k // rows) if by_columns else (k // cols, k % cols)
        out.append(("ABCDEFGHIJKLMNOP"[r] + str(c + 1), i // (rows * cols) + 1))
    return out


def main():
    model = tiny_model(W)
    proj = fresh_project(W, "order.carbon")
    run([CLI, "generate", "--model", model, "--length", "24", "--count", "101", "--seed", "3", "--out", os.path.join(W, "d.fa"),
         "--project", proj, "--quiet"])
    d = designs(proj)
    check(len(d) == 101, f"{len(d)} designs stored")
    ids = list(d)
    # One design discarded, two renamed: a name with a blank and a slash, and a repeated name.
    db = sqlite3.connect(proj)
    db.execute("UPDATE designs SET flag = 'discarded' WHERE id = ?", (ids[-1],))
    db.execute("UPDATE designs SET name = 'enh 1/a' WHERE id = ?", (ids[0],))
    db.execute("UPDATE designs SET name = ? WHERE id = ?", (d[ids[2]][0], ids[1]))
    db.commit()
    db.close()
    d = designs(proj)
    kept = ids[:-1]
    want_seq = [UP + d[i][1].upper() + DOWN.upper() for i in kept]

    # IDT, 96 wells by columns: two plates.
    xlsx = os.path.join(W, "idt.xlsx")
    p = export(proj, "idt", xlsx)
    check("discarded design(s) left out" in p.stderr and "'enh 1/a' is ordered as 'enh_1_a'" in p.stderr,
          f"notes of the IDT export: {p.stderr}")
    book = openpyxl.load_workbook(xlsx)
    check(book.sheetnames == ["Plate 1", "Plate 2"], f"sheets {book.sheetnames}")
    got = []
    for name in book.sheetnames:
        rows = list(book[name].iter_rows(values_only=True))
        check(rows[0] == ("Well Position", "Name", "Sequence"), f"{name}: headings {rows[0]}")
        got += [(r[0], name, r[1], r[2]) for r in rows[1:]]
    wells = well_order(len(kept), 8, 12, True)
    check([(g[0], g[1]) for g in got] == [(w, f"Plate {p}") for w, p in wells], f"wells {[(g[0], g[1]) for g in got][:10]}...")
    check([g[3] for g in got] == want_seq, "IDT sequences are not upstream + design + downstream")
    names = [g[2] for g in got]
    check(len(set(names)) == len(names) and names[0] == "enh_1_a" and names[2] == f"{d[ids[2]][0]}_{ids[2]}",
          f"names not unique or not renamed: {names[:3]}")
    check(all(ch.isalnum() or ch in "_-." for n in names for ch in n), "a name with a character vendors refuse")

    # IDT, 384 wells by rows: one plate.
    export(proj, "idt", xlsx, "--plate", "384", "--fill", "rows")
    book = openpyxl.load_workbook(xlsx)
    rows = list(book["Plate 1"].iter_rows(values_only=True))[1:]
    check(book.sheetnames == ["Plate 1"] and [r[0] for r in rows] == [w for w, _ in well_order(len(kept), 16, 24, False)],
          f"384 by rows: {book.sheetnames}, {[r[0] for r in rows][:26]}")

    # Twist CSV.
    tw = os.path.join(W, "twist.csv")
    export(proj, "twist", tw)
    with open(tw, newline="") as f:
        rows = list(csv.reader(f))
    check(rows[0] == ["Name", "Sequence"] and [r[1] for r in rows[1:]] == want_seq and [r[0] for r in rows[1:]] == names,
          "the Twist CSV differs from the IDT sheet's names and sequences")

    # GenBank: one record per construct, the parts as features.
    gb = os.path.join(W, "constructs.gb")
    export(proj, "constructs-genbank", gb, "--designs", ",".join(map(str, kept[:5])))
    recs = list(SeqIO.parse(gb, "genbank"))
    check(len(recs) == 5, f"{len(recs)} GenBank records")
    for rec, i, seq in zip(recs, kept[:5], want_seq[:5]):
        check(str(rec.seq) == seq, f"GenBank record {rec.name}: sequence differs")
        feats = [(int(f.location.start), int(f.location.end), f.qualifiers.get("note", [""])[0]) for f in rec.features if f.type == "misc_feature"]
        n = len(d[i][1])
        check(feats == [(0, len(UP), "upstream flank"), (len(UP), len(UP) + n, feats[1][2]), (len(UP) + n, len(seq), "downstream flank")]
              and feats[1][2].startswith(f"design {i} "), f"GenBank features of {rec.name}: {feats}")

    # FASTA of the constructs; the discarded design ordered when named.
    fa = os.path.join(W, "constructs.fa")
    export(proj, "constructs-fasta", fa, "--designs", f"{kept[3]},{ids[-1]}", "--width", "0")
    with open(fa) as f:
        lines = f.read().splitlines()
    check(len(lines) == 4 and lines[1] == want_seq[3] and lines[3] == UP + d[ids[-1]][1].upper() + DOWN.upper()
          and f"design={ids[-1]} " in lines[2], f"constructs FASTA: {lines[:4]}")

    # Refusals: nothing written over what was there.
    with open(xlsx, "wb") as f:
        f.write(b"kept")
    for args, want in [
        (["--format", "idt", "--upstream", "ACGN"], "upstream flank: position 4 is 'N'"),
        (["--format", "idt", "--plate", "100"], "--plate must be 96 or 384"),
        (["--format", "idt", "--fill", "diagonal"], "--fill must be columns or rows"),
        (["--format", "idt", "--designs", "999999"], "no design with id 999999"),
        (["--format", "twist", "--downstream", "AC-GT"], "downstream flank: position 3"),
    ]:
        p = subprocess.run([CLI, "project", "export", proj, "--out", xlsx] + args, capture_output=True, text=True)
        check(p.returncode == 1 and want in p.stderr, f"{args}: exit {p.returncode}: {p.stderr.strip()}")
    with open(xlsx, "rb") as f:
        check(f.read() == b"kept", "a refused order changed the file at --out")

    if FAILURES:
        print(f"{len(FAILURES)} failure(s)", file=sys.stderr)
        return 1
    print("order files: IDT plates (openpyxl), Twist CSV, GenBank (Biopython) and FASTA constructs agree with the designs and flanks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
