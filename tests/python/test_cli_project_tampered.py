#!/usr/bin/env python3
"""Issue 31, class 1 through carbon-cli: a project file is a document people send each other, so
its schema is untrusted. A real project (sequences, a GenBank entry with features, a generation
run) is tampered with as a hostile sender would (a trigger that deletes every sequence when a run
is stored, a trigger that copies rows away, a view standing in for a table, an extra column, an
extra table, an extra index, a negative user_version, a user_version that lies about the schema)
and every command that opens a project (`project list`, `project export`, `project import`,
`project import NEW --recover FILE`, `generate --project`, `vep --project`) refuses it with the
reason, exit status 1, and leaves the file byte for byte as it was (no -wal or -shm beside it).
The untampered copy still works, so the refusals are the tampering's. Every input is made here."""
import os
import random
import shutil
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(__file__))
from carbon_testlib import Checks, bin_path, run, run_limited, sha256, work_dir  # noqa: E402

CLI = bin_path("carbon-cli")
W = work_dir("cli_project_tampered")
DATA = os.path.join(os.path.dirname(__file__), "..", "storage", "data", "flatfile", "reporter_construct.gb")

TAMPERS = [
    ("trigger-delete", "CREATE TRIGGER wipe AFTER INSERT ON runs BEGIN DELETE FROM sequences; END;",
     "trigger 'wipe' on table 'runs'"),
    ("trigger-copy", "CREATE TABLE loot(x); CREATE TRIGGER copy AFTER INSERT ON designs BEGIN INSERT INTO loot VALUES(new.bases); END;",
     "trigger 'copy' on table 'designs'"),
    ("view-for-table",
     "DROP TABLE regions; CREATE VIEW regions AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
     "SELECT x AS id, 1 AS sequence_id, NULL AS design_id, 'annotation' AS kind, 0 AS start, 1 AS \"end\", '' AS template, "
     "'' AS label FROM c;",
     "its 'regions' is a view where a project of schema"),
    ("extra-column", "ALTER TABLE sequences ADD COLUMN notes TEXT;", "its table 'sequences' is defined as '...L DEFAULT '{}' CHECK(json_valid(header)),notes TEXT)'"),
    ("extra-index", "CREATE INDEX by_bases ON sequences(bases);", "index 'by_bases' on table 'sequences'"),
    ("negative-version", "PRAGMA user_version = -1;", "user_version"),
    ("lying-version", "PRAGMA user_version = 3;", "a project of schema 3"),
]


def make_project(path, model, fasta):
    for ext in ("", "-wal", "-shm"):
        if os.path.exists(path + ext):
            os.remove(path + ext)
    run([CLI, "project", "import", path, "--fasta", fasta, "--genbank", DATA])
    run([CLI, "generate", "--model", model, "--length", "12", "--count", "2", "--seed", "1", "--out", os.path.join(W, "d.fa"),
         "--project", path, "--quiet"])
    # One file, no -wal beside it: what a person sends.
    con = sqlite3.connect(path)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.execute("PRAGMA journal_mode=DELETE")
    con.close()


def tamper(src, name, sql):
    dst = os.path.join(W, name + ".carbon")
    for ext in ("", "-wal", "-shm", "-journal"):
        if os.path.exists(dst + ext):
            os.remove(dst + ext)
    shutil.copyfile(src, dst)
    con = sqlite3.connect(dst)
    con.executescript(sql)
    con.commit()
    con.close()
    return dst


def main():
    c = Checks()
    model = os.path.join(W, "tiny")
    if not os.path.exists(os.path.join(model, "config.json")):
        run([CLI, "make-test-model", "--out", model, "--seed", "3"])
    rng = random.Random(31)
    ref = "".join(rng.choice("ACGT") for _ in range(1200))
    fasta = os.path.join(W, "ref.fa")
    with open(fasta, "w") as f:
        f.write(">chr1\n" + ref + "\n")
    vcf = os.path.join(W, "v.vcf")
    alt = "A" if ref[599] != "A" else "C"
    with open(vcf, "w") as f:
        f.write("##fileformat=VCFv4.2\n##contig=<ID=chr1,length=1200>\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n")
        f.write(f"chr1\t600\tv1\t{ref[599]}\t{alt}\t.\t.\t.\n")
    good = os.path.join(W, "good.carbon")
    make_project(good, model, fasta)

    def commands(p):
        fresh = os.path.join(W, "fresh.carbon")
        for ext in ("", "-wal", "-shm"):
            if os.path.exists(fresh + ext):
                os.remove(fresh + ext)
        return [
            ["project", "list", p],
            ["project", "export", p, "--format", "sequences", "--out", os.path.join(W, "out.fa")],
            ["project", "import", p, "--fasta", fasta],
            ["project", "import", fresh, "--recover", p],
            ["generate", "--model", model, "--length", "12", "--count", "1", "--seed", "2", "--out", os.path.join(W, "g.fa"),
             "--project", p, "--quiet"],
            ["vep", "--model", model, "--window", "120", "--reference", fasta, "--vcf", vcf, "--out", os.path.join(W, "v.tsv"),
             "--project", p, "--quiet"],
        ]

    # The untampered project: every command works (so a refusal below is the tampering's).
    for cmd in commands(tamper(good, "untampered", "")):
        r = run_limited([CLI] + cmd, timeout=120)
        c.check(r.returncode == 0, f"untampered: carbon-cli {' '.join(cmd[:2])}: exit {r.returncode}: {r.stderr.strip()[-300:]}")

    for name, sql, what in TAMPERS:
        p = tamper(good, name, sql)
        before = sha256(p)
        for cmd in commands(p):
            if cmd[1] == "import" and cmd[3] == "--recover":
                label = f"{name}: carbon-cli project import NEW --recover"
            else:
                label = f"{name}: carbon-cli {' '.join(cmd[:2])}"
            r = run_limited([CLI] + cmd, timeout=60)
            c.check(r.returncode == 1, f"{label}: exit status {r.returncode}, expected 1 ({r.stderr.strip()[-200:]})")
            c.check(p in r.stderr and what in r.stderr and "nothing was written" in r.stderr, f"{label}: message {r.stderr.strip()!r}")
            c.check(sha256(p) == before, f"{label}: the file changed")
            for ext in ("-wal", "-shm", "-journal"):
                c.check(not os.path.exists(p + ext), f"{label}: left {ext}")
        # The rows the trigger would have deleted are all there.
        con = sqlite3.connect(f"file:{p}?mode=ro", uri=True)
        if name.startswith("trigger"):
            c.check(con.execute("SELECT count(*) FROM sequences").fetchone()[0] == 2, f"{name}: sequences lost")
        con.close()
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
