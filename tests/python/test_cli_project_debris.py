#!/usr/bin/env python3
"""Issue 15, class 9 through carbon-cli: a command that fails leaves nothing behind. A failed
`project import` into a new file removes the project it created (with its -wal and -shm); into
an existing project it stores nothing of what it was given (a good FASTA with a bad VCF: neither)
and the file keeps its checksum; `--project` of generate and score creates the project only
when the results are stored, and a missing folder is refused before any work."""
import os
import sqlite3
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from carbon_testlib import Checks, bin_path, fresh_project, run, run_limited, sha256, work_dir, write_file  # noqa: E402

CLI = bin_path("carbon-cli")
W = work_dir("cli_project_debris")


def fresh(name):
    return fresh_project(W, name)


def write(name, data):
    return write_file(W, name, data)


def leftovers(p):
    return [p + ext for ext in ("", "-wal", "-shm", "-journal") if os.path.exists(p + ext)]


def main():
    c = Checks()
    good = write("good.fa", ">s1\nACGTACGTAC\n>s2\nGGGGCCCC\n")
    bad_fa = write("bad.fa", ">a\nAC1GT\n")
    bad_vcf = write("bad.vcf", "##fileformat=VCFv4.2\n#CHROM\tPOS\tID\tREF\tALT\ns1\tx12\t.\tA\tC\n")

    # New projects that a failing import must not leave behind.
    for label, args, message in [
        ("bad FASTA", ["--fasta", bad_fa], "bad.fa:2:3: digit '1'"),
        ("good FASTA, bad VCF", ["--fasta", good, "--vcf", bad_vcf, "--sequence", "s1"], "bad.vcf:3: POS 'x12'"),
        ("VCF on a sequence it does not have", ["--vcf", bad_vcf, "--sequence", "nope"], "no sequence named 'nope'"),
        ("a missing recovery file", ["--recover", os.path.join(W, "missing.carbon")], "missing.carbon: no such project file"),
    ]:
        p = fresh("new.carbon")
        r = run_limited([CLI, "project", "import", p] + args)
        c.check(r.returncode == 1 and message in r.stderr, f"{label}: exit {r.returncode}, {r.stderr.strip()!r}")
        c.check(leftovers(p) == [], f"{label}: left {leftovers(p)}")
        if "recovery" not in label:
            c.check("the new project " + p + " was removed" in r.stderr, f"{label}: does not say the new project was removed")

    # An existing project: a failing import stores nothing, the file keeps its checksum.
    p = fresh("existing.carbon")
    run([CLI, "project", "import", p, "--fasta", good])
    before = sha256(p)
    for label, args in [("bad FASTA", ["--fasta", bad_fa]), ("good FASTA, bad VCF", ["--fasta", good, "--vcf", bad_vcf, "--sequence", "s1"])]:
        r = run_limited([CLI, "project", "import", p] + args)
        c.check(r.returncode == 1 and "nothing of this import was stored in " + p in r.stderr, f"{label}: {r.stderr.strip()!r}")
        c.check(sha256(p) == before, f"{label}: the existing project changed")
        c.check(os.path.exists(p), f"{label}: the existing project was removed")
    con = sqlite3.connect(p)
    c.check(con.execute("SELECT count(*) FROM sequences").fetchone()[0] == 2, "the failed imports stored sequences")
    con.close()

    # --project: created only when results are stored; a wrong folder is refused before the work.
    p = fresh("never.carbon")
    for cmd in (["generate", "--model", os.path.join(W, "no-model"), "--length", "12", "--out", os.path.join(W, "g.fa"), "--project", p],
                ["score", "--model", os.path.join(W, "no-model"), "--in", good, "--project", p],
                ["score", "--model", os.path.join(W, "no-model"), "--in", bad_fa, "--project", p]):
        r = run_limited([CLI] + cmd)
        c.check(r.returncode == 1, f"{cmd[0]} with a failing input: exit {r.returncode}")
        c.check(leftovers(p) == [], f"{cmd[0]} with a failing input left {leftovers(p)}")
    t0 = time.time()
    r = run_limited([CLI, "generate", "--model", os.path.join(W, "no-model"), "--length", "12", "--out", os.path.join(W, "g.fa"),
                     "--project", os.path.join(W, "no-folder", "p.carbon")])
    c.check(r.returncode == 1 and "the folder" in r.stderr and "no-folder does not exist" in r.stderr,
            f"--project in a missing folder: {r.stderr.strip()!r}")
    c.check("no-model" not in r.stderr and time.time() - t0 < 10, "the missing folder was not refused before the model")
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
