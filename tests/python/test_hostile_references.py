#!/usr/bin/env python3
"""Issue 31, class 2: a lying or stale index, duplicate contigs, positions past a contig or past
2^31, malformed regions. Each case of the corpus runs `carbon-cli vep` and expects either the
rows of the same run on a plain FASTA with no index (the lying index is not used: a note says
why, and the user's index is left byte-identical) or a refusal naming the file, the line where
there is one, and the reason. No case may hang or exit 0 with other rows."""
import os
import random
import shutil
import subprocess
import sys

from carbon_testlib import bin_path, check, FAILURES, run, run_limited, tiny_model, work_dir


CONTIGS = None


def fasta_text(contigs, width=60, eol="\n"):
    out = []
    for name, seq in contigs:
        out.append(f">{name} test{eol}")
        out.extend(seq[i:i + width] + eol for i in range(0, len(seq), width))
    return "".join(out)


def fai_lines(contigs, width=60, eol=1):
    """The .fai samtools writes for fasta_text(contigs, width): [name, len, offset, bases, bytes]."""
    at, out = 0, []
    for name, seq in contigs:
        at += len(name) + 7 + eol - 1  # ">" NAME " test" EOL
        out.append([name, len(seq), at, width, width + eol])
        at += (len(seq) + width - 1) // width * eol + len(seq)
    return out


def fai_text(lines):
    return "".join("\t".join(map(str, l)) + "\n" for l in lines)


def body(path):
    with open(path) as f:
        return [l for l in f.read().split("\n") if l and not l.startswith("##")]


