#!/usr/bin/env bash
# Base-level (FNS) vs direct 6-mer generation, and base-level scoring, on the CPU: the engine
# (carbon-cli) and the transformers peer (bench_fns_transformers.py) on the same checkpoint,
# sizes and threads.
#   bash tests/bench/fns_bench.sh [MODEL_DIR] [THREADS]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
MODEL="${1:-build/models/carbon-500m}"
THREADS="${2:-$(nproc)}"
PY="${PYTHON:-build/venv/bin/python}"
[ -x "$PY" ] || PY=python3
COUNT=8
LENGTH=600
mkdir -p build/bench
if [ ! -f "$MODEL/config.json" ]; then
  build/bin/carbon-cli make-test-model --preset carbon-500m --out "$MODEL" --seed 1
fi
echo "== machine: $(lscpu | sed -n 's/^Model name:[[:space:]]*//p'), $(nproc) cores, threads $THREADS, $(date -u +%F)"
CTX=ATGCGCTAGCTACGATCGATCGTAGCTAGCTAGCTAGCTACG
for mode in fns direct; do
  echo "== carbon-cli generate --mode $mode ($COUNT x $LENGTH bp, greedy)"
  build/bin/carbon-cli generate --model "$MODEL" --backend cpu --threads "$THREADS" --context "$CTX" --length "$LENGTH" \
    --count "$COUNT" --temperature 0 --mode "$mode" --quiet --out "build/bench/designs-$mode.fasta" 2>&1 | tail -1
done
"$PY" - <<'PY' > build/bench/score-input.fasta
import random
random.seed(1)
print(">bench_3000\n" + "".join(random.choice("ACGT") for _ in range(3000)))
PY
echo "== carbon-cli score (3000 bp, base-level and token-level)"
TIMEFORMAT="wall %R s"
time build/bin/carbon-cli score --model "$MODEL" --backend cpu --threads "$THREADS" \
  --in build/bench/score-input.fasta > build/bench/score.tsv
TIMEFORMAT="wall %R s (--no-token-score)"
time build/bin/carbon-cli score --model "$MODEL" --backend cpu --threads "$THREADS" \
  --in build/bench/score-input.fasta --no-token-score > /dev/null
echo "== transformers peer (float32, the faster transformers configuration on this CPU)"
"$PY" tests/bench/bench_fns_transformers.py --model "$MODEL" --threads "$THREADS" --count "$COUNT" --length "$LENGTH" \
  --score-length 3000
echo "== load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
