#!/usr/bin/env bash
# The GPU proof in one command (issue 14), for a machine with an NVIDIA GPU (sm_80 or newer), its
# driver and the CUDA toolkit (nvcc, cuBLASLt); no Qt or SQLite needed. It
#   1. builds the engine, kernels, the CUDA backend plugin and the tests with CUDA (build-gpu/);
#   2. runs every `gpu`-labelled test on the device: each kernel's test, the real seam, and the
#      CUDA backend's conformance suite against the CPU backend (gpu.cuda_backend); and the
#      host-seam suites beside them (gpu-seam), which must agree;
#   3. checks whole-model parity with transformers on the same GPU (test_parity_transformers.py
#      with CARBON_PARITY_BACKEND=cuda);
#   4. benchmarks the carbon-500m, carbon-3b and carbon-8b presets (random weights, real shapes):
#      prefill and decode at batch 1, 16, 64, 256 with `carbon-cli bench --backend cuda`, beside
#      transformers on the same GPU (bf16), and prints the roofline of each shape for this GPU
#      (tests/bench/gpu_perf_model.py);
# and writes one report, OUT/report.md, with every log beside it.
#   bash tests/gpu/prove.sh [OUT_DIR]        (default build-gpu/gpu-proof)
# PROVE_PRESETS="carbon-500m" limits the benchmark; PROVE_SKIP_BENCH=1 skips it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
OUT=${1:-build-gpu/gpu-proof}
BUILD=build-gpu
PRESETS=${PROVE_PRESETS:-carbon-500m carbon-3b carbon-8b}
mkdir -p "$OUT"
REPORT="$OUT/report.md"
fail() { echo "prove.sh: $*" >&2; exit 1; }
section() { printf '\n## %s\n\n' "$1" >>"$REPORT"; echo "== $1"; }

command -v nvidia-smi >/dev/null 2>&1 || fail "nvidia-smi not found: this needs a machine with an NVIDIA GPU and its driver"
command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ] || fail "nvcc not found: install the CUDA toolkit"
export PATH="$PATH:/usr/local/cuda/bin"
GPU=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | head -1)
{
  echo "# GPU proof, $(date -u +%FT%TZ)"
  echo
  echo "- GPU: $GPU"
  echo "- CPU: $(lscpu | sed -n 's/^Model name:[[:space:]]*//p'), $(nproc) cores; flags: $(grep -o -w 'avx2\|avx512f\|avx512_bf16\|amx_bf16' /proc/cpuinfo | sort -u | tr '\n' ' ')"
  echo "- commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown); nvcc: $(nvcc --version | tail -1)"
} >"$REPORT"

section "Build"
PY=python3
if [ -x build/venv/bin/python ]; then PY=build/venv/bin/python; fi
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCARBON_GUI=OFF -DCARBON_STORAGE=OFF -DCARBON_CUDA=ON \
  -DCARBON_TESTS=ON -DPython3_EXECUTABLE="$(command -v "$PY" || echo "$PY")" >"$OUT/configure.log" 2>&1 ||
  { tail -30 "$OUT/configure.log"; fail "configure failed ($OUT/configure.log)"; }
cmake --build "$BUILD" -j "$(nproc)" >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; fail "build failed ($OUT/build.log)"; }
[ -f "$BUILD/bin/libcarbon-cuda.so" ] || fail "the CUDA backend plugin was not built (is CARBON_HAVE_CUDA on? see $OUT/configure.log)"
echo "built in $BUILD (log: build.log)" >>"$REPORT"

section "Tests on the GPU (label gpu) and on the host seam (label gpu-seam)"
status=0
ctest --test-dir "$BUILD" -L 'gpu|gpu-seam' --output-on-failure --timeout 1200 >"$OUT/gpu-tests.log" 2>&1 || status=1
grep -E 'tests passed|tests failed|Skipped|Failed' "$OUT/gpu-tests.log" | sed 's/^/    /' >>"$REPORT" || true
grep -E 'largest logit difference|largest per-base|scoring:' "$OUT/gpu-tests.log" | sed 's/^ */    /' >>"$REPORT" || true
if grep -q 'Skipped' "$OUT/gpu-tests.log" && grep -E '^[ 0-9/]+Test +#[0-9]+: (kernels\.gpu|gpu\.)' "$OUT/gpu-tests.log" | grep -q Skipped; then
  echo "**Some GPU tests skipped on a GPU machine: see gpu-tests.log.**" >>"$REPORT"
  status=1
fi

section "Whole-model parity with transformers on the GPU"
if "$PY" -c "import torch, transformers; assert torch.cuda.is_available()" 2>/dev/null; then
  CARBON_BIN="$PWD/$BUILD/bin" CARBON_TEST_WORK="$PWD/$BUILD/tests/work" CARBON_PARITY_BACKEND=cuda \
    "$PY" tests/python/test_parity_transformers.py >"$OUT/parity.log" 2>&1 || status=1
  sed 's/^/    /' "$OUT/parity.log" >>"$REPORT"
else
  echo "skipped: $PY has no torch with CUDA (tests/setup-test-deps.sh installs torch; it needs the GPU's driver)" | tee -a "$REPORT"
fi

if [ -z "${PROVE_SKIP_BENCH:-}" ]; then
  section "Benchmark (decode and prefill tokens/s; bp/s = 6 x tokens/s)"
  for preset in $PRESETS; do
    model="$BUILD/models/$preset"
    [ -f "$model/config.json" ] || "$BUILD/bin/carbon-cli" make-test-model --preset "$preset" --out "$model" --seed 1 >/dev/null
    echo "### $preset" >>"$REPORT"
    "$BUILD/bin/carbon-cli" bench --model "$model" --backend cuda --prompt-tokens 128 --decode-tokens 64 \
      --batches 1,16,64,256 --repeat 3 --json "$OUT/$preset-carbon.json" >"$OUT/$preset-carbon.log" 2>&1 || status=1
    sed 's/^/    /' "$OUT/$preset-carbon.log" >>"$REPORT"
    if "$PY" -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
      "$PY" tests/bench/bench_transformers.py --report "$OUT/$preset-carbon.json" --threads "$(nproc)" --repeat 2 \
        --dtype bfloat16 --device cuda --json "$OUT/$preset-transformers.json" >"$OUT/$preset-transformers.log" 2>&1 || status=1
      sed 's/^/    /' "$OUT/$preset-transformers.log" >>"$REPORT"
    fi
    "$PY" tests/bench/gpu_perf_model.py --model "$model" --batches 1,16,64,256 >"$OUT/$preset-roofline.log" 2>&1 || true
    echo "roofline predictions for this shape: $preset-roofline.log" >>"$REPORT"
  done
fi

echo >>"$REPORT"
if [ "$status" = 0 ]; then echo "RESULT: PASS" >>"$REPORT"; else echo "RESULT: FAIL (see the logs in $OUT)" >>"$REPORT"; fi
echo "report: $REPORT"
tail -1 "$REPORT"
exit "$status"
