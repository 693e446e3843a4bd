#!/usr/bin/env bash
# The whole GPU run from prebuilt artifacts (scripts/make-dist.sh): the Rust
# test binaries, the C tests built by CMake against dist/lib/libmublas.so,
# `mublas info` and the benchmark. Needs only the NVIDIA driver, a C compiler
# and CMake (and libcublas for the comparisons). Full logs go to $OUT (or
# ./gpu-out); a short table is printed last.
#   MUBLAS_BATCH_BENCH="saxpy --quick"   what to benchmark (default: overhead saxpy decisions)
#   MUBLAS_BATCH_REPORT_RUN=0            skip the report (the tuner's size sweeps)
#   MUBLAS_BATCH_REPORT="--routine sgemv" what the report sweeps (default: every routine)
#   MUBLAS_BATCH_TUNE=0                  skip the analyzer (its recipes go to
#                                        their own file; the report and bench don't use them)
#   MUBLAS_BATCH_PTX="80"                which PTX targets gpu_sgemm runs on, JIT-compiled (default
#                                        "80 70"; on an H100 the JIT in `mublas info` took 35-36 s a
#                                        target and gpu_sgemm on it about 50 s more; "" none)
#   MUBLAS_BATCH_TESTS="gpu_sgemv gpu_strmv"  which binaries of dist/tests run, and are sanitized (default: all)
#   MUBLAS_BATCH_SANITIZE=1              also run the GPU tests under compute-sanitizer, test by test
#                                        (memcheck; racecheck and synccheck on the SGEMM tile kernels)
#   MUBLAS_BATCH_SANITIZE_LIMIT=300      seconds each test may take under the sanitizer
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-gpu-out}"
[ -d dist ] || tar xJf pack/dist.tar.xz
mkdir -p "$out"
export LD_LIBRARY_PATH="$PWD/dist/lib:${LD_LIBRARY_PATH:-}"
# cuBLAS from the pip wheel or the toolkit, for the comparisons.
for d in /usr/local/cuda/lib64 $(python3 -c 'import nvidia.cublas, os; print(list(nvidia.cublas.__path__)[0] + "/lib")' 2>/dev/null); do
  [ -d "$d" ] && export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$d"
done
summary="$out/summary.txt"
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader | tee -a "$summary"
dist/bin/mublas info 2>&1 | tee -a "$summary"
# The PTX that GPUs without embedded machine code get (Blackwell: compute_80;
# Volta, Turing: compute_70), JIT-compiled here: its load time, and SGEMM's
# tests on it (its kernels are the ones with code for sm_80 and later).
for arch in ${MUBLAS_BATCH_PTX-80 70}; do
  MUBLAS_FORCE_PTX=$arch dist/bin/mublas info 2>&1 | grep -E "create:" | sed "s/^/PTX compute_$arch JIT: /" | tee -a "$summary"
done

# Whether MUBLAS_BATCH_TESTS selects this binary of dist/tests (all of them when unset).
selected() { [ -z "${MUBLAS_BATCH_TESTS+set}" ] || [[ " $MUBLAS_BATCH_TESTS " == *" $1 "* ]]; }

