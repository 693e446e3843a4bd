#!/usr/bin/env bash
# The whole GPU run from prebuilt artifacts (scripts/make-dist.sh): the Rust
# test binaries, the C tests built by CMake against dist/lib/libmublas.so,
# `mublas info` and the benchmark. Needs only the NVIDIA driver, a C compiler
# and CMake (and libcublas for the comparisons). Full logs go to $OUT (or
# ./gpu-out); a short table is printed last.
#   MUBLAS_BATCH_BENCH="saxpy --quick"   what to benchmark (default: saxpy)
#   MUBLAS_BATCH_SANITIZE=1              also run the GPU tests under compute-sanitizer
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-gpu-out}"
mkdir -p "$out"
export LD_LIBRARY_PATH="$PWD/dist/lib:${LD_LIBRARY_PATH:-}"
# cuBLAS from the pip wheel or the toolkit, for the comparisons.
for d in /usr/local/cuda/lib64 $(python3 -c 'import nvidia.cublas, os; print(list(nvidia.cublas.__path__)[0] + "/lib")' 2>/dev/null); do
  [ -d "$d" ] && export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$d"
done
summary="$out/summary.txt"
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader | tee "$out/info.txt"
dist/bin/mublas info 2>&1 | tee -a "$out/info.txt"

# Rust tests: one log, a line per binary in the summary.
: >"$out/tests.log"
for t in dist/tests/*; do
  name=$(basename "$t")
  echo "=== $name" >>"$out/tests.log"
  if "$t" --test-threads=1 >>"$out/tests.log" 2>&1; then
    note "rust $name: $(grep -E '^test result' "$out/tests.log" | tail -1)"
  else
    note "rust $name: FAILED (see tests.log)"
  fi
done
grep -E "SKIPPED|FAILED|panicked" "$out/tests.log" | head -20 | tee -a "$summary"

if [ "${MUBLAS_BATCH_SANITIZE:-0}" = 1 ] && command -v compute-sanitizer >/dev/null; then
  for t in dist/tests/gpu_*; do
    compute-sanitizer --tool memcheck --error-exitcode 9 "$t" --test-threads=1 >>"$out/sanitizer.log" 2>&1 \
      && note "memcheck $(basename "$t"): clean" || note "memcheck $(basename "$t"): ERRORS (see sanitizer.log)"
  done
fi

# C tests against the prebuilt library.
if [ -f CMakeLists.txt ]; then
  { cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DMUBLAS_PREBUILT_LIBRARY="$PWD/dist/lib/libmublas.so" \
      && cmake --build build-gpu -j8 && ctest --test-dir build-gpu --output-on-failure; } >"$out/ctest.log" 2>&1
  note "ctest: $(grep -E 'tests passed|tests failed' "$out/ctest.log" | tail -1)"
fi

dist/bin/mublas bench ${MUBLAS_BATCH_BENCH:-saxpy} --csv "$out/bench.csv" >"$out/bench.txt" 2>&1
note "bench: exit $?"
echo "================ summary"
cat "$summary"
echo "================ bench"
cat "$out/bench.txt"
