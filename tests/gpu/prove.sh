#!/usr/bin/env bash
# shellcheck disable=SC2317  # the phase functions run through bash -c
# The GPU proof (issues 14, 30) as ONE command on a lent GPU machine, from the folder that
# tests/gpu/build-carry.sh built and packed elsewhere (nothing is compiled here):
#   bash tests/gpu/prove.sh OUT [CARRY]          (CARRY default .carry/gpu)
# Phases, each under its own time limit and all inside one deadline (CARBON_PROVE_DEADLINE_S,
# default 530 s: the device allows 600 s a command), each one's wall time in the report:
#   preflight       the GPU, driver and CUDA libraries (cuBLASLt from the machine), the carry intact
#   gpu-tests       every gpu-labelled test program (kernels against their references, the seam, the
#                   CUDA backend's conformance suite against the CPU backend: fp32 greedy designs and
#                   speculative decoding identical)
#   self-check      the first-use self-check through carbon-cli --backend auto, its cached verdict,
#                   its CPU fallback (CARBON_GPU_SELF_CHECK=mismatch), and the policy's own test
#   parity          tests/python/test_parity_transformers.py with CARBON_PARITY_BACKEND=cuda
#   predict         tests/python/test_predict_parity.py with CARBON_PREDICT_BACKEND=cuda (issue 32's
#                   regression heads against transformers, through Head::Hidden on the GPU)
#   models          make-test-model carbon-500m and carbon-3b (random weights, real shapes; timed)
#   forward-*, generate-*, score-*   carbon-cli bench --backend cuda at batch 1, 16, 64, 256
#   speculative     the 3B shape with the 500M draft (carbon-cli bench --workload speculative)
#   oracle          the same pair with the draft's agreement set (bench_spec_oracle): the goal's 87%
#   forward-large-int8  the 3B shape's forward bench with int8 weights (issue 34; last, as time allows)
#   report          OUT/report.md: every figure beside the roofline of tests/bench/gpu_perf_model.py
#                   and the issue's goals (tests/gpu/prove_report.py)
# OUT ends with report.md and logs.tar.gz (every log and JSON), which a device call brings back.
# CARBON_PROVE_DRY_RUN=1: the same script without a GPU (tests/gpu/prove-dry.sh, CI): the CUDA
# backend on the host seam (libcarbon-cuda-host-seam.so), tiny models, small batches; what needs a
# GPU says "skipped" with the reason. CARBON_PROVE_PHASES=a,b runs only those phases (a rerun);
# CARBON_PROVE_WORK (default /tmp/carbon-prove) holds the models; CARBON_PROVE_PYTHON the Python.
# Exit status 0 only when every phase that ran passed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
export REPO=$PWD
OUT=${1:?usage: prove.sh OUT [CARRY]}
CARRY=${2:-.carry/gpu}
mkdir -p "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd)
CARRY=$(cd "$CARRY" 2>/dev/null && pwd) || { echo "prove.sh: no carry folder ${2:-.carry/gpu}: run tests/gpu/build-carry.sh first" >&2; exit 1; }
export OUT CARRY LOGS="$OUT/logs" DRY=${CARBON_PROVE_DRY_RUN:-0}
export WORK=${CARBON_PROVE_WORK:-/tmp/carbon-prove}
export XDG_CACHE_HOME="$WORK/cache"  # the self-check's verdicts: this run's own
export PY=${CARBON_PROVE_PYTHON:-python3}
DEADLINE=${CARBON_PROVE_DEADLINE_S:-530}
# Phase limits are an H100's expected times x about 2; a dry run shares a loaded CI machine: x 3.
CAP_SCALE=1
[ "$DRY" = 1 ] && CAP_SCALE=3
rm -rf "$LOGS" "$OUT/report.md" "$OUT/logs.tar.gz"
mkdir -p "$LOGS" "$WORK"
export CLI="$CARRY/bin/carbon-cli"
START=$(date +%s)

