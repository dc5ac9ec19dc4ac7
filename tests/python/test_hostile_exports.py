#!/usr/bin/env python3
"""Issue 31, class 5: stored text written into what we print and export. A project someone sent
holds names, descriptions, feature keys, qualifiers and run settings that would break a FASTA,
GenBank, TSV, bedGraph or terminal line (line breaks, tabs, escape sequences, 10 MB values) and
feature locations that no longer fit their sequence. Each export must stay one record per record
(escaping, and saying what it changed) or refuse with what and where, writing nothing; `project
list` must never print a control character; what our exports write, our import reads back."""
import json
import os
import sqlite3
import sys

from carbon_testlib import Checks, bin_path, run, run_limited, tiny_model, work_dir

CLI = bin_path("carbon-cli")
W = work_dir("hostile_exports")
DATA = os.path.join(os.path.dirname(__file__), "..", "storage", "data", "flatfile", "reporter_construct.gb")


def cli(*args):
    return run_limited([CLI, *args], timeout=60, mem_mb=4096)


def main():
    c = Checks()
    model = tiny_model(W)
    fasta = os.path.join(W, "in.fa")
    with open(fasta, "w") as f:
        f.write(">plain one\nACGTACGTAC\n>second two\nGGGGCCCCAA\n")
    proj = os.path.join(W, "p.carbon")
    for ext in ("", "-wal", "-shm"):
        if os.path.exists(proj + ext):
            os.remove(proj + ext)
    run([CLI, "project", "import", proj, "--fasta", fasta, "--genbank", DATA])
    run([CLI, "generate", "--model", model, "--length", "12", "--count", "2", "--seed", "1", "--out", os.path.join(W, "d.fa"),
         "--project", proj, "--quiet"])
    con = sqlite3.connect(proj)
    ids = [r[0] for r in con.execute("SELECT id FROM sequences ORDER BY id")]
    gb = con.execute("SELECT sequence_id FROM features LIMIT 1").fetchone()[0]
    n_seq = len(ids)
    con.execute("UPDATE sequences SET name = 'evil' || char(10) || '>injected', description = 'two' || char(13, 10) || 'lines' WHERE id = ?",
                (ids[0],))
    con.execute("UPDATE sequences SET name = 'red' || char(27) || '[31m' || char(27) || ']0;title' || char(7) WHERE id = ?", (ids[1],))
    con.execute("UPDATE designs SET name = 'tab' || char(9) || 'bed' || char(10) || 'x' WHERE id = (SELECT min(id) FROM designs)")
    run_id = con.execute("SELECT run_id FROM designs LIMIT 1").fetchone()[0]
    con.execute("INSERT INTO run_settings(run_id, key, value) VALUES(?, 'huge', ?)", (run_id, "x" * (10 << 20)))
    con.commit()
    con.close()

    # project list: no control character reaches the terminal; the names are shown escaped.
    p = cli("project", "list", proj)
    c.check(p.returncode == 0, f"project list: {p.stderr[-300:]}")
    c.check(not any(ord(ch) < 32 and ch not in "\n\t" for ch in p.stdout), "project list printed a control character")
    c.check("evil\\n>injected" in p.stdout and "red\\x1b[31m\\x1b]0;title\\x07" in p.stdout, "project list does not show the names escaped")

    # Sequences as FASTA: one record per sequence, the changes said, our import reads it back.
    out = os.path.join(W, "seqs.fa")
    p = cli("project", "export", proj, "--format", "sequences", "--out", out)
    c.check(p.returncode == 0, f"sequences export: {p.stderr[-300:]}")
    text = open(out).read() if os.path.exists(out) else ""
    c.check(text.count("\n>") + text.startswith(">") == n_seq, f"sequences export: {text.count(chr(10) + '>') + 1} records for {n_seq}")
    c.check("evil%0A>injected" in text and "two%0D%0Alines" in text, "sequences export: the line break not escaped")
    c.check("note:" in p.stderr and "written escaped" in p.stderr, "sequences export: no note of what it changed")
    back = os.path.join(W, "back.carbon")
    if os.path.exists(back):
        os.remove(back)
    p = cli("project", "import", back, "--fasta", out)
    c.check(p.returncode == 0, f"our import of our sequences export: {p.stderr[-300:]}")

    # Designs as FASTA: the 10 MB setting left out (its length said); our import reads it back.
    out = os.path.join(W, "designs.fa")
    p = cli("project", "export", proj, "--format", "fasta", "--out", out)
    c.check(p.returncode == 0, f"designs export: {p.stderr[-300:]}")
    text = open(out).read() if os.path.exists(out) else ""
    c.check(max((len(l) for l in text.split("\n")), default=0) < 20000, "designs export: a header line of megabytes")
    c.check("run.huge.omitted_bytes=10485760" in text and "holds 10485760 bytes" in p.stderr, "designs export: the long setting not said")
    if os.path.exists(back):
        os.remove(back)
    p = cli("project", "import", back, "--fasta", out)
    c.check(p.returncode == 0, f"our import of our designs export: {p.stderr[-300:]}")

    # TSV: a tab or line break in a name stays inside its column.
    out = os.path.join(W, "designs.tsv")
    p = cli("project", "export", proj, "--format", "tsv", "--out", out)
    lines = open(out).read().rstrip("\n").split("\n") if p.returncode == 0 else []
    c.check(p.returncode == 0 and len(lines) == 3 and len({l.count("\t") for l in lines}) == 1, f"tsv export: {lines[:3]}")

    # GenBank: what it cannot hold is refused with what and where, and nothing is written.
    def genbank_refused(label, sql, params, *needles):
        con = sqlite3.connect(proj)
        saved = con.execute("SELECT id, key, location, qualifiers FROM features WHERE sequence_id = ? ORDER BY ord LIMIT 1",
                            (gb,)).fetchone()
        saved_desc = con.execute("SELECT description FROM sequences WHERE id = ?", (gb,)).fetchone()[0]
        con.execute(sql, params)
        con.commit()
        out = os.path.join(W, "refused.gb")
        if os.path.exists(out):
            os.remove(out)
        p = cli("project", "export", proj, "--format", "genbank", "--sequence-id", str(gb), "--out", out)
        c.check(p.returncode not in (0, None), f"genbank {label}: exit {p.returncode}")
        for n in needles:
            c.check(n in p.stderr, f"genbank {label}: the message lacks '{n}': {p.stderr[-300:]}")
        c.check(not os.path.exists(out), f"genbank {label}: a file was written")
        con.execute("UPDATE features SET key = ?, location = ?, qualifiers = ? WHERE id = ?", (saved[1], saved[2], saved[3], saved[0]))
        con.execute("UPDATE sequences SET description = ? WHERE id = ?", (saved_desc, gb))
        con.commit()
        con.close()

    first = f"(SELECT id FROM features WHERE sequence_id = {gb} ORDER BY ord LIMIT 1)"
    genbank_refused("key with a line break", f"UPDATE features SET key = 'gene' || char(10) || '     source' WHERE id = {first}", (),
                    "feature 1 ('gene\\n     source')", "not one word")
    genbank_refused("location past the sequence", f"UPDATE features SET location = '1..999999' WHERE id = {first}", (),
                    "feature 1", "999999")
    genbank_refused("qualifier with a line break",
                    f"UPDATE features SET qualifiers = ? WHERE id = {first}", (json.dumps([["note", "a\nFEATURES  x"]]),),
                    "/note", "control character")
    genbank_refused("description with a line break", "UPDATE sequences SET description = 'a' || char(10) || 'ORIGIN' WHERE id = ?", (gb,),
                    "its description", "control character")

    # And what it can hold comes back as it was: a long key whole, an unquoted qualifier with " /".
    con = sqlite3.connect(proj)
    con.execute(f"UPDATE features SET key = 'a_very_long_feature_key_of_40_characters', qualifiers = ? WHERE id = {first}",
                (json.dumps([["codon_start", "1 /note"], ["note", 'say "hi"']]),))
    con.commit()
    con.close()
    out = os.path.join(W, "ok.gb")
    p = cli("project", "export", proj, "--format", "genbank", "--sequence-id", str(gb), "--out", out)
    c.check(p.returncode == 0, f"genbank export: {p.stderr[-300:]}")
    back2 = os.path.join(W, "back2.carbon")
    if os.path.exists(back2):
        os.remove(back2)
    p = cli("project", "import", back2, "--genbank", out)
    c.check(p.returncode == 0, f"our import of our genbank export: {p.stderr[-300:]}")
    if p.returncode == 0:
        con = sqlite3.connect(back2)
        row = con.execute("SELECT key, qualifiers FROM features ORDER BY sequence_id, ord LIMIT 1").fetchone()
        con.close()
        c.check(row[0] == "a_very_long_feature_key_of_40_characters", f"the long key came back as {row[0]!r}")
        c.check(json.loads(row[1]) == [["codon_start", "1 /note"], ["note", 'say "hi"']], f"the qualifiers came back as {row[1]}")

    # GenBank of a design whose name holds a tab and a line break (set above): one record, the LOCUS
    # name one word, the DEFINITION escaped, both said; a region label with a line break escaped.
    con = sqlite3.connect(proj)
    design = con.execute("SELECT min(id) FROM designs").fetchone()[0]
    length = con.execute("SELECT length(bases) FROM designs WHERE id = ?", (design,)).fetchone()[0]
    con.execute("INSERT INTO regions(design_id, kind, start, \"end\", label) VALUES(?, 'annotation', 0, 3, 'a' || char(10) || 'ORIGIN')",
                (design,))
    con.commit()
    con.close()
    out = os.path.join(W, "design.gb")
    p = cli("project", "export", proj, "--format", "genbank", "--design", str(design), "--out", out)
    c.check(p.returncode == 0, f"design genbank export: {p.stderr[-300:]}")
    text = open(out).read() if os.path.exists(out) else ""
    c.check(text.startswith("LOCUS       tab_bed_x ") and text.count("\nORIGIN") == 1 and text.count("//") == 1,
            f"design genbank export: not one record with a one-word LOCUS name: {text[:200]!r}")
    c.check("Carbon Studio design tab\\tbed\\nx (run" in text and 'a\\nORIGIN"' in text, "design genbank export: the name or label not escaped")
    c.check("LOCUS name is one word, so it was written 'tab_bed_x'" in p.stderr and "region label holds control characters" in p.stderr,
            f"design genbank export: the changes not said: {p.stderr[-400:]}")
    # A region that no longer fits the design: refused, nothing written.
    con = sqlite3.connect(proj)
    con.execute("UPDATE regions SET \"end\" = ? WHERE design_id = ?", (length + 5, design))
    con.commit()
    con.close()
    os.remove(out)
    p = cli("project", "export", proj, "--format", "genbank", "--design", str(design), "--out", out)
    c.check(p.returncode not in (0, None) and f"does not fit its {length} bases" in p.stderr and not os.path.exists(out),
            f"design genbank export of a region past the design: {p.returncode} {p.stderr[-300:]}")

    # GenBank of a sequence whose name has blanks: written with '_' in its LOCUS name, and said so.
    con = sqlite3.connect(proj)
    con.execute("UPDATE sequences SET name = 'my promoter v2' WHERE id = ?", (gb,))
    con.commit()
    con.close()
    out = os.path.join(W, "blanks.gb")
    p = cli("project", "export", proj, "--format", "genbank", "--sequence-id", str(gb), "--out", out)
    c.check(p.returncode == 0 and open(out).read().startswith("LOCUS       my_promoter_v2 "), f"genbank export of a name with blanks: {p.stderr[-300:]}")
    c.check("'my promoter v2': a LOCUS name is one word, so it was written 'my_promoter_v2'" in p.stderr,
            f"genbank export of a name with blanks: the change not said: {p.stderr[-300:]}")
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
