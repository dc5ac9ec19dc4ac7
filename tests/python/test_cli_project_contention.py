#!/usr/bin/env python3
"""Issue 15, class 8 with two real processes: `project import` streams a FASTA from a named pipe
and so holds the project's write transaction as long as the test wants (a long import), while
`generate --project` on the same project computes its designs and then
  1. waits, saying so on stderr, and stores its run once the import commits: both stored whole;
  2. with --project-wait 2, gives up, keeps the whole run in a recovery project beside it, says
     where and how to store it; nothing of it is in the project, and what the import stored is
     intact; `project import --recover` then stores exactly the designs the run printed, and
     removes the recovery file."""
import os
import re
import sqlite3
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from carbon_testlib import Checks, bin_path, fresh_project, run, work_dir  # noqa: E402

CLI = bin_path("carbon-cli")
W = work_dir("cli_project_contention")


def fresh(name):
    return fresh_project(W, name)


def content(project):
    """Every stored row of the tables that matter, read-only: the project's logical content."""
    con = sqlite3.connect(f"file:{project}?mode=ro", uri=True)
    out = {t: con.execute(f"SELECT * FROM {t} ORDER BY id").fetchall() for t in ("sequences", "runs", "designs", "variants")}
    out["tracks"] = con.execute("SELECT id, sequence_id, design_id, kind, length(data) FROM tracks ORDER BY id").fetchall()
    con.close()
    return out


def fasta_bases(path):
    recs, cur = [], None
    if not os.path.exists(path):
        return ["(no " + path + ")"]
    for line in open(path):
        if line.startswith(">"):
            cur = []
            recs.append(cur)
        else:
            cur.append(line.strip())
    return ["".join(r) for r in recs]


class Stderr:
    """Collects a process's stderr lines on a thread, so the test can wait for one."""

    def __init__(self, proc):
        self.lines = []
        self.t = threading.Thread(target=self._read, args=(proc,), daemon=True)
        self.t.start()

    def _read(self, proc):
        for line in proc.stderr:
            self.lines.append(line)

    def wait_for(self, text, seconds):
        end = time.time() + seconds
        while time.time() < end:
            if any(text in line for line in self.lines):
                return True
            time.sleep(0.05)
        return False

    def text(self):
        self.t.join(timeout=30)
        return "".join(self.lines)


def start_import(project, fifo):
    """A `project import` that holds the write transaction until the pipe is closed."""
    if os.path.exists(fifo):
        os.remove(fifo)
    os.mkfifo(fifo)
    imp = subprocess.Popen([CLI, "project", "import", project, "--fasta", fifo], stderr=subprocess.PIPE, text=True)
    # The pipe opens once the import, holding the write lock, opens it to read; an import that
    # fails first must fail the test, not hang it.
    end = time.time() + 60
    while True:
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            break
        except OSError:
            if imp.poll() is not None or time.time() > end:
                raise AssertionError("the long import never opened its pipe: " + imp.stderr.read())
            time.sleep(0.02)
    os.set_blocking(fd, True)
    pipe = os.fdopen(fd, "w")
    pipe.write(">long_import_1\n" + "ACGT" * 2500 + "\n")
    pipe.flush()
    return imp, pipe


def generate(model, out, project, wait_s):
    return subprocess.Popen([CLI, "generate", "--model", model, "--length", "60", "--count", "3", "--seed", "4", "--out", out,
                             "--project", project, "--project-wait", str(wait_s), "--quiet"], stderr=subprocess.PIPE, text=True)


