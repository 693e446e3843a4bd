#!/usr/bin/env bash
# Each tile kernel alone on 132 × c blocks (c blocks an SM, unsplit, C one
# or two tiles wide), k = 128 and 1024, NN and TN, through
# scripts/gemm-small-ab.py: the time per k and its intercept at each c, which
# docs/performance.md ("What the model's fill and fixed costs measure") turns
# into each tile's fill (speed at c blocks against its fullest c) and fixed
# cost, for routines/gemm/tile_choice.rs's time model. Run on the GPU machine from the
# repository root, on a CUBIN of kernels/gemm.cu
# (`scripts/nvrtc-ptx.py kernels/gemm.cu sm_90 > gemm.cubin`):
#   bash scripts/tile-fill.sh gemm.cubin
# SMS (default 132) sets the SM count the grids are sized for.
set -euo pipefail
cd "$(dirname "$0")/.."
cubin="$1"
sms="${SMS:-132}"
# kernel rows cols most-blocks-an-SM
tiles="gemm_f32_256x64_nn 256 64 2
gemm_f32_128x64_nn 128 64 4
gemm_f32_64x64_t128_nn 64 64 6
gemm_f32_128x128_t128_nn 128 128 2
gemm_f32_128x128_nn 128 128 2"
for pair in nn tn; do
  args=()
  while read -r kernel rows cols most; do
    for k in 128 1024; do
      for c in $(seq 1 "$most"); do
        args+=("$((rows * sms * c))x${cols}x${k}:${kernel}@1")
      done
    done
  done <<<"$tiles"
  PAIR=$pair python3 scripts/gemm-small-ab.py "$cubin" "${args[@]}"
done