def vcf_index_cases(d, vcf, vep, ref, good, want):
    """Each lying .tbi beside the bgzipped VCF of `good`: rows as `want`, a note, the index kept."""
    def bgzipped(name, records):
        plain = vcf(name, records)
        with open(plain + ".gz", "wb") as f:
            subprocess.run(["bgzip", "-c", plain], stdout=f, check=True)
        return plain + ".gz"

    def tabix(path):
        subprocess.run(["tabix", "-f", "-p", "vcf", path], check=True)
        with open(path + ".tbi", "rb") as f:
            return f.read()

    data = bgzipped("indexed.vcf", good)
    regions = ["--regions", "chr1,chr2,chrM"]
    true_index = tabix(data)
    out = os.path.join(d, "indexed.tsv")
    p = vep(ref, data, out, *regions)
    check(p.returncode == 0 and body(out) == want and "does not describe" not in p.stderr,
          f"VCF with its true index: {p.returncode} {p.stderr[-300:]}")
    lies = {
        "another file's": tabix(bgzipped("other.vcf", good[:2] + [("chr1", 700, "A", "C")] + good[2:])),
        "from before records were added": tabix(bgzipped("before.vcf", good[:4])),
        "garbage": bytes(range(256)) * 4,
        "cut short": true_index[:len(true_index) // 2],
    }
    for name, index in list(lies.items()) + [("older than the file", true_index)]:
        with open(data + ".tbi", "wb") as f:
            f.write(index)
        st = os.stat(data)
        later = st.st_mtime + (-3600 if name == "older than the file" else 3600)
        os.utime(data + ".tbi", (later, later))
        p = vep(ref, data, out, *regions)
        label = f".tbi {name}"
        check(p.returncode == 0, f"{label}: exit {p.returncode}: {p.stderr[-400:]}")
        check(p.returncode != 0 or body(out) == want, f"{label}: rows differ from the file's")
        check("indexed.vcf.gz.tbi does not describe" in p.stderr, f"{label}: no note on the index: {p.stderr[-300:]}")
        with open(data + ".tbi", "rb") as f:
            check(f.read() == index, f"{label}: the user's index was changed")
    return 1 + len(lies) + 1


def main():
    for tool in ("bgzip", "samtools", "tabix"):
        if not shutil.which(tool):
            print(f"FAIL: {tool} is not installed (tests/setup-test-deps.sh installs it)", file=sys.stderr)
            return 1
    cli = bin_path("carbon-cli")
    d = work_dir("hostile-references")
    model = tiny_model(d)
    rng = random.Random(31)
    contigs = [("chr1", "".join(rng.choice("ACGT") for _ in range(1000))),
               ("chr2", "".join(rng.choice("ACGT") for _ in range(300))),
               ("chrM", "".join(rng.choice("ACGT") for _ in range(70)))]
    seqs = dict(contigs)
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(d, "cache"))

    def vcf(name, records):
        path = os.path.join(d, name)
        with open(path, "w") as f:
            f.write("##fileformat=VCFv4.2\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n")
            for c, p, ref, alt in records:
                f.write(f"{c}\t{p}\t.\t{ref}\t{alt}\t.\t.\t.\n")
        return path

    def other(b):
        return "C" if b != "C" else "G"

    good = [(c, p, seqs[c][p - 1], other(seqs[c][p - 1])) for c, p in
            [("chr1", 3), ("chr1", 500), ("chr1", 999), ("chr2", 61), ("chr2", 300), ("chrM", 35)]]
    vcf_good = vcf("good.vcf", good)

    def vep(ref, vcf_path, out, *extra):
        for stale in (out, out + ".partial"):
            if os.path.exists(stale):
                os.remove(stale)
        return run_limited([cli, "vep", "--model", model, "--reference", ref, "--vcf", vcf_path, "--out", out,
                            "--window", "96", "--quiet", *extra], timeout=120, mem_mb=4096, env=env)

    # The rows every lying-index case must give: the plain FASTA with no index of its own.
    base = os.path.join(d, "base")
    os.makedirs(base, exist_ok=True)
    with open(os.path.join(base, "ref.fa"), "w") as f:
        f.write(fasta_text(contigs))
    want_out = os.path.join(base, "want.tsv")
    p = vep(os.path.join(base, "ref.fa"), vcf_good, want_out)
    check(p.returncode == 0, f"baseline vep failed: {p.stderr}")
    want = body(want_out)
    check(len(want) == 1 + len(good), f"baseline has {len(want)} lines")
    check(not os.path.exists(os.path.join(base, "ref.fa.fai")), "an index was written beside the user's FASTA")

    t = fai_lines(contigs)
    lies = {
        "length one more": lambda l: l[1].__setitem__(1, l[1][1] + 1),
        "length one less": lambda l: l[0].__setitem__(1, l[0][1] - 1),
        "length a line less": lambda l: l[0].__setitem__(1, l[0][1] - 60),
        "offset one on": lambda l: l[1].__setitem__(2, l[1][2] + 1),
        "offset one back": lambda l: l[2].__setitem__(2, l[2][2] - 1),
        "line width": lambda l: l[0].__setitem__(4, 62),
        "line bases and width": lambda l: (l[0].__setitem__(3, 61), l[0].__setitem__(4, 62)),
        "names swapped": lambda l: (l[0].__setitem__(0, "chr2"), l[1].__setitem__(0, "chr1")),
        "a contig left out": lambda l: l.pop(1),
        "a contig added": lambda l: l.append(["chr9", 50, l[-1][2] + 200, 60, 61]),
    }
    cases = {name: (lambda edit: (lambda: (lambda l: (edit(l), l)[1])([list(x) for x in t])))(edit) for name, edit in lies.items()}
    cases["wrapped at 70"] = lambda: fai_lines(contigs, width=70)
    cases["CRLF layout"] = lambda: fai_lines(contigs, eol=2)
    for compressed in (False, True):
        for name, make in cases.items():
            case = os.path.join(d, "lie-" + name.replace(" ", "-") + ("-bgzf" if compressed else ""))
            shutil.rmtree(case, ignore_errors=True)
            os.makedirs(case)
            fa = os.path.join(case, "ref.fa")
            with open(fa, "w") as f:
                f.write(fasta_text(contigs))
            if compressed:
                subprocess.run(["bgzip", "-i", fa], check=True)  # ref.fa.gz and its true ref.fa.gz.gzi
                fa += ".gz"
            fai = fa + ".fai"
            text = fai_text(make())
            with open(fai, "w") as f:
                f.write(text)
            st = os.stat(fa)
            for idx in (fai, fa + ".gzi"):
                if os.path.exists(idx):
                    os.utime(idx, (st.st_mtime + 3600, st.st_mtime + 3600))
            out = os.path.join(case, "out.tsv")
            p = vep(fa, vcf_good, out)
            label = f"{name}{' (bgzip)' if compressed else ''}"
            check(p.returncode == 0, f"{label}: exit {p.returncode}: {p.stderr[-400:]}")
            check(p.returncode != 0 or body(out) == want, f"{label}: rows differ from the plain FASTA's")
            check("ref.fa" in p.stderr and "does not describe" in p.stderr, f"{label}: no note on the index: {p.stderr[-300:]}")
            with open(fai) as f:
                check(f.read() == text, f"{label}: the user's index was changed")

    def refused(label, p, *needles):
        check(p.returncode not in (0, None), f"{label}: exit {p.returncode}, expected a refusal")
        for n in needles:
            check(n in p.stderr, f"{label}: the message lacks '{n}': {p.stderr[-400:]}")
        check("Traceback" not in p.stderr and "terminate called" not in p.stderr, f"{label}: crashed: {p.stderr[-300:]}")

    # Two contigs of one name: refused, with the line of the second.
    dup = os.path.join(d, "dup")
    os.makedirs(dup, exist_ok=True)
    with open(os.path.join(dup, "ref.fa"), "w") as f:
        f.write(fasta_text(contigs + [("chr2", seqs["chr2"])]))
    refused("duplicate contig", vep(os.path.join(dup, "ref.fa"), vcf_good, os.path.join(dup, "o.tsv")),
            "contig 'chr2' is named twice", "ref.fa:28 ")
    # Positions past the contig, past 2^31-1.
    ref = os.path.join(base, "ref.fa")
    past = vcf("past.vcf", good[:2] + [("chr2", 301, "A", "C")])
    refused("POS past the contig", vep(ref, past, os.path.join(d, "o.tsv")), "past.vcf:5: POS 301 is past the end of chr2",
            "300 bp in", "another assembly")
    huge = vcf("huge.vcf", [("chr1", 2147483648, "A", "C")])
    refused("POS past 2^31-1", vep(ref, huge, os.path.join(d, "o.tsv")), "huge.vcf:3:", "2147483648 is past 2^31-1")
    # Malformed or impossible regions: refused before anything is scored (no output, no partial).
    for regions, needles in [
        ("chr1:1000-2000x", ["region 'chr1:1000-2000x'", "no contig named 'chr1:1000-2000x'"]),
        ("chr9", ["no contig named 'chr9'"]),
        ("chr2:5000-6000", ["region 'chr2:5000-6000' starts at 5000, past the end of chr2 (300 bp"]),
        ("chr1:0-5", ["positions start at 1"]),
        ("chr1:50-3", ["FROM is after TO"]),
        ("chr1:3000000000", ["past 2^31-1"]),
        ("chr1,,chr2", ["it is empty"]),
        ("chr1:-5", ["is not a position"]),
        ("{chr1:5-9", ["'{' without '}'"]),
    ]:
        out = os.path.join(d, "regions.tsv")
        p = vep(ref, vcf_good, out, "--regions", regions)
        refused(f"--regions {regions}", p, *needles)
        check(not os.path.exists(out) and not os.path.exists(out + ".partial"), f"--regions {regions}: output left behind")
    # And a good region still works, through the same checks.
    out = os.path.join(d, "regions.tsv")
    p = vep(ref, vcf_good, out, "--regions", "chr2,chrM:1-70")
    check(p.returncode == 0 and body(out) == [want[0]] + [r for r in want[1:] if r.split("\t")[0] in ("chr2", "chrM")],
          f"--regions chr2,chrM:1-70: {p.stderr[-300:]}")

    # The VCF's index: a .tbi that is not the file's (another file's, one from before records were
    # added, garbage, older than the file) gives the rows the file holds, through an index built
    # in the cache, with a note; the user's index stays byte-identical.
    vcf_cases = vcf_index_cases(d, vcf, vep, ref, good, want)

    n_cases = 2 * len(cases) + 3 + 10 + vcf_cases
    print(f"{n_cases - len(FAILURES)} of {n_cases} cases as expected" if not FAILURES else f"{len(FAILURES)} failures")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