def main():
    c = Checks()
    model = os.path.join(W, "tiny")
    if not os.path.exists(os.path.join(model, "config.json")):
        run([CLI, "make-test-model", "--out", model, "--seed", "5"])
    seed_fa = os.path.join(W, "seed.fa")
    with open(seed_fa, "w") as f:
        f.write(">already_there\nACGTTGCA\n")

    # 1. The generate waits for the import and then stores its run.
    project = fresh("waits.carbon")
    run([CLI, "project", "import", project, "--fasta", seed_fa])
    imp, pipe = start_import(project, os.path.join(W, "waits.fifo"))
    out = fresh("waits.fa")
    gen = generate(model, out, project, 60)
    gen_err = Stderr(gen)
    waited = gen_err.wait_for("waiting for another program writing to " + project, 120)
    c.check(waited, "generate did not say it was waiting for the import")
    pipe.write(">long_import_2\n" + "TTGCA" * 2000 + "\n")
    pipe.close()
    c.check(imp.wait(timeout=60) == 0, "the long import failed: " + imp.stderr.read())
    c.check(gen.wait(timeout=120) == 0, "generate failed after waiting: " + gen_err.text())
    c.check("stored run 1 with 3 design(s)" in gen_err.text(), "generate did not store its run: " + gen_err.text())
    rows = content(project)
    c.check([r[1] for r in rows["sequences"]] == ["already_there", "long_import_1", "long_import_2"],
            f"the import's sequences: {[r[1] for r in rows['sequences']]}")
    con = sqlite3.connect(project)
    c.check(sorted(b for (b,) in con.execute("SELECT bases FROM designs")) == sorted(fasta_bases(out)),
            "the stored designs are not the printed ones")
    con.close()

    # 2. A bounded wait: the run is kept whole in a recovery project and stored from it later.
    project = fresh("kept.carbon")
    run([CLI, "project", "import", project, "--fasta", seed_fa])
    before = content(project)
    imp, pipe = start_import(project, os.path.join(W, "kept.fifo"))
    out = fresh("kept.fa")
    t0 = time.time()
    gen = generate(model, out, project, 2)
    gen_err = Stderr(gen)
    rc = gen.wait(timeout=120)
    msg = gen_err.text()
    c.check(rc == 1, f"generate with a 2 s wait: exit status {rc}, expected 1")
    c.check(time.time() - t0 < 60, "generate did not give up within its wait")
    c.check("waiting for another program writing to" in msg, "no waiting message: " + msg)
    c.check(f"could not store the run in {project}" in msg and "did not finish within 2 s" in msg, "no clear failure: " + msg)
    c.check(f"nothing of it is in {project}" in msg, "the message does not say nothing was stored: " + msg)
    m = re.search(r"It is kept whole in (\S+); store it in the project later with:\n  carbon-cli project import (\S+) --recover (\S+)", msg)
    c.check(m is not None, "the message does not say where the run is kept: " + msg)
    pipe.write(">long_import_2\nACGT\n")
    pipe.close()
    c.check(imp.wait(timeout=60) == 0, "the long import failed: " + imp.stderr.read())
    after = content(project)
    c.check(after["sequences"][:1] == before["sequences"] and len(after["sequences"]) == 3, "the stored sequences changed")
    c.check(after["runs"] == [] and after["designs"] == [], "part of the failed run reached the project")
    if m:
        kept = m.group(1)
        c.check(os.path.dirname(kept) == W and os.path.exists(kept), f"the recovery project {kept} is not beside the project")
        r = subprocess.run([CLI, "project", "import", project, "--recover", kept], capture_output=True, text=True)
        c.check(r.returncode == 0 and "stored 1 run(s) (ids 1), 3 design(s)" in r.stderr, f"--recover: {r.returncode} {r.stderr}")
        c.check(not os.path.exists(kept), "the recovery file was not removed after storing it")
        con = sqlite3.connect(project)
        c.check(sorted(b for (b,) in con.execute("SELECT bases FROM designs")) == sorted(fasta_bases(out)),
                "the recovered designs are not the printed ones")
        c.check(con.execute("SELECT count(*) FROM tracks WHERE design_id IS NOT NULL").fetchone()[0] == 9,
                "the recovered designs lack their tracks")
        c.check(con.execute("SELECT status FROM runs").fetchall() == [("finished",)], "the recovered run is not finished")
        con.close()
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
