#!/usr/bin/env bash
# Byte-for-byte comparison of carbon-cli's outputs on fixed inputs between an earlier commit and
# the working tree: the proof that a restructure changed no behaviour. Both are built the same way
# (Release, no GUI, no CUDA, no tests) into WORK, then run the same commands: make-test-model,
# generate --seed (FNS and direct, with templates, constraints, tags, guidance, a draft model),
# score (table, JSON, tracks), variant, ism, vep, and every project export of the runs they stored.
# Every output file and every command's standard output is compared; run times and paths are not
# in them (stderr is not compared: it holds timings; the one measured figure stored with a run, the
# speculative speed-up, is masked).
#   bash tests/tools/compare_cli_outputs.sh BASE_COMMIT [WORK]
# Exit 0 when everything is identical, 1 when something differs (each difference listed).
# CARBON_COMPARE_HEAD_BIN=PATH uses an existing carbon-cli for the working tree instead of building.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
BASE=${1:?usage: compare_cli_outputs.sh BASE_COMMIT [WORK]}
WORK=${2:-$(mktemp -d /tmp/carbon-compare.XXXXXX)}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
BASE_SHA=$(git rev-parse --verify "$BASE^{commit}")

build() {  # build SRC DIR
  cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCARBON_GUI=OFF -DCARBON_CUDA=OFF -DCARBON_TESTS=OFF \
    >"$2.log" 2>&1 && cmake --build "$2" --target carbon-cli >>"$2.log" 2>&1 || { echo "build of $1 failed: $2.log" >&2; tail -20 "$2.log" >&2; exit 2; }
}

if [ ! -x "$WORK/base-build/bin/carbon-cli" ] || [ "$(cat "$WORK/base-build/.commit" 2>/dev/null)" != "$BASE_SHA" ]; then
  rm -rf "$WORK/base-src" "$WORK/base-build"
  git worktree prune
  git worktree add --detach "$WORK/base-src" "$BASE_SHA" >/dev/null
  echo "compare: building carbon-cli at $BASE_SHA" >&2
  build "$WORK/base-src" "$WORK/base-build"
  echo "$BASE_SHA" >"$WORK/base-build/.commit"
  git worktree remove --force "$WORK/base-src"
fi
HEAD_BIN=${CARBON_COMPARE_HEAD_BIN:-}
if [ -z "$HEAD_BIN" ]; then
  echo "compare: building carbon-cli of the working tree" >&2
  build "$PWD" "$WORK/head-build"
  HEAD_BIN=$WORK/head-build/bin/carbon-cli
fi

# The fixed inputs: made once, by a script, the same for both sides.
IN=$WORK/inputs
rm -rf "$IN"
mkdir -p "$IN"
python3 - "$IN" <<'EOF'
import random, sys
d = sys.argv[1]
rng = random.Random(20261127)
def seq(n): return "".join(rng.choice("ACGT") for _ in range(n))
chroms = {"chr1": seq(3000), "chr2": seq(1800)}
with open(f"{d}/ref.fa", "w") as f:
    for name, s in chroms.items():
        f.write(f">{name}\n")
        for i in range(0, len(s), 60): f.write(s[i:i + 60] + "\n")
with open(f"{d}/records.fa", "w") as f:
    f.write(">short description text\n" + seq(40) + "\n>mid\n" + seq(250) + "\n>withN\n" + seq(30) + "NNRY" + seq(31).lower() + "\n")
with open(f"{d}/one.fa", "w") as f:
    f.write(">one\n" + chroms["chr1"][:600] + "\n")
lines = ["##fileformat=VCFv4.2", "##contig=<ID=chr1>", "##contig=<ID=chr2>", "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO"]
for name, s in chroms.items():
    for pos in sorted(rng.sample(range(20, len(s) - 20), 6)):
        ref = s[pos - 1]
        alts = [b for b in "ACGT" if b != ref]
        lines.append(f"{name}\t{pos}\tv{pos}\t{ref}\t{rng.choice(alts)}\t.\t.\t.")
    p = 700 if name == "chr1" else 900
    lines.append(f"{name}\t{p}\tins{p}\t{s[p-1]}\t{s[p-1]}GA\t.\t.\t.")
    lines.append(f"{name}\t{p+50}\tdel{p+50}\t{s[p+49:p+53]}\t{s[p+49]}\t.\t.\t.")
    lines.append(f"{name}\t{p+80}\tmulti{p+80}\t{s[p+79]}\t{','.join(b for b in 'ACGT' if b != s[p+79])}\t.\t.\t.")
lines.append("chrX\t10\tmissing\tA\tG\t.\t.\t.")
with open(f"{d}/variants.vcf", "w") as f: f.write("\n".join(lines) + "\n")
with open(f"{d}/motifs.jaspar", "w") as f:
    f.write(">MA0001.1 TATA\nA [ 1 20 1 20 ]\nC [ 1 1 1 1 ]\nG [ 1 1 1 1 ]\nT [ 20 1 20 1 ]\n")
EOF

