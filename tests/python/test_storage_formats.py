"""Round trips of the project file formats through carbon-cli, each output parsed back by an
independent reader written here with the standard library only (sqlite3, gzip, csv): FASTA
import/export, bedGraph, WIG, designs FASTA headers, TSV/CSV, GenBank, VCF results."""
import csv
import gzip
import os
import random
import sqlite3
import struct
import sys

sys.path.insert(0, os.path.dirname(__file__))
from carbon_testlib import bin_path, fresh_project, run, work_dir  # noqa: E402

CLI = bin_path("carbon-cli")
W = work_dir("storage_formats")
IUPAC = "ACGTRYSWKMBDHVN"


def parse_fasta(text):
    """Plain FASTA parse: [(header, sequence)]; blank lines and CR ignored."""
    recs = []
    for line in text.replace("\r", "").split("\n"):
        if line.startswith(">"):
            recs.append([line[1:], []])
        elif line.strip():
            recs[-1][1].append(line.strip().replace(" ", "").replace("\t", ""))
    return [(h, "".join(s)) for h, s in recs]


def fresh(name):
    return fresh_project(W, name)


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def test_fasta_round_trip(rng):
    records = []
    out = []
    for i in range(40):
        n = rng.choice([0, 1, 5, 59, 60, 61, 1000, 25000])
        seq = "".join(rng.choice(IUPAC) for _ in range(n))
        seq = "".join(c.lower() if rng.random() < 0.2 else c for c in seq)  # soft-masking
        name = "" if i == 7 else f"rec{i}"
        desc = "" if i % 3 else f"description of {i}  with  blanks"
        width = rng.choice([10, 60, 80, 1 << 20])
        eol = "\r\n" if i % 2 else "\n"
        out.append(f">{name} {desc}".rstrip() + eol)
        for k in range(0, len(seq), width):
            out.append(seq[k:k + width] + eol)
            if rng.random() < 0.05:
                out.append(eol)  # blank lines inside a record
        records.append((name or f"record_{i + 1}", seq))
    src = os.path.join(W, "in.fa.gz")
    with gzip.open(src, "wt", newline="") as f:
        f.write("".join(out))
    proj = fresh("fasta.carbon")
    run([CLI, "project", "import", proj, "--fasta", src])
    dst = os.path.join(W, "out.fa")
    run([CLI, "project", "export", proj, "--format", "sequences", "--width", "70", "--out", dst])
    with open(dst) as f:
        got = parse_fasta(f.read())
    check(len(got) == len(records), f"{len(got)} records exported for {len(records)} imported")
    for (h, s), (name, seq) in zip(got, records):
        check(h.split(" ")[0] == name, f"name {h!r} != {name!r}")
        check(s == seq, f"sequence of {name} differs after the round trip")
    with open(dst) as f:
        check(all(len(line.rstrip("\n")) <= 70 for line in f if not line.startswith(">")), "lines wider than 70")
    # The project file itself, read with Python's sqlite3.
    db = sqlite3.connect(proj)
    check(db.execute("PRAGMA integrity_check").fetchone()[0] == "ok", "integrity_check")
    check(db.execute("PRAGMA user_version").fetchone()[0] >= 1, "schema version")
    check(db.execute("SELECT count(*) FROM sequences").fetchone()[0] == len(records), "sequence rows")
    db.close()
    # A failing file stores nothing.
    bad = os.path.join(W, "bad.fa")
    with open(bad, "w") as f:
        f.write(">ok\nACGT\n>bad\nAC GT ?\n")
    p = run_fail([CLI, "project", "import", proj, "--fasta", bad])
    check("bad.fa:4:7: '?' is not an IUPAC nucleotide code" in p, f"message: {p}")
    db = sqlite3.connect(proj)
    check(db.execute("SELECT count(*) FROM sequences").fetchone()[0] == len(records), "a failed import stored rows")
    db.close()
    print("ok   fasta round trip (gzip, CRLF, blank lines, soft-masking, IUPAC, empty name)")


def run_fail(cmd):
    import subprocess
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    check(p.returncode != 0, f"expected failure: {cmd}")
    return p.stderr


def track_from_db(db, seq_name, kind):
    row = db.execute("SELECT t.dtype, t.length, t.width, t.data FROM tracks t JOIN sequences s ON s.id = t.sequence_id "
                     "WHERE s.name = ? AND t.kind = ? ORDER BY t.id DESC LIMIT 1", (seq_name, kind)).fetchone()
    dtype, length, width, data = row
    fmt = "<%d%s" % (length * width, "f" if dtype == "f32" else "e")
    return width, list(struct.unpack(fmt, data))


