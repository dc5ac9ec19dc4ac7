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
build/bin/carbon-cli bench --model "$MODEL" --threads "$THREADS" --prompt-tokens 128 --decode-tokens 32 \
  --batches 1,8 --repeat 2 --json build/bench/engine.json
echo "== transformers (same files, same prompts, same threads)"
"$PY" tests/bench/bench_transformers.py --report build/bench/engine.json --threads "$THREADS" --repeat 2 \
  --json build/bench/transformers.json
