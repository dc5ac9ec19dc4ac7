#!/usr/bin/env python3
"""Issue 15, classes 3 and 4 for the FASTA and VCF readers, through carbon-cli, each case under a
memory limit and a timeout: the one FASTA reader, as score/variant/ism --in use it, refuses classic Mac
line endings, a header without bases, NUL bytes and /dev/zero at once, with line and column,
never an exit 0 with an empty score; `project import` refuses a VCF line of 200 MB after at most
64 MiB in linear time, binary bytes in a VCF, /dev/zero, and a gzip bomb streamed through a pipe,
storing nothing (the project keeps its checksum). Large inputs stream from pipes: nothing big is
written to disk."""
import os
import sys
import threading
import time
import zlib

sys.path.insert(0, os.path.dirname(__file__))
from carbon_testlib import Checks, bin_path, run, run_limited, sha256, work_dir, write_file  # noqa: E402

CLI = bin_path("carbon-cli")
W = work_dir("cli_hostile_input")


def write(name, data):
    return write_file(W, name, data)


def gzip_member(data):
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    return z.compress(data) + z.flush()


def fifo_feeding(name, chunks):
    """A named pipe that a thread fills with `chunks` (an iterator of bytes) while the reader reads;
    a reader that stops early just ends the feeding."""
    p = os.path.join(W, name)
    if os.path.exists(p):
        os.remove(p)
    os.mkfifo(p)

    def feed():
        try:
            with open(p, "wb") as f:
                for chunk in chunks:
                    f.write(chunk)
        except (BrokenPipeError, OSError):
            pass

    threading.Thread(target=feed, daemon=True).start()
    return p


