#!/usr/bin/env bash
# Builds scripts/cpu-emulation/gemm_check.cpp (the SGEMM tile kernels on the
# CPU) and runs it with cp.async completing as late as allowed, then at once.
# Needs only g++ (C++20). An argument narrows the kernels by name, e.g.
#   scripts/cpu-emulation/gemm-check.sh 256x128_tn
set -euo pipefail
cd "$(dirname "$0")"
out="${TMPDIR:-/tmp}/mublas-gemm-check"
g++ -std=c++20 -O2 -Wall -Wno-unused-function -Wno-unknown-pragmas -o "$out" gemm_check.cpp
EMU_COPY_MODE=deferred "$out" "${1:-}"
EMU_COPY_MODE=eager "$out" "${1:-}"