def test_tracks(model, rng):
    proj = fresh("tracks.carbon")
    fa = os.path.join(W, "score.fa")
    seq = "".join(rng.choice("ACGT") for _ in range(150)) + "NN" + "".join(rng.choice("ACGT") for _ in range(40))
    with open(fa, "w") as f:
        f.write(">chrS\n" + seq + "\n")
    run([CLI, "score", "--model", model, "--in", fa, "--project", proj, "--quiet"])
    db = sqlite3.connect(proj)
    width, logp = track_from_db(db, "chrS", "logp")
    check(width == 1 and len(logp) == len(seq), "logp track shape")
    w4, dist = track_from_db(db, "chrS", "dist_acgt")
    check(w4 == 4 and len(dist) == 4 * len(seq), "distribution track shape")
    for i in range(len(seq)):
        if seq[i] in "ACGT":
            check(abs(sum(dist[4 * i:4 * i + 4]) - 1) < 5e-3, f"distribution at {i} sums to {sum(dist[4 * i:4 * i + 4])}")
    db.close()

    bg = os.path.join(W, "chrS.bedGraph")
    run([CLI, "project", "export", proj, "--format", "bedgraph", "--sequence", "chrS", "--out", bg])
    values = [None] * len(seq)
    with open(bg) as f:
        lines = f.read().splitlines()
    check(lines[0].startswith("track type=bedGraph"), "bedGraph track line")
    last_end = 0
    for line in lines[1:]:
        chrom, start, end, v = line.split("\t")
        start, end = int(start), int(end)
        check(chrom == "chrS" and start >= last_end and end > start, f"bedGraph interval {line}")
        last_end = end
        for i in range(start, end):
            values[i] = float(v)
    for i, x in enumerate(logp):
        if x != x:  # NaN: no score (the N bases)
            check(values[i] is None, f"bedGraph has a value at NaN position {i}")
        else:
            check(values[i] is not None and abs(values[i] - x) <= 1e-5 * max(1, abs(x)), f"bedGraph value at {i}")

    wig = os.path.join(W, "chrS.wig")
    run([CLI, "project", "export", proj, "--format", "wig", "--sequence", "chrS", "--track", "dist_acgt", "--channel", "2",
         "--out", wig])
    got = {}
    pos = None
    with open(wig) as f:
        for line in f.read().splitlines()[1:]:
            if line.startswith("fixedStep"):
                kv = dict(t.split("=") for t in line.split()[1:])
                check(kv["chrom"] == "chrS" and kv["step"] == "1", f"fixedStep line {line}")
                pos = int(kv["start"])
            else:
                got[pos] = float(line)
                pos += 1
    for i in range(len(seq)):
        x = dist[4 * i + 2]
        if x == x:
            check(abs(got[i + 1] - x) <= 1e-5, f"WIG value at {i + 1}")
    print("ok   bedGraph and WIG parse back to the stored tracks (logp, G channel of the distribution)")


def parse_genbank(text):
    lines = text.splitlines()
    check(lines[0].startswith("LOCUS") and lines[-1] == "//", "GenBank LOCUS ... //")
    locus = lines[0].split()
    length = int(locus[2])
    feats = []
    seq = []
    in_origin = in_feat = False
    for line in lines[1:-1]:
        if line.startswith("FEATURES"):
            in_feat = True
            continue
        if line.startswith("ORIGIN"):
            in_origin, in_feat = True, False
            continue
        if in_feat and line[5:6] != " " and line[5:21].strip():
            feats.append((line[5:21].strip(), line[21:].strip(), []))
        elif in_feat:
            feats[-1][2].append(line.strip())
        elif in_origin:
            parts = line.split()
            check(int(parts[0]) == len("".join(seq)) + 1, "ORIGIN numbering")
            seq.extend(parts[1:])
    return locus[1], length, feats, "".join(seq)


