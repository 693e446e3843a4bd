#!/usr/bin/env bash
# Nsight Compute on mublas's and cuBLAS's SGEMM kernels, side by side, from
# the prebuilt archive (scripts/make-dist.sh): issue rate, FMA pipe and the
# stall reasons per issued instruction, one line each (the numbers the
# "Copy schedule" in docs/performance.md quotes). Needs ncu, CuPy and libcublas.so.13.
#   scripts/ncu/sgemm.sh 2048:NN 4096:NT        summary per kernel
#   NCU_SOURCE=1 scripts/ncu/sgemm.sh 2048:NN   also the SASS lines with the most stall samples
#                                               (mublas's first 256x128 kernel only)
# Reports and full pages go to $OUT (or ./ncu-out). ncu locks the clocks at base.
set -euo pipefail
source "$(dirname "$0")/env.sh"
calls="python3 scripts/ncu/calls.py dist/lib/libmublas.so $*"

# cuBLAS's kernels are CUTLASS templates (Kernel2<cutlass_80_simt_sgemm_...>)
# or xmma: match the demangled names.
"$ncu" --target-processes all --kernel-name-base demangled -k 'regex:gemm|xmma|sgemm' \
  --section LaunchStats --section SpeedOfLight --section ComputeWorkloadAnalysis --section SchedulerStats \
  --section WarpStateStats --section InstructionStats --section Occupancy -f -o "$out/sgemm" $calls >"$out/ncu.log" 2>&1
"$ncu" --import "$out/sgemm.ncu-rep" --page raw --csv >"$out/raw.csv"
"$ncu" --import "$out/sgemm.ncu-rep" --page details >"$out/details.txt"
python3 - "$out/raw.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
header, data = rows[0], rows[2:]
col = {h: i for i, h in enumerate(header)}
stalls = [h for h in header if h.startswith("smsp__average_warps_issue_stalled_") and h.endswith("_per_issue_active.ratio")]
for r in data:
    value = lambda h: r[col[h]] if h in col else "?"
    print(f"{value('Kernel Name')[:90]}: {value('gpu__time_duration.sum')} us, {value('launch__registers_per_thread')} registers, "
          f"issue {value('smsp__issue_active.avg.pct_of_peak_sustained_active')} %, "
          f"FMA pipe {value('sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active')} %")
    top = sorted(((float(r[col[s]] or 0), s[len("smsp__average_warps_issue_stalled_"):-len("_per_issue_active.ratio")]) for s in stalls), reverse=True)
    print("   stalls per issue: " + ", ".join(f"{name} {v:.3f}" for v, name in top[:9]))
PY

if [ "${NCU_SOURCE:-0}" = 1 ]; then
  "$ncu" --target-processes all -k 'regex:gemm_f32_256x128' -c 1 --section SourceCounters --section WarpStateStats \
    -f -o "$out/source" $calls >>"$out/ncu.log" 2>&1
  "$ncu" --import "$out/source.ncu-rep" --page source --csv --print-source sass >"$out/source.csv"
  python3 - "$out/source.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
header, data = rows[1], rows[2:]
col = {h: i for i, h in enumerate(header)}
number = lambda r, h: float(r[col[h]].replace(",", "") or 0)
for reason in ["stall_long_sb", "stall_dispatch", "stall_no_inst", "stall_wait", "stall_short_sb", "stall_barrier"]:
    print(f"{reason}: {sum(number(r, reason) for r in data):.0f} samples; most at")
    for r in sorted(data, key=lambda r: -number(r, reason))[:6]:
        print(f"   {number(r, reason):6.0f}  {r[col['Source']].strip()[:80]}")
PY
fi
