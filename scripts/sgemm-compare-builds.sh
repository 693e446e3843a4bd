#!/usr/bin/env bash
# Two builds' SGEMM against each other and cuBLAS on the GPU machine, from
# archives of scripts/make-dist.sh (no Rust there): each shape file through
# scripts/sgemm-builds.py, full logs to $OUT (or ./gpu-out), and per file the
# shapes that moved past 2 % and the geometric mean of the speed, last.
# About 110 s on an H200 for the four default files.
#   bash scripts/sgemm-compare-builds.sh OLD/dist.tar.xz NEW/dist.tar.xz [SHAPES.txt ...]
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { sed -n 2,7p "$0"; exit 2; }
out="${OUT:-gpu-out}"
mkdir -p "$out"
builds="$(mktemp -d)"
mkdir -p "$builds/old" "$builds/new"
tar xJf "$1" -C "$builds/old" && tar xJf "$2" -C "$builds/new" || exit 1
shift 2
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(scripts/sgemm-ld-padded.txt scripts/sgemm-worst-odd.txt scripts/sgemm-odd-shapes.txt scripts/sgemm-shapes.txt)
status=0
for file in "${files[@]}"; do
  log="$out/$(basename "$file" .txt).log"
  python3 scripts/sgemm-builds.py "$builds/old/dist/lib/libmublas.so" "$builds/new/dist/lib/libmublas.so" "$file" >"$log" 2>&1 || status=1
done
for file in "${files[@]}"; do
  log="$out/$(basename "$file" .txt).log"
  echo "== $file"
  sed -n '/^last build against the first/,$p' "$log" | grep . || { echo "no summary:"; tail -3 "$log"; }
done
rm -rf "$builds"
exit $status
