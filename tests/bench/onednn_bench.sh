#!/usr/bin/env bash
# oneDNN's bf16 and int8 matmuls beside the engine's own CPU matmul paths (bf16 and the int8
# weights' kernels), at the carbon-500m (or 3b) projection shapes, same threads (docs/benchmarks.md,
# issues 16 and 34: "measure, do not assume").
#   bash tests/bench/onednn_bench.sh [THREADS] [500m|3b]
# Installs libdnnl-dev (Debian's oneDNN) if missing; needs the build (build/bin/bench_cpu_matmul).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
THREADS="${1:-2}"
SHAPE="${2:-500m}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if ! dpkg -s libdnnl-dev >/dev/null 2>&1; then
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends libdnnl-dev >&2
fi
mkdir -p build/bench
g++ -O2 -std=c++17 tests/bench/bench_onednn_matmul.cpp -o build/bench/bench_onednn_matmul -ldnnl
echo "== machine: $(lscpu | sed -n 's/^Model name:[[:space:]]*//p'), threads $THREADS, $(date -u +%F)"
echo "== engine matmul paths"
build/bin/bench_cpu_matmul --threads "$THREADS" --shape "$SHAPE"
echo "== oneDNN"
OMP_NUM_THREADS="$THREADS" build/bench/bench_onednn_matmul "$SHAPE"
echo "== load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
