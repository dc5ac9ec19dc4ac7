#!/usr/bin/env bash
# The AMX kernels' cache misses, in place against k-blocked, on the tile emulation under
# callgrind's cache simulator (L1 48 KB 12-way, L2 2 MB 16-way: a Sapphire Rapids core), at one
# thread's task of the carbon-500m projections in the real 2-thread run. A model, not a timing:
# no prefetchers, no timing of misses; it shows where each kernel's tile operands come from.
# Installs valgrind if missing; needs the build (build/bin/amx_cache_model).
#   bash tests/bench/amx_cache_model.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
BIN="${CARBON_BIN:-build/bin}"
if [ ! -x "$BIN/amx_cache_model" ]; then
  echo "amx_cache_model.sh: $BIN/amx_cache_model is missing: build first (bash packaging/setup.sh)" >&2
  exit 1
fi
if ! command -v valgrind >/dev/null; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "amx_cache_model.sh: valgrind is missing and there is no sudo to install it" >&2; exit 1; }
    SUDO="sudo"
  fi
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends valgrind >&2
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf "%-8s %5s %-10s %12s %12s %14s %14s\n" matrix rows kernel "L1 misses" "L2 misses" "L1 per tdp" "L2 per tdp"
# name  task_rows (panels of one task x 32)  k
for shape in "q/o 128 1024" "gate/up 384 1024" "down 128 3072"; do
  set -- $shape
  for m in 65 520; do
    for kernel in in-place k-blocked; do
      if ! valgrind --tool=callgrind --cache-sim=yes --D1=49152,12,64 --LL=2097152,16,64 --toggle-collect='*run_amx*' \
        --callgrind-out-file="$out/cg" "$BIN/amx_cache_model" "$kernel" "$m" "$2" "$3" >/dev/null 2>"$out/log"; then
        cat "$out/log" >&2
        exit 1
      fi
      if ! grep -q "Collected : [1-9]" "$out/log"; then
        echo "amx_cache_model.sh: callgrind collected nothing in run_amx (renamed or inlined?):" >&2
        cat "$out/log" >&2
        exit 1
      fi
      # "==PID== Collected : Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw"; tile products: row blocks x panels x k blocks x 2
      awk -v name="$1" -v m="$m" -v kernel="$kernel" -v n="$2" -v k="$3" '/Collected/ {
        l1 = $8 + $9; l2 = $11 + $12; tdp = int((m + 15) / 16) * (n / 32) * int((k + 31) / 32) * 2
        printf "%-8s %5d %-10s %12d %12d %14.2f %14.2f\n", name, m, kernel, l1, l2, l1 / tdp, l2 / tdp }' "$out/log"
    done
  done
done