# The two shapes and the sizes of each run: the real ones on a GPU, tiny ones in the dry run.
if [ "$DRY" = 1 ]; then
  export CARBON_CUDA_PLUGIN="$CARRY/bin/libcarbon-cuda-host-seam.so"
  export SMALL=tiny-1layer SMALL_ARGS="--preset tiny --layers 1" LARGE=tiny LARGE_ARGS="--preset tiny"
  export BATCHES=1,2 FWD="--prompt-tokens 12 --decode-tokens 3 --repeat 1" GEN="--length 18 --repeat 1"
  export SCORE="--window-bp 120 --repeat 1" SPEC="--batches 1,2 --length 36 --repeat 1" ORACLE="36 1 1 0.95"
  export CARBON_PARITY_VARIANTS=f16-compact-vocab  # a 6,144-token head: the host seam's reference GEMM is slow
else
  export SMALL=carbon-500m SMALL_ARGS="--preset carbon-500m" LARGE=carbon-3b LARGE_ARGS="--preset carbon-3b"
  export BATCHES=1,16,64,256 FWD="--prompt-tokens 128 --decode-tokens 64 --repeat 2" GEN="--length 600 --repeat 2"
  export SCORE="--window-bp 8192 --repeat 1" SPEC="--batches 1,16 --length 300 --repeat 2" ORACLE="300 1 16 0.9,0.95,0.98"
fi
export MODELS="$WORK/models"
note() { echo "$*" >>"$LOGS/$PHASE.note"; }  # one line for the report's phase table
seconds_since() { local ms=$((($(date +%s%N) - $1) / 1000000)); printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100)); }
export -f note seconds_since

