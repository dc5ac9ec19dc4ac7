#!/usr/bin/env python3
"""Genome-browser exports (issue 33), each read back by the field's own readers:
- `project export --format bigwig` of a per-base track, read by pyBigWig (libBigWig's Python
  binding, written independently of our writer's use of it): the same chromosome, intervals and
  values as the bedGraph we write of the same track (to bedGraph's 7 digits), and its zoom levels
  giving the whole-chromosome mean;
- `--format bigwig --run ID` of a vep run (a tiny model over a two-contig reference and a VCF with
  multi-allelic records, a shared position, REF mismatches and a contig the reference lacks): the
  contigs and their lengths are the reference's faidx index (samtools faidx), one base at each
  scored position holding the row's value exactly as float32, the largest magnitude where rows
  share a position, nothing where a row is not scored; every --value;
- `--format igv`: valid XML (xml.etree) whose genome and resources, resolved against the
  session's folder, are existing files (the reference, the run's bigWig written beside it, the
  VCF, --tracks), openable by pyBigWig;
- bad input refused with the reason, and a file already at --out left as it was: a run scored
  against another reference, an unknown --value, a vep run that is not there, a resource that
  does not exist."""
import math
import os
import random
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET

from carbon_testlib import FAILURES, bin_path, check, fresh_project, require_modules, run, tiny_model, work_dir

require_modules("pyBigWig")
import pyBigWig  # noqa: E402

CLI = bin_path("carbon-cli")
W = work_dir("browser_tracks")


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def write_fasta(path, contigs, width=60):
    with open(path, "w") as f:
        for name, seq in contigs.items():
            f.write(f">{name}\n")
            for i in range(0, len(seq), width):
                f.write(seq[i:i + width] + "\n")


def vep_rows(path):
    head, out = None, []
    with open(path) as f:
        for line in f:
            if line.startswith("##"):
                continue
            fields = line.rstrip("\n").split("\t")
            if line.startswith("#"):
                head = [h.lstrip("#") for h in fields]
            else:
                out.append(dict(zip(head, fields)))
    return out


def bigwig_values(path):
    """{chrom: {pos: value}} and {chrom: length} of a bigWig, through pyBigWig."""
    bw = pyBigWig.open(path)
    check(bw is not None and bw.isBigWig(), f"{path} is not a bigWig pyBigWig opens")
    chroms = bw.chroms()
    vals = {}
    for c, n in chroms.items():
        for s, e, v in bw.intervals(c) or []:
            for p in range(s, e):
                vals.setdefault(c, {})[p] = v
    bw.close()
    return vals, chroms


def test_track(model):
    proj = fresh_project(W, "track.carbon")
    rng = random.Random(4)
    seq = "".join(rng.choice("ACGT") for _ in range(400)) + "NNNN" + "".join(rng.choice("ACGT") for _ in range(90))
    fa = os.path.join(W, "score.fa")
    write_fasta(fa, {"chrS": seq})
    run([CLI, "score", "--model", model, "--in", fa, "--project", proj, "--quiet"])
    for track, channel in (("logp", 0), ("dist_acgt", 2)):
        bg, bw = os.path.join(W, f"{track}.bedGraph"), os.path.join(W, f"{track}.bw")
        common = ["--sequence", "chrS", "--track", track, "--channel", str(channel)]
        run([CLI, "project", "export", proj, "--format", "bedgraph", "--out", bg] + common)
        run([CLI, "project", "export", proj, "--format", "bigwig", "--out", bw] + common)
        want = []
        with open(bg) as f:
            for line in f.read().splitlines()[1:]:
                c, s, e, v = line.split("\t")
                want.append((c, int(s), int(e), float(v)))
        b = pyBigWig.open(bw)
        check(b.chroms() == {"chrS": len(seq)}, f"{track}: bigWig chromosomes {b.chroms()}")
        got = [("chrS",) + tuple(iv) for iv in b.intervals("chrS")]
        check(len(got) == len(want), f"{track}: {len(got)} bigWig intervals, {len(want)} bedGraph lines")
        for g, w in zip(got, want):
            if g[:3] != w[:3] or abs(g[3] - w[3]) > 1e-6 * max(1.0, abs(w[3])):
                check(False, f"{track}: bigWig interval {g} differs from the bedGraph's {w}")
                break
        if track == "logp":
            check(not any(s <= 401 < e for _, s, e, _ in got), f"{track}: a value over the N bases (no score there)")
        covered = sum(e - s for _, s, e, _ in want)
        mean = sum((e - s) * v for _, s, e, v in want) / covered
        exact = b.stats("chrS", type="mean", exact=True)[0]
        check(exact is not None and abs(exact - mean) <= 1e-5 * max(1.0, abs(mean)),
              f"{track}: the bigWig's mean over chrS {exact} is not the bedGraph's {mean}")
        # The zoom levels browsers draw from: there, and summarising the same values (libBigWig's
        # zoom bins straddle intervals, so their mean is near the exact one, not equal to it).
        zoom = b.stats("chrS", type="mean")[0]
        check(b.header()["nLevels"] >= 1 and zoom is not None and abs(zoom - mean) <= 0.1 * max(1.0, abs(mean)),
              f"{track}: zoom levels {b.header()['nLevels']}, zoomed mean {zoom} against {mean}")
        b.close()


