#!/usr/bin/env bash
# Installs what building and testing mublas needs, when it is missing:
#   - NVRTC 12.x (the pip wheel nvidia-cuda-nvrtc-cu12) to compile the kernels
#   - CMake and a C compiler for the C tests, gfortran for the Fortran module
#   - a Rust toolchain must already be on PATH (cargo)
# Idempotent and quick when everything is there. Needs root for apt-get.
set -euo pipefail
export PATH="$HOME/.cargo/bin:$PATH"

need_apt=()
command -v cmake >/dev/null || need_apt+=(cmake)
command -v cc >/dev/null || need_apt+=(gcc)
command -v gfortran >/dev/null || need_apt+=(gfortran)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: installing ${need_apt[*]} with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

if ! python3 -c 'import nvidia.cuda_nvrtc' 2>/dev/null; then
  echo "setup: installing NVRTC 12.6 (pip wheel nvidia-cuda-nvrtc-cu12)"
  python3 -m pip install -q --disable-pip-version-check nvidia-cuda-nvrtc-cu12==12.6.85
fi

command -v cargo >/dev/null || { echo "setup: cargo not found: install Rust (rustup) first" >&2; exit 1; }
echo "setup: $(cargo --version), $(cmake --version | head -1), $(gfortran --version | head -1), NVRTC wheel present"
