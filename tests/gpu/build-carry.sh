#!/usr/bin/env bash
# Builds, on a machine without a GPU (nvcc is enough), what the GPU proof runs, and packs it into one
# folder that travels to the lent GPU machine (at most 64 MiB; docs/gpu-proof/README.md):
#   bash tests/gpu/build-carry.sh [CARRY_DIR]       (default .carry/gpu; build in build-carry/, or
#                                                   $CARBON_CARRY_BUILD; CARBON_CARRY_JOBS=N jobs)
#   bash tests/gpu/build-carry.sh --pack-only BUILD_DIR CARRY_DIR [--dry-run]
# The build: Release, no Qt and no SQLite, kernels for sm_90 plus compute_90 PTX only (H100/H200).
# The folder, with paths relative to it (the GPU machine has another absolute path):
#   bin/    carbon-cli, carbon_forward (the parity tool), libcarbon-cuda.so (the plugin beside them),
#           test_backend_selection, bench_spec_oracle
#   tests/  the gpu-labelled test programs; tests.tsv lists them (CTest name, program)
#   lib/    libcudart.so.13, used only where the GPU machine has none (cuBLASLt, 540 MB, cannot
#           travel: prove.sh finds the GPU machine's own, from its CUDA toolkit or PyTorch)
#   MANIFEST.txt  commit, compiler, architectures, build time, every file's size
# --pack-only packs an existing build (the dry run packs the CI build: tests/gpu/prove-dry.sh);
# --dry-run also takes the host-seam plugin (libcarbon-cuda-host-seam.so) and lets a build without
# nvcc go without the nvcc-built programs. Exits non-zero, naming it, when something is missing or
# the folder exceeds 64 MiB.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
fail() { echo "build-carry.sh: $*" >&2; exit 1; }
LIMIT_BYTES=$((64 * 1024 * 1024))

PACK_ONLY=0
DRY=0
if [ "${1:-}" = "--pack-only" ]; then
  PACK_ONLY=1
  BUILD=${2:?--pack-only needs BUILD_DIR CARRY_DIR}
  CARRY=${3:?--pack-only needs BUILD_DIR CARRY_DIR}
  [ "${4:-}" = "--dry-run" ] && DRY=1
else
  CARRY=${1:-.carry/gpu}
  BUILD=${CARBON_CARRY_BUILD:-build-carry}
fi

# The kernel tests nvcc builds for the GPU (tests/kernels/CMakeLists.txt: test_<op>.cpp -> test_<op>_gpu).
kernel_tests() {
  for f in tests/kernels/test_*.cpp; do
    n=$(basename "$f" .cpp)
    case "$n" in test_host_*) continue ;; esac
    echo "$n"
  done
}

if [ "$PACK_ONLY" = 0 ]; then
  NVCC=${CUDACXX:-/usr/local/cuda/bin/nvcc}
  [ -x "$NVCC" ] || fail "nvcc not found at $NVCC (set CUDACXX): the carry is built with the CUDA toolkit"
  JOBS=${CARBON_CARRY_JOBS:-$(nproc)}
  t0=$(date +%s)
  mkdir -p "$BUILD"
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCARBON_GUI=OFF -DCARBON_STORAGE=OFF -DCARBON_CUDA=ON \
    -DCARBON_TESTS=ON -DCMAKE_CUDA_COMPILER="$NVCC" "-DCARBON_CUDA_ARCHITECTURES=90-real;90-virtual" >"$BUILD/carry-configure.log" 2>&1 ||
    { tail -30 "$BUILD/carry-configure.log"; fail "configure failed ($BUILD/carry-configure.log)"; }
  targets=(carbon-cli carbon_forward carbon_cuda_plugin test_cuda_backend_gpu test_cuda_device test_backend_selection bench_spec_oracle)
  for n in $(kernel_tests); do targets+=("${n}_gpu"); done
  cmake --build "$BUILD" -j "$JOBS" --target "${targets[@]}" >"$BUILD/carry-build.log" 2>&1 ||
    { tail -40 "$BUILD/carry-build.log"; fail "build failed ($BUILD/carry-build.log)"; }
  BUILD_SECONDS=$(($(date +%s) - t0))
  echo "build-carry.sh: built in ${BUILD_SECONDS} s with $JOBS jobs ($BUILD)"
fi

