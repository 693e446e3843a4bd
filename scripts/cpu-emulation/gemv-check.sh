#!/usr/bin/env bash
# Builds scripts/cpu-emulation/gemv_check.cpp (every SGEMV kernel on the CPU,
# A's span fenced by inaccessible pages) and runs it. Needs only g++ (C++20).
# An argument narrows the kernels by name, e.g. gemv_t_f32_l1_any. CTest runs
# it too (emulated_gemv).
set -euo pipefail
cd "$(dirname "$0")"
out="${TMPDIR:-/tmp}/mublas-gemv-check"
flags="-std=c++20 -O2 -Wall -Wno-unused-function -Wno-unknown-pragmas"
g++ $flags -o "$out" gemv_check.cpp
"$out" "${1:-}"
# The any-A kernels again as built for sm_90, whose loop for x 1 float off is inlined in some of them (ShiftOne in
# kernels/gemv.cu); the rest of the code is the same for every architecture here.
if [[ -z "${1:-}" || "$1" == *_any* ]]; then
  g++ $flags -DMUBLAS_EMULATE_SM90 -o "$out-sm90" gemv_check.cpp
  echo "as built for sm_90:"
  "$out-sm90" "${1:-_any}"
fi
