#!/usr/bin/env bash
# Which part of a model's shape makes the CUDA backend disagree with the CPU: the first-use
# self-check (KL divergence of the CUDA backend's logits from the CPU's fp32 oracle, 65 positions:
# a prefill and decode steps) on checkpoints that change one dimension at a time from the
# carbon-3b shape towards carbon-500m's, 2 layers and a compact 6,144-token vocabulary so that
# each takes seconds. One line per variant: name, shape, verdict and KL.
#   bash tests/gpu/shape_bisect.sh CLI OUT_DIR [VARIANT ...]
# CLI is carbon-cli (on a GPU machine: .carry/gpu/bin/carbon-cli; without a GPU, with
# CARBON_CUDA_PLUGIN=build/bin/libcarbon-cuda-host-seam.so, the same on the host seam).
set -uo pipefail
CLI=${1:?carbon-cli path}
OUT=${2:?output folder}
shift 2
mkdir -p "$OUT"
declare -A V=(
  [3b]="--preset carbon-3b"
  [3b-hd64]="--preset carbon-3b --head-dim 64 --heads 48 --kv-heads 6"
  [3b-gqa4]="--preset carbon-3b --kv-heads 8"
  [3b-gqa1]="--preset carbon-3b --kv-heads 32"
  [3b-ffn8192]="--preset carbon-3b --intermediate 8192"
  [3b-h1024]="--preset carbon-3b --hidden 1024 --heads 32 --head-dim 96"
  [3b-f32]="--preset carbon-3b --dtype f32"
  [500m]="--preset carbon-500m"
  [500m-hd96]="--preset carbon-500m --head-dim 96"
  [500m-gqa8]="--preset carbon-500m --kv-heads 2"
)
ORDER=(500m 3b 3b-f32 3b-hd64 3b-gqa4 3b-gqa1 3b-ffn8192 3b-h1024 500m-hd96 500m-gqa8)
[ $# -gt 0 ] && ORDER=("$@")
for name in "${ORDER[@]}"; do
  args=${V[$name]:-}
  [ -n "$args" ] || { echo "$name: no such variant (${!V[*]})"; continue; }
  m="$OUT/$name"
  rm -rf "$m"
  # shellcheck disable=SC2086
  "$CLI" make-test-model $args --layers 2 --compact-vocab --seed 7 --out "$m" >/dev/null 2>&1 || { echo "$name: make-test-model failed"; continue; }
  cache=$(mktemp -d)
  out=$(XDG_CACHE_HOME="$cache" "$CLI" bench --model "$m" --backend cuda --workload forward --batches 1 --prompt-tokens 8 \
    --decode-tokens 2 --repeat 1 2>&1)
  rm -rf "$cache"
  verdict=$(grep -o 'GPU self-check [^:]*: largest KL divergence[^)]*)' <<<"$out" | head -1)
  printf '%-12s %-60s %s\n' "$name" "$args" "${verdict:-$(tail -1 <<<"$out")}"
done
