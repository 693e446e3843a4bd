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
// `mublas bench sgemv`. The T GEMV kernels with a warp a column (gemv_t,
// the paired and stacked kernels) keep plain loads (gemv_t_load_round says
// why), as do the SAXPY kernels, which ran up to 3 %
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
// the counter to 0 for the next launch (SGEMM's skinny split, SAXPY's sum
// for incy = 0).
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

// The SGEMV splits' hand-over without a fence (kernels/gemv.cu, "Split"): a
// partial sum travels with a flag in one 8-byte slot, written and read whole
// (single-copy atomic at GPU scope), so that the block that adds the partial
// sums can read each one as soon as it is there instead of after its writer's
// fence and count. The reader clears every slot it took, so all are 0 between
// launches; the slots live in a region of the work buffer that nothing else
// writes (src/handle.rs).
typedef unsigned long long SplitSlot;
#define SPLIT_SLOT_FULL (1ull << 32)

// The calling thread's place in the order in which the callers on `counter` got here.
__device__ __forceinline__ unsigned split_ticket(unsigned *counter) {
#if defined(MUBLAS_CPU_EMULATION)
    return atomicAdd(counter, 1u);
#else
    unsigned ticket;
    asm volatile("atom.relaxed.gpu.global.add.u32 %0, [%1], 1;" : "=r"(ticket) : "l"(counter) : "memory");
    return ticket;
#endif
}

__device__ __forceinline__ void split_slot_store(SplitSlot *slot, SplitSlot v) {
#if defined(MUBLAS_CPU_EMULATION)
    std::atomic_ref<SplitSlot>(*slot).store(v, std::memory_order_relaxed);
#else
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(slot), "l"(v) : "memory");
#endif
}

__device__ __forceinline__ SplitSlot split_slot_load(const SplitSlot *slot) {
#if defined(MUBLAS_CPU_EMULATION)
    return std::atomic_ref<SplitSlot>(*const_cast<SplitSlot *>(slot)).load(std::memory_order_relaxed);
#else
    SplitSlot v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(slot) : "memory");
    return v;
#endif
}

__device__ __forceinline__ void split_slot_put(SplitSlot *slot, float value) {
    split_slot_store(slot, SPLIT_SLOT_FULL | __float_as_uint(value));
}

// The value of a slot read as `v`, once it is full: reads it again until then, and clears it.
__device__ __forceinline__ float split_slot_take(SplitSlot *slot, SplitSlot v) {
    while (!(v & SPLIT_SLOT_FULL)) v = split_slot_load(slot);
    split_slot_store(slot, 0);
    return __uint_as_float(static_cast<unsigned>(v));
}
