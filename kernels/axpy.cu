// SAXPY: y = alpha * x + y.
//
// Four kernels, the routine picks one per call:
//  - axpy_f32_vec4: unit increments and x, y with the same offset modulo 16 bytes.
//    A few leading elements (until y is 16-byte aligned) and the trailing ones
//    are done one by one; the body moves as float4, AXPY_UNROLL of them per
//    thread, all loads issued before any store so that each thread keeps
//    2 * AXPY_UNROLL 16-byte requests in flight.
//  - axpy_f32_vec4_single: the same data, shorter vectors: a float4 group
//    per thread, no loop, head and tail by extra threads (below).
//  - axpy_f32_strided: any increments (the host passes x and y already moved to
//    element 0, so a negative increment just walks backwards), any alignment.
//  - axpy_f32_sum_to_y0: incy = 0 (below).
// Grid: ceil(work / (blockDim.x * AXPY_UNROLL * split)) blocks of a 1-D block,
// Tx and split chosen by the tuner; the looping kernels go grid-stride, so each
// thread handles `split` chunks (axpy_f32_vec4_single: a thread per group or
// element, ceil(threads / blockDim.x) blocks). At most 32 registers, so that
// any block size can fill an SM (64 warps × 32 lanes × 32 = 65536): the
// tuner's choice is then about the grid, not about which block sizes fit.
#include "common.cuh"

#define AXPY_UNROLL 2

// alpha * x + y for one float4 group of the float4 kernels.
__device__ __forceinline__ float4 axpy4(float alpha, float4 x, float4 y) {
    return make_float4(fmaf(alpha, x.x, y.x), fmaf(alpha, x.y, y.y), fmaf(alpha, x.z, y.z), fmaf(alpha, x.w, y.w));
}

extern "C" __global__ void __maxnreg__(32) axpy_f32_vec4(i64 n, float alpha_value, const float *alpha_ptr,
                                         const float *x, float *y) {
    const float alpha = load_scalar(alpha_value, alpha_ptr);
    // Device pointer mode: the host could not see alpha, so the quick return is here.
    if (alpha == 0.0f) return;

    i64 head = ((16 - (reinterpret_cast<u64>(y) & 15)) & 15) / 4;
    if (head > n) head = n;
    const i64 body = (n - head) / 4;

    // Grid-stride (the tuner may launch fewer blocks than groups: its `split`).
    // 32-bit offsets keep this within 32 registers without spilling: the host
    // sends vectors of 2^30 float4 groups or more to the strided kernel, so
    // first + stride stays below 2^32.
    const unsigned stride = gridDim.x * blockDim.x * AXPY_UNROLL;
    const unsigned step = blockDim.x;
    const float4 *x4 = reinterpret_cast<const float4 *>(x + head);
    float4 *y4 = reinterpret_cast<float4 *>(y + head);
    const unsigned groups = static_cast<unsigned>(body);
    for (unsigned first = blockIdx.x * blockDim.x * AXPY_UNROLL + threadIdx.x; first < groups; first += stride) {
        float4 xv[AXPY_UNROLL], yv[AXPY_UNROLL];
#pragma unroll
        for (int u = 0; u < AXPY_UNROLL; ++u) {
            if (first + u * step < groups) {
                xv[u] = x4[first + u * step];
                yv[u] = y4[first + u * step];
            }
        }
#pragma unroll
        for (int u = 0; u < AXPY_UNROLL; ++u) {
            if (first + u * step < groups) y4[first + u * step] = axpy4(alpha, xv[u], yv[u]);
        }
    }

    // The elements before y is 16-byte aligned, and the last (n - head) % 4.
    const i64 tail_start = head + body * 4;
    if (blockIdx.x == 0 && threadIdx.x < head) {
        y[threadIdx.x] = fmaf(alpha, x[threadIdx.x], y[threadIdx.x]);
    }
    if (blockIdx.x == gridDim.x - 1 && tail_start + threadIdx.x < n) {
        const i64 i = tail_start + threadIdx.x;
        y[i] = fmaf(alpha, x[i], y[i]);
    }
}

