"""Storage benchmark peers and driver (docs/benchmarks.md): writes a 100 Mbp FASTA, times
`carbon-cli project import` against a plain Python parse + sqlite3 insert of the same file, then
runs bench_storage (10,000 designs of 1 kb with full tracks; open + list) against the same
work done with Python's sqlite3. Usage: python3 tests/bench/storage_bench.py BUILD_DIR"""
import os
import random
import sqlite3
import struct
import subprocess
import sys
import time

build = sys.argv[1] if len(sys.argv) > 1 else "build"
out = os.path.join(build, "bench", "storage")
os.makedirs(out, exist_ok=True)
cli = os.path.join(build, "bin", "carbon-cli")


def fresh(p):
    for ext in ("", "-wal", "-shm"):
        if os.path.exists(p + ext):
            os.remove(p + ext)
    return p


fa = os.path.join(out, "100mbp.fa")
if not os.path.exists(fa):
    rng = random.Random(1)
    block = "".join(rng.choice("ACGT") for _ in range(1 << 16))
    with open(fa, "w") as f:
        for r in range(100):  # 100 records of 1 Mbp, 60 bases a line
            f.write(f">chr{r} synthetic\n")
            seq = (block * 16)[:1_000_000]
            for i in range(0, len(seq), 60):
                f.write(seq[i:i + 60] + "\n")

t = time.perf_counter()
subprocess.run([cli, "project", "import", fresh(os.path.join(out, "import.carbon")), "--fasta", fa], check=True)
print(f"carbon-cli project import, 100 Mbp: {time.perf_counter() - t:.2f} s")

t = time.perf_counter()
db = sqlite3.connect(fresh(os.path.join(out, "import-py.sqlite")))
db.execute("PRAGMA journal_mode=WAL")
db.execute("CREATE TABLE sequences(id INTEGER PRIMARY KEY, name TEXT, bases TEXT, description TEXT)")
name, desc, parts = None, "", []
with open(fa) as f, db:
    for line in f:
        if line.startswith(">"):
            if name is not None:
                db.execute("INSERT INTO sequences(name, bases, description) VALUES(?,?,?)", (name, "".join(parts), desc))
            h = line[1:].rstrip("\r\n").split(None, 1)
            name, desc, parts = (h[0] if h else ""), (h[1] if len(h) > 1 else ""), []
        else:
            parts.append(line.strip())
    db.execute("INSERT INTO sequences(name, bases, description) VALUES(?,?,?)", (name, "".join(parts), desc))
db.close()
print(f"Python parse + sqlite3 insert, 100 Mbp (no validation): {time.perf_counter() - t:.2f} s")

subprocess.run([os.path.join(build, "bin", "bench_storage"), os.path.join(out, "designs.carbon"), "10000", "1000"], check=True)

# Peer: the same rows with Python's sqlite3, one transaction per design.
p = fresh(os.path.join(out, "designs-py.sqlite"))
t = time.perf_counter()
db = sqlite3.connect(p, isolation_level=None)
db.execute("PRAGMA journal_mode=WAL")
db.execute("PRAGMA synchronous=NORMAL")
db.execute("CREATE TABLE designs(id INTEGER PRIMARY KEY, name TEXT, bases TEXT, rank INTEGER)")
db.execute("CREATE TABLE tracks(id INTEGER PRIMARY KEY, design_id INTEGER, kind TEXT, width INTEGER, data BLOB)")
db.execute("CREATE TABLE regions(id INTEGER PRIMARY KEY, design_id INTEGER, kind TEXT, start INTEGER, \"end\" INTEGER)")
db.execute("CREATE INDEX t_by_d ON tracks(design_id)")
rng = random.Random(2)
for i in range(10000):
    bases = "".join(rng.choices("ACGT", k=1000))
    logp = struct.pack("<1000f", *[-1.0] * 1000)
    dist = struct.pack("<4000e", *[0.25] * 4000)
    ent = struct.pack("<1000f", *[1.5] * 1000)
    db.execute("BEGIN IMMEDIATE")
    cur = db.execute("INSERT INTO designs(name, bases, rank) VALUES(?,?,?)", (f"design_{i}", bases, i + 1))
    did = cur.lastrowid
    for kind, w, blob in (("logp", 1, logp), ("dist_acgt", 4, dist), ("entropy_bits", 1, ent)):
        db.execute("INSERT INTO tracks(design_id, kind, width, data) VALUES(?,?,?,?)", (did, kind, w, blob))
    db.execute("INSERT INTO regions(design_id, kind, start, \"end\") VALUES(?,?,?,?)", (did, "design", 0, 1000))
    db.execute("COMMIT")
db.close()
print(f"Python sqlite3, 10000 designs with 3 tracks: {time.perf_counter() - t:.2f} s")
t = time.perf_counter()
db = sqlite3.connect(p)
ok = db.execute("PRAGMA quick_check").fetchone()[0]
rows = db.execute("SELECT id, name, rank FROM designs ORDER BY rank").fetchall()
print(f"Python sqlite3 open (quick_check {ok}) + list {len(rows)} designs: {time.perf_counter() - t:.3f} s")