def test_vep(model):
    rng = random.Random(9)
    contigs = {"chr1": "".join(rng.choice("ACGT") for _ in range(2500)),
               "chr2": "".join(rng.choice("ACGT") for _ in range(1700))}
    ref = os.path.join(W, "ref.fa")
    write_fasta(ref, contigs)
    run(["samtools", "faidx", ref])
    recs = []
    for c, s in contigs.items():
        for p in sorted(rng.sample(range(40, len(s) - 40), 25)):
            b = s[p - 1]
            alts = [x for x in "ACGT" if x != b]
            alt = ",".join(rng.sample(alts, 2)) if rng.random() < 0.3 else rng.choice(alts)
            recs.append((c, p, b, alt))
        p = recs[-1][1]
        recs.append((c, p, s[p - 1], next(x for x in "ACGT" if x != s[p - 1])))  # a second record at one position
        recs.append((c, 100, "A" if s[99] != "A" else "C", "G"))  # REF mismatch: not scored
    recs.append(("chrZ", 5, "A", "C"))  # a contig the reference lacks: not scored
    recs.sort(key=lambda r: (r[0], r[1]))
    vcf = os.path.join(W, "v.vcf")
    with open(vcf, "w") as f:
        f.write("##fileformat=VCFv4.2\n")
        for c, s in contigs.items():
            f.write(f"##contig=<ID={c},length={len(s)}>\n")
        f.write("##contig=<ID=chrZ,length=100>\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n")
        for c, p, r, a in recs:
            f.write(f"{c}\t{p}\t.\t{r}\t{a}\t.\t.\t.\n")
    proj = fresh_project(W, "vep.carbon")
    tsv = os.path.join(W, "scores.tsv")
    run([CLI, "vep", "--model", model, "--reference", ref, "--vcf", vcf, "--window", "120", "--rc", "--out", tsv,
         "--project", proj, "--quiet"])
    rows = vep_rows(tsv)
    check(any(r["status"] == "ref_mismatch" for r in rows) and any(r["status"] == "missing_contig" for r in rows),
          "the VCF should give unscored rows")
    lengths = {}
    with open(ref + ".fai") as f:
        for line in f:
            name, n = line.split("\t")[:2]
            lengths[name] = int(n)
    for value in ("window_delta_mean", "window_delta", "window_delta_rc", "site_log_odds"):
        out = os.path.join(W, f"vep.{value}.bw")
        p = run([CLI, "project", "export", proj, "--format", "bigwig", "--run", "1", "--value", value, "--out", out])
        want = {}
        unscored = 0
        for r in rows:
            v = r[value]
            if r["window_end"] in ("0", "") or v == "NA":
                unscored += 1
                continue
            key, x = (r["chrom"], int(r["pos"]) - 1), f32(float(v))
            if key not in want or abs(x) > abs(want[key]):
                want[key] = x
        got, chroms = bigwig_values(out)
        check(chroms == lengths, f"{value}: bigWig contigs {chroms} are not the faidx index's {lengths}")
        flat = {(c, p): v for c, d in got.items() for p, v in d.items()}
        check(set(flat) == set(want), f"{value}: positions differ: {sorted(set(flat) ^ set(want))[:5]}")
        bad = [(k, flat[k], want[k]) for k in want if k in flat and flat[k] != want[k]]
        check(not bad, f"{value}: values differ from the TSV's (as float32): {bad[:3]}")
        check(f"{len(want)} position(s)" in p.stderr and f"{unscored} row(s) without a value" in p.stderr,
              f"{value}: the summary line: {p.stderr}")
    return proj, ref, vcf


