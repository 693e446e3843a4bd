#!/usr/bin/env bash
# One compute-sanitizer run per test of a prebuilt GPU test binary, each under
# its own time limit, so that a suite too slow to check whole within one device
# call (gpu_sgemm, gpu_sgemv under memcheck) is checked test by test and a slow
# test costs only its limit. Prints a line per test (clean, ERRORS, TIMEOUT,
# with its seconds) and appends the tool's output to $SANITIZER_LOG (default
# $OUT/sanitizer-<binary>.log).
#   bash scripts/sanitize-tests.sh BINARY TOOL LIMIT_S [TEST ...]
# TOOL is memcheck, racecheck, synccheck or initcheck; with no TEST, every
# test the binary lists. Exit status: 0 when every test ran clean, 1 otherwise.
set -uo pipefail
[ $# -ge 3 ] || { echo "usage: $0 BINARY TOOL LIMIT_S [TEST ...]" >&2; exit 2; }
binary=$1 tool=$2 limit=$3
shift 3
out="${OUT:-gpu-out}"
mkdir -p "$out"
log="${SANITIZER_LOG:-$out/sanitizer-$(basename "$binary").log}"
if [ $# -eq 0 ]; then
  mapfile -t tests < <("$binary" --list 2>/dev/null | sed -n 's/: test$//p')
else
  tests=("$@")
fi
failed=0
for t in "${tests[@]}"; do
  start=$(date +%s)
  timeout "$limit" compute-sanitizer --tool "$tool" --error-exitcode 9 \
    "$binary" "$t" --exact --test-threads=1 >"$log.one" 2>&1
  status=$?
  { echo "=== $tool $t (exit $status)"; cat "$log.one"; } >>"$log"
  seconds=$(( $(date +%s) - start ))
  # A test that makes no CUDA call (a null handle, say) gives the tool nothing
  # to check, and compute-sanitizer says so with a failing status.
  if grep -q "terminated before first instrumented API call" "$log.one" \
    && grep -q "test result: ok. 1 passed" "$log.one"; then
    printf '%s %s %s: no CUDA call, nothing to check (%d s)\n' "$tool" "$(basename "$binary")" "$t" "$seconds"
    continue
  fi
  case $status in
    0) verdict=clean ;;
    124) verdict=TIMEOUT; failed=1 ;;
    *) verdict="ERRORS (exit $status)"; failed=1 ;;
  esac
  # A test that skipped (no GPU) is not a clean run.
  if [ $status = 0 ] && grep -q "SKIPPED" "$log.one"; then verdict=SKIPPED; failed=1; fi
  # A name that matched no test runs nothing and exits 0.
  if [ $status = 0 ] && ! grep -q "test result: ok. 1 passed" "$log.one"; then verdict="NOT RUN"; failed=1; fi
  printf '%s %s %s: %s (%d s)\n' "$tool" "$(basename "$binary")" "$t" "$verdict" "$seconds"
done
rm -f "$log.one"
exit $failed
