#!/usr/bin/env bash
# Interposition test on a GPU machine with the CUDA toolkit: builds the plain
# cuBLAS program cublas_app.c against the real cuBLAS, runs it without and with
# LD_PRELOAD=libmublas.so (and with MUBLAS_INTERPOSE=0), then runs a PyTorch and
# CuPy check under the preload when those are installed.
#   usage: c-tests/interpose/run.sh path/to/libmublas.so
set -uo pipefail
lib="$(realpath "$1")"
here="$(cd "$(dirname "$0")" && pwd)"
cuda="${CUDA_HOME:-/usr/local/cuda}"
app=/tmp/mublas_cublas_app
cc -O2 -std=c99 "$here/cublas_app.c" -I"$cuda/include" -L"$cuda/lib64" -L"$cuda/lib64/stubs" -Wl,-rpath,"$cuda/lib64" -lcublas -lcudart -lcuda -ldl -lm -pthread -o "$app" || { echo "FAIL: could not build the cuBLAS program"; exit 1; }
failed=0
echo "--- plain cuBLAS";                 EXPECT_MUBLAS=0 "$app" || failed=1
echo "--- LD_PRELOAD=libmublas.so";      EXPECT_MUBLAS=1 MUBLAS_LOG=info LD_PRELOAD="$lib" "$app" || failed=1
echo "--- LD_PRELOAD, MUBLAS_INTERPOSE=0"; EXPECT_MUBLAS=0 MUBLAS_INTERPOSE=0 LD_PRELOAD="$lib" "$app" || failed=1
echo "--- LD_PRELOAD, no work buffer past the split counters"; EXPECT_MUBLAS=2 MUBLAS_WORKSPACE_LIMIT_BYTES=65536 MUBLAS_LOG=info LD_PRELOAD="$lib" "$app" || failed=1
if python3 -c 'import torch, cupy' 2>/dev/null; then
  echo "--- PyTorch and CuPy under the preload"
  MUBLAS_LOG=info LD_PRELOAD="$lib" python3 "$here/frameworks.py" || failed=1
fi
[ $failed = 0 ] && echo "interpose: PASS" || echo "interpose: FAIL"
exit $failed
