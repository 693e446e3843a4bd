// Shared definitions for every mublas kernel file.
//
// Kernels are `extern "C"` so that their names in the PTX are the names the
// launch layer asks for. Sizes and increments arrive as 64-bit integers: the
// host has already checked them, and 64-bit index math keeps n * inc from
// overflowing for large vectors with non-unit strides.
#pragma once

typedef long long i64;
typedef unsigned long long u64;

// A BLAS scalar under either pointer mode: host mode passes the value and a null
// pointer; device mode passes the address, read here, at kernel time.
__device__ __forceinline__ float load_scalar(float value, const float *address) {
    return address ? *address : value;
}

// True when `p` is 16-byte aligned, so float4 accesses are legal.
__device__ __forceinline__ bool aligned16(const void *p) {
    return (reinterpret_cast<u64>(p) & 15) == 0;
}
