#!/usr/bin/env bash
# Whole-VCF variant effect scoring on the CPU (docs/benchmarks.md): carbon-cli vep with prefix
# sharing, the plain two-passes-per-variant method (--no-prefix-sharing), and the transformers peer
# computing the same windowed deltas the straightforward way (bench_vep_transformers.py), on the
# same checkpoint, windows and threads; then carbon-cluster over a local Ray instance beside the
# single process on the same VCF (Ray's overhead).
#   bash tests/bench/vep_bench.sh [MODEL_DIR] [THREADS] [VARIANTS] [WINDOW]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
MODEL="${1:-build/models/carbon-500m}"
THREADS="${2:-$(nproc)}"
VARIANTS="${3:-24}"
WINDOW="${4:-8192}"
PY="${PYTHON:-build/venv/bin/python}"
[ -x "$PY" ] || PY=python3
CLI=build/bin/carbon-cli
OUT=build/bench/vep
mkdir -p "$OUT"
if [ ! -f "$MODEL/config.json" ]; then
  "$CLI" make-test-model --preset carbon-500m --out "$MODEL" --seed 1
fi
echo "== machine: $(lscpu | sed -n 's/^Model name:[[:space:]]*//p'), $(nproc) cores, threads $THREADS, $(date -u +%F)"
echo "== CPU flags: $(grep -o -w -E 'avx2|fma|f16c|avx512f|avx512bw|avx512_bf16|avx512_vnni|amx_tile|amx_bf16' /proc/cpuinfo | sort -u | tr '\n' ' ')"
echo "== model: $MODEL ($(sed -n 's/.*"num_hidden_layers": *\([0-9]*\).*/\1 layers/p' "$MODEL/config.json")), window $WINDOW bp, $VARIANTS variants"
"$PY" - "$OUT" "$VARIANTS" <<'PY'
import random, sys
out, n = sys.argv[1], int(sys.argv[2])
random.seed(5)
contigs = {"chr1": 120000, "chr2": 80000}
seqs = {k: "".join(random.choice("ACGT") for _ in range(v)) for k, v in contigs.items()}
with open(f"{out}/ref.fa", "w") as f:
    for k, s in seqs.items():
        f.write(f">{k}\n" + "\n".join(s[i:i + 60] for i in range(0, len(s), 60)) + "\n")
recs = []
for k, s in seqs.items():
    for p in sorted(random.sample(range(5000, len(s) - 5000), n * len(s) // 200000)):
        b, r = s[p - 1], random.random()
        if r < 0.8:
            recs.append((k, p, b, random.choice([x for x in "ACGT" if x != b])))
        elif r < 0.9:
            recs.append((k, p, s[p - 1:p + 3], b))  # deletion of 3
        else:
            recs.append((k, p, b, b + "GAT"))  # insertion of 3
with open(f"{out}/v.vcf", "w") as f:
    f.write("##fileformat=VCFv4.2\n" + "".join(f"##contig=<ID={k},length={v}>\n" for k, v in contigs.items()))
    f.write("#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n")
    for k, p, r, a in recs:
        f.write(f"{k}\t{p}\t.\t{r}\t{a}\t.\t.\t.\n")
PY
bgzip -f "$OUT/v.vcf" && tabix -f -p vcf "$OUT/v.vcf.gz"
N=$(zcat "$OUT/v.vcf.gz" | grep -vc '^#')
INPUTS=(--model "$MODEL" --reference "$OUT/ref.fa" --vcf "$OUT/v.vcf.gz" --window "$WINDOW" --backend cpu)
COMMON=("${INPUTS[@]}" --threads "$THREADS")
for mode in shared plain; do
  rm -f "$OUT/$mode.tsv" "$OUT/$mode.tsv.partial"
  extra=(); [ "$mode" = plain ] && extra=(--no-prefix-sharing)
  s=$(date +%s.%N)
  "$CLI" vep "${COMMON[@]}" "${extra[@]}" --out "$OUT/$mode.tsv" 2>&1 | tail -1 | tr '\r' '\n' | tail -1
  e=$(date +%s.%N)
  echo "== carbon-cli vep ($mode): $N variants in $(echo "$e - $s" | bc) s wall = $(echo "scale=2; $N / ($e - $s)" | bc) variants/s (process start and model load included)"
done
echo "== largest |delta| gap shared vs plain: $("$PY" -c "
import sys
a=[l.split('\t') for l in open('$OUT/shared.tsv') if not l.startswith('#')]
b=[l.split('\t') for l in open('$OUT/plain.tsv') if not l.startswith('#')]
print(max(abs(float(x[9])-float(y[9])) for x,y in zip(a,b) if x[9]!='NA'))")"
echo "== transformers peer (same windows, two full passes per variant)"
"$PY" tests/bench/bench_vep_transformers.py --model "$MODEL" --reference "$OUT/ref.fa" --scores "$OUT/shared.tsv" --threads "$THREADS" \
  --dtype "${TRANSFORMERS_DTYPE:-float32}"
if "$PY" -c "import ray" 2>/dev/null && [ "${SKIP_RAY:-0}" != 1 ]; then
  echo "== carbon-cluster over a local Ray instance (1 worker x $THREADS threads) vs the single process, same VCF"
  rm -f "$OUT/cluster.tsv"*
  s=$(date +%s.%N)
  RAY_USAGE_STATS_ENABLED=0 "$PY" build/bin/carbon-cluster vep "${INPUTS[@]}" --workers 1 --cpus-per-worker "$THREADS" \
    --shard-bp 20000 --out "$OUT/cluster.tsv" --quiet 2>/dev/null
  e=$(date +%s.%N)
  cmp "$OUT/cluster.tsv" "$OUT/shared.tsv" && echo "== cluster output byte-identical to the single run"
  echo "== carbon-cluster: $N variants in $(echo "$e - $s" | bc) s wall (Ray start, worker start and model load included)"
fi
echo "== load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
