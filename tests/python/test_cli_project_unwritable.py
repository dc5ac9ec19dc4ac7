#!/usr/bin/env python3
"""The project file's crash safety on a full disk and a read-only file (issue 15, proof): each
write stores everything or nothing and says which.
- A project on a 1 MiB tmpfs (mounted by the test; reported skipped where mounting is not
  permitted): an import larger than the free space fails with "the disk is full" and "nothing
  ... stored", the file keeps its checksum and still opens; a generate whose run does not fit is
  kept whole in a recovery project in the temporary folder (the project's folder is full too),
  from which it is stored once there is room again.
- A read-only project (run as 'nobody' when the test is root): generate --project is refused
  before any work, and the file keeps its checksum."""
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from carbon_testlib import SKIP, Checks, as_nobody, bin_path, open_dir, run, run_limited, sha256, work_dir  # noqa: E402

CLI = bin_path("carbon-cli")
W = work_dir("cli_project_unwritable")


def counts(project):
    con = sqlite3.connect(f"file:{project}?mode=ro", uri=True)
    out = tuple(con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("sequences", "runs", "designs", "tracks"))
    ok = con.execute("PRAGMA integrity_check").fetchone()[0]
    con.close()
    return out, ok


def full_disk(c, model):
    disk = os.path.join(W, "disk")
    os.makedirs(disk, exist_ok=True)
    subprocess.run(["umount", disk], capture_output=True)
    m = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", disk], capture_output=True, text=True)
    if m.returncode != 0:
        print(f"SKIP (full disk): cannot mount a 1 MiB tmpfs here ({m.stderr.strip() or 'mount failed'})")
        return False
    try:
        project = os.path.join(disk, "p.carbon")
        small = os.path.join(W, "small.fa")
        with open(small, "w") as f:
            f.write(">small\nACGTACGTACGT\n")
        run([CLI, "project", "import", project, "--fasta", small])
        rng = random.Random(3)
        big = os.path.join(W, "big.fa")  # 2 MB of bases: more than the disk holds
        with open(big, "w") as f:
            f.write(">big\n" + "".join(rng.choice("ACGT") for _ in range(2_000_000)) + "\n")
        before, before_counts = sha256(project), counts(project)
        r = run_limited([CLI, "project", "import", project, "--fasta", big], timeout=60)
        c.check(r.returncode == 1 and "the disk is full" in r.stderr and "nothing of this import was stored" in r.stderr,
                f"import onto a full disk: exit {r.returncode}, {r.stderr.strip()!r}")
        c.check("disk I/O error" not in r.stderr, f"import onto a full disk says 'disk I/O error': {r.stderr.strip()!r}")
        c.check(sha256(project) == before, "the project changed after the failed import")
        c.check(counts(project) == before_counts and before_counts[1] == "ok",
                f"the project's rows or integrity changed: {counts(project)} vs {before_counts}")
        r = run_limited([CLI, "project", "list", project])
        c.check(r.returncode == 0 and "small" in r.stdout, f"the project does not list after the full disk: {r.stderr}")

        # A run that does not fit: kept whole in the temporary folder, then stored once there is room.
        filler = os.path.join(disk, "filler")
        free = shutil.disk_usage(disk).free
        with open(filler, "wb") as f:
            f.write(b"\0" * max(0, free - 64 * 1024))
        out = os.path.join(W, "designs.fa")
        r = run_limited([CLI, "generate", "--model", model, "--length", "2000", "--count", "4", "--seed", "2", "--out", out,
                         "--project", project, "--quiet"], timeout=300, mem_mb=4096)
        c.check(r.returncode == 1 and f"could not store the run in {project}" in r.stderr and "the disk is full" in r.stderr,
                f"generate onto a full disk: exit {r.returncode}, {r.stderr.strip()!r}")
        c.check(f"nothing of it is in {project}" in r.stderr, "generate does not say that nothing was stored")
        m = re.search(r"It is kept whole in (\S+);", r.stderr)
        c.check(m is not None and m and os.path.dirname(m.group(1)) != disk, "the run is not kept outside the full disk: " + r.stderr)
        c.check(counts(project) == before_counts, "part of the run reached the full disk")
        os.remove(filler)
        if m:
            r = run_limited([CLI, "project", "import", project, "--recover", m.group(1)], timeout=60)
            c.check(r.returncode == 0 and "4 design(s)" in r.stderr, f"--recover after freeing space: {r.stderr}")
            con = sqlite3.connect(project)
            stored = sorted(b for (b,) in con.execute("SELECT bases FROM designs"))
            con.close()
            printed = sorted("".join(block.split("\n")[1:]) for block in open(out).read().split(">")[1:])
            c.check(stored == printed, "the recovered designs are not the ones generate printed")
    finally:
        subprocess.run(["umount", disk], capture_output=True)
    return True


def read_only(c, model):
    prefix = as_nobody(probe=[CLI, "--help"])
    if prefix is None:
        print("SKIP (read-only file): as root, without setpriv or a build tree that user nobody can run, permissions cannot be tested")
        return False
    shared = open_dir("unwritable")  # reachable by nobody wherever the build tree is
    project = os.path.join(shared, "ro.carbon")
    small = os.path.join(W, "small.fa")
    run([CLI, "project", "import", project, "--fasta", small])
    os.chmod(project, 0o444)
    before = sha256(project)
    out = os.path.join(shared, "ro_out")
    os.makedirs(out)
    os.chmod(out, 0o777)
    r = run_limited(prefix + [CLI, "generate", "--model", os.path.join(W, "no-model"), "--length", "12",
                              "--out", os.path.join(out, "g.fa"), "--project", project], timeout=60)
    c.check(r.returncode == 1 and "cannot be written" in r.stderr and "nothing was written" in r.stderr,
            f"generate onto a read-only project: exit {r.returncode}, {r.stderr.strip()!r}")
    c.check("no-model" not in r.stderr, "the read-only project was not refused before the work")
    c.check(sha256(project) == before, "the read-only project changed")
    shutil.rmtree(shared)
    return True


def main():
    c = Checks()
    model = os.path.join(W, "tiny")
    if not os.path.exists(os.path.join(model, "config.json")):
        run([CLI, "make-test-model", "--out", model, "--seed", "5"])
    ran = [full_disk(c, model), read_only(c, model)]
    if not any(ran):
        print("SKIP: neither a tmpfs nor another user is available here")
        return SKIP
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
