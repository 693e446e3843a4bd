// Just enough of CUDA to run mublas's kernels on the CPU: every thread of
// a block is a std::thread, __syncthreads a std::barrier, __shared__ a static
// (blocks run one after another), and cp.async a queue per thread that
// copy_async_wait drains — either at the latest moment the PTX allows
// (Deferred: a missing wait reads stale shared memory) or at once (Eager: a
// stage overwritten while another thread still reads it shows up as a race).
// Correctness of indices, edges and pipeline order only; nothing about speed.
#pragma once
#define MUBLAS_CPU_EMULATION 1

#include <algorithm>
#include <atomic>
#include <barrier>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <thread>
#include <vector>

#define __host__
#define __device__
#define __global__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)
#define __maxnreg__(...)
#define __cluster_dims__(...)
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
// A kernel's dynamic shared memory: a static as large as any launch asks for.
#define DYNAMIC_SHARED_FLOATS(name) alignas(16) static float name[64 * 1024]

struct uint3 {
    unsigned x = 0, y = 0, z = 0;
};
struct float4 {
    float x, y, z, w;
};
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
namespace emu {
// Arrays no read may leave (the check's matrix and vectors). A fence page catches a read past an array's
// end only where the end is page-aligned, and a 16-byte-aligned float4 never crosses a page: so a read that
// starts within 16 bytes of an array's ends must also lie inside it, or the run stops.
struct Span {
    const void *begin, *end;
};
inline std::vector<Span> read_spans;
// Arrays the call must not read at all (A and B with alpha = 0): any read of them stops the run.
inline std::vector<Span> unread_spans;
inline void check_read(const void *p, size_t bytes) {
    const char *q = static_cast<const char *>(p);
    for (const Span &s : unread_spans) {
        if (q + bytes > static_cast<const char *>(s.begin) && q < static_cast<const char *>(s.end)) {
            std::fprintf(stderr, "read of %zu bytes at %p from the array [%p, %p), which the call must not read\n", bytes, p,
                         s.begin, s.end);
            std::abort();
        }
    }
    for (const Span &s : read_spans) {
        const char *b = static_cast<const char *>(s.begin), *e = static_cast<const char *>(s.end);
        if (q + bytes > b - 16 && q < e + 16 && (q < b || q + bytes > e)) {
            std::fprintf(stderr, "read of %zu bytes at %p leaves the array [%p, %p)\n", bytes, p, s.begin, s.end);
            std::abort();
        }
    }
}
}  // namespace emu
template <class T>
inline T __ldg(const T *p) {
    emu::check_read(p, sizeof(T));
    return *p;
}
// A float4 load from an address that is not 16-byte aligned faults on the GPU: here it stops the run.
inline float4 __ldg(const float4 *p) {
    if (reinterpret_cast<unsigned long long>(p) % 16) {
        std::fprintf(stderr, "misaligned float4 load at %p\n", static_cast<const void *>(p));
        std::abort();
    }
    emu::check_read(p, sizeof(float4));
    return *p;
}
using std::max;
using std::min;

inline thread_local uint3 threadIdx;
inline uint3 blockIdx, blockDim, gridDim;

namespace emu {
inline std::barrier<> *block_barrier = nullptr;
// One barrier per warp of the block (the last one as wide as its lanes): the shuffles'.
inline std::deque<std::barrier<>> *warp_barriers = nullptr;

enum class CopyMode { Deferred, Eager };
inline CopyMode copy_mode = CopyMode::Deferred;

struct Copy {
    float *dst;
    const float *src;
    int bytes;
    bool full;
};
inline void perform(const Copy &c) {
    if (c.full) {
        std::memcpy(c.dst, c.src, c.bytes);
    } else {
        std::memset(c.dst, 0, c.bytes);
    }
}
struct ThreadCopies {
    std::vector<std::vector<Copy>> committed;  // oldest first
    std::vector<Copy> open;
};
inline thread_local ThreadCopies copies;
}  // namespace emu

