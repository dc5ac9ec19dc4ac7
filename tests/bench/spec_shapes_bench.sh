#!/usr/bin/env bash
# Speculative decoding at the real shapes on the CPU: a Carbon-500M-cost draft for the Carbon-3B
# and Carbon-8B shapes, speed-up against measured acceptance at batch 1 and 16 (issue:
# speculative decoding). Random weights give a draft that never agrees with its target, so the
# drafts are made with controlled agreement, at the 500M's cost relative to each target:
#   - first-N-layers: the target's own first N layers (same seed: same embedding, head and first
#     layers), N chosen so that the draft reads 1/6 (3B) or 1/16 (8B) of the target's layer
#     weights, as Carbon-500M does; with these random weights it agrees with the target almost
#     always when greedy, and partly when sampling (speculative sampling);
#   - other-weights: the same shape with another seed: low agreement.
# Each speed-up is measured inside the run (speculative tokens/s over the target's own plain
# steps/s, SpeculativeStats::speedup), and the wall clock of a plain run is printed beside it.
#   bash tests/bench/spec_shapes_bench.sh [BUILD_DIR] [THREADS]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
BUILD="${1:-build}"
THREADS="${2:-$(nproc)}"
CLI="$BUILD/bin/carbon-cli"
M="$BUILD/models"
mk() {  # DIR PRESET SEED [LAYERS]
  [ -f "$1/config.json" ] && return
  "$CLI" make-test-model --preset "$2" --seed "$3" ${4:+--layers "$4"} --out "$1" >/dev/null
}
echo "== machine: $(lscpu | sed -n 's/^Model name:[[:space:]]*//p'), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, threads $THREADS, $(date -u +%F)"
CTX=ATGCGCTAGCTACGATCGATCGTAGCTAGCTAGCTAGCTACG
for shape in 3b 8b; do
  if [ "$shape" = 3b ]; then layers=5; len=180; else layers=2; len=120; fi
  T="$M/carbon-$shape"; D1="$M/carbon-$shape-first$layers"; D2="$M/carbon-$shape-other$layers"
  mk "$T" "carbon-$shape" 1; mk "$D1" "carbon-$shape" 1 "$layers"; mk "$D2" "carbon-$shape" 2 "$layers"
  for count in 1 16; do
    echo "== carbon-$shape, batch $count, $len bp FNS after a 42 bp context"
    printf "   target alone, greedy: "
    "$CLI" generate --model "$T" --backend cpu --threads "$THREADS" --context "$CTX" --length "$len" --count "$count" \
      --temperature 0 --quiet --out "$BUILD/bench/shapes-plain.fa" 2>&1 | tail -1 | sed 's/ on CPU.*//'
    for cfg in "first greedy 0" "first sampled 1.0" "other greedy 0"; do
      set -- $cfg
      d="$D1"; [ "$1" = other ] && d="$D2"
      printf "   draft %s (%s), %s: " "$(basename "$d")" "$2" "k=4 adaptive"
      "$CLI" generate --model "$T" --draft "$d" --draft-tokens 4 --no-auto-disable --backend cpu --threads "$THREADS" \
        --context "$CTX" --length "$len" --count "$count" --temperature "$3" --seed 5 --quiet \
        --out "$BUILD/bench/shapes-spec.fa" 2>&1 | grep -E '^speculative|design\(s\)' | sed 's/ on CPU.*//' | tr '\n' ' '
      echo
    done
  done
done
