"""The sample project's data (resources/sample): sample.fa and variants.vcf imported into a new
project with carbon-cli, nothing skipped; the stored sequences read back with sqlite3 equal the
FASTA; every VCF REF is the stored base at POS; every region of regions.tsv lies inside its
sequence (pinned motifs inside a design region, DNA words of a label present in the region);
README.md names the Debian package, version, file and entry of every FASTA record. When the
EMBOSS test data are at hand (CARBON_EMBOSS_TEST_DIR, or /usr/share/EMBOSS/test), each sequence
is also compared with its EMBL entry there.

CARBON_SAMPLE_DIR replaces resources/sample (used to see the test fail on damaged copies)."""
import os
import re
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(__file__))
from carbon_testlib import bin_path, run, work_dir  # noqa: E402

CLI = bin_path("carbon-cli")
SAMPLE = os.environ.get("CARBON_SAMPLE_DIR") or os.path.join(os.path.dirname(__file__), "..", "..", "resources", "sample")
W = work_dir("storage_sample")
FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
    return cond


def read_fasta(path):
    """[(name, description, bases)] with a plain reader of its own."""
    recs = []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\r\n")
            if line.startswith(">"):
                name, _, desc = line[1:].partition(" ")
                recs.append([name, desc, []])
            elif line.strip():
                recs[-1][2].append(line.strip())
    return [(n, d, "".join(s)) for n, d, s in recs]


def read_vcf(path):
    """[(line_no, chrom, pos, id, ref, alt)] of the data lines; the contig lengths of the header."""
    rows, contigs = [], {}
    with open(path) as f:
        for no, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            m = re.match(r"##contig=<ID=([^,>]+),length=(\d+)>", line)
            if m:
                contigs[m.group(1)] = int(m.group(2))
            if not line or line.startswith("#"):
                continue
            c = line.split("\t")
            check(len(c) >= 8, f"variants.vcf:{no}: {len(c)} columns, VCF has 8")
            rows.append((no, c[0], int(c[1]), c[2], c[3], c[4]))
    return rows, contigs


def read_regions(path):
    rows = []
    with open(path) as f:
        for no, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            if not line or line.startswith("#") or line.startswith("name\t"):
                continue
            c = line.split("\t")
            if check(len(c) >= 4, f"regions.tsv:{no}: expected name, kind, start, end[, label]"):
                rows.append((no, c[0], c[1], int(c[2]), int(c[3]), c[4] if len(c) > 4 else ""))
    return rows


def embl_entries(path):
    """{accession: bases} of an EMBL flat file (every AC of an entry maps to its sequence)."""
    out, acs, seq, in_seq = {}, [], [], False
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("ID   "):
                acs, seq, in_seq = [], [], False
            elif line.startswith("AC   "):
                acs += [a for a in line[5:].replace(";", " ").split() if a]
            elif line.startswith("SQ   "):
                in_seq = True
            elif line.startswith("//"):
                for a in acs:
                    out[a] = "".join(seq).upper()
                in_seq = False
            elif in_seq:
                seq.append(re.sub(r"[^A-Za-z]", "", line))
    return out


