#!/usr/bin/env bash
# The GPU proof's dry run (CTest gpu_prove.dry_run, label gpu-prove-dry): packs BUILD_DIR's programs
# the way tests/gpu/build-carry.sh packs them for the GPU machine (with the host-seam plugin added),
# runs tests/gpu/prove.sh on that folder with CARBON_PROVE_DRY_RUN=1, and checks its report. Then a
# negative control: the same proof on a carry that lacks carbon_forward must fail in its preflight.
#   bash tests/gpu/prove-dry.sh BUILD_DIR [PYTHON]
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
BUILD=${1:?usage: prove-dry.sh BUILD_DIR [PYTHON]}
DIR="$BUILD/prove-dry"
fail() { echo "prove-dry.sh: $*" >&2; exit 1; }
rm -rf "$DIR"
mkdir -p "$DIR"
bash tests/gpu/build-carry.sh --pack-only "$BUILD" "$DIR/carry" --dry-run || fail "packing $BUILD failed"
export CARBON_PROVE_DRY_RUN=1 CARBON_PROVE_WORK="$DIR/work" CARBON_PROVE_PYTHON=${2:-python3} CARBON_PROVE_KEEP_LOGS=1
bash tests/gpu/prove.sh "$DIR/out" "$DIR/carry"
rc=$?
report="$DIR/out/report.md"
[ -f "$report" ] || fail "prove.sh wrote no report"
cat "$report"
[ "$rc" = 0 ] || fail "the dry run failed (status $rc): see $report and $DIR/out/logs"
grep -q '^RESULT: PASS (dry run)$' "$report" || fail "the report does not end in RESULT: PASS (dry run)"
[ -f "$DIR/out/logs.tar.gz" ] || fail "no logs.tar.gz"
# Every phase ran: a dry run may skip only the phases that need a GPU or PyTorch, with the reason.
for phase in preflight self-check models forward-small forward-large generate-small generate-large score-small \
  score-large speculative oracle; do
  grep -q "^| $phase | PASS |" "$report" || fail "phase $phase did not pass in the dry run"
done
grep -Eq '^\| (gpu-tests|parity) \| (PASS|SKIPPED) \|' "$report" || fail "gpu-tests or parity neither passed nor was skipped"

# The negative control: a missing program fails the proof, naming it.
cp -r "$DIR/carry" "$DIR/carry-broken" && rm "$DIR/carry-broken/bin/carbon_forward"
CARBON_PROVE_PHASES=preflight bash tests/gpu/prove.sh "$DIR/out-broken" "$DIR/carry-broken" >"$DIR/broken.log" 2>&1 &&
  fail "the proof passed with carbon_forward missing from the carry"
grep -q "the carry lacks bin/carbon_forward" "$DIR/out-broken/report.md" || fail "the failed preflight does not name the missing program"
echo "prove-dry.sh: the dry run passed; a carry without carbon_forward fails its preflight"
