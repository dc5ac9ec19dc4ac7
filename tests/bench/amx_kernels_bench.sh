#!/usr/bin/env bash
# The three AMX kernels (packed, the default: cpu_amx_packed_kernel.inc; in place and k-blocked:
# cpu_amx_kernels.inc; the same bits) side by side on
# a CPU with AMX-BF16, alone at the carbon-500m projection shapes and in the whole model, with
# transformers bfloat16 in the same run as the peer (docs/benchmarks.md, issue 16). One command:
#   bash tests/bench/amx_kernels_bench.sh [MODEL_DIR] [THREADS] [ROUNDS]
# Needs the build (packaging/setup.sh) and the Python packages (tests/setup-test-deps.sh). Exits 77,
# saying so, on a CPU the amx kernels cannot run on. Log: build/bench/amx_kernels.log.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
MODEL="${1:-build/models/carbon-500m}"
THREADS="${2:-2}"
ROUNDS="${3:-3}"
PY="${PYTHON:-build/venv/bin/python}"
[ -x "$PY" ] || PY=python3
mkdir -p build/bench
if [ ! -f "$MODEL/config.json" ]; then
  build/bin/carbon-cli make-test-model --preset carbon-500m --out "$MODEL" --seed 1
fi
if ! build/bin/carbon-cli info --model "$MODEL" --cpu-kernels amx >/dev/null 2>build/bench/amx_kernels.err; then
  if grep -q "cannot run on this CPU" build/bench/amx_kernels.err; then
    echo "amx_kernels_bench: skipped: $(tail -1 build/bench/amx_kernels.err)" >&2
    exit 77
  fi
  cat build/bench/amx_kernels.err >&2
  exit 1
fi
if ! "$PY" -c "import torch, transformers" 2>/dev/null; then
  echo "amx_kernels_bench: $PY cannot import torch and transformers (the peer): bash tests/setup-test-deps.sh" >&2
  exit 1
fi
{
  echo "== machine: $(lscpu | sed -n 's/^Model name:[[:space:]]*//p'), $(nproc) cores, threads $THREADS, $(date -u +%F)"
  echo "== each matmul alone (best of 5)"
  build/bin/bench_cpu_matmul --threads "$THREADS" --paths amx
  # Rounds of the three kernels in turn.
  for round in $(seq "$ROUNDS"); do
    # Rotated each round, so drift in the machine's load falls on every kernel.
    case $((round % 3)) in
      1) order="packed in-place k-blocked" ;;
      2) order="in-place k-blocked packed" ;;
      *) order="k-blocked packed in-place" ;;
    esac
    for kernel in $order; do
      echo "== round $round: carbon-cli bench, CARBON_AMX_KERNEL=$kernel"
      CARBON_AMX_KERNEL="$kernel" build/bin/carbon-cli bench --model "$MODEL" --threads "$THREADS" --cpu-kernels amx \
        --prompt-tokens 64 --decode-tokens 32 --batches 1,8 --repeat 3 --json "build/bench/engine-amx-$kernel.json"
    done
  done
  echo "== transformers bfloat16 (same files, same prompts, same threads)"
  "$PY" tests/bench/bench_transformers.py --report build/bench/engine-amx-packed.json --threads "$THREADS" \
    --repeat 1 --dtype bfloat16 --json build/bench/transformers-amx-peer.json
  echo "== load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
} 2>&1 | tee build/bench/amx_kernels.log
