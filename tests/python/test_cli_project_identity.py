#!/usr/bin/env python3
"""Issue 15, class 5 through carbon-cli: `project list/import/export` and `score --project` on
SQLite files of other programs (plain, WAL, with their own application_id, with a `sequences`
table) fail with a clear message and leave the file byte for byte as it was, not switched to
WAL; a project of an earlier version (application_id 0) is listed without a write and adopted on
the first import; list and export work on a read-only file and in a read-only folder, where an
import says the file cannot be written and changes nothing. Every input is made here."""
import os
import shutil
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from carbon_testlib import Checks, as_nobody, bin_path, fresh_project, open_dir, run_limited, sha256, work_dir  # noqa: E402

CLI = bin_path("carbon-cli")
W = work_dir("cli_project_identity")
CRBN = 0x4352424E


def fresh(name):
    return fresh_project(W, name)


def foreign(name, setup):
    p = fresh(name)
    con = sqlite3.connect(p)
    con.executescript(setup)
    con.commit()
    con.close()
    return p


def header(path):
    with open(path, "rb") as f:
        return f.read(100)


def main():
    c = Checks()
    fasta = os.path.join(W, "one.fa")
    with open(fasta, "w") as f:
        f.write(">one\nACGTACGTACGT\n")

    cases = [
        ("contacts.db", "CREATE TABLE contacts(name TEXT); INSERT INTO contacts VALUES('Ada');", "tables: contacts"),
        ("wal.db", "PRAGMA journal_mode=WAL; CREATE TABLE notes(x); INSERT INTO notes VALUES(1);", "tables: notes"),
        ("appid.db", "PRAGMA application_id=1195459674; CREATE TABLE t(x);", "application_id 0x4741445A 'GADZ'"),
        ("sequences.db", "CREATE TABLE sequences(id INTEGER PRIMARY KEY, name TEXT, bases TEXT);", "tables: sequences"),
        ("sequences_v3.db", "CREATE TABLE sequences(id INTEGER PRIMARY KEY); PRAGMA user_version=3;", "not those of a project of schema 3"),
    ]
    for name, setup, what in cases:
        p = foreign(name, setup)
        before = sha256(p)
        mode_before = header(p)[18]
        commands = [
            ["project", "list", p],
            ["project", "import", p, "--fasta", fasta],
            ["project", "export", p, "--format", "sequences", "--out", os.path.join(W, "out.fa")],
            ["score", "--model", os.path.join(W, "no-model"), "--in", fasta, "--project", p],
        ]
        for cmd in commands:
            r = run_limited([CLI] + cmd, timeout=30)
            label = f"{name}: carbon-cli {' '.join(cmd[:2])}"
            c.check(r.returncode == 1, f"{label}: exit status {r.returncode}, expected 1")
            c.check("not a Carbon Studio project" in r.stderr and what in r.stderr and "nothing was written" in r.stderr,
                    f"{label}: message {r.stderr.strip()!r}")
            c.check(sha256(p) == before, f"{label}: the file changed")
            c.check(header(p)[18] == mode_before, f"{label}: the journal mode changed")
            for ext in ("-wal", "-shm", "-journal"):
                c.check(not os.path.exists(p + ext), f"{label}: left {p + ext}")

    # A project of an earlier version: application_id 0, schema 3, rollback journal.
    legacy = fresh("legacy.carbon")
    r = run_limited([CLI, "project", "import", legacy, "--fasta", fasta])
    c.check(r.returncode == 0, f"making the legacy project: {r.stderr}")
    con = sqlite3.connect(legacy)
    con.executescript("PRAGMA journal_mode=DELETE; PRAGMA application_id=0; DROP TABLE selection_designs; DROP TABLE selections; DROP TABLE constructs; DROP TABLE design_predictions; ALTER TABLE designs DROP COLUMN objective; DROP TABLE predictors; ALTER TABLE sequences DROP COLUMN header; DROP TABLE features; ALTER TABLE designs DROP COLUMN specificity; DROP TABLE vep_results; PRAGMA user_version=3;")
    con.close()
    before = sha256(legacy)
    r = run_limited([CLI, "project", "list", legacy])
    c.check(r.returncode == 0 and "one\t12 bp" in r.stdout, f"list of an earlier version's project: {r.returncode} {r.stderr}")
    c.check(sha256(legacy) == before and not os.path.exists(legacy + "-wal"), "list wrote to an earlier version's project")
    r = run_limited([CLI, "project", "export", legacy, "--format", "sequences", "--out", os.path.join(W, "legacy.fa")])
    c.check(r.returncode == 0 and sha256(legacy) == before, f"export of an earlier version's project: {r.stderr}")
    r = run_limited([CLI, "project", "import", legacy, "--fasta", fasta])
    c.check(r.returncode == 0, f"import into an earlier version's project: {r.stderr}")
    con = sqlite3.connect(legacy)
    c.check(con.execute("PRAGMA application_id").fetchone()[0] == CRBN, "the earlier project did not get the application_id")
    c.check(con.execute("SELECT count(*) FROM sequences").fetchone()[0] == 2, "the import into the earlier project is missing")
    con.close()

    # Read-only file and read-only folder: list and export read; import refuses and changes nothing.
    prefix = as_nobody(probe=[CLI, "--help"])
    if prefix is None:
        print("SKIP (read-only cases): as root, without setpriv or a build tree that user nobody can run, permissions cannot be tested")
    else:
        shared = open_dir("identity")  # reachable by nobody wherever the build tree is
        ro_dir = os.path.join(shared, "ro")
        os.makedirs(ro_dir)
        shutil.copy(fasta, shared)
        fasta = os.path.join(shared, os.path.basename(fasta))
        proj = os.path.join(ro_dir, "p.carbon")
        r = run_limited([CLI, "project", "import", proj, "--fasta", fasta])
        c.check(r.returncode == 0, f"making the read-only project: {r.stderr}")
        os.chmod(proj, 0o444)
        os.chmod(ro_dir, 0o555)
        out = os.path.join(shared, "ro_out")
        os.makedirs(out)
        os.chmod(out, 0o777)
        before = sha256(proj)
        for cmd in (["project", "list", proj], ["project", "export", proj, "--format", "sequences", "--out", os.path.join(out, "ro.fa")]):
            r = run_limited(prefix + [CLI] + cmd)
            c.check(r.returncode == 0, f"read-only {cmd[1]}: {r.returncode} {r.stderr.strip()}")
            c.check("readonly" not in r.stderr, f"read-only {cmd[1]}: {r.stderr.strip()}")
        r = run_limited(prefix + [CLI, "project", "import", proj, "--fasta", fasta])
        c.check(r.returncode == 1 and "cannot be written" in r.stderr and "nothing" in r.stderr,
                f"import into a read-only project: {r.returncode} {r.stderr.strip()}")
        c.check(sha256(proj) == before, "the read-only project changed")
        c.check(not os.path.exists(proj + "-wal"), "a -wal file appeared in the read-only folder")
        os.chmod(ro_dir, 0o755)
        # A project behind a folder this user may not enter is unreachable, not missing.
        locked = os.path.join(shared, "locked")
        os.makedirs(locked)
        shutil.copy(proj, locked)
        os.chmod(locked, 0o700)
        r = run_limited(prefix + [CLI, "project", "list", os.path.join(locked, "p.carbon")])
        c.check(r.returncode == 1 and "cannot be reached" in r.stderr and "Permission denied" in r.stderr,
                f"a project behind a closed folder: {r.returncode} {r.stderr.strip()}")
        shutil.rmtree(shared)
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