inline void __syncthreads() { emu::block_barrier->arrive_and_wait(); }
// The warp's barrier, where every lane of the warp calls it.
inline void __syncwarp(unsigned = 0xffffffffu) {
    const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    (*emu::warp_barriers)[t / 32u].arrive_and_wait();
}
// Warp shuffles through the warp's barrier: right where every lane of the
// warp calls them together (a warp that has left calls none; the others go on).
// `source` maps this thread's lane to the lane it reads (its own past the warp).
template <class T, class F>
inline T warp_exchange(T v, F source) {
    static T slots[1024];
    const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    std::barrier<> &warp = (*emu::warp_barriers)[t / 32u];
    slots[t] = v;
    warp.arrive_and_wait();
    const unsigned lane = source(t & 31u);
    const T other = lane < 32u ? slots[(t & ~31u) | lane] : v;
    warp.arrive_and_wait();
    return other;
}
inline float __shfl_xor_sync(unsigned, float v, int lane_mask) {
    return warp_exchange(v, [&](unsigned lane) { return lane ^ static_cast<unsigned>(lane_mask); });
}
inline float __shfl_down_sync(unsigned, float v, unsigned delta) {
    return warp_exchange(v, [&](unsigned lane) { return lane + delta; });
}
template <class T>
inline T __shfl_sync(unsigned, T v, int src_lane) {
    return warp_exchange(v, [&](unsigned) { return static_cast<unsigned>(src_lane); });
}
// Whether any lane of the warp passes a true predicate: every lane's, gathered through the warp's barrier.
inline bool __any_sync(unsigned, bool predicate) {
    static bool slots[1024];
    const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
    const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    std::barrier<> &warp = (*emu::warp_barriers)[t / 32u];
    slots[t] = predicate;
    warp.arrive_and_wait();
    bool any = false;
    for (unsigned l = t & ~31u; l < std::min(threads, (t & ~31u) + 32u); ++l) any = any || slots[l];
    warp.arrive_and_wait();
    return any;
}
// Blocks run one after another: a block waits only for blocks of lower index,
// which have finished (stream-K's fixup).
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __nanosleep(unsigned) { std::this_thread::yield(); }
inline unsigned atomicAdd(unsigned *p, unsigned v) { return std::atomic_ref<unsigned>(*p).fetch_add(v); }
template <class T>
inline T __ldcg(const T *p) { return *p; }
inline unsigned __float_as_uint(float v) {
    unsigned u;
    std::memcpy(&u, &v, 4);
    return u;
}
inline float __uint_as_float(unsigned u) {
    float v;
    std::memcpy(&v, &u, 4);
    return v;
}

typedef long long i64;
inline i64 opaque(i64 v) { return v; }

template <int BYTES>
inline void copy_async(float *shared, const float *global, bool full) {
    static_assert(BYTES == 4 || BYTES == 16, "cp.async sizes used by the kernels");
    if (BYTES == 16 && (reinterpret_cast<unsigned long long>(shared) % 16 || (full && reinterpret_cast<unsigned long long>(global) % 16))) {
        std::fprintf(stderr, "misaligned 16-byte cp.async\n");
        std::abort();
    }
    if (full) emu::check_read(global, BYTES);
    const emu::Copy c{shared, global, BYTES, full};
    if (emu::copy_mode == emu::CopyMode::Eager) {
        emu::perform(c);
    } else {
        emu::copies.open.push_back(c);
    }
}
inline void copy_async_commit() {
    emu::copies.committed.push_back(std::move(emu::copies.open));
    emu::copies.open.clear();
}
template <int PENDING>
inline void copy_async_wait() {
    auto &groups = emu::copies.committed;
    while (groups.size() > static_cast<size_t>(PENDING)) {
        for (const auto &c : groups.front()) emu::perform(c);
        groups.erase(groups.begin());
    }
}

namespace emu {
// Copies issued but never waited for when a thread ended (wasted reads).
inline std::atomic<long> unwaited_copies{0};

// Runs `body` (a kernel call) on every block of `grid`, `block` threads each
// (x fastest in threadIdx, as on the GPU).
template <class F>
void launch(uint3 grid, uint3 block, F &&body) {
    const unsigned threads = block.x * block.y * block.z;
    gridDim = grid;
    blockDim = block;
    for (unsigned z = 0; z < grid.z; ++z) {
        for (unsigned y = 0; y < grid.y; ++y) {
            for (unsigned x = 0; x < grid.x; ++x) {
                blockIdx = {x, y, z};
                std::barrier<> barrier(threads);
                block_barrier = &barrier;
                std::deque<std::barrier<>> warps;  // barriers cannot move: not a vector
                for (unsigned w = 0; w * 32 < threads; ++w) warps.emplace_back(std::min(32u, threads - w * 32));
                warp_barriers = &warps;
                std::vector<std::thread> pool;
                pool.reserve(threads);
                for (unsigned t = 0; t < threads; ++t) {
                    pool.emplace_back([&, t] {
                        threadIdx = {t % block.x, t / block.x % block.y, t / (block.x * block.y)};
                        copies = ThreadCopies{};
                        body();
                        long left = static_cast<long>(copies.open.size());
                        for (const auto &g : copies.committed) left += static_cast<long>(g.size());
                        unwaited_copies += left;
                    });
                }
                for (auto &th : pool) th.join();
            }
        }
    }
}

// One-dimensional blocks of `threads`.
template <class F>
void launch(uint3 grid, unsigned threads, F &&body) {
    launch(grid, uint3{threads, 1, 1}, std::forward<F>(body));
}
}  // namespace emu