phase_preflight() {
  for f in bin/carbon-cli bin/carbon_forward bin/test_backend_selection bin/bench_spec_oracle tests/tests.tsv MANIFEST.txt; do
    [ -e "$CARRY/$f" ] || { note "the carry lacks $f"; return 1; }
  done
  sed -n '1,8p' "$CARRY/MANIFEST.txt"
  if [ "$DRY" = 1 ]; then
    [ -f "$CARBON_CUDA_PLUGIN" ] || { note "the carry lacks bin/libcarbon-cuda-host-seam.so"; return 1; }
    note "dry run: no GPU; the CUDA backend runs on the host seam ($(basename "$CARBON_CUDA_PLUGIN"))"
  else
    [ -f "$CARRY/bin/libcarbon-cuda.so" ] || { note "the carry lacks bin/libcarbon-cuda.so"; return 1; }
    command -v nvidia-smi >/dev/null || { note "nvidia-smi not found: no NVIDIA driver here"; return 1; }
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.memory --format=csv,noheader | tee "$LOGS/gpu.txt"
    nvidia-smi | head -15
    note "GPU: $(head -1 "$LOGS/gpu.txt")"
  fi
  # Every carried program must find its libraries here (cuBLASLt from this machine: see the LD path).
  local missing=0
  for f in "$CARRY"/bin/* "$CARRY"/tests/*; do
    [ "$(head -c 4 "$f" | tail -c 3)" = ELF ] || continue
    if ldd "$f" 2>&1 | grep -q 'not found'; then
      echo "$f:"; ldd "$f" | grep 'not found'; missing=1
    fi
  done
  ldd "$CARRY/bin/libcarbon-cuda.so" 2>/dev/null | grep -E 'cublas|cudart' | sed 's/ (0x[0-9a-f]*)$//' | tee "$LOGS/cuda-libs.txt"
  [ "$missing" = 0 ] || { note "a carried program misses a library (see preflight.log; LD_LIBRARY_PATH=$LD_LIBRARY_PATH)"; return 1; }
}

phase_gpu_tests() {
  local name prog rc failed=0 skipped=0 passed=0
  [ -s "$CARRY/tests/tests.tsv" ] || { note "no gpu-labelled programs in the carry (built without nvcc)"; [ "$DRY" = 1 ] && return 77; return 1; }
  while IFS=$'\t' read -r name prog; do
    echo "== $name ($prog)"
    (cd "$WORK" && CARBON_TEST_WORK="$WORK/tests" timeout -k 5 150 "$CARRY/$prog") >"$LOGS/test-$name.log" 2>&1
    rc=$?
    grep -E 'largest|greedy|identical|accepted|FAIL|SKIP|passed|failed' "$LOGS/test-$name.log" | head -20
    if [ $rc = 0 ] && grep -q '^SKIP' "$LOGS/test-$name.log"; then
      skipped=$((skipped + 1)); echo "   skipped: $(grep -m1 '^SKIP' "$LOGS/test-$name.log")"
    elif [ $rc = 0 ]; then passed=$((passed + 1)); echo "   passed"
    else failed=$((failed + 1)); echo "   FAILED (status $rc)"; fi
  done <"$CARRY/tests/tests.tsv"
  note "$passed passed, $failed failed, $skipped skipped (no GPU) of $((passed + failed + skipped))"
  [ "$failed" = 0 ] || return 1
  if [ "$skipped" -gt 0 ]; then [ "$DRY" = 1 ] && return 77; note "tests skipped on a GPU machine"; return 1; fi
}

phase_self_check() {
  local m="$WORK/selfcheck-f32" cache out
  cache=$(mktemp -d)
  "$CLI" make-test-model --preset tiny --dtype f32 --seed 3 --out "$m" >/dev/null || return 1
  gen() { XDG_CACHE_HOME="$cache" "$CLI" generate --model "$m" --backend auto --length 24 --count 2 --seed 1 --out "$WORK/selfcheck.fa" 2>&1; }
  out=$(gen); echo "first use: $out"
  grep -q 'GPU self-check passed' <<<"$out" && grep -q ' on CUDA, ' <<<"$out" || { note "first use: no passing self-check on the CUDA backend"; return 1; }
  out=$(gen); echo "second use: $out"
  grep -q 'GPU self-check' <<<"$out" && { note "second use ran the self-check again (the verdict was not cached)"; return 1; }
  grep -q ' on CUDA, ' <<<"$out" || { note "second use did not run on the CUDA backend"; return 1; }
  out=$(CARBON_GPU_SELF_CHECK=mismatch gen); echo "forced mismatch: $out"
  grep -q 'GPU self-check FAILED' <<<"$out" && grep -q ' on CPU, ' <<<"$out" || { note "a failed self-check did not fall back to the CPU"; return 1; }
  rm -rf "$cache"
  note "passed on first use, cached on the second, CPU fallback on a forced mismatch"
  # The policy's own test (host seam, CPU only): CI runs it as gpu_seam.backend_selection already.
  [ "$DRY" = 1 ] && return 0
  echo "== test_backend_selection (the policy, on the host seam)"
  (cd "$WORK" && CARBON_TEST_WORK="$WORK/tests" "$CARRY/bin/test_backend_selection") || { note "test_backend_selection failed"; return 1; }
  note "test_backend_selection passed"
}

phase_parity() {
  "$PY" -c "import torch, transformers, numpy" 2>/dev/null || { note "$PY has no torch/transformers/numpy"; [ "$DRY" = 1 ] && return 77; return 1; }
  if [ "$DRY" = 0 ]; then "$PY" -c "import torch; assert torch.cuda.is_available()" || { note "torch sees no GPU"; return 1; }; fi
  PYTHONUNBUFFERED=1 CARBON_BIN="$CARRY/bin" CARBON_TEST_WORK="$WORK/parity" CARBON_PARITY_BACKEND=cuda "$PY" "$REPO/tests/python/test_parity_transformers.py"
  local rc=$?
  note "$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$LOGS/parity.log" | tail -1)${CARBON_PARITY_VARIANTS:+ (variants: $CARBON_PARITY_VARIANTS)}"
  return $rc
}

phase_predict() {
  "$PY" -c "import torch, transformers, numpy, safetensors" 2>/dev/null || { note "$PY has no torch/transformers/numpy/safetensors"; [ "$DRY" = 1 ] && return 77; return 1; }
  local backend=cuda
  [ "$DRY" = 1 ] && backend=cpu  # the host seam's plugin is not the auto/cuda choice of a plain run
  PYTHONUNBUFFERED=1 CARBON_BIN="$CARRY/bin" CARBON_TEST_WORK="$WORK/predict" CARBON_PREDICT_BACKEND=$backend "$PY" "$REPO/tests/python/test_predict_parity.py"
  local rc=$?
  note "$(grep -E 'largest|all cases|failures' "$LOGS/predict.log" | tr '\n' ';' | cut -c1-300)"
  return $rc
}

phase_models() {
  local name args t0
  for pair in "$SMALL|$SMALL_ARGS" "$LARGE|$LARGE_ARGS"; do
    name=${pair%%|*}; args=${pair#*|}
    t0=$(date +%s%N)
    # shellcheck disable=SC2086
    "$CLI" make-test-model $args --seed 1 --out "$MODELS/$name" || { note "make-test-model $name failed"; return 1; }
    printf '%s\t%s\t%s\n' "$name" "$(seconds_since "$t0")" "$(du -sh "$MODELS/$name" | cut -f1)" | tee -a "$LOGS/models.tsv"
  done
  note "$(awk -F'\t' '{printf "%s%s %s s (%s)", (NR>1?", ":""), $1, $2, $3}' "$LOGS/models.tsv")"
}

phase_self_check_large() {
  # The first-use self-check on the large model (the CPU oracle runs it in fp32): its verdict and
  # KL divergence, recorded. The bench phases after it run with CARBON_GPU_SELF_CHECK=off, so
  # that they measure the CUDA backend whatever this verdict (random weights; correctness is
  # gpu-tests' and parity's).
  local out cache
  cache=$(mktemp -d)
  out=$(XDG_CACHE_HOME="$cache" "$CLI" bench --model "$MODELS/$LARGE" --backend cuda --workload forward --batches 1 \
    --prompt-tokens 16 --decode-tokens 2 --repeat 1 2>&1); echo "$out"
  rm -rf "$cache"
  note "$(grep -o 'GPU self-check [^:]*: largest KL divergence[^)]*)' <<<"$out" | head -1)"
  grep -q 'GPU self-check passed' <<<"$out"
}

bench() {  # MODEL WORKLOAD [ARGS...]: carbon-cli bench --backend cuda, JSON into the logs
  local model=$1 workload=$2; shift 2
  CARBON_GPU_SELF_CHECK=off "$CLI" bench --model "$MODELS/$model" --backend cuda --workload "$workload" --json "$LOGS/bench-$workload-$model${BENCH_TAG:-}.json" "$@"
}
export -f bench
# shellcheck disable=SC2086
phase_forward_small() { bench "$SMALL" forward --batches "$BATCHES" $FWD; }
# shellcheck disable=SC2086
phase_forward_large() { bench "$LARGE" forward --batches "$BATCHES" $FWD; }
# shellcheck disable=SC2086
phase_forward_large_int8() { BENCH_TAG=-int8 bench "$LARGE" forward --batches "$BATCHES" $FWD --weights int8; }
# shellcheck disable=SC2086
phase_generate_small() { bench "$SMALL" generate --batches "$BATCHES" --mode fns,direct $GEN; }
# shellcheck disable=SC2086
phase_generate_large() { bench "$LARGE" generate --batches "$BATCHES" --mode fns,direct $GEN; }
# shellcheck disable=SC2086
phase_score_small() { bench "$SMALL" score --batches "$BATCHES" $SCORE; }
# shellcheck disable=SC2086
phase_score_large() { bench "$LARGE" score --batches "$BATCHES" $SCORE; }
# shellcheck disable=SC2086
phase_speculative() { bench "$LARGE" speculative --draft "$MODELS/$SMALL" $SPEC; }
phase_oracle() {
  # TARGET DRAFT LENGTH BATCH THREADS ALPHAS BACKEND: the draft runs every pass (its real cost); its
  # proposal is the target's own token with probability alpha (acceptance set apart from cost).
  # shellcheck disable=SC2086
  set -- $ORACLE
  CARBON_GPU_SELF_CHECK=off "$CARRY/bin/bench_spec_oracle" "$MODELS/$LARGE" "$MODELS/$SMALL" "$1" "$2" "$3" "$4" cuda
}

export -f phase_preflight phase_gpu_tests phase_self_check phase_parity phase_predict phase_models phase_self_check_large phase_forward_small \
  phase_forward_large phase_forward_large_int8 phase_generate_small phase_generate_large phase_score_small phase_score_large \
  phase_speculative phase_oracle

# Where this machine keeps cuBLASLt (it cannot travel: 540 MB): the CUDA toolkit, else PyTorch's wheels.
# The carried libcudart comes last, only for a machine without one.
libdirs=""
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda/lib \
  $("$PY" -c 'import glob, site; [print(d) for s in site.getsitepackages() for d in glob.glob(s + "/nvidia/*/lib") + glob.glob(s + "/nvidia/cu13/lib")]' 2>/dev/null); do
  [ -e "$d/libcublasLt.so.13" ] && libdirs="$libdirs:$d"
done
export LD_LIBRARY_PATH="${libdirs#:}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}:$CARRY/lib"

status=0
: >"$LOGS/phases.tsv"
run_phase() {  # NAME CAP_SECONDS: phase_NAME under min(CAP, what the deadline leaves)
  local name=$1 cap=$2 fn=phase_${1//-/_} left t0 rc secs verdict
  export PHASE=$name
  if [ -n "${CARBON_PROVE_PHASES:-}" ] && [[ ",$CARBON_PROVE_PHASES," != *",$name,"* ]]; then return; fi
  left=$((DEADLINE - ($(date +%s) - START) - 10))
  if [ "$left" -lt 15 ]; then
    printf '%s\tNOT RUN\t0\t%s\tthe %s s deadline was reached\n' "$name" "$cap" "$DEADLINE" >>"$LOGS/phases.tsv"
    status=1; return
  fi
  cap=$((cap * CAP_SCALE))
  [ "$cap" -gt "$left" ] && cap=$left
  echo "== phase $name (limit $cap s)"
  t0=$(date +%s%N)
  timeout -k 5 "$cap" bash -c "$fn" >"$LOGS/$name.log" 2>&1
  rc=$?
  secs=$(seconds_since "$t0")
  case $rc in
    0) verdict=PASS ;;
    77) verdict=SKIPPED ;;
    124 | 137) verdict="TIMED OUT"; status=1 ;;
    *) verdict="FAIL ($rc)"; status=1 ;;
  esac
  printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$verdict" "$secs" "$cap" "$(tr '\n\t' '  ' 2>/dev/null <"$LOGS/$name.note")" >>"$LOGS/phases.tsv"
  echo "   $verdict in $secs s"
  [ "$rc" = 0 ] || [ "$rc" = 77 ] || tail -15 "$LOGS/$name.log"
}

# Limits: what each phase is expected to take on an H100 times about 2 (docs/gpu-proof/README.md).
run_phase preflight 30
run_phase gpu-tests 150
run_phase self-check 45
run_phase parity 120
run_phase predict 90
run_phase models 100
run_phase self-check-large 60
run_phase forward-small 45
run_phase forward-large 60
run_phase generate-small 45
run_phase generate-large 60
run_phase score-small 40
run_phase score-large 60
run_phase speculative 60
run_phase oracle 45
run_phase forward-large-int8 45

echo "== report"
"$PY" "$REPO/tests/gpu/prove_report.py" --logs "$LOGS" --carry "$CARRY" --dry-run "$DRY" --small "$SMALL" --large "$LARGE" \
  --models "$MODELS" --elapsed "$(($(date +%s) - START))" --status "$status" >"$OUT/report.md" || status=1
tar -czf "$OUT/logs.tar.gz" -C "$OUT" logs && [ -z "${CARBON_PROVE_KEEP_LOGS:-}" ] && rm -rf "$LOGS"
tail -1 "$OUT/report.md"
echo "report: $OUT/report.md (logs: $OUT/logs.tar.gz)"
exit "$status"