run_side() {  # run_side NAME BIN
  local out=$WORK/$1 cli=$2
  rm -rf "$out"
  mkdir -p "$out"
  local log=$out/stdout.txt
  c() {
    local rc=0
    echo "\$ carbon-cli $*" >>"$log"
    "$cli" "$@" >>"$log" 2>>"$out/stderr.txt" || rc=$?
    echo "exit $rc" >>"$log"
  }
  # Models: the target and a smaller draft of the same vocabulary, in the exact Hugging Face layout.
  c make-test-model --preset tiny --seed 3 --out "$out/model"
  c make-test-model --preset tiny --seed 4 --layers 1 --out "$out/draft"
  local M=(--model "$out/model" --threads 2 --quiet)
  local P=$out/project.carbon
  c generate "${M[@]}" --context ACGTACGGTTAGCATCGATCGGATCGATTTAGCGCGATATCGCGAT --right-flank ATGGCCAAGCTTGGC \
    --template NNNNNNNNNNTATAAANNNNNNNNNNNNNN --count 6 --temperature 0.8 --seed 7 --forbid GAATTC \
    --max-homopolymer 4 --gc 0.3-0.7 --out "$out/fns.fa" --project "$P"
  c generate "${M[@]}" --length 36 --mode direct --count 4 --seed 11 --top-p 0.9 --tags promoter --out "$out/direct.fa" --project "$P"
  c generate "${M[@]}" --length 24 --count 3 --seed 5 --tags promoter --guidance 2 --negative-tags fungi \
    --forbid-matrices "$IN/motifs.jaspar" --forbid-pvalue 1e-3 --out "$out/guided.fa" --project "$P"
  c generate "${M[@]}" --length 30 --count 3 --seed 9 --temperature 0 --draft "$out/draft" --draft-verify identical --no-auto-disable \
    --out "$out/spec.fa" --project "$P"
  c generate "${M[@]}" --length 30 --count 2 --seed 13 --require-matrices "$IN/motifs.jaspar" --require-pvalue 1e-2 \
    --require-within 5-25 --out "$out/required.fa"
  c score "${M[@]}" --in "$IN/records.fa" --tracks "$out/tracks.tsv" --project "$P"
  c score "${M[@]}" --in "$IN/records.fa" --json
  c score "${M[@]}" --in "$IN/records.fa" --window 8 --overlap 2 --no-token-score
  c variant "${M[@]}" --in "$IN/one.fa" --pos 300 --alt G --window 120 --rc --project "$P"
  c variant "${M[@]}" --in "$IN/one.fa" --pos 301 --alt A --window 90 --json
  c ism "${M[@]}" --in "$IN/one.fa" --region 290-300 --out "$out/ism_fast.tsv" --project "$P"
  c ism "${M[@]}" --in "$IN/one.fa" --region 295-298 --exact --window 120 --out "$out/ism_exact.tsv"
  c vep "${M[@]}" --reference "$IN/ref.fa" --vcf "$IN/variants.vcf" --window 240 --rc --out "$out/vep.tsv" --project "$P"
  c vep "${M[@]}" --reference "$IN/ref.fa" --vcf "$IN/variants.vcf" --window 120 --regions chr2:1-1000 --out "$out/vep_regions.tsv"
  c motifs scan --motifs "$IN/motifs.jaspar" --in "$IN/records.fa" --out "$out/motif_hits.tsv" --pvalue 1e-2
  c project import "$P" --fasta "$IN/records.fa"
  c project import "$P" --vcf "$IN/variants.vcf" --sequence one
  # Every export of what the runs stored.
  local E=$out/exports
  mkdir -p "$E"
  for f in fasta tsv csv sequences; do c project export "$P" --format "$f" --out "$E/$f.out"; done
  for id in 1 5 9 13; do
    c project export "$P" --format genbank --design "$id" --out "$E/design$id.gb"
    for k in logp dist_acgt entropy_bits; do
      c project export "$P" --format bedgraph --design "$id" --track "$k" --out "$E/design$id.$k.bedgraph"
    done
    c project export "$P" --format wig --design "$id" --out "$E/design$id.wig"
  done
  c project export "$P" --format bedgraph --sequence-id 3 --out "$E/mid.bedgraph"
  c project export "$P" --format vcf-results --sequence one --out "$E/one_variants.tsv"
  c project export "$P" --format vep --run 8 --out "$E/run8.vep.tsv"
  # Every table of the project, rows in id order, without what depends on the clock (times, speeds).
  python3 - "$P" >"$out/project_rows.txt" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
clock = {"created", "modified", "started", "finished", "bases_per_second"}
for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name"):
    cols = [r[1] for r in db.execute(f"PRAGMA table_info({table})") if r[1] not in clock]
    print(f"== {table}: {', '.join(cols)}")
    for row in db.execute(f"SELECT {', '.join(cols)} FROM {table} ORDER BY {', '.join(cols[:2])}"):
        if table == "run_settings" and row[1] == "spec_speedup": row = row[:2] + ("(measured)",)
        print("\t".join(r.hex() if isinstance(r, bytes) else repr(r) for r in row))
PY
  rm -f "$P" "$P-wal" "$P-shm"
  # The model folders' bytes are compared too (make-test-model); paths inside the logs are side-specific.
  sed -i "s|$out|SIDE|g" "$log" "$out/project_rows.txt"
  find "$out" -type f \( -name '*.tsv' -o -name '*.fa' -o -name '*.out' -o -name '*.gb' -o -name '*.bedgraph' -o -name '*.wig' \) \
    -exec sed -i -e "s|$out|SIDE|g" -e 's/spec_speedup=[0-9.]*/spec_speedup=(measured)/g' {} +
}

echo "compare: running both sides" >&2
run_side base "$WORK/base-build/bin/carbon-cli"
run_side head "$HEAD_BIN"
files=$(cd "$WORK/base" && find . -type f ! -name stderr.txt | sort)
echo "compare: $(echo "$files" | wc -l) files from $(grep -c '^\$ ' "$WORK/base/stdout.txt") commands" >&2
if diff -r -x stderr.txt "$WORK/base" "$WORK/head" >"$WORK/diff.txt"; then
  echo "compare: identical: every output of the $(grep -c '^\$ ' "$WORK/base/stdout.txt") commands (and $(echo "$files" | wc -l) files) at $BASE_SHA and in the working tree"
  exit 0
fi
echo "compare: DIFFERENT (see $WORK/diff.txt):" >&2
head -60 "$WORK/diff.txt" >&2
exit 1
