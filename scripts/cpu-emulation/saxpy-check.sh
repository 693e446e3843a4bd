#!/usr/bin/env bash
# Builds scripts/cpu-emulation/saxpy_check.cpp (SAXPY's kernels on the CPU,
# x and y fenced by inaccessible pages) and runs it. Needs only g++ (C++20).
# CTest runs it too (emulated_saxpy).
set -euo pipefail
cd "$(dirname "$0")"
out="${TMPDIR:-/tmp}/mublas-saxpy-check"
g++ -std=c++20 -O2 -Wall -Wno-unused-function -Wno-unknown-pragmas -o "$out" saxpy_check.cpp
"$out"
