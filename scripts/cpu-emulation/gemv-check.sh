#!/usr/bin/env bash
# Builds scripts/cpu-emulation/gemv_check.cpp (every SGEMV kernel on the CPU,
# A's span fenced by inaccessible pages) and runs it. Needs only g++ (C++20).
# An argument narrows the kernels by name, e.g. gemv_t_f32_l1_any. CTest runs
# it too (emulated_gemv).
set -euo pipefail
cd "$(dirname "$0")"
out="${TMPDIR:-/tmp}/mublas-gemv-check"
g++ -std=c++20 -O2 -pthread -Wall -Wno-unused-function -Wno-unknown-pragmas -o "$out" gemv_check.cpp
"$out" "${1:-}"
