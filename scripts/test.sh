#!/usr/bin/env bash
# Runs every test of mublas, from the repository root:
#   0. cargo fmt --check: the Rust sources as rustfmt.toml formats them
#      (reported as skipped where rustfmt is not installed);
#   1. cargo test --release: Rust unit tests, the header check, the GPU
#      integration tests (which print SKIPPED ... when there is no GPU); then
#      cargo doc on the library, its broken or private doc links as errors,
#      from step 1's artifacts;
#   2. configures and builds the C tests with CMake in build/ (Release), which
#      builds libmublas.so with cargo build --release (shares step 1's artifacts);
#   3. ctest: the C tests against the public header (the GPU ones are reported as
#      skipped when there is no GPU), and every kernel run on the CPU
#      (scripts/cpu-emulation, one core each, built with ASan and UBSan where
#      the compiler has them; under three minutes on 2 cores, under one without
#      the sanitizers), as many at once as CMAKE_BUILD_PARALLEL_LEVEL.
# Ends with one line saying PASSED or FAILED; exits non-zero on any failure.
#
# Environment: CARGO_TARGET_DIR (cargo's usual), MUBLAS_BUILD_DIR (default build),
# CMAKE_BUILD_PARALLEL_LEVEL (default: the number of cores).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="$PATH:$HOME/.cargo/bin"
build_dir="${MUBLAS_BUILD_DIR:-build}"
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc 2>/dev/null || echo 2)}"

log_dir="$(mktemp -d)"
step="starting"
# Whatever stops the script (set -e included) ends with a FAILED line naming the step.
finish() {
  local status=$?
  rm -rf "$log_dir"
  if [ "$status" -ne 0 ]; then
    echo
    echo "== test.sh: FAILED at $step (exit status $status)"
  fi
  exit "$status"
}
trap finish EXIT

section() { echo; echo "== $*"; }

section "0/3 cargo fmt --check (rustfmt.toml)"
step="cargo fmt --check"
fmt_summary="formatted"
if cargo fmt --version >/dev/null 2>&1; then
  cargo fmt --check
else
  fmt_summary="SKIPPED (rustfmt is not installed: rustup component add rustfmt)"
  echo "$fmt_summary"
fi

section "1/3 cargo test --release (Rust tests; GPU tests skip without a GPU)"
step="cargo test --release"
cargo test --release 2>&1 | tee "$log_dir/cargo.log"
# "test result: ok. 12 passed; 0 failed; 3 ignored; ..." per test binary, summed.
rust_summary="$(awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i; if ($(i+1) ~ /^ignored/) g += $i } }
                     END { printf "%d passed, %d failed, %d ignored", p, f, g }' "$log_dir/cargo.log")"
skipped_rust="$({ grep -o 'SKIPPED [^ :]*:' "$log_dir/cargo.log" || true; } | wc -l)"
step="cargo doc --release --lib (broken doc links as errors)"
RUSTDOCFLAGS="${RUSTDOCFLAGS:-} -D rustdoc::broken_intra_doc_links -D rustdoc::private_intra_doc_links" \
  cargo doc --release --no-deps --lib

section "2/3 CMake configure and build in $build_dir/ (Release)"
step="CMake configure"
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release
step="CMake build"
cmake --build "$build_dir"

section "3/3 ctest --test-dir $build_dir --output-on-failure --parallel $CMAKE_BUILD_PARALLEL_LEVEL"
step="ctest"
ctest --test-dir "$build_dir" --output-on-failure --parallel "$CMAKE_BUILD_PARALLEL_LEVEL" 2>&1 | tee "$log_dir/ctest.log"
ctest_summary="$(grep -E '^[0-9]+% tests passed' "$log_dir/ctest.log" | tail -1)"
skipped_c="$(grep -cE '\(Skipped\)$' "$log_dir/ctest.log" || true)"

# ctest shows no output for skipped tests: say why they were skipped.
if [ -f "$build_dir/Testing/Temporary/LastTest.log" ]; then
  grep -h '^SKIPPED' "$build_dir/Testing/Temporary/LastTest.log" | sed 's/^/   /' || true
fi

step="done"
echo
echo "== Rust: $rust_summary ($skipped_rust GPU tests printed SKIPPED); C: $skipped_c skipped; format: $fmt_summary"
echo "== test.sh: PASSED: $ctest_summary"
