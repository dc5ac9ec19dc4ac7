#!/usr/bin/env bash
# CPU benchmark of the engine against transformers on the same machine, files and threads.
#   bash tests/bench/cpu_bench.sh [MODEL_DIR] [THREADS]
# Without MODEL_DIR it writes the carbon-500m preset (random bf16 weights, real shapes) to
# build/models/carbon-500m. Needs the build (packaging/setup.sh) and the Python packages
# (tests/setup-test-deps.sh). Results go to build/bench/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
MODEL="${1:-build/models/carbon-500m}"
THREADS="${2:-$(nproc)}"
PY="${PYTHON:-build/venv/bin/python}"
[ -x "$PY" ] || PY=python3
mkdir -p build/bench
if [ ! -f "$MODEL/config.json" ]; then
  build/bin/carbon-cli make-test-model --preset carbon-500m --out "$MODEL" --seed 1
fi
echo "== machine: $(lscpu | sed -n 's/^Model name:[[:space:]]*//p'), $(nproc) cores, threads $THREADS, $(date -u +%F)"
echo "== carbon-cli bench"
build/bin/carbon-cli bench --model "$MODEL" --threads "$THREADS" --prompt-tokens 64 --decode-tokens 32 \
  --batches 1,8 --repeat 3 --json build/bench/engine.json
# transformers twice: in the checkpoint's bfloat16 (what the files hold) and upcast to float32,
# which is faster on CPUs without bf16 arithmetic; the better of the two is the peer to beat.
for dtype in bfloat16 float32; do
  echo "== transformers $dtype (same files, same prompts, same threads)"
  "$PY" tests/bench/bench_transformers.py --report build/bench/engine.json --threads "$THREADS" --repeat 1 \
    --dtype "$dtype" --json "build/bench/transformers-$dtype.json"
done
echo "== load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
