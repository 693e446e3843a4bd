#!/usr/bin/env bash
# Installs mublas from a CMake build folder into a scratch prefix, then builds
# examples/consumer with find_package(mublas) and a C program with
# pkg-config --cflags --libs mublas, and runs both.
#   usage: c-tests/packaging.sh <build dir> <source dir>
set -euo pipefail
build="$1"; src="$2"
prefix="$build/packaging/prefix"
rm -rf "$build/packaging" && mkdir -p "$build/packaging"
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in lib/libmublas.so include/mublas.h include/mublas.f90 lib/cmake/mublas/mublasConfig.cmake lib/pkgconfig/mublas.pc; do
  [ -f "$prefix/$f" ] || { echo "FAIL: $f was not installed"; exit 1; }
done
cmake -S "$src/examples/consumer" -B "$build/packaging/consumer" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$build/packaging/consumer" >/dev/null
"$build/packaging/consumer/consumer"
flags="$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs mublas)"
echo "pkg-config --cflags --libs mublas: $flags"
cc -std=c99 -Wall -Wextra -Werror "$src/examples/consumer/main.c" $flags -o "$build/packaging/pkgconfig_consumer"
"$build/packaging/pkgconfig_consumer"
echo "PASS: install, find_package(mublas) and pkg-config"