[ -d "$BUILD/bin" ] || fail "$BUILD/bin does not exist: build first"
HAVE_NVCC=1
[ -f "$BUILD/bin/libcarbon-cuda.so" ] || HAVE_NVCC=0
if [ "$HAVE_NVCC" = 0 ] && [ "$DRY" = 0 ]; then
  fail "$BUILD/bin/libcarbon-cuda.so is missing: the build has no CUDA backend plugin (was nvcc found?)"
fi

rm -rf "$CARRY"
mkdir -p "$CARRY/bin" "$CARRY/tests" "$CARRY/lib"
take() {  # SOURCE DEST_DIR: copied stripped; a missing file fails the pack
  [ -f "$1" ] || fail "$1 is missing from the build"
  cp "$1" "$2/"
  strip --strip-unneeded "$2/$(basename "$1")" 2>/dev/null || true
}
for p in carbon-cli carbon_forward test_backend_selection bench_spec_oracle; do take "$BUILD/bin/$p" "$CARRY/bin"; done
if [ "$DRY" = 1 ]; then take "$BUILD/bin/libcarbon-cuda-host-seam.so" "$CARRY/bin"; fi

: >"$CARRY/tests/tests.tsv"
if [ "$HAVE_NVCC" = 1 ]; then
  take "$BUILD/bin/libcarbon-cuda.so" "$CARRY/bin"
  for n in $(kernel_tests); do
    take "$BUILD/bin/${n}_gpu" "$CARRY/tests"
    printf 'kernels.gpu.%s\ttests/%s_gpu\n' "${n#test_}" "$n" >>"$CARRY/tests/tests.tsv"
  done
  take "$BUILD/bin/test_cuda_device" "$CARRY/tests"
  printf 'gpu.cuda_device\ttests/test_cuda_device\n' >>"$CARRY/tests/tests.tsv"
  take "$BUILD/bin/test_cuda_backend_gpu" "$CARRY/tests"
  printf 'gpu.cuda_backend\ttests/test_cuda_backend_gpu\n' >>"$CARRY/tests/tests.tsv"
  # The runtime the programs were linked with, in case the GPU machine lacks it (prove.sh puts the
  # machine's own first).
  cudart=$(ldd "$BUILD/bin/libcarbon-cuda.so" | awk '/libcudart\.so/ {print $3}')
  [ -n "$cudart" ] && [ -f "$cudart" ] || fail "libcarbon-cuda.so does not name a libcudart the loader finds here"
  cp -L "$cudart" "$CARRY/lib/"
  # Libraries a carried program links that a bare GPU machine may not have (Boost.Context: the host
  # seam's fibres, in test_backend_selection); not the CUDA ones, which the machine brings.
  for f in "$CARRY"/bin/* "$CARRY"/tests/*; do
    [ -x "$f" ] || continue
    ldd "$f" 2>/dev/null | awk '/libboost_/ {print $3}'
  done | sort -u | while read -r lib; do [ -f "$lib" ] && cp -L "$lib" "$CARRY/lib/"; done
fi

bytes=$(du -sb "$CARRY" | cut -f1)
{
  echo "# What tests/gpu/build-carry.sh packed"
  echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "built: $(date -u +%FT%TZ) from $BUILD ($([ "$PACK_ONLY" = 1 ] && echo 'packed only' || echo "built in ${BUILD_SECONDS} s"))"
  echo "mode: $([ "$DRY" = 1 ] && echo 'dry run (host-seam plugin included)' || echo 'GPU')"
  if [ "$HAVE_NVCC" = 1 ]; then
    nvcc=$(sed -n 's/^CMAKE_CUDA_COMPILER:[A-Z]*=//p' "$BUILD/CMakeCache.txt")
    echo "nvcc: $nvcc, $("$nvcc" --version 2>/dev/null | tail -1)"
    echo "architectures: $(sed -n 's/^CARBON_CUDA_ARCHITECTURES:[A-Z]*=//p' "$BUILD/CMakeCache.txt")"
  else
    echo "nvcc: none (this build has no nvcc-built programs)"
  fi
  echo "total: $bytes bytes ($((bytes / 1024 / 1024)) MiB) of at most $LIMIT_BYTES"
  echo
  (cd "$CARRY" && find . -type f ! -name MANIFEST.txt -printf '%s\t%p\n' | sort -k2)
} >"$CARRY/MANIFEST.txt"
[ "$bytes" -le "$LIMIT_BYTES" ] || fail "$CARRY holds $bytes bytes, more than the 64 MiB a device call carries"
echo "build-carry.sh: $CARRY holds $bytes bytes ($((bytes / 1024 / 1024)) MiB; limit 64 MiB)"
