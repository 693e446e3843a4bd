#!/usr/bin/env bash
# Registers, spills and stack of every kernel, as ptxas compiles the embedded
# PTX for each architecture we ship machine code for. Needs no GPU: ptxas comes
# from the pip wheel nvidia-cuda-nvcc-cu12 (installed here when missing).
# Read it before spending device time on a kernel change.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! python3 -c 'import nvidia.cuda_nvcc' 2>/dev/null; then
  python3 -m pip install -q --disable-pip-version-check nvidia-cuda-nvcc-cu12==12.6.85
fi
ptxas="$(python3 -c 'import nvidia.cuda_nvcc as m; print(list(m.__path__)[0])')/bin/ptxas"
target="${CARGO_TARGET_DIR:-target}"
cargo build --release --lib -q
# The out folder with the newest PTX (a folder's own time changes only when files are added).
out=$(dirname "$(ls -t "$target"/release/build/mublas-*/out/*.ptx | head -1)")
for ptx in "$out"/*.ptx; do
  for arch in ${ARCHS:-sm_90 sm_80}; do
    echo "== $(basename "$ptx" .compute_70.ptx) $arch"
    "$ptxas" -v -arch="$arch" "$ptx" -o /dev/null 2>&1 \
      | awk '/Compiling entry function/ {name=$7; gsub("\x27", "", name)}
             /bytes stack frame/ {stack=$1; stores=$5; loads=$9}
             /Used [0-9]+ registers/ {smem=""; if (match($0, /[0-9]+ bytes smem/)) smem=substr($0, RSTART, RLENGTH);
                                      printf "   %-28s %3s registers  stack %s B  spills %s/%s B  %s\n", name, $5, stack, stores, loads, smem}'
  done
done
