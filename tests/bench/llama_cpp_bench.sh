#!/usr/bin/env bash
# Our 8-bit and bf16 weights beside llama.cpp at bf16 and Q8_0 on the same checkpoint, in the same
# run (docs/benchmarks.md, issue 34). llama.cpp is built (CPU, -DGGML_NATIVE=ON) from the source
# that PyPI's llama-cpp-python ships (its sdist vendors llama.cpp, with the HybridDNA tokenizer);
# the checkpoint goes to GGUF with that source's own convert_hf_to_gguf.py (bf16; through
# convert_carbon_gguf.py, which gives a generated checkpoint's tokenizer what the real one's Python
# code has) and llama-quantize (Q8_0). Both sides: 64 prompt tokens, then 32 decoded at batch 1, the same thread count. One
# command:
#   bash tests/bench/llama_cpp_bench.sh [MODEL_DIR] [THREADS] [ROUNDS]
# Needs the build (packaging/setup.sh), the Python packages (tests/setup-test-deps.sh: torch,
# transformers, numpy for the converter), cmake and a C++ compiler. The sdist is fetched once with
# pip into build/bench/llama-cpp (LLAMA_CPP_SDIST=FILE.tar.gz to use one at hand). Log:
# build/bench/llama_cpp.log.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
MODEL="${1:-build/models/carbon-500m}"
THREADS="${2:-2}"
ROUNDS="${3:-2}"
PY="${PYTHON:-build/venv/bin/python}"
[ -x "$PY" ] || PY=python3
WORK=build/bench/llama-cpp
VERSION=0.3.36
mkdir -p "$WORK"
if [ ! -f "$MODEL/config.json" ]; then
  build/bin/carbon-cli make-test-model --preset carbon-500m --out "$MODEL" --seed 1
fi
SRC="$WORK/llama_cpp_python-$VERSION/vendor/llama.cpp"
if [ ! -f "$SRC/CMakeLists.txt" ]; then
  SDIST="${LLAMA_CPP_SDIST:-}"
  if [ -z "$SDIST" ]; then
    "$PY" -m pip download --quiet --no-binary :all: --no-deps "llama-cpp-python==$VERSION" -d "$WORK"
    SDIST="$WORK/llama_cpp_python-$VERSION.tar.gz"
  fi
  tar -xzf "$SDIST" -C "$WORK"
fi
BUILD="$WORK/build"
if [ ! -x "$BUILD/bin/llama-bench" ] || [ ! -x "$BUILD/bin/llama-quantize" ]; then
  cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF \
    -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF -DBUILD_SHARED_LIBS=OFF >"$WORK/cmake.log"
  cmake --build "$BUILD" -j"$(nproc)" --target llama-bench llama-quantize >"$WORK/build.log"
fi
NAME=$(basename "$MODEL")
BF16="$WORK/$NAME-bf16.gguf"
Q8="$WORK/$NAME-q8_0.gguf"
if [ ! -f "$BF16" ]; then
  "$PY" tests/bench/convert_carbon_gguf.py "$SRC" "$MODEL" --outtype bf16 --outfile "$BF16" >"$WORK/convert.log" 2>&1
fi
if [ ! -f "$Q8" ]; then
  "$BUILD/bin/llama-quantize" "$BF16" "$Q8" Q8_0 "$THREADS" >"$WORK/quantize.log" 2>&1
fi
flags=$(grep -o -w -E 'avx2|fma|f16c|avx512f|avx512bw|avx512vl|avx512_vnni|avx512_bf16|avx512_fp16|amx_tile|amx_bf16|amx_int8' /proc/cpuinfo | sort -u | tr '\n' ' ')
{
  echo "== machine: $(lscpu | sed -n 's/^Model name:[[:space:]]*//p'), $(nproc) cores, flags: $flags; threads $THREADS, $(date -u '+%F %H:%M UTC')"
  echo "== model: $MODEL; llama.cpp from llama-cpp-python $VERSION ($(cd "$SRC" && git describe --tags 2>/dev/null || echo vendored)); GGUF: $(du -h "$BF16" | cut -f1) bf16, $(du -h "$Q8" | cut -f1) Q8_0"
  for round in $(seq "$ROUNDS"); do
    echo "== round $round"
    for w in native int8 q8_0; do
      echo "-- carbon-cli bench --weights $w"
      build/bin/carbon-cli bench --model "$MODEL" --threads "$THREADS" --prompt-tokens 64 --decode-tokens 32 --batches 1 --repeat 3 \
        --weights "$w" 2>&1 | grep -v '^note:'
    done
    for g in "$BF16" "$Q8"; do
      # Its default repacks the weights for its AVX-512/AMX kernels; where that run fails (its Q8_0
      # repack crashes on this model in 0.3.36's llama.cpp), the run without repacking stands, said.
      for repack in 1 0; do
        echo "-- llama-bench $(basename "$g") --repack $repack"
        rc=0
        out=$("$BUILD/bin/llama-bench" -m "$g" -t "$THREADS" -p 64 -n 32 -r 3 --repack "$repack" -o md 2>&1) || rc=$?
        if [ "$rc" = 0 ]; then
          grep -E '^\|' <<<"$out" || true
          break
        fi
        echo "   (llama-bench failed: exit $rc)"
      done
    done
  done
} | tee build/bench/llama_cpp.log
