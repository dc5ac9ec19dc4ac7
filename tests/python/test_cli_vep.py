#!/usr/bin/env python3
"""carbon-cli vep against a multi-contig reference and a VCF made with htslib's own tools (bgzip,
tabix, bcftools, samtools faidx): every status (SNVs, indels, multi-allelic records, REF mismatch,
missing contig, contig ends, symbolic alleles, breakends); SNV scores equal `carbon-cli variant`
for the same windows, byte for byte (with and without --rc); indel deltas equal scoring the two
windows whole with `carbon-cli score`; plain, bgzipped and BCF input, plain and bgzipped
reference, streamed and indexed --regions give the same rows; a run killed with SIGKILL at random
points (at least 20 kills) and resumed with --resume ends byte-identical to an uninterrupted
run; bad resumes are refused."""
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time

from carbon_testlib import bin_path, check, FAILURES, run, work_dir


def write_fasta(path, contigs, width=60):
    with open(path, "w") as f:
        for name, seq in contigs.items():
            f.write(f">{name} test contig\n")
            for i in range(0, len(seq), width):
                f.write(seq[i:i + width] + "\n")


def body(path):
    with open(path) as f:
        return [l for l in f.read().split("\n") if l and not l.startswith("##vcf=") and not l.startswith("##reference=")]


def rows(path):
    out = []
    with open(path) as f:
        for line in f:
            if not line.startswith("#"):
                out.append(line.rstrip("\n").split("\t"))
    return out


