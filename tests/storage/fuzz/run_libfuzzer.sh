#!/usr/bin/env bash
# Fuzzes a storage reader with libFuzzer (clang, ASan + UBSan), longer than CI does:
#   bash tests/storage/fuzz/run_libfuzzer.sh [fasta|vcf|flatfile] [SECONDS]   (default fasta, 600 s)
# Needs clang (Debian: clang; packaging/setup.sh installs it), zlib and (vcf) htslib. The corpus starts from
# tests/storage/data/{good,bad} (flatfile: tests/storage/data/flatfile) and grows in build/fuzz/corpus-TARGET.
# docs/fuzzing.md records runs.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
TARGET=fasta
LIBS=""
if [[ "${1:-}" == fasta || "${1:-}" == vcf || "${1:-}" == flatfile ]]; then TARGET="$1"; shift; fi
SECS="${1:-600}"
OUT=build/fuzz
mkdir -p "$OUT/corpus-$TARGET"
case "$TARGET" in
  fasta) SOURCES="storage/src/fasta.cpp"; EXT=fa ;;
  vcf) SOURCES="storage/src/vcf_reader.cpp"; EXT=vcf; LIBS="$(pkg-config --libs htslib)" ;;
  flatfile) SOURCES="storage/src/flatfile.cpp storage/src/entry_header.cpp storage/src/insdc_location.cpp storage/src/fasta.cpp engine/src/support/visible_text.cpp" ;;
esac
if [[ "$TARGET" == flatfile ]]; then
  cp tests/storage/data/flatfile/* "$OUT/corpus-$TARGET/"
else
  cp tests/storage/data/good/*."$EXT" tests/storage/data/bad/*."$EXT" "$OUT/corpus-$TARGET/"
fi
clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
  -Istorage/include -Istorage/src -Iengine/include -Itests/fuzz \
  "tests/storage/fuzz/fuzz_$TARGET.cpp" $SOURCES storage/src/gzip_reader.cpp -lz $LIBS -o "$OUT/fuzz_${TARGET}_libfuzzer"
"$OUT/fuzz_${TARGET}_libfuzzer" -max_total_time="$SECS" -max_len=65536 -timeout=10 "$OUT/corpus-$TARGET"
