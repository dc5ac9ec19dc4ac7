#!/usr/bin/env python3
"""Every carbon-cli command that writes a file the user names (generate --out, score --tracks,
ism --out, project export --out, bench --json) goes through one helper: a device node is written
in place and is still the same device afterwards (the test makes its own with mknod, in its own
folder; never the machine's /dev), a FIFO is written in place, '-' is standard output, a folder
is refused before any work, and a failure leaves no '.partial' debris and the old file as it was."""
import os
import stat
import subprocess
import threading

from carbon_testlib import bin_path, run, work_dir

FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)


def is_device(path, major, minor):
    st = os.lstat(path)
    return stat.S_ISCHR(st.st_mode) and os.major(st.st_rdev) == major and os.minor(st.st_rdev) == minor


def main():
    cli = bin_path("carbon-cli")
    d = work_dir("cli-output-targets")
    model = os.path.join(d, "tiny")
    if not os.path.exists(os.path.join(model, "config.json")):
        run([cli, "make-test-model", "--out", model, "--seed", "5"])
    fasta = os.path.join(d, "in.fa")
    with open(fasta, "w") as f:
        f.write(">s1\nACGTACGGTACCATGCATGCAAATTTGGGCCCATGCATCGATCGAT\n")
    project = os.path.join(d, "p.carbon")
    if os.path.exists(project):
        os.remove(project)
    has_storage = "built without SQLite" not in subprocess.run(
        [cli, "project", "list", project], capture_output=True, text=True).stderr
    if has_storage:
        run([cli, "project", "import", project, "--fasta", fasta])
        run([cli, "generate", "--model", model, "--length", "12", "--count", "2", "--seed", "1", "--out",
             os.path.join(d, "g.fa"), "--project", project, "--quiet"])

    gen = [cli, "generate", "--model", model, "--length", "12", "--count", "2", "--seed", "1", "--quiet", "--out"]
    writers = {
        "generate --out": lambda out: gen + [out],
        "score --tracks": lambda out: [cli, "score", "--model", model, "--in", fasta, "--tracks", out, "--quiet"],
        "ism --out": lambda out: [cli, "ism", "--model", model, "--in", fasta, "--region", "3-5", "--out", out, "--quiet"],
        "bench --json": lambda out: [cli, "bench", "--model", model, "--threads", "1", "--batches", "1",
                                     "--prompt-tokens", "12", "--decode-tokens", "2", "--json", out],
    }
    if has_storage:
        writers["project export --out"] = lambda out: [cli, "project", "export", project, "--format", "fasta", "--out", out]

    # Device nodes of our own: /dev/null's numbers (1,3) and /dev/full's (1,7).
    null, full = os.path.join(d, "null"), os.path.join(d, "full")
    for p in (null, full):
        if os.path.lexists(p):
            os.remove(p)
    try:
        os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        os.mknod(full, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
        devices = True
    except PermissionError as e:
        print(f"SKIP (device cases): mknod is not permitted here ({e}); FIFO, folder and regular-file cases still run")
        devices = False

    for name, cmd in writers.items():
        if devices:
            p = subprocess.run(cmd(null), capture_output=True, text=True, timeout=600)
            check(p.returncode == 0, f"{name} onto a null device failed: {p.stderr}")
            check(is_device(null, 1, 3), f"{name} replaced the null device node")
            p = subprocess.run(cmd(full), capture_output=True, text=True, timeout=600)
            check(p.returncode == 1 and "No space left on device" in p.stderr and full in p.stderr,
                  f"{name} onto a full device: exit {p.returncode}, message {p.stderr!r}")
            check(is_device(full, 1, 7), f"{name} replaced the full device node")
        # A folder is refused up front, naming it; no DIR.partial appears.
        folder = os.path.join(d, "a-folder")
        os.makedirs(folder, exist_ok=True)
        p = subprocess.run(cmd(folder), capture_output=True, text=True, timeout=600)
        check(p.returncode == 1 and "is a folder" in p.stderr and folder in p.stderr,
              f"{name} onto a folder: exit {p.returncode}, message {p.stderr!r}")
        # A FIFO is written in place; a reader gets the whole output.
        fifo = os.path.join(d, "pipe")
        if os.path.lexists(fifo):
            os.remove(fifo)
        os.mkfifo(fifo)
        got = []
        reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()))
        reader.start()
        p = subprocess.run(cmd(fifo), capture_output=True, text=True, timeout=600)
        reader.join(timeout=60)
        check(p.returncode == 0 and got and len(got[0]) > 0, f"{name} into a FIFO: exit {p.returncode}, {p.stderr!r}")
        check(stat.S_ISFIFO(os.lstat(fifo).st_mode), f"{name} replaced the FIFO")
        # A regular file already there is replaced whole, and a failing run keeps it.
        reg = os.path.join(d, "out.txt")
        with open(reg, "w") as f:
            f.write("previous\n")
        p = subprocess.run(cmd(reg), capture_output=True, text=True, timeout=600)
        check(p.returncode == 0 and open(reg).read() != "previous\n", f"{name} onto a regular file: {p.stderr!r}")
    # '-' is standard output.
    p = subprocess.run(gen + ["-"], capture_output=True, text=True, timeout=600)
    check(p.returncode == 0 and p.stdout.startswith(">design_"), f"generate --out -: {p.stdout[:80]!r} {p.stderr!r}")
    # A failed run (a model folder that does not exist) leaves the old file and no debris.
    reg = os.path.join(d, "kept.fa")
    with open(reg, "w") as f:
        f.write("keep me\n")
    p = subprocess.run([cli, "generate", "--model", os.path.join(d, "no-model"), "--length", "6", "--out", reg],
                       capture_output=True, text=True)
    check(p.returncode == 1 and open(reg).read() == "keep me\n", "a failed generate changed the output file")
    debris = [n for n in os.listdir(d) if n.endswith(".partial")] + \
             [n for n in os.listdir(os.path.join(d, "a-folder"))]
    check(not debris, f"debris left behind: {debris}")

    for f in FAILURES:
        print("FAIL:", f)
    print(f"{len(writers)} writers checked; {'1 passed, 0 failed' if not FAILURES else '0 passed, 1 failed'}")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    raise SystemExit(main())