def main():
    fa_path, vcf_path = os.path.join(SAMPLE, "sample.fa"), os.path.join(SAMPLE, "variants.vcf")
    reg_path, readme_path = os.path.join(SAMPLE, "regions.tsv"), os.path.join(SAMPLE, "README.md")
    total = sum(os.path.getsize(os.path.join(SAMPLE, f)) for f in os.listdir(SAMPLE))
    check(total < 100_000, f"resources/sample holds {total} bytes; keep it well under 100 kB")

    records = read_fasta(fa_path)
    check(3 <= len(records) <= 5, f"sample.fa has {len(records)} records, expected 3-5")
    names = [n for n, _, _ in records]
    check(len(set(names)) == len(names), f"sample.fa: duplicate names {names}")
    seqs = {n: s for n, _, s in records}

    # Import through the project's own tools.
    proj = os.path.join(W, "sample.carbon")
    for ext in ("", "-wal", "-shm"):
        if os.path.exists(proj + ext):
            os.remove(proj + ext)
    p = run([CLI, "project", "import", proj, "--fasta", fa_path])
    check(f"{len(records)} sequence(s), {sum(map(len, seqs.values()))} bp imported" in p.stderr,
          f"FASTA import said: {p.stderr.strip()}")
    vcf_rows, contigs = read_vcf(vcf_path)
    check(5 <= len(vcf_rows) <= 10, f"variants.vcf has {len(vcf_rows)} records, expected 5-10")
    imported = 0
    for name in names:
        p = run([CLI, "project", "import", proj, "--vcf", vcf_path, "--sequence", name])
        m = re.search(r"(\d+) SNV\(s\) imported, (\d+) record\(s\) skipped", p.stderr)
        if not check(m is not None, f"VCF import for {name} said: {p.stderr.strip()}"):
            continue
        own = sum(1 for r in vcf_rows if r[1] == name)
        check(int(m.group(1)) == own, f"VCF import for {name}: {m.group(1)} imported, the file has {own} records on it")
        imported += int(m.group(1))
        # The only records skipped are the other sample sequences' (one import per sequence).
        for line in p.stderr.splitlines():
            if line.startswith("skipped: "):
                mm = re.search(r"CHROM '([^']+)' is not the sequence", line)
                check(mm is not None and mm.group(1) in seqs and mm.group(1) != name, f"skipped a record: {line}")
    check(imported == len(vcf_rows), f"{imported} of {len(vcf_rows)} VCF records imported")

    # Read the project back with sqlite3, independently of the storage library.
    db = sqlite3.connect(proj)
    stored = dict(db.execute("SELECT name, bases FROM sequences"))
    check(set(stored) == set(names), f"stored sequences {sorted(stored)} != FASTA names {sorted(names)}")
    for n in names:
        check(stored.get(n) == seqs[n], f"{n}: stored bases differ from sample.fa")
        check(set(seqs[n]) <= set("ACGTN"), f"{n}: bases other than ACGTN: {sorted(set(seqs[n]) - set('ACGTN'))}")
    for no, chrom, pos, vid, ref, alt in vcf_rows:
        where = f"variants.vcf:{no} ({vid})"
        check(chrom in seqs, f"{where}: CHROM {chrom} is not a FASTA name")
        if chrom not in seqs:
            continue
        check(contigs.get(chrom) == len(seqs[chrom]), f"{where}: ##contig length of {chrom} is {contigs.get(chrom)}, the sequence has {len(seqs[chrom])}")
        check(1 <= pos <= len(seqs[chrom]), f"{where}: POS {pos} outside {chrom} (1-{len(seqs[chrom])})")
        check(len(ref) == 1 and len(alt) == 1 and ref != alt and alt in "ACGT", f"{where}: {ref}>{alt} is not an SNV")
        check(seqs[chrom][pos - 1:pos] == ref, f"{where}: REF {ref} but {chrom} has {seqs[chrom][pos - 1:pos]} at {pos}")
        check(vid not in (".", ""), f"{where}: no ID (the walkthrough names variants by it)")
    rows = db.execute("SELECT s.name, v.position, v.ref, v.alt, v.label FROM variants v JOIN sequences s ON s.id = v.sequence_id").fetchall()
    check(len(rows) == len(vcf_rows), f"{len(rows)} variants stored, {len(vcf_rows)} in the file")
    for name, pos0, ref, alt, label in rows:
        check(stored[name][pos0] == ref, f"stored variant {label}: REF {ref}, stored base {stored[name][pos0]} at {pos0 + 1}")
        check((name, pos0 + 1, label, ref, alt) in {(r[1], r[2], r[3], r[4], r[5]) for r in vcf_rows},
              f"stored variant {label} {name}:{pos0 + 1} {ref}>{alt} is not a record of the file")
    db.close()

    # Regions: inside their sequence; pinned motifs inside a design region; the DNA words a label
    # quotes (5+ bases) are in the region; the entry coordinates a label cites are the region's.
    regions = read_regions(reg_path)
    check(any(k == "design" for _, _, k, _, _, _ in regions), "regions.tsv has no design region")
    check(any(k == "pinned" for _, _, k, _, _, _ in regions), "regions.tsv has no pinned motif")
    for no, name, kind, start, end, label in regions:
        where = f"regions.tsv:{no}"
        check(kind in ("design", "pinned", "annotation"), f"{where}: kind {kind}")
        if not check(name in seqs, f"{where}: no sequence {name}"):
            continue
        if not check(0 <= start < end <= len(seqs[name]), f"{where}: {start}-{end} outside {name} (0-{len(seqs[name])})"):
            continue
        if kind == "pinned":
            check(any(k == "design" and n == name and s <= start and end <= e for _, n, k, s, e, _ in regions),
                  f"{where}: pinned {start}-{end} lies in no design region of {name}")
        for word in re.findall(r"\b[ACGT]{5,}\b", label):
            check(word in seqs[name][start:end], f"{where}: label names {word}, not in {name}[{start}:{end}] = {seqs[name][start:end]}")
        m = re.search(r"\(entry \w+ (?:join\()?(\d+)\.\.(>?)(\d+)", label)
        if m:
            check(start == int(m.group(1)) - 1, f"{where}: starts at {start}, the entry's feature at {m.group(1)} (0-based {int(m.group(1)) - 1})")
            check(end == int(m.group(3)) or (m.group(2) == ">" or end < int(m.group(3))) and end == len(seqs[name]),
                  f"{where}: ends at {end}, the entry's feature at {m.group(3)}")

    # Provenance: each header and README.md name the Debian package (with version), the file
    # in it and the entry, for every record.
    with open(readme_path) as f:
        readme = f.read()
    pkg_re = re.compile(r"Debian package ([a-z0-9][a-z0-9.+-]+) ([0-9][A-Za-z0-9.+~:-]*[A-Za-z0-9]),? (/usr/share/\S+)")
    for name, desc, _ in records:
        m = pkg_re.search(desc)
        if not check(m is not None, f"sample.fa: header of {name} names no 'Debian package NAME VERSION, /usr/share/FILE'"):
            continue
        pkg, ver, path = m.groups()
        acc = name.rsplit("_", 1)[-1]
        check(acc in desc, f"sample.fa: header of {name} does not name its entry {acc}")
        row = next((l for l in readme.splitlines() if l.startswith(f"| `{name}` |")), None)
        if not check(row is not None, f"README.md: no provenance table row for {name}"):
            continue
        for what in (f"{pkg} {ver}", path, acc):
            check(what in row, f"README.md: the row of {name} does not name {what}: {row}")
        check(f"/usr/share/doc/{pkg}/copyright" in readme, f"README.md: no licence reference for {pkg}")

    # The original entries, when the EMBOSS test data are at hand.
    emboss = os.environ.get("CARBON_EMBOSS_TEST_DIR") or "/usr/share/EMBOSS/test"
    if os.path.isdir(emboss):
        cache = {}
        for name, desc, bases in records:
            m = pkg_re.search(desc)
            if not m or "/EMBOSS/test/" not in m.group(3):
                continue
            f = os.path.join(emboss, m.group(3).split("/EMBOSS/test/", 1)[1])
            if f not in cache:
                cache[f] = embl_entries(f) if os.path.exists(f) else {}
            entry = cache[f].get(name.rsplit("_", 1)[-1])
            if check(entry is not None, f"{name}: entry not found in {f}"):
                check(entry.startswith(bases), f"{name}: not the first {len(bases)} bases of its entry in {f}")
        print(f"compared with the EMBL entries in {emboss}")
    else:
        print(f"(no EMBOSS test data at {emboss}: entries not compared; set CARBON_EMBOSS_TEST_DIR)")

    if FAILURES:
        for f in FAILURES:
            print("FAIL:", f, file=sys.stderr)
        return 1
    print(f"OK: {len(records)} sequences, {len(vcf_rows)} variants, {len(regions)} regions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