def main():
    for tool in ("bgzip", "tabix", "bcftools", "samtools"):
        if not shutil.which(tool):
            print(f"FAIL: {tool} is not installed (tests/setup-test-deps.sh installs it)", file=sys.stderr)
            return 1
    cli = bin_path("carbon-cli")
    d = work_dir("cli-vep")
    model = os.path.join(d, "tiny")
    if not os.path.exists(os.path.join(model, "config.json")):
        run([cli, "make-test-model", "--out", model, "--seed", "11"])
    rng = random.Random(7)
    contigs = {
        "chr1": "".join(rng.choice("ACGT") for _ in range(5000)),
        "chr2": "".join(rng.choice("ACGT") for _ in range(1200)),
        "chrM": "".join(rng.choice("ACGT") for _ in range(90)),
    }
    # Soft-masked letters and a stretch of N, as real genomes have.
    c1 = list(contigs["chr1"])
    for i in range(2000, 2100):
        c1[i] = c1[i].lower()
    for i in range(3000, 3050):
        c1[i] = "N"
    contigs["chr1"] = "".join(c1)
    up = {k: v.upper() for k, v in contigs.items()}
    ref_fa = os.path.join(d, "ref.fa")
    write_fasta(ref_fa, contigs)
    ref_gz = os.path.join(d, "ref.fa.gz")
    with open(ref_gz, "wb") as f:
        subprocess.run(["bgzip", "-c", ref_fa], stdout=f, check=True)
    run(["samtools", "faidx", ref_gz])

    def other(b, k=0):
        return [x for x in "ACGT" if x != b][k]

    recs = []  # (chrom, pos 1-based, ref, alt, expected status of each alt)
    for _ in range(20):
        c = rng.choice(["chr1", "chr2"])
        p = rng.randrange(1, len(up[c]) + 1)
        if up[c][p - 1] == "N":
            continue
        recs.append((c, p, up[c][p - 1], other(up[c][p - 1], rng.randrange(3)), None))
    s = up["chr1"]
    recs += [
        ("chr1", 1, s[0], other(s[0]), ["window_clipped"]),
        ("chr1", 5000, s[4999], other(s[4999]), ["window_clipped"]),
        ("chr1", 2500, s[2499], other(s[2499]) + "," + other(s[2499], 1), ["ok", "ok"]),
        ("chr1", 2600, s[2599:2605], s[2599], ["ok"]),                      # deletion of 5
        ("chr1", 2700, s[2699], s[2699] + "GATTACA", ["ok"]),               # insertion of 7
        ("chr1", 2800, s[2799:2801], other(s[2799]) + other(s[2800]), ["ok"]),  # two-base substitution
        ("chr1", 2900, s[2899], other(s[2899]) + "," + s[2899] + "TT", ["ok", "ok"]),  # SNV + insertion
        ("chr1", 1000, other(s[999]), s[999], ["ref_mismatch"]),
        ("chr1", 1100, s[1099], "<DEL>", ["symbolic_allele"]),
        ("chr1", 1200, s[1199], s[1199] + "[chr2:100[", ["breakend"]),
        ("chr1", 1300, s[1299], "*", ["symbolic_allele"]),
        ("chr1", 1400, s[1399], ".", ["no_alt"]),
        ("chr1", 1500, s[1499], s[1499], ["alt_equals_ref"]),
        ("chr1", 1600, s[1599], "AXC", ["invalid_allele"]),
        ("chr1", 2050, s[2049], other(s[2049]), ["ok"]),                     # soft-masked region
        ("chr1", 3010, "N", "A", ["ok"]),                                   # inside the N stretch
        ("chr2", 1199, up["chr2"][1198:1200] + "A", up["chr2"][1198], ["outside_contig"]),
        ("chrM", 45, up["chrM"][44], other(up["chrM"][44]), ["window_clipped"]),
        ("chrUn", 10, "A", "C", ["missing_contig"]),
    ]
    order = {"chr1": 0, "chr2": 1, "chrM": 2, "chrUn": 3}
    recs.sort(key=lambda r: (order[r[0]], r[1]))
    vcf = os.path.join(d, "v.vcf")
    with open(vcf, "w") as f:
        f.write("##fileformat=VCFv4.2\n")
        for name, seq in contigs.items():
            f.write(f"##contig=<ID={name},length={len(seq)}>\n")
        f.write("##contig=<ID=chrUn,length=1000>\n")
        f.write('##INFO=<ID=DP,Number=1,Type=Integer,Description="Depth">\n')
        f.write('##FORMAT=<ID=GT,Number=1,Type=String,Description="Genotype">\n')
        f.write("#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\tS1\n")
        for i, (c, p, r, a, _) in enumerate(recs):
            f.write(f"{c}\t{p}\tvar{i}\t{r}\t{a}\t50\tPASS\tDP=10\tGT\t0/1\n")
    vcf_gz = vcf + ".gz"
    with open(vcf_gz, "wb") as f:
        subprocess.run(["bgzip", "-c", vcf], stdout=f, check=True)
    run(["tabix", "-f", "-p", "vcf", vcf_gz])
    bcf = os.path.join(d, "v.bcf")
    run(["bcftools", "view", "-Ob", "-o", bcf, vcf])
    run(["bcftools", "index", "-f", bcf])

    W = 600
    base = [cli, "vep", "--model", model, "--window", str(W), "--quiet"]

    def vep(out, vcf_in, ref=ref_fa, extra=()):
        if os.path.exists(out):
            os.remove(out)
        run(base + ["--reference", ref, "--vcf", vcf_in, "--out", out] + list(extra))
        return out

    full = vep(os.path.join(d, "full.tsv"), vcf)
    got = rows(full)
    n_rows = sum(max(1, len([a for a in r[3].split(",") if a != "."])) for r in recs)
    check(len(got) == n_rows, f"{len(got)} rows for {n_rows} (variant, alt) pairs")
    # Rows in input order with the expected statuses.
    i = 0
    for (c, p, r, a, want) in recs:
        alts = a.split(",")
        for k, alt in enumerate(alts):
            row = got[i] if i < len(got) else None
            i += 1
            check(row is not None and row[0] == c and row[1] == str(p) and row[4] == alt, f"row {i}: {row} is not {c}:{p} {alt}")
            if row is None:
                continue
            status = want[k] if want else ("ok" if W // 2 < p < len(up[c]) - W // 2 else "window_clipped")
            check(row[5] == status, f"{c}:{p} {r}>{alt}: status {row[5]}, expected {status}")
            scored = status in ("ok", "window_clipped")
            check((row[9] != "NA") == scored, f"{c}:{p} {r}>{alt}: window_delta {row[9]} for status {status}")
    # The same bytes from every input form (the ##vcf/##reference lines name the inputs).
    for name, vcf_in, ref in (("gz", vcf_gz, ref_fa), ("bcf", bcf, ref_fa), ("refgz", vcf, ref_gz)):
        other_out = vep(os.path.join(d, f"full_{name}.tsv"), vcf_in, ref)
        check(body(other_out) == body(full), f"{name} input gives other rows than plain VCF and FASTA")

    # A multi-allelic record split into one record per allele (bcftools norm -m-, as ClinVar
    # publishes them): the same rows, and the records of one site share one reference pass (the
    # same tokens as the multi-allelic record).
    split_vcf = os.path.join(d, "split.vcf")
    run(["bcftools", "norm", "-m-", "-o", split_vcf, vcf])
    def tokens(out, vcf_in):
        if os.path.exists(out):
            os.remove(out)
        p = run([cli, "vep", "--model", model, "--window", str(W), "--reference", ref_fa, "--vcf", vcf_in, "--out", out])
        m = re.search(r"(\d+) tokens", p.stderr)
        return int(m.group(1)) if m else -1
    t_multi = tokens(os.path.join(d, "multi.tsv"), vcf)
    t_split = tokens(os.path.join(d, "split.tsv"), split_vcf)
    check(body(os.path.join(d, "split.tsv")) == body(full), "records split per allele give other rows than the multi-allelic ones")
    check(t_split == t_multi and t_multi > 0, f"split records forwarded {t_split} tokens, the multi-allelic ones {t_multi}")

    # --project stores the complete result as a "vep" run; exporting it gives the same bytes back,
    # and `project import --vep` stores a TSV made elsewhere (a carbon-cluster run) the same way.
    proj = os.path.join(d, "p.carbon")
    for f in (proj, proj + "-wal", proj + "-shm"):
        if os.path.exists(f):
            os.remove(f)
    vep(os.path.join(d, "stored.tsv"), vcf, extra=["--project", proj])
    listing = run([cli, "project", "list", proj]).stdout
    check(f"vep rows: {n_rows}" in listing and "\tvep\tfinished\t" in listing, f"project list after vep --project:\n{listing}")
    exported = os.path.join(d, "exported.tsv")
    run([cli, "project", "export", proj, "--format", "vep", "--run", "1", "--out", exported])
    check(open(exported, "rb").read() == open(os.path.join(d, "stored.tsv"), "rb").read(),
          "project export --format vep differs from the TSV vep wrote")
    run([cli, "project", "import", proj, "--vep", full_rc_src := vep(os.path.join(d, "to_import.tsv"), vcf, extra=["--rc"])])
    run([cli, "project", "export", proj, "--format", "vep", "--run", "2", "--out", exported])
    check(open(exported, "rb").read() == open(full_rc_src, "rb").read(), "a TSV imported with --vep does not export the same")
    p = subprocess.run([cli, "project", "import", proj, "--vep", vcf], capture_output=True, text=True)
    check(p.returncode == 1 and "not a carbon-cli vep result" in p.stderr, f"importing a VCF as a vep result: {p.stderr}")
    bad = os.path.join(d, "bad_vep.tsv")
    with open(bad, "w") as f:  # a cut row: refused with its line, nothing stored
        f.write(open(full_rc_src).read().rstrip("\n").rsplit("\t", 3)[0] + "\n")
    p = subprocess.run([cli, "project", "import", proj, "--vep", bad], capture_output=True, text=True)
    last_line = len(open(bad).read().splitlines())
    check(p.returncode == 1 and f"bad_vep.tsv:{last_line}: 9 fields" in p.stderr, f"a cut vep row: {p.stderr}")
    check("vep rows: " + str(2 * n_rows) in run([cli, "project", "list", proj]).stdout, "a refused import changed the project")
    p = subprocess.run([cli, "project", "export", proj, "--format", "vep", "--run", "9", "--out", exported], capture_output=True, text=True)
    check(p.returncode == 1 and "no run 9" in p.stderr, f"exporting a missing run: {p.stderr}")
    p = subprocess.run(base + ["--reference", ref_fa, "--vcf", vcf, "--out", os.path.join(d, "x.tsv"), "--project", os.path.join(d, "nope", "p.carbon")],
                       capture_output=True, text=True)
    check(p.returncode == 1 and "does not exist" in p.stderr and not os.path.exists(os.path.join(d, "x.tsv")),
          f"--project in a missing folder is refused before scoring: {p.stderr}")

    # SNVs equal `carbon-cli variant` on the same windows, byte for byte.
    single = os.path.join(d, "single.fa")
    write_fasta(single, contigs)
    snvs = [r for r in got if r[5] in ("ok", "window_clipped") and len(r[3]) == 1 and len(r[4]) == 1][:8]
    check(len(snvs) >= 6, "too few scored SNVs to compare")
    rc_full = vep(os.path.join(d, "full_rc.tsv"), vcf, extra=["--rc"])
    rc_rows = {(r[0], r[1], r[4]): r for r in rows(rc_full)}
    for r in snvs:
        for rc in (False, True):
            p = run([cli, "variant", "--model", model, "--in", single, "--record", r[0], "--pos", r[1], "--alt", r[4],
                     "--window", str(W), "--quiet"] + (["--rc"] if rc else []))
            v = p.stdout.strip().split("\n")[1].split("\t")
            mine = rc_rows[(r[0], r[1], r[4])] if rc else r
            want = [v[4], v[5], v[6], v[7]] + ([v[8], v[9]] if rc else [])
            have = [mine[8], mine[6], mine[7], mine[9]] + ([mine[10], mine[11]] if rc else [])
            check(have == want, f"{r[0]}:{r[1]} {r[3]}>{r[4]} rc={rc}: vep {have} vs variant {want}")

    # Indel and MNP deltas against scoring both windows whole.
    for r in got:
        if r[5] != "ok" or (len(r[3]) == 1 and len(r[4]) == 1):
            continue
        c, p, a0, a1 = r[0], int(r[1]), int(r[6]) - 1, int(r[7])
        win = up[c][a0:a1]
        q = p - 1 - a0
        alt_win = win[:q] + r[4] + win[q + len(r[3]):]
        fa = os.path.join(d, "pair.fa")
        with open(fa, "w") as f:
            f.write(f">ref\n{win}\n>alt\n{alt_win}\n")
        out = run([cli, "score", "--model", model, "--in", fa, "--no-token-score", "--quiet"]).stdout.strip().split("\n")
        s_ref, s_alt = float(out[1].split("\t")[3]), float(out[2].split("\t")[3])
        check(abs(float(r[9]) - (s_alt - s_ref)) < 5e-5, f"{c}:{p} {r[3]}>{r[4]}: delta {r[9]} vs scoring whole {s_alt - s_ref}")

    # Regions: streamed (plain VCF) and through the index (bgzip+tabix, BCF+CSI) agree, and are
    # the full run's rows whose POS lies in a region.
    regions = "chr2,chr1:2500-2800,chrM:1-10"
    outs = [vep(os.path.join(d, f"reg_{k}.tsv"), src, extra=["--regions", regions]) for k, src in (("p", vcf), ("g", vcf_gz), ("b", bcf))]
    want = [r for r in got if r[0] == "chr2" or (r[0] == "chr1" and 2500 <= int(r[1]) <= 2800) or (r[0] == "chrM" and int(r[1]) <= 10)]
    for o in outs:
        check(rows(o) == want, f"{o}: {len(rows(o))} rows, expected the {len(want)} of the regions")

    # Resume after SIGKILL at random points: byte-identical to the uninterrupted run.
    big_vcf = os.path.join(d, "big.vcf")
    with open(big_vcf, "w") as f:
        f.write("##fileformat=VCFv4.2\n#CHROM\tPOS\tID\tREF\tALT\n")
        for p in range(40, 4900, 12):
            b = up["chr1"][p - 1]
            if b == "N":
                continue
            alts = ",".join(x for x in "ACGT" if x != b) if p % 5 == 0 else other(b)
            f.write(f"chr1\t{p}\t.\t{b}\t{alts}\n")
    args = base + ["--reference", ref_fa, "--vcf", big_vcf, "--window", "1500"]
    want_out = os.path.join(d, "big_full.tsv")
    for f in (want_out, want_out + ".partial"):
        if os.path.exists(f):
            os.remove(f)
    t0 = time.time()
    run(args + ["--out", want_out])
    whole = time.time() - t0
    out = os.path.join(d, "big_resumed.tsv")
    for f in (out, out + ".partial"):
        if os.path.exists(f):
            os.remove(f)
    kills, attempts = 0, 0
    while not os.path.exists(out) and attempts < 400:
        attempts += 1
        proc = subprocess.Popen(args + ["--out", out, "--resume"], stderr=subprocess.PIPE, text=True)
        if kills < 24:
            time.sleep(rng.uniform(0.05, max(0.1, whole / 20)))
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                kills += 1
        proc.wait()
        if proc.returncode not in (0, -signal.SIGKILL):
            check(False, f"resume attempt {attempts} failed: {proc.stderr.read()}")
            break
    check(kills >= 20, f"only {kills} kills landed while the run was going ({attempts} attempts, whole run {whole:.2f} s)")
    check(os.path.exists(out) and open(out, "rb").read() == open(want_out, "rb").read(),
          f"the resumed output differs from the uninterrupted run after {kills} kills")
    print(f"resume: {kills} SIGKILLs over {attempts} attempts (whole run {whole:.2f} s), output identical")

    # A VCF changed between the kill and the resume is refused, not mixed into the output.
    changed = os.path.join(d, "changed.tsv")
    for f in (changed, changed + ".partial"):
        if os.path.exists(f):
            os.remove(f)
    for attempt in range(50):
        proc = subprocess.Popen(args + ["--out", changed, "--resume"], stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.3, max(0.4, whole / 3)))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        proc.wait()
        if os.path.exists(changed + ".partial") and len(rows(changed + ".partial")) >= 1:
            break
    if os.path.exists(changed + ".partial") and not os.path.exists(changed):
        original = open(big_vcf).read()
        try:
            with open(big_vcf, "w") as f:  # every variant one base further on
                for line in original.splitlines(keepends=True):
                    if line.startswith("#"):
                        f.write(line)
                        continue
                    c = line.rstrip("\n").split("\t")
                    p1 = int(c[1]) + 1
                    b = up["chr1"][p1 - 1]
                    f.write(f"chr1\t{p1}\t.\t{b}\t{other(b)}\n")
            p = subprocess.run(args + ["--out", changed, "--resume"], capture_output=True, text=True)
            check(p.returncode == 1 and "does not match" in p.stderr and "did the VCF change?" in p.stderr,
                  f"a resume after the VCF changed: {p.returncode} {p.stderr}")
            with open(big_vcf, "w") as f:  # and one with fewer records than the partial output holds
                f.write("##fileformat=VCFv4.2\n#CHROM\tPOS\tID\tREF\tALT\n")
            p = subprocess.run(args + ["--out", changed, "--resume"], capture_output=True, text=True)
            check(p.returncode == 1 and "gives only 0" in p.stderr, f"a resume after the VCF lost its records: {p.stderr}")
        finally:
            with open(big_vcf, "w") as f:
                f.write(original)
    else:
        check(False, "could not leave a partial output to resume against a changed VCF")

    # Refusals: a partial run without --resume, a resume with other settings, a folder as --out.
    part = os.path.join(d, "refuse.tsv")
    shutil.copyfile(full, part + ".partial")  # a run with --window 600
    p = subprocess.run(base + ["--reference", ref_fa, "--vcf", vcf, "--out", part], capture_output=True, text=True)
    check(p.returncode == 1 and "--resume" in p.stderr, f"a leftover partial run without --resume: {p.stderr}")
    p = subprocess.run(base + ["--reference", ref_fa, "--vcf", vcf, "--out", part, "--resume", "--window", "700"],
                       capture_output=True, text=True)
    check(p.returncode == 1 and "other settings" in p.stderr, f"resuming another run's partial output: {p.stderr}")
    with open(part + ".partial", "w") as f:
        f.write("chrom\tpos\n1\t2\n")
    p = subprocess.run(base + ["--reference", ref_fa, "--vcf", vcf, "--out", part, "--resume"], capture_output=True, text=True)
    check(p.returncode == 1 and "not a partial output" in p.stderr, f"resuming a file that is not vep output: {p.stderr}")
    p = subprocess.run(base + ["--reference", ref_fa, "--vcf", vcf, "--out", d], capture_output=True, text=True)
    check(p.returncode == 1 and "must be a file" in p.stderr, f"--out a folder: {p.stderr}")
    p = subprocess.run(base + ["--reference", ref_fa, "--vcf", vcf, "--out", part + "2", "--regions", "chr1:9-3"],
                       capture_output=True, text=True)
    check(p.returncode == 1 and "FROM is after TO" in p.stderr, f"a backwards region: {p.stderr}")

    if FAILURES:
        print(f"{len(FAILURES)} failure(s)", file=sys.stderr)
        return 1
    print("vep: statuses, variant/score equality, input forms, regions and SIGKILL resume all hold")
    return 0


if __name__ == "__main__":
    sys.exit(main())
