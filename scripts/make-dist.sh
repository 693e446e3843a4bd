#!/usr/bin/env bash
# Builds everything the GPU machine runs into dist/ (ignored by git), so that a
# machine with only the NVIDIA driver, a C compiler and CMake can run the GPU
# test suite and the benchmark without Rust:
#   dist/lib/libmublas.so   the library
#   dist/bin/mublas         the command-line tool (info, bench)
#   dist/tests/*            the Rust test binaries (unit and GPU integration tests)
# and packs it as pack/dist.tar.xz. Then run scripts/gpu-batch.sh there (it
# unpacks the archive when dist/ is absent).
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
cargo build --release --lib --bins
rm -rf dist && mkdir -p dist/lib dist/bin dist/tests
cp "$target/release/libmublas.so" dist/lib/
cp "$target/release/mublas" dist/bin/
cargo test --release --no-run --message-format=json 2>/dev/null \
  | python3 -c '
import json, sys, shutil, os
for line in sys.stdin:
    try: m = json.loads(line)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("profile", {}).get("test") and m.get("executable"):
        name = m["target"]["name"]
        # The header and docs checks read the source tree and need no GPU: CI runs them.
        if name in ("header", "docs_links") or m["target"]["kind"] == ["bin"]: continue
        if m["target"]["kind"] == ["lib"] or "cdylib" in m["target"]["kind"]: name = "unit"
        shutil.copy(m["executable"], os.path.join("dist/tests", name))
        print("dist/tests/" + name)
'
# The Fortran test, built here (the GPU machine has no Fortran compiler), with
# libgfortran linked in; it finds libmublas.so through LD_LIBRARY_PATH there.
if command -v gfortran >/dev/null; then
  fdir=$(mktemp -d)
  gfortran -O2 -J "$fdir" -static-libgfortran -static-libgcc include/mublas.f90 c-tests/fortran/test_mublas.f90 \
    -L dist/lib -lmublas -o dist/tests/fortran_module
  rm -rf "$fdir"
  # libgfortran needs libquadmath, which a machine without Fortran may lack.
  cp "$(gfortran -print-file-name=libquadmath.so.0)" dist/lib/ 2>/dev/null || true
  echo "dist/tests/fortran_module"
fi

# Debug info is much of the size, and the device run carries at most 64 MiB:
# the binaries travel as one compressed archive (they share the embedded kernels).
strip --strip-debug dist/lib/* dist/bin/* dist/tests/*
du -sh dist
mkdir -p pack && rm -f pack/dist.tar.xz
# One 96 MiB dictionary over the whole archive: every binary embeds the same
# 56 MB of kernels, so the copies after the first compress to almost nothing
# (6 MB against 60 MB with xz's default, which made the archive alone nearly
# fill the GPU machine's 64 MiB of carried files). Single-threaded: xz's
# threads would each start a dictionary of their own.
tar cf - dist | xz -T1 --lzma2=preset=6,dict=96MiB >pack/dist.tar.xz
du -sh pack/dist.tar.xz
