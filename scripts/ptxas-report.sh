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
# Each file is compiled by NVRTC to PTX for the architecture's own virtual
# architecture (scripts/nvrtc-ptx.py, build.rs's options), as the embedded
# CUBIN is: code for sm_80+ only (cp.async) is then what ptxas sees. KERNELS
# narrows the files (e.g. KERNELS=gemm).
for cu in kernels/${KERNELS:-*}.cu; do
  for arch in ${ARCHS:-sm_90 sm_80}; do
    echo "== $(basename "$cu" .cu) $arch"
    python3 scripts/nvrtc-ptx.py "$cu" "compute_${arch#sm_}" >"${TMPDIR:-/tmp}/ptxas-report.ptx"
    "$ptxas" -v -arch="$arch" "${TMPDIR:-/tmp}/ptxas-report.ptx" -o /dev/null 2>&1 \
      | awk '/Compiling entry function/ {name=$7; gsub("\x27", "", name)}
             /bytes stack frame/ {stack=$1; stores=$5; loads=$9}
             /Used [0-9]+ registers/ {smem=""; if (match($0, /[0-9]+ bytes smem/)) smem=substr($0, RSTART, RLENGTH);
                                      printf "   %-32s %3s registers  stack %s B  spills %s/%s B  %s\n", name, $5, stack, stores, loads, smem}'
  done
done
