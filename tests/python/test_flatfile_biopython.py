"""The GenBank / EMBL reader against Biopython's parsers (PyPI biopython) on real entries: the
GenBank and EMBL release records the Debian package emboss-test ships (NCBI division files:
bacteria, primates, rodents, ...; ENA entries with joins across exons, complements, partial ends,
remote parts in other entries) and the test record of tests/storage/test_flatfile.cpp. For every
record: name, sequence and length; for every feature: key, the location's local parts in
biological order (start, end, strand), the partial ends (< and >), and the qualifiers in order
with their values. A CON record (no sequence) is refused, where Biopython returns an undefined
sequence. Then every entry imported into a project and exported as GenBank by carbon-cli: Biopython
reads each export to the same sequence and features as the original entry."""
import glob
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from carbon_testlib import Checks, bin_path, require_modules, work_dir  # noqa: E402

require_modules("Bio")
from Bio import SeqIO  # noqa: E402
from Bio.SeqFeature import AfterPosition, BeforePosition  # noqa: E402

DUMP = bin_path("carbon_flatfile_dump")
EMBOSS = "/usr/share/EMBOSS/test"


def ours(path):
    p = subprocess.run([DUMP, path], capture_output=True, text=True)
    return p.returncode, (json.loads(p.stdout) if p.returncode == 0 else p.stderr.strip())


def norm(v):
    return " ".join(v.replace('""', '"').split())


def biopython_qualifiers(f):
    """(key, value) in file order: Biopython groups repeated keys into lists (in order) and gives
    flags as ""; the file order of different keys is not kept, so compare per key."""
    out = {}
    for k, vs in f.qualifiers.items():
        out[k] = [norm(v) for v in vs]
    return out


def compare(c, path, fmt):
    status, got = ours(path)
    want = list(SeqIO.parse(path, fmt))
    if any(r.annotations.get("data_file_division") == "CON" or "contig" in r.annotations for r in want):
        c.check(status == 1 and "no sequence" in got, f"{path}: a CON record should be refused: {got}")
        return 0
    c.check(status == 0, f"{path}: refused: {got}")
    if status != 0:
        return 0
    recs = got["records"]
    c.check(len(recs) == len(want), f"{path}: {len(recs)} records, Biopython {len(want)}")
    features = 0
    for r, w in zip(recs, want):
        where = f"{path} {r['name']}"
        c.check(r["bases"] == str(w.seq).upper(), f"{where}: sequence differs")
        c.check(r["name"] == w.name, f"{where}: name {r['name']}, Biopython {w.name}")
        c.check(len(r["features"]) == len(w.features), f"{where}: {len(r['features'])} features, Biopython {len(w.features)}")
        for f, b in zip(r["features"], w.features):
            features += 1
            fw = f"{where} line {f['line']} {f['key']} {f['location']}"
            c.check(f["key"] == b.type, f"{fw}: key, Biopython {b.type}")
            bparts = [p for p in b.location.parts if not p.ref]
            mine = [(p[0], p[1], p[2]) for p in f["parts"]]
            theirs = [(int(p.start), int(p.end), p.strand if p.strand is not None else 1) for p in bparts]
            c.check(mine == theirs, f"{fw}: parts {mine}, Biopython {theirs}")
            c.check(f["remote"] == any(p.ref for p in b.location.parts), f"{fw}: remote parts")
            for p, q in zip(f["parts"], bparts):
                c.check(p[3] == isinstance(q.start, BeforePosition) and p[4] == isinstance(q.end, AfterPosition),
                        f"{fw}: partial ends {p[3:]}, Biopython {type(q.start).__name__} {type(q.end).__name__}")
            mq = {}
            for k, v in f["qualifiers"]:
                mq.setdefault(k, []).append(norm(v) if v is not None else "")
            bq = biopython_qualifiers(b)
            c.check(mq == bq, f"{fw}: qualifiers {mq}, Biopython {bq}")
    return features


def biopython_features(rec):
    out = []
    for f in rec.features:
        parts = [(int(p.start), int(p.end), p.strand) for p in f.location.parts if not p.ref]
        out.append((f.type, parts, {k: [norm(v) for v in vs] for k, vs in f.qualifiers.items()}))
    return out


def export_round_trip(c, path, fmt, work):
    """Our GenBank export of each imported entry, read by Biopython: the same sequence and features
    as Biopython reads from the original file."""
    want = [r for r in SeqIO.parse(path, fmt)]
    project = os.path.join(work, "p.carbon")
    for ext in ("", "-wal", "-shm"):
        if os.path.exists(project + ext):
            os.remove(project + ext)
    cli = bin_path("carbon-cli")
    p = subprocess.run([cli, "project", "import", project, "--genbank", path], capture_output=True, text=True)
    c.check(p.returncode == 0, f"{path}: import failed: {p.stderr.strip()}")
    for i, w in enumerate(want, start=1):
        out = os.path.join(work, f"{i}.gb")
        p = subprocess.run([cli, "project", "export", project, "--format", "genbank", "--sequence-id", str(i), "--out", out],
                           capture_output=True, text=True)
        c.check(p.returncode == 0, f"{path} #{i}: export failed: {p.stderr.strip()}")
        got = SeqIO.read(out, "genbank")
        c.check(str(got.seq).upper() == str(w.seq).upper(), f"{path} #{i}: exported sequence differs")
        c.check(got.name == w.name[:len(got.name)], f"{path} #{i}: exported name {got.name}, original {w.name}")
        a, b = biopython_features(got), biopython_features(w)
        if a != b:
            first = next(((x, y) for x, y in zip(a, b) if x != y), (len(a), len(b)))
            c.check(False, f"{path} #{i}: Biopython reads other features from our export: {first}")
    return len(want)


def main():
    c = Checks()
    files = sorted(glob.glob(f"{EMBOSS}/genbank/*.seq")) + sorted(glob.glob(f"{EMBOSS}/embl/*.dat"))
    if not files:
        print(f"SKIP: the emboss-test package's GenBank and EMBL entries are not installed ({EMBOSS}): "
              "tests/setup-test-deps.sh installs them")
        return 77
    features = 0
    for path in files:
        features += compare(c, path, "genbank" if path.endswith(".seq") else "embl")
    print(f"{len(files)} files, {features} features equal to Biopython's")
    work = work_dir("flatfile_biopython")
    exported = 0
    for path in files:
        if not path.endswith("condiv.dat"):  # a CON record: refused on import, checked above
            exported += export_round_trip(c, path, "genbank" if path.endswith(".seq") else "embl", work)
    print(f"{exported} entries exported as GenBank by carbon-cli read by Biopython as the originals")
    c.check(features > 3000, f"only {features} features compared")
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