def main():
    c = Checks()
    no_model = os.path.join(W, "no-model")

    # The CLI's FASTA reader (score reads --in before the model: these fail on the file itself).
    cli_cases = [
        ("mac.fa", b">a\rACGTACGT\rACGT\r", "mac.fa:1:3: a carriage return inside the header (classic Mac line endings?)"),
        ("header_only.fa", b">onlyheader some words\n", "header_only.fa:1: record 'onlyheader' has no bases"),
        ("second_empty.fa", b">a\nACGT\n>b\n\n", "second_empty.fa:3: record 'b' has no bases"),
        ("nul.fa", b">a\nAC\0GT\n", "nul.fa:2:3: a NUL byte (0x00): this looks like a binary file"),
        ("ctl_header.fa", b">a\x01b\nACGT\n", "ctl_header.fa:1:3: control character 0x01 in the header"),
        ("endless.fa", b">" + b"n" * (2 << 20), "endless.fa:1: the header line is longer than 1 MiB"),
        ("before.fa", b"ACGT\n>a\nACGT\n", "before.fa:1:1: sequence before the first '>' header line"),
    ]
    for name, data, message in cli_cases:
        p = write(name, data)
        for cmd in (["score", "--model", no_model, "--in", p], ["variant", "--model", no_model, "--in", p, "--pos", "1", "--alt", "G"]):
            r = run_limited([CLI] + cmd, timeout=20, mem_mb=512)
            c.check(r.returncode == 1 and message in r.stderr, f"{cmd[0]} {name}: exit {r.returncode}, {r.stderr.strip()!r}")
    # (a reader that read on would hit the memory limit or the timeout: both fail the check)
    r = run_limited([CLI, "score", "--model", no_model, "--in", "/dev/zero"], timeout=20, mem_mb=512)
    c.check(r.returncode == 1 and "/dev/zero:1:1: not FASTA: expected a '>' header line, found a NUL byte" in r.stderr, f"score /dev/zero: {r.returncode} {r.stderr.strip()!r}")
    r = run_limited([CLI, "score", "--model", no_model, "--in", W], timeout=20, mem_mb=512)
    c.check(r.returncode == 1 and "is a folder, not a file" in r.stderr, f"score on a folder: {r.stderr.strip()!r}")
    # CRLF, a BOM, blank lines and a pipe are fine: the reader gets as far as the model.
    ok = write("ok.fa", b"\xef\xbb\xbf>a desc\r\nACGT\r\n\r\nacgtn\r\n")
    r = run_limited([CLI, "score", "--model", no_model, "--in", ok], timeout=20, mem_mb=512)
    c.check(r.returncode == 1 and "no-model" in r.stderr, f"a good FASTA was refused: {r.stderr.strip()!r}")
    model = os.path.join(W, "tiny")
    if not os.path.exists(os.path.join(model, "config.json")):
        run([CLI, "make-test-model", "--out", model, "--seed", "5"])
    r = run_limited([CLI, "score", "--model", model, "--in", ok], timeout=60, mem_mb=4096)
    c.check(r.returncode == 0 and r.stdout.splitlines()[1].startswith("a\t9\t"), f"score of a CRLF FASTA: {r.stdout!r} {r.stderr!r}")

    # The project importers (a carbon-cli built without SQLite has none).
    probe = run_limited([CLI, "project", "list", os.path.join(W, "none.carbon")])
    if "built without SQLite" in probe.stderr:
        print("SKIP (project import cases): this carbon-cli was built without SQLite project support")
        return c.done()
    project = os.path.join(W, "p.carbon")
    for ext in ("", "-wal", "-shm"):
        if os.path.exists(project + ext):
            os.remove(project + ext)
    run([CLI, "project", "import", project, "--fasta", write("s.fa", ">seq1\nACGTACGTACGT\n")])
    before = sha256(project)
    header = b"##fileformat=VCFv4.2\n"
    cols = b"#CHROM\tPOS\tID\tREF\tALT\n"
    big_line = fifo_feeding("long_line.vcf", [header, b"##x="] + [b"x" * (1 << 20)] * 200 + [b"\n", cols])
    nul_vcf = write("nul.vcf", header + cols + b"seq1\t2\t.\tC\0\tG\n")
    mac_vcf = write("mac.vcf", b"##fileformat=VCFv4.2\r#CHROM\tPOS\tID\tREF\tALT\rseq1\t2\t.\tC\tG\r")
    member = gzip_member(b"A" * (16 << 20))
    bomb = fifo_feeding("bomb.fa.gz", [gzip_member(b">bomb\n")] + [member] * 200)  # 3.2 GiB from 3.3 MB
    import_cases = [
        (["--vcf", big_line, "--sequence", "seq1"], "long_line.vcf:2:", "the line is longer than 64.0 MiB"),
        (["--vcf", nul_vcf, "--sequence", "seq1"], "nul.vcf:3:11: a NUL byte (0x00): this looks like a binary file, not VCF", ""),
        (["--vcf", mac_vcf, "--sequence", "seq1"], "mac.vcf:1:21: a carriage return not followed by a line feed", ""),
        (["--vcf", "/dev/zero", "--sequence", "seq1"], "/dev/zero:1:1: a NUL byte", ""),
        (["--fasta", "/dev/zero"], "/dev/zero:1:1:", "NUL byte"),
        (["--fasta", bomb], "bomb.fa.gz: the gzip data expands more than 200-fold", "decompression bomb"),
    ]
    # Each case runs under a memory limit and a timeout: a reader that buffers or hangs fails it.
    # The time taken is printed, not asserted (a loaded machine is no reason to fail).
    for args, message, more in import_cases:
        t0 = time.time()
        r = run_limited([CLI, "project", "import", project] + args, timeout=60, mem_mb=1536)
        took = time.time() - t0
        label = "import " + " ".join(os.path.basename(a) for a in args)
        c.check(r.returncode == 1 and message in r.stderr and more in r.stderr, f"{label}: exit {r.returncode}, {r.stderr.strip()!r}")
        c.check("nothing of this import was stored" in r.stderr, f"{label}: does not say that nothing was stored")
        c.check(sha256(project) == before, f"{label}: the project changed")
        print(f"ok   {label}: refused in {took:.2f} s")
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