# Rust tests: one log, a line per binary in the summary.
: >"$out/tests.log"
for t in dist/tests/*; do
  name=$(basename "$t")
  selected "$name" || continue
  if [ "$name" = fortran_module ]; then
    # Not a Rust test binary: the Fortran module's test program (exit 0 pass, 77 skip).
    "$t" >>"$out/tests.log" 2>&1; status=$?
    note "fortran $name: $( [ $status = 0 ] && echo PASS || echo "FAILED (exit $status)" )"
    continue
  fi
  echo "=== $name" >>"$out/tests.log"
  if "$t" --test-threads=1 >>"$out/tests.log" 2>&1; then
    note "rust $name: $(grep -E '^test result' "$out/tests.log" | tail -1)"
  else
    note "rust $name: FAILED (see tests.log)"
  fi
done
for arch in ${MUBLAS_BATCH_PTX-80 70}; do
  echo "=== gpu_sgemm on PTX compute_$arch" >>"$out/tests.log"
  if MUBLAS_FORCE_PTX=$arch dist/tests/gpu_sgemm --test-threads=1 >>"$out/tests.log" 2>&1; then
    note "rust gpu_sgemm on PTX compute_$arch: $(grep -E '^test result' "$out/tests.log" | tail -1)"
  else
    note "rust gpu_sgemm on PTX compute_$arch: FAILED (see tests.log)"
  fi
done
# Word-bounded: a test that expects MUBLAS_STATUS_ALLOC_FAILED logs it, and that is no failure.
grep -E "SKIPPED|\bFAILED\b|panicked" "$out/tests.log" | head -20 | tee -a "$summary"

if [ "${MUBLAS_BATCH_SANITIZE:-0}" = 1 ] && command -v compute-sanitizer >/dev/null; then
  # Test by test (scripts/sanitize-tests.sh), each under a time limit, so that
  # one slow test costs its limit and not the call. The tools' output and every
  # test's verdict go to one file, sanitizer.log (the device run returns at
  # most 8 files); the summary gets a line per binary.
  limit=${MUBLAS_BATCH_SANITIZE_LIMIT:-300}
  sanitize() { # BINARY TOOL TEST...
    local binary=$1 tool=$2 verdicts
    shift 2
    verdicts=$(SANITIZER_LOG="$out/sanitizer.log" bash scripts/sanitize-tests.sh "$binary" "$tool" "$limit" "$@")
    { echo "=== verdicts"; echo "$verdicts"; } >>"$out/sanitizer.log"
    # Clean, or nothing to check (a test that makes no CUDA call); the others by name.
    note "$tool $(basename "$binary"): $(grep -c -e ': clean' -e 'nothing to check' <<<"$verdicts") of $(wc -l <<<"$verdicts") clean$(
      grep -v -e ': clean' -e 'nothing to check' <<<"$verdicts" | sed 's/^[a-z]* [a-z_0-9]* /; /' | tr -d '\n')"
  }
  for t in dist/tests/gpu_*; do
    # Its one test makes a kernel fault on purpose (the control of gpu_alpha_zero_reads_nothing).
    [ "$(basename "$t")" = gpu_unmapped_range_faults ] && continue
    selected "$(basename "$t")" || continue
    sanitize "$t" memcheck  # every test the binary lists
  done
  # Shared-memory races and barrier misuse in the SGEMM pipelines: every tile
  # kernel and split, forced in turn (racecheck is slow: this test only, 147 s on an H100).
  if selected gpu_sgemm; then
    for tool in racecheck synccheck; do
      sanitize dist/tests/gpu_sgemm $tool gpu_sgemm_every_tile_kernel_and_split
    done
  fi
fi

# C tests against the prebuilt library.
if [ -f CMakeLists.txt ]; then
  { cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DMUBLAS_PREBUILT_LIBRARY="$PWD/dist/lib/libmublas.so" -DMUBLAS_EMULATION_TESTS=OFF \
      && cmake --build build-gpu -j8 && ctest --test-dir build-gpu --output-on-failure; } >"$out/ctest.log" 2>&1
  note "ctest: $(grep -E 'tests passed|tests failed' "$out/ctest.log" | tail -1)"
  { echo "=== ctest"; cat "$out/ctest.log"; } >>"$out/tests.log" && rm "$out/ctest.log"
fi

# Interposition: a plain cuBLAS program, PyTorch and CuPy under LD_PRELOAD.
if command -v nvcc >/dev/null || [ -d /usr/local/cuda/include ]; then
  { echo "=== interpose"; bash c-tests/interpose/run.sh dist/lib/libmublas.so; } >>"$out/tests.log" 2>&1
  note "$(grep -E '^interpose: ' "$out/tests.log" | tail -1)"
  grep -E "^(ok|FAIL)|served by mublas" "$out/tests.log" | tail -12 | tee -a "$summary"
fi

# The report and the benchmark judge what users get: the built-in recipes (or the
# caller's MUBLAS_RECIPES). The analyzer writes a recipe file of its own, which
# nothing after it reads: it samples one size per kernel, as the paper does, so
# its recipes are for a GPU that has no built-in rows, not a replacement for them.
if [ "${MUBLAS_BATCH_REPORT_RUN:-1}" = 1 ]; then
  # The figures and CSVs travel as one archive: the device run returns at most 8 files.
  rm -rf /tmp/mublas-report && mkdir -p /tmp/mublas-report
  dist/bin/mublas report --out /tmp/mublas-report ${MUBLAS_BATCH_REPORT:-} >"$out/report.txt" 2>&1; note "report: exit $? ($(dist/bin/mublas info 2>/dev/null | grep -m1 "tuning recipes"))"
  tar czf "$out/report.tgz" -C /tmp/mublas-report .
  grep -E "within 3 %" "$out/report.txt" | tee -a "$summary"
fi
if [ "${MUBLAS_BATCH_TUNE:-1}" = 1 ]; then
  MUBLAS_RECIPES=/tmp/mublas-tuned-recipes.txt dist/bin/mublas tune >"$out/tune.txt" 2>&1
  note "tune: exit $? ($(tail -1 "$out/tune.txt"))"
  { echo "=== /tmp/mublas-tuned-recipes.txt"; cat /tmp/mublas-tuned-recipes.txt; } >>"$out/tune.txt" 2>&1
fi

dist/bin/mublas bench ${MUBLAS_BATCH_BENCH:-overhead saxpy decisions} >"$out/bench.txt" 2>&1
note "bench: exit $?"
echo "================ summary"
cat "$summary"
echo "================ bench"
cat "$out/bench.txt"
