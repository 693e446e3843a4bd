#!/usr/bin/env bash
# Builds scripts/cpu-emulation/gemv_check.cpp (the SGEMV-N kernel for any A
# on the CPU, A's span fenced by inaccessible pages) and runs it. Needs only
# g++ (C++20). CTest runs it too (emulated_gemv).
set -euo pipefail
cd "$(dirname "$0")"
out="${TMPDIR:-/tmp}/mublas-gemv-check"
g++ -std=c++20 -O2 -pthread -Wall -Wno-unused-function -Wno-unknown-pragmas -o "$out" gemv_check.cpp
"$out"