// The same data, vectors of at most a few million elements (the routine's
// choice): one float4 group per thread, no loop; the threads past the body do
// the head and tail elements, one each. The host computes head and groups
// (what axpy_f32_vec4 works out per thread). For these kernels of 1-20 µs
// that is 1-7 % less time than axpy_f32_vec4's (H100, 2^10 to 2^22 elements).
extern "C" __global__ void __maxnreg__(32) axpy_f32_vec4_single(unsigned count, unsigned head, unsigned groups,
                                                                float alpha_value, const float *alpha_ptr,
                                                                const float *x, float *y) {
    const float alpha = load_scalar(alpha_value, alpha_ptr);
    if (alpha == 0.0f) return;

    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < groups) {
        const float4 xv = reinterpret_cast<const float4 *>(x + head)[i];
        const float4 yv = reinterpret_cast<float4 *>(y + head)[i];
        reinterpret_cast<float4 *>(y + head)[i] = axpy4(alpha, xv, yv);
        return;
    }
    // Thread groups + j: head element j, then tail element head + 4 groups + (j - head).
    const unsigned j = i - groups;
    if (j < count - 4 * groups) {
        const unsigned e = j < head ? j : j + 4 * groups;
        y[e] = fmaf(alpha, x[e], y[e]);
    }
}

extern "C" __global__ void __maxnreg__(32) axpy_f32_strided(i64 n, float alpha_value, const float *alpha_ptr,
                                            const float *x, i64 incx, float *y, i64 incy) {
    const float alpha = load_scalar(alpha_value, alpha_ptr);
    if (alpha == 0.0f) return;

    const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x * AXPY_UNROLL;
    for (i64 first = static_cast<i64>(blockIdx.x) * blockDim.x * AXPY_UNROLL + threadIdx.x; first < n; first += stride) {
        float xv[AXPY_UNROLL], yv[AXPY_UNROLL];
#pragma unroll
        for (int u = 0; u < AXPY_UNROLL; ++u) {
            const i64 i = first + static_cast<i64>(u) * blockDim.x;
            if (i < n) {
                xv[u] = x[i * incx];
                yv[u] = y[i * incy];
            }
        }
#pragma unroll
        for (int u = 0; u < AXPY_UNROLL; ++u) {
            const i64 i = first + static_cast<i64>(u) * blockDim.x;
            if (i < n) y[i * incy] = fmaf(alpha, xv[u], yv[u]);
        }
    }
}

// The sum of `s` over the block in a fixed order: each warp by a shuffle
// tree, then the warps' sums by warp 0 the same way; thread 0's result is
// the block's. Every thread must call it (the CPU emulation's shuffles are
// block-wide), and the block must pass a barrier before it is called again.
__device__ __forceinline__ float axpy_block_sum(float s, float *warp_sums) {
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
#pragma unroll
    for (unsigned offset = 16; offset > 0; offset /= 2) s += __shfl_down_sync(0xffffffffu, s, offset);
    if (lane == 0) warp_sums[warp] = s;
    __syncthreads();
    s = threadIdx.x < (blockDim.x + 31) / 32 ? warp_sums[threadIdx.x] : 0.0f;
#pragma unroll
    for (unsigned offset = 16; offset > 0; offset /= 2) s += __shfl_down_sync(0xffffffffu, s, offset);
    return s;
}

// y with increment 0: every term lands on y[0], so the result is reference
// BLAS's y[0] + alpha * (x_0 + ... + x_{n-1}) (cuBLAS gives it too), which the
// other kernels, one thread per element, would turn into a race. Here the sum
// has a fixed order: block b adds the terms [b * per_block, (b + 1) * per_block)
// (each thread its own every blockDim.x-th, then axpy_block_sum), writes its
// sum to partials[b] and counts itself in *counter; the block that arrives
// last adds the partials in a fixed order (each thread every blockDim.x-th,
// then axpy_block_sum), updates y[0] and resets the counter
// to 0 for the next call. With one block there are no partials and no counter.
extern "C" __global__ void __launch_bounds__(1024) axpy_f32_sum_to_y0(i64 n, i64 per_block, float alpha_value,
                                                                    const float *alpha_ptr, const float *x, i64 incx,
                                                                    float *y, unsigned *counter, float *partials) {
    __shared__ float warp_sums[32];
    const float alpha = load_scalar(alpha_value, alpha_ptr);
    if (alpha == 0.0f) return;

    const i64 begin = static_cast<i64>(blockIdx.x) * per_block;
    const i64 end = min(n, begin + per_block);
    float s = 0.0f;
#pragma unroll 4
    for (i64 i = begin + threadIdx.x; i < end; i += blockDim.x) s += x[i * incx];
    s = axpy_block_sum(s, warp_sums);
    if (gridDim.x == 1) {
        if (threadIdx.x == 0) *y = fmaf(alpha, s, *y);
        return;
    }
    if (threadIdx.x == 0) partials[blockIdx.x] = s;
    if (!arrive_last(counter, gridDim.x)) return;
    float t = 0.0f;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) t += __ldcg(partials + b);
    t = axpy_block_sum(t, warp_sums);
    if (threadIdx.x == 0) {
        *y = fmaf(alpha, t, *y);
        *counter = 0;
    }
}