def test_designs(model):
    proj = fresh("designs.carbon")
    template = "NNNNNNNNNNTATAAANNNNNNNNNNGAATTCNN"
    run([CLI, "generate", "--model", model, "--template", template, "--count", "4", "--seed", "3", "--temperature", "0.9",
         "--out", os.path.join(W, "g.fa"), "--project", proj, "--quiet"])
    db = sqlite3.connect(proj)
    rows = {r[0]: r for r in db.execute("SELECT name, bases, rank, design_logp, run_id FROM designs")}
    settings = dict(db.execute("SELECT key, value FROM run_settings"))
    run_row = db.execute("SELECT seed, model_config_hash, tokenizer_hash, status FROM runs").fetchone()
    db.close()
    check(len(rows) == 4, "four designs stored")
    check(settings["template"] == template and settings["temperature"].startswith("0.9"), "run settings stored")
    check(run_row[0] == 3 and run_row[1].startswith("fnv1a64:") and run_row[3] == "finished", f"run row {run_row}")

    out = os.path.join(W, "designs.fa")
    run([CLI, "project", "export", proj, "--format", "fasta", "--width", "7", "--out", out])
    with open(out) as f:
        recs = parse_fasta(f.read())
    check(len(recs) == 4, "four designs exported")
    for h, s in recs:
        words = h.split(" ")
        fields = {}
        for w in words[1:]:
            k, v = w.split("=", 1)
            fields[k] = v.replace("%20", " ").replace("%2C", ",").replace("%3D", "=").replace("%25", "%")
        name, bases, rank, logp, _ = rows[words[0]]
        check(s == bases, f"exported bases of {name}")
        check(int(fields["rank"]) == rank and abs(float(fields["design_logp"]) - logp) < 1e-6, f"header scores of {name}")
        check(fields["run.template"] == template and fields["seed"] == "3", f"header settings of {name}")
    ranks = [int(dict(w.split("=", 1) for w in h.split(" ")[1:])["rank"]) for h, _ in recs]
    check(ranks == sorted(ranks), "designs exported by rank")

    for fmt, delim in (("tsv", "\t"), ("csv", ",")):
        tab = os.path.join(W, "designs." + fmt)
        run([CLI, "project", "export", proj, "--format", fmt, "--out", tab])
        with open(tab, newline="") as f:
            table = list(csv.DictReader(f, delimiter=delim))
        check(len(table) == 4, f"{fmt} rows")
        for t in table:
            name, bases, rank, logp, _ = rows[t["name"]]
            check(int(t["rank"]) == rank and int(t["length"]) == len(bases), f"{fmt} row of {name}")
            gc = sum(c in "GC" for c in bases) / len(bases)
            check(abs(float(t["gc"]) - gc) < 1e-5, f"{fmt} gc of {name}")

    gb = os.path.join(W, "d1.gb")
    run([CLI, "project", "export", proj, "--format", "genbank", "--design", "1", "--out", gb])
    with open(gb) as f:
        locus, length, feats, seq = parse_genbank(f.read())
    name, bases, *_ = rows[locus]
    check(seq.upper() == bases and length == len(bases), "GenBank ORIGIN is the design")
    locs = [loc for key, loc, _ in feats if key == "misc_feature"]
    check(f"1..{len(template)}" in locs and "11..16" in locs and "27..32" in locs, f"GenBank features {locs}")
    check(bases[10:16] == "TATAAA", "the pinned motif is in the design")
    print("ok   designs: FASTA headers, TSV, CSV and GenBank parse back to the stored rows")


def test_vcf(here):
    proj = fresh("vcf.carbon")
    run([CLI, "project", "import", proj, "--fasta", os.path.join(here, "..", "storage", "data", "good", "mixed.fa")])
    p = run([CLI, "project", "import", proj, "--vcf", os.path.join(here, "..", "storage", "data", "good", "panel.vcf"),
             "--sequence", "seq1"])
    check("4 SNV(s) imported, 4 record(s) skipped" in p.stderr, p.stderr)
    out = os.path.join(W, "variants.tsv")
    run([CLI, "project", "export", proj, "--format", "vcf-results", "--sequence", "seq1", "--out", out])
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    got = [(r["pos"], r["ref"], r["alt"], r["id"]) for r in rows]
    check(got == [("1", "A", "G", "rs1"), ("3", "G", "T", "."), ("3", "G", "C", "."), ("6", "C", "T", "rsx")], f"variants {got}")
    check(all(r["site_log_odds"] == "NA" for r in rows), "unscored variants export NA")
    print("ok   VCF panel import and variants TSV")


def main():
    rng = random.Random(20261122)
    here = os.path.dirname(os.path.abspath(__file__))
    model = os.path.join(W, "tiny-model")
    if not os.path.exists(os.path.join(model, "config.json")):
        run([CLI, "make-test-model", "--preset", "tiny", "--seed", "5", "--out", model])
    test_fasta_round_trip(rng)
    test_tracks(model, rng)
    test_designs(model)
    test_vcf(here)
    print("4 passed, 0 failed, 0 skipped")


if __name__ == "__main__":
    main()
