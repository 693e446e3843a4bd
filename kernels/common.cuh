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

// The sum of v over the 32 lanes of a warp, in the same order on every lane
// (pairs at distance 16, 8, 4, 2, 1). Every lane of the warp calls it.
__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

// True when `p` is 16-byte aligned, so float4 accesses are legal.
__device__ __forceinline__ bool aligned16(const void *p) {
    return (reinterpret_cast<u64>(p) & 15) == 0;
}

// Matrix data that each thread reads once and no other thread reads again:
// first to go from L1, and fetched from DRAM 256 bytes at a time (the next
// 128 bytes of a column are the neighbouring warp's or block's next load).
// Chosen by measurement on an H100: the N GEMV kernels ran 3-4 % faster at
// 3000² to 5000² as kernels (scripts/gemv-ab.py, against plain read-only
// loads and L1::no_allocate) and 2-6 % faster from 2000² to 10000² in
// `mublas bench sgemv`. The T GEMV kernels keep plain loads
// (gemv_t_load_round says why), as do the SAXPY kernels, which ran up to 3 %
// slower with it. sm_70 has no L2 fetch size: plain read-only loads there.
__device__ __forceinline__ float4 load_once4(const float *p) {
#if __CUDA_ARCH__ >= 800
    float4 v;
    asm("ld.global.nc.L1::evict_first.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4];"
        : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
        : "l"(p));
    return v;
#else
    return __ldg(reinterpret_cast<const float4 *>(p));
#endif
}

__device__ __forceinline__ float load_once(const float *p) {
#if __CUDA_ARCH__ >= 800
    float v;
    asm("ld.global.nc.L1::evict_first.L2::256B.f32 %0, [%1];" : "=f"(v) : "l"(p));
    return v;
#else
    return __ldg(p);
#endif
}

// Called by every thread of the block after its partial results are written:
// true in the one block, of the `blocks` that count themselves in `counter`,
// that arrives last, which may then read every block's partials and resets
// the counter to 0 for the next launch (the SGEMV splits, SAXPY's sum for
// incy = 0).
__device__ __forceinline__ bool arrive_last(unsigned *counter, unsigned blocks) {
    __shared__ bool last;
    __threadfence();  // this thread's partials are visible device-wide before the count
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        last = atomicAdd(counter, 1u) == blocks - 1;
    }
    __syncthreads();
    if (last) __threadfence();
    return last;
}
