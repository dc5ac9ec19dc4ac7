#!/usr/bin/env bash
# GUI benchmarks (issue: the desktop application), each beside its peer in the same run:
#   - frame time of the sequence editor scrolling a 1 Mbp sequence (peer: the 16.7 ms frame of a
#     60 Hz display);
#   - time to open a project of 10,000 designs of 1 kb with their tracks, and the GUI thread's
#     longest stall meanwhile (peer: Python's sqlite3 reading the same rows, no GUI);
#   - time from an edit of a 10 kb sequence to the refreshed likelihood track, tiny and
#     carbon-500m-shaped checkpoints (peer: transformers scoring the 10 kb from scratch, which is
#     what a refresh costs without incremental rescoring).
# Qt's offscreen platform (no X server needed): paint cost is measured, not the compositor.
#   bash tests/bench/gui_bench.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
BUILD="${1:-build}"
PY="${PYTHON:-$BUILD/venv/bin/python}"
[ -x "$PY" ] || PY=python3
export QT_QPA_PLATFORM=offscreen
BENCH="$BUILD/bin/bench_gui"
[ -x "$BENCH" ] || { echo "$BENCH missing: build with -DCARBON_GUI=ON" >&2; exit 1; }
mkdir -p "$BUILD/bench"
echo "== machine: $(lscpu | sed -n 's/^Model name:[[:space:]]*//p'), $(nproc) cores, $(date -u +%F), load $(cut -d' ' -f1-3 /proc/loadavg)"

echo "== scrolling a 1 Mbp sequence (token boundaries, selection and likelihood band painted)"
"$BENCH" scroll 2>/dev/null

echo "== opening a project of 10,000 designs"
P="$BUILD/bench/gui-10k.carbon"
"$BENCH" open-project "$P" 10000 2>/dev/null
"$PY" - "$P" <<'PY'
import sqlite3, sys, time
t = time.perf_counter()
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT id, run_id, sequence_id, name, bases, design_logp, ranking_logp, rank, stream_index, backtracks, "
                  "created, flag, min_base_logp FROM designs ORDER BY run_id, rank, id").fetchall()
runs = db.execute("SELECT * FROM runs").fetchall()
print(f"peer python_sqlite3_read_same_rows {1000 * (time.perf_counter() - t):.3f} ms ({len(rows)} designs)")
PY

for m in tiny carbon-500m; do
  MODEL="$BUILD/models/$m"
  [ -f "$MODEL/config.json" ] || "$BUILD/bin/carbon-cli" make-test-model --preset "$m" --out "$MODEL" --seed 1 >/dev/null
  echo "== edit to refreshed track, 10 kb, $m"
  "$BENCH" edit-track "$MODEL" 2>/dev/null
  echo "-- peer: transformers scoring the 10 kb from scratch ($(nproc) threads)"
  "$PY" tests/bench/bench_fns_transformers.py --model "$MODEL" --threads "$(nproc)" --count 1 --length 6 \
    --score-length 10002 2>/dev/null | grep 'transformers scoring'
done