def test_igv(proj, ref, vcf):
    sess_dir = os.path.join(W, "session")
    shutil.rmtree(sess_dir, ignore_errors=True)
    os.makedirs(sess_dir)
    extra = os.path.join(W, "logp.bw")
    sess = os.path.join(sess_dir, "igv.xml")
    run([CLI, "project", "export", proj, "--format", "igv", "--run", "1", "--tracks", extra, "--out", sess])
    root = ET.parse(sess).getroot()
    check(root.tag == "Session", f"IGV session root {root.tag}")
    genome = os.path.normpath(os.path.join(sess_dir, root.get("genome")))
    check(os.path.samefile(genome, ref), f"the session's genome {root.get('genome')} is not the run's reference")
    paths = [os.path.normpath(os.path.join(sess_dir, r.get("path"))) for r in root.iter("Resource")]
    check(all(os.path.isfile(p) for p in paths), f"the session names files that do not exist: {paths}")
    run_bw = os.path.join(sess_dir, "igv.vep-run1.bw")
    check(any(os.path.samefile(p, run_bw) for p in paths if os.path.exists(p)), f"the run's bigWig is not in the session: {paths}")
    check(any(os.path.samefile(p, vcf) for p in paths if os.path.exists(p)), f"the run's VCF is not in the session: {paths}")
    check(any(os.path.samefile(p, extra) for p in paths if os.path.exists(p)), f"--tracks is not in the session: {paths}")
    types = {r.get("type") for r in root.iter("Resource")}
    check({"bigwig", "vcf"} <= types, f"resource types {types}")
    b = pyBigWig.open(run_bw)
    check(b is not None and b.isBigWig(), "the session's bigWig does not open")
    b.close()


def test_refusals(proj):
    out = os.path.join(W, "kept.bw")
    with open(out, "wb") as f:
        f.write(b"what was there")
    other = os.path.join(W, "other.fa")
    write_fasta(other, {"chr1": "ACGT" * 100})  # chr2 missing, chr1 too short
    cases = [
        (["--format", "bigwig", "--run", "1", "--reference", other], "the reference has no contig 'chr2'|position outside the contig"),
        (["--format", "bigwig", "--run", "1", "--value", "delta"], "is not a vep score"),
        (["--format", "bigwig", "--run", "7"], "no vep run with id 7"),
        (["--format", "igv", "--run", "1", "--tracks", os.path.join(W, "missing.bw")], "is not an existing file"),
    ]
    for args, want in cases:
        target = out if args[1] == "bigwig" else os.path.join(W, "kept.xml")
        p = subprocess.run([CLI, "project", "export", proj] + args + ["--out", target], capture_output=True, text=True)
        check(p.returncode == 1 and any(w in p.stderr for w in want.split("|")), f"{args}: exit {p.returncode}, {p.stderr.strip()}")
    with open(out, "rb") as f:
        check(f.read() == b"what was there", "a refused export changed the file already at --out")
    check(not os.path.exists(os.path.join(W, "kept.xml")), "a refused IGV session left a file")


def main():
    if not shutil.which("samtools"):
        print("FAIL: samtools is not installed (tests/setup-test-deps.sh installs it)", file=sys.stderr)
        return 1
    model = tiny_model(W)
    test_track(model)
    proj, ref, vcf = test_vep(model)
    test_igv(proj, ref, vcf)
    test_refusals(proj)
    if FAILURES:
        print(f"{len(FAILURES)} failure(s)", file=sys.stderr)
        return 1
    print("browser tracks: bigWig equals the bedGraph and the vep TSV through pyBigWig; the IGV session names existing files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
