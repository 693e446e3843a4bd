#!/usr/bin/env bash
# Installs what building and testing mublas needs, each step only when missing:
# CMake, C/C++ and Fortran compilers, Python with pip (apt-get), and NVRTC 12.6
# for the kernel build (the pip wheel nvidia-cuda-nvrtc-cu12). A Rust toolchain
# (cargo) must already be installed. Idempotent; needs root for apt-get.
# The README's two commands and CI (.ci/run) start with it.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
section() { echo; echo "==== setup: $*"; }

section "toolchain: CMake, C/C++ and Fortran compilers, Python (apt-get, only if missing)"
missing=()
command -v cmake >/dev/null 2>&1 || missing+=(cmake)
command -v cc >/dev/null 2>&1 || missing+=(gcc)
command -v c++ >/dev/null 2>&1 || missing+=(g++)
command -v gfortran >/dev/null 2>&1 || missing+=(gfortran)
command -v make >/dev/null 2>&1 || missing+=(make)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
command -v python3 >/dev/null 2>&1 || missing+=(python3 python3-pip)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y --no-install-recommends "${missing[@]}"
else
  echo "already installed: cmake, cc, c++, gfortran, make, python3"
fi
cmake --version | head -1
cc --version | head -1

section "Rust toolchain (cargo)"
case ":$PATH:" in
  *":$HOME/.cargo/bin:"*) ;;
  *) export PATH="$HOME/.cargo/bin:$PATH" ;;
esac
if ! command -v cargo >/dev/null 2>&1; then
  echo "cargo not found (expected at $HOME/.cargo/bin): CI images must provide Rust" >&2
  exit 1
fi
cargo --version

section "NVRTC 12.6 for the kernel build (pip wheel, only if missing)"
# build.rs finds NVRTC through `python3 -c 'import nvidia.cuda_nvrtc'`.
if python3 -c 'import nvidia.cuda_nvrtc' >/dev/null 2>&1; then
  echo "already installed: nvidia-cuda-nvrtc-cu12"
else
  if ! python3 -m pip --version >/dev/null 2>&1; then
    echo "installing pip (python3-pip)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    apt-get install -y --no-install-recommends python3-pip
  fi
  export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore
  wheel="nvidia-cuda-nvrtc-cu12==12.6.85"
  if ! python3 -m pip install "$wheel"; then
    # Debian 12's own Python refuses pip installs (PEP 668, externally managed);
    # this wheel is a self-contained library with no dependencies, so allow it.
    echo "retrying with --break-system-packages (Debian's externally managed Python)"
    python3 -m pip install --break-system-packages "$wheel"
  fi
  python3 -c 'import nvidia.cuda_nvrtc' || { echo "the NVRTC wheel is installed but python3 cannot import it" >&2; exit 1; }
fi

