#!/usr/bin/env bash
# Builds scripts/cpu-emulation/trmv_check.cpp (STRMV's two passes on the CPU,
# the unreferenced triangle NaN, A's span fenced by inaccessible pages) and
# runs it. Needs only g++ (C++20). CTest runs it too (emulated_trmv).
set -euo pipefail
cd "$(dirname "$0")"
out="${TMPDIR:-/tmp}/mublas-trmv-check"
g++ -std=c++20 -O2 -Wall -Wno-unused-function -Wno-unknown-pragmas -o "$out" trmv_check.cpp
"$out"
