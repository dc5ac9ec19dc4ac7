#!/usr/bin/env bash
# Fuzzes the FASTA reader with libFuzzer (clang, ASan + UBSan), longer than CI does:
#   bash tests/storage/fuzz/run_libfuzzer.sh [SECONDS]   (default 600)
# Needs clang (Debian: clang; packaging/setup.sh installs it) and zlib.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
SECS="${1:-600}"
OUT=build/fuzz
mkdir -p "$OUT/corpus"
cp tests/storage/data/good/*.fa tests/storage/data/bad/*.fa "$OUT/corpus/"
clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
  -Istorage/include -Istorage/src -Iengine/include -Itests/fuzz \
  tests/storage/fuzz/fuzz_fasta.cpp storage/src/fasta.cpp storage/src/gzip_reader.cpp -lz -o "$OUT/fuzz_fasta_libfuzzer"
"$OUT/fuzz_fasta_libfuzzer" -max_total_time="$SECS" -max_len=65536 -timeout=10 "$OUT/corpus"
