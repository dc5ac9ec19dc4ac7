#!/usr/bin/env python3
"""Issue 31, class 4: resumable output that trusts whatever is there. `carbon-cli vep --resume`
must verify OUT.partial before trusting it: every row is parsed and checked as `project import
--vep` checks a finished result (a changed row ends the resume with its file and line), long rows
(a 5,000-base REF) resume to the same bytes as an uninterrupted run, a partial output that is not
a regular file (a FIFO, a link, a folder) is refused without hanging, and a second run on the same
--out is refused up front while the first holds it (a lock), instead of racing it to the rename."""
import fcntl
import os
import random
import shutil
import sys

from carbon_testlib import Checks, bin_path, run, run_limited, tiny_model, work_dir

CLI = bin_path("carbon-cli")
W = work_dir("hostile_resume")


def main():
    c = Checks()
    model = tiny_model(W)
    rng = random.Random(4)
    seq = "".join(rng.choice("ACGT") for _ in range(9000))
    ref = os.path.join(W, "ref.fa")
    with open(ref, "w") as f:
        f.write(">chr1\n" + "".join(seq[i:i + 60] + "\n" for i in range(0, len(seq), 60)))
    other = lambda b: "C" if b != "C" else "G"  # noqa: E731
    recs = [(p, seq[p - 1], other(seq[p - 1])) for p in (100, 700, 1500, 2200)]
    recs.append((3000, seq[2999:8000], seq[2999]))  # a 5,001-base REF: a long row
    recs += [(p, seq[p - 1], other(seq[p - 1])) for p in (8100, 8500)]
    vcf = os.path.join(W, "v.vcf")
    with open(vcf, "w") as f:
        f.write("##fileformat=VCFv4.2\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n")
        for i, (p, r, a) in enumerate(recs):
            f.write(f"chr1\t{p}\tv{i}\t{r}\t{a}\t.\t.\t.\n")

    def vep(out, *extra, timeout=120):
        return run_limited([CLI, "vep", "--model", model, "--reference", ref, "--vcf", vcf, "--out", out, "--window", "96",
                            "--quiet", *extra], timeout=timeout, mem_mb=4096)

    full = os.path.join(W, "full.tsv")
    for stale in (full, full + ".partial"):
        if os.path.exists(stale):
            os.remove(stale)
    p = vep(full)
    c.check(p.returncode == 0, f"the uninterrupted run: {p.stderr[-300:]}")
    lines = open(full).read().split("\n")[:-1]
    header = [l for l in lines if l.startswith("#")]
    rows = [l for l in lines if not l.startswith("#")]
    c.check(len(rows) == len(recs) and max(len(r) for r in rows) > 5000, f"{len(rows)} rows, the longest {max(len(r) for r in rows)}")

    out = os.path.join(W, "out.tsv")
    partial = out + ".partial"

    def fresh(keep_rows, edit=None):
        for path in (out, partial):
            if os.path.islink(path) or os.path.isfile(path):
                os.remove(path)
            elif os.path.isdir(path):
                shutil.rmtree(path)
            elif os.path.exists(path):
                os.remove(path)
        body = list(rows[:keep_rows])
        if edit:
            edit(body)
        with open(partial, "w") as f:
            f.write("\n".join(header + body) + "\n")

    # A partial output that ends on the long row resumes to the uninterrupted bytes.
    fresh(5)
    p = vep(out, "--resume")
    c.check(p.returncode == 0 and open(out).read() == open(full).read(), f"resume after the 5,001-base row: {p.stderr[-300:]}")
    # Torn in the middle of the long row: cut off, rewritten, the same bytes.
    fresh(5, lambda b: b.__setitem__(4, b[4][:2500]))
    with open(partial, "rb+") as f:  # no line feed after the torn row
        f.truncate(os.path.getsize(partial) - 1)
    p = vep(out, "--resume")
    c.check(p.returncode == 0 and open(out).read() == open(full).read(), f"resume after a torn long row: {p.stderr[-300:]}")

    # Rows changed by hand: the resume ends with the file and line.
    n_head = len(header)
    for label, row_index, edit in [
        ("the last row's score", 2, lambda r: "\t".join(r.split("\t")[:9] + ["abc"] + r.split("\t")[10:])),
        ("a middle row's status", 1, lambda r: "\t".join(r.split("\t")[:5] + ["great"] + r.split("\t")[6:])),
        ("a row with a column missing", 0, lambda r: "\t".join(r.split("\t")[:-1])),
        ("a row's position", 2, lambda r: "\t".join(r.split("\t")[:1] + ["-5"] + r.split("\t")[2:])),
    ]:
        fresh(3, lambda b, i=row_index, e=edit: b.__setitem__(i, e(b[i])))
        before = open(partial).read()
        p = vep(out, "--resume")
        c.check(p.returncode not in (0, None), f"{label}: resumed (exit {p.returncode})")
        c.check(f"out.tsv.partial:{n_head + row_index + 1}:" in p.stderr and "remove" in p.stderr, f"{label}: {p.stderr[-300:]}")
        c.check(not os.path.exists(out) and open(partial).read() == before, f"{label}: the files changed")

    # A partial output that is not a regular file: refused at once, left as it is.
    for label, make in [("a FIFO", lambda: os.mkfifo(partial)), ("a folder", lambda: os.mkdir(partial)),
                        ("a link", lambda: os.symlink(full, partial))]:
        fresh(0)
        os.remove(partial)
        make()
        for extra in ([], ["--resume"]):
            p = vep(out, *extra, timeout=30)
            c.check(p.returncode not in (0, None), f"{label} {extra}: exit {p.returncode} {p.stderr[-200:]}")
            c.check("not a regular file" in p.stderr, f"{label} {extra}: {p.stderr[-300:]}")
        c.check(os.path.lexists(partial), f"{label}: removed")
    os.remove(partial) if os.path.islink(partial) else None

    # A second run on the same --out while the first holds it: refused up front, nothing touched.
    fresh(3)
    before = open(partial).read()
    with open(partial, "r+") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX)
        for extra in (["--resume"], []):
            p = vep(out, *extra)
            c.check(p.returncode not in (0, None) and "another run is writing" in p.stderr, f"locked {extra}: {p.stderr[-300:]}")
        fcntl.flock(holder, fcntl.LOCK_UN)
    c.check(open(partial).read() == before and not os.path.exists(out), "the held partial output changed")
    # A run that fails before writing leaves no partial output of its own behind.
    os.remove(partial)
    p = run_limited([CLI, "vep", "--model", os.path.join(W, "no-such-model"), "--reference", ref, "--vcf", vcf, "--out", out],
                    timeout=60)
    c.check(p.returncode not in (0, None) and not os.path.exists(partial), "a failed start left OUT.partial behind")
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
