#!/usr/bin/env python3
"""Issue 15, class 6 through carbon-cli: sequence names need not be unique in a project (a FASTA
may repeat one; `score --project` adds a sequence of the same name with other bases and says
which id it got), and no command picks one of several silently: `export --sequence NAME` and
`import --vcf --sequence NAME` refuse an ambiguous name, listing every candidate with its id,
and store nothing; `--sequence-id ID` takes the one meant."""
import os
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(__file__))
from carbon_testlib import Checks, bin_path, fresh_project, run, run_limited, sha256, work_dir, write_file  # noqa: E402

CLI = bin_path("carbon-cli")
W = work_dir("cli_project_names")


def fresh(name):
    return fresh_project(W, name)


def write(name, data):
    return write_file(W, name, data)


def main():
    c = Checks()
    project = fresh("names.carbon")
    fa = write("dup.fa", ">chr1 first\nACGTACGTAC\n>chr1 second\nTTTTGGGGCC\n")
    run([CLI, "project", "import", project, "--fasta", fa])
    vcf = write("panel.vcf", "##fileformat=VCFv4.2\n#CHROM\tPOS\tID\tREF\tALT\nchr1\t1\trs1\tT\tC\n")

    before = sha256(project)
    r = run_limited([CLI, "project", "import", project, "--vcf", vcf, "--sequence", "chr1"])
    c.check(r.returncode == 1, f"ambiguous --sequence on import: exit {r.returncode}")
    for part in ("2 sequences are named 'chr1'", "id 1 (10 bp, from dup.fa:1)", "id 2 (10 bp, from dup.fa:3)", "--sequence-id ID",
                 "nothing of this import was stored"):
        c.check(part in r.stderr, f"import message lacks {part!r}: {r.stderr.strip()!r}")
    c.check(sha256(project) == before, "the ambiguous import changed the project")

    out = fresh("variants.tsv")
    r = run_limited([CLI, "project", "export", project, "--format", "vcf-results", "--sequence", "chr1", "--out", out])
    c.check(r.returncode == 1 and "2 sequences are named 'chr1'" in r.stderr and "id 2" in r.stderr,
            f"ambiguous --sequence on export: {r.returncode} {r.stderr.strip()!r}")
    c.check(not os.path.exists(out), "the ambiguous export left a file")

    r = run_limited([CLI, "project", "import", project, "--vcf", vcf, "--sequence-id", "2"])
    c.check(r.returncode == 0 and "1 SNV(s) imported, 0 record(s) skipped (sequence 'chr1', id 2)" in r.stderr, f"import by id: {r.returncode} {r.stderr}")
    con = sqlite3.connect(project)
    c.check(con.execute("SELECT sequence_id, position, ref, alt FROM variants").fetchall() == [(2, 0, "T", "C")],
            "the variant is not on sequence 2")
    con.close()
    r = run_limited([CLI, "project", "export", project, "--format", "vcf-results", "--sequence-id", "2", "--out", out])
    c.check(r.returncode == 0 and open(out).read().splitlines()[1].startswith("chr1\t1\tT\tC\trs1"), f"export by id: {r.stderr}")
    r = run_limited([CLI, "project", "export", project, "--format", "vcf-results", "--sequence-id", "9", "--out", out])
    c.check(r.returncode == 1 and "no sequence with id 9" in r.stderr, f"export of a missing id: {r.stderr}")
    r = run_limited([CLI, "project", "export", project, "--format", "vcf-results", "--sequence", "chr1", "--sequence-id", "2",
                     "--out", out])
    c.check(r.returncode == 1 and "not both" in r.stderr, f"--sequence with --sequence-id: {r.stderr}")

    # score --project: the same name with other bases is added and its id said.
    model = os.path.join(W, "tiny")
    if not os.path.exists(os.path.join(model, "config.json")):
        run([CLI, "make-test-model", "--out", model, "--seed", "5"])
    other = write("other.fa", ">chr1\nGGGGCCCCAATT\n")
    r = run_limited([CLI, "score", "--model", model, "--in", other, "--project", project, "--quiet"], timeout=120, mem_mb=4096)
    c.check(r.returncode == 0, f"score --project: {r.returncode} {r.stderr}")
    c.check("already holds a sequence named 'chr1' with other bases (id 1, 2); this one is stored as id 3" in r.stderr,
            f"score --project does not say which id the new 'chr1' got: {r.stderr.strip()!r}")
    r = run_limited([CLI, "score", "--model", model, "--in", other, "--project", project, "--quiet"], timeout=120, mem_mb=4096)
    c.check(r.returncode == 0 and "already holds" not in r.stderr, f"the same sequence again is reused: {r.stderr.strip()!r}")
    con = sqlite3.connect(project)
    c.check(con.execute("SELECT count(*) FROM sequences WHERE name = 'chr1'").fetchone()[0] == 3, "expected three sequences named chr1")
    con.close()
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
