#!/usr/bin/env bash
# Speculative decoding on the CPU: speed-up against measured acceptance, at batch 1 and 16.
# Random weights give a draft that never agrees with its target, so agreement is controlled:
#   - the target drafting for itself (acceptance 100%, but the draft costs as much as the target:
#     an upper bound on acceptance, a lower bound on speed);
#   - a draft made from the target's first 4 layers (same seed: the same embedding/head and
#     first layers, so cheap and partly agreeing).
#   bash tests/bench/spec_bench.sh [TARGET_DIR] [THREADS]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
TARGET="${1:-build/models/carbon-500m}"
THREADS="${2:-$(nproc)}"
DRAFT4=build/models/carbon-500m-first4
[ -f "$TARGET/config.json" ] || build/bin/carbon-cli make-test-model --preset carbon-500m --out "$TARGET" --seed 1
[ -f "$DRAFT4/config.json" ] || build/bin/carbon-cli make-test-model --preset carbon-500m --layers 4 --out "$DRAFT4" --seed 1
echo "== machine: $(lscpu | sed -n 's/^Model name:[[:space:]]*//p'), $(nproc) cores, threads $THREADS, $(date -u +%F)"
CTX=ATGCGCTAGCTACGATCGATCGTAGCTAGCTAGCTAGCTACG
for count in 1 16; do
  echo "== batch $count, 300 bp greedy FNS: target alone"
  build/bin/carbon-cli generate --model "$TARGET" --backend cpu --threads "$THREADS" --context "$CTX" --length 300 \
    --count "$count" --temperature 0 --quiet --out build/bench/spec-plain.fasta 2>&1 | tail -1
  for draft in "$DRAFT4" "$TARGET"; do
    echo "== batch $count, draft $draft (k=4, adaptive, auto-off disabled to measure)"
    build/bin/carbon-cli generate --model "$TARGET" --draft "$draft" --draft-tokens 4 --no-auto-disable --backend cpu \
      --threads "$THREADS" --context "$CTX" --length 300 --count "$count" --temperature 0 --quiet \
      --out build/bench/spec-draft.fasta 2>&1 | tail -2
    cmp -s build/bench/spec-plain.fasta build/bench/spec-draft.fasta && echo "   designs identical to the target alone" \
      || echo "   DESIGNS DIFFER"
  done
done
echo "== load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

# Sampled designs: acceptance under the two verifications (same drafts, same seed). Identity with
# the target's own draw accepts only when two samplers coincide; speculative sampling accepts
# with probability min(1, p/q), which is never lower on average (1 - total variation distance).
OTHER4=build/models/carbon-500m-other4
[ -f "$OTHER4/config.json" ] || build/bin/carbon-cli make-test-model --preset carbon-500m --layers 4 --out "$OTHER4" --seed 2
for draft in "$OTHER4" "$DRAFT4"; do
  for t in 0.7 1.0; do
    for verify in identical distribution; do
      printf "== batch 8, 300 bp sampled FNS, T=%s, draft %s, %s: " "$t" "$draft" "$verify"
      build/bin/carbon-cli generate --model "$TARGET" --draft "$draft" --draft-verify "$verify" --no-auto-disable --backend cpu \
        --threads "$THREADS" --context "$CTX" --length 300 --count 8 --temperature "$t" --seed 3 --quiet \
        --out build/bench/spec-sampled.fasta 2>&1 | grep '^speculative' | sed 's/.*verification): //'
    done
  done
done
