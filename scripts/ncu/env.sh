# Sourced by the scripts/ncu/*.sh: from the repository root, $out (from $OUT,
# or ./ncu-out), the prebuilt archive unpacked into dist/, the library on
# LD_LIBRARY_PATH and $ncu.
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
out="${OUT:-ncu-out}"
mkdir -p "$out"
[ -d dist ] || tar xJf pack/dist.tar.xz
export LD_LIBRARY_PATH="$PWD/dist/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
ncu="$(command -v ncu || echo /usr/local/cuda/bin/ncu)"
