#!/usr/bin/env bash
# Nsight Compute on mublas's and cuBLAS's SGEMV kernels, side by side, from
# the prebuilt archive (scripts/make-dist.sh): each call's kernel time, DRAM
# bytes and throughput, grid, registers and active warps, one line each.
# Needs ncu, CuPy and libcublas.so.13. ncu locks the clocks at base, so the
# times are longer than the benchmark's; compare kernels within one run.
#   scripts/ncu/sgemv.sh 2000:N 3000:N 2000:T
# The CSV goes to $OUT (or ./ncu-out).
set -euo pipefail
source "$(dirname "$0")/env.sh"
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
metrics=$metrics,launch__grid_size,launch__block_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active
# cuBLAS's SGEMV kernels are templates named internal::kernel<…gemv…>: match the demangled names.
"$ncu" --target-processes all --kernel-name-base demangled -k 'regex:[Gg]emv' --metrics "$metrics" --csv \
  python3 scripts/ncu/calls.py dist/lib/libmublas.so "$@" >"$out/sgemv.csv" 2>"$out/ncu.log"
python3 - "$out/sgemv.csv" "$@" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
col = {h: i for i, h in enumerate(rows[0])}
kernels = {}
for r in rows[1:]:
    kernels.setdefault(int(r[col["ID"]]), [r[col["Kernel Name"]], {}])[1][r[col["Metric Name"]]] = r[col["Metric Value"]]
# Three mublas calls per shape, then three cuBLAS calls (calls.py), shapes in the order given.
print("shapes in order:", " ".join(sys.argv[2:]))
for i, (name, m) in sorted(kernels.items()):
    who = "mublas" if name.startswith("gemv_") else "cuBLAS"
    print(f"{i:3} {who:<6} {float(m['gpu__time_duration.sum'].replace(',', '')) / 1000:7.2f} us  "
          f"DRAM {m['dram__throughput.avg.pct_of_peak_sustained_elapsed']:>6} %  grid {m['launch__grid_size']:>5} × "
          f"{m['launch__block_size']:>4}  {m['launch__registers_per_thread']:>3} registers  "
          f"warps active {m['sm__warps_active.avg.pct_of_peak_sustained_active']:>6} %  {name[:40]}")
PY
