// Just enough of CUDA to run mublas's kernels on the CPU: every thread of
// a block is a fiber (its own stack, switched to by the launch's one OS
// thread), __syncthreads a barrier at which the fiber gives way to the next,
// __shared__ a static (blocks run one after another), and cp.async a queue per
// thread that copy_async_wait drains — either at the latest moment the PTX
// allows (Deferred: a missing wait reads stale shared memory) or at once
// (Eager: a stage overwritten while another thread still reads it shows up as
// a race). Between two barriers a block's threads run one after another, in
// rising order in even blocks and falling in odd ones, so a barrier missing
// between one thread's write and another's read shows up whichever of the
// two is written first. Barriers that not every thread reaches stop the run.
// Correctness of indices, edges and pipeline order only; nothing about speed.
#pragma once
#define MUBLAS_CPU_EMULATION 1

#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
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

// The running fiber's: the launch sets it before it resumes one.
inline uint3 threadIdx;
inline uint3 blockIdx, blockDim, gridDim;

namespace emu {
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

// Switching between fibers. On x86-64 a plain switch: the callee-saved
// registers pushed on the stack left, its pointer kept, the other's popped.
// swapcontext also saves the floating-point state and sets the signal mask,
// a system call, at every switch: STRMV's check took 20 s with it, 1.9 s
// without (2 cores, -O2). It stays where the plain switch cannot go: other
// processors, and a shadow stack (x86 CET), which a switch that returns on
// another stack breaks and glibc's swapcontext switches too. EMU_UCONTEXT=1
// in the environment takes it anyway (ctest's emulated_self_ucontext).
#if defined(__x86_64__) && defined(__linux__)
// emu_switch_stacks(save, next): saves this stack's pointer in *save and resumes the stack at `next`
// (saved by this function, or laid out by start_fiber). Weak: each check is one file, but two would not clash.
extern "C" void emu_switch_stacks(void **save, void *next);
asm(R"(
    .text
    .weak emu_switch_stacks
    .type emu_switch_stacks, @function
emu_switch_stacks:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size emu_switch_stacks, .-emu_switch_stacks
)");
inline bool shadow_stack_on() {
    unsigned long features = 0;  // ARCH_SHSTK_STATUS (0x5005); bit 0: the shadow stack is on
    return syscall(SYS_arch_prctl, 0x5005, &features) == 0 && (features & 1) != 0;
}
inline const bool plain_switch = !std::getenv("EMU_UCONTEXT") && !shadow_stack_on();
#else
inline void emu_switch_stacks(void **, void *) { std::abort(); }
inline const bool plain_switch = false;
#endif

// Where a stack left off: its ucontext, or with the plain switch its stack pointer.
struct Resumable {
    ucontext_t context;
    void *stack_pointer = nullptr;
};
// Leaves this stack, saved in `from`, for the one `to` holds.
inline void switch_stacks(Resumable &from, Resumable &to) {
    if (plain_switch) {
        emu_switch_stacks(&from.stack_pointer, to.stack_pointer);
    } else if (swapcontext(&from.context, &to.context) != 0) {
        std::abort();
    }
}

// A CUDA thread: it runs until it waits (at a barrier, or in a spin's
// __nanosleep) or ends, and then the launch resumes the next.
struct Fiber {
    Resumable saved;
    char *stack = nullptr;
    uint3 index;
    ThreadCopies copies;
    bool done = false;
    void *sanitizer_fake_stack = nullptr;
};
inline constexpr size_t FIBER_STACK_BYTES = 256 * 1024;  // reserved, not committed: the kernels use a few KB
inline Resumable launcher;
inline Fiber *current = nullptr;
// Barrier arrivals and ended threads: a round over the block's waiting fibers without one is a deadlock.
inline unsigned long progress = 0;

// AddressSanitizer (CTest builds the checks with it where the compiler can) is told of every switch of stacks, so
// that it checks each fiber's stack as a stack. `from` is null where the fiber switched from has ended.
inline const void *launcher_stack_bottom = nullptr;
inline size_t launcher_stack_bytes = 0;
#if defined(__SANITIZE_ADDRESS__)
inline void switching_stacks(void **from, const void *to_bottom, size_t to_bytes) {
    __sanitizer_start_switch_fiber(from, to_bottom, to_bytes);
}
inline void switched_stacks(void *fake_stack, const void **from_bottom = nullptr, size_t *from_bytes = nullptr) {
    __sanitizer_finish_switch_fiber(fake_stack, from_bottom, from_bytes);
}
#else
inline void switching_stacks(void **, const void *, size_t) {}
inline void switched_stacks(void *, const void ** = nullptr, size_t * = nullptr) {}
#endif

inline void give_way() {
    Fiber *self = current;
    switching_stacks(&self->sanitizer_fake_stack, launcher_stack_bottom, launcher_stack_bytes);
    switch_stacks(self->saved, launcher);
    switched_stacks(self->sanitizer_fake_stack);
}

// __syncthreads and __syncwarp: the last thread to arrive goes on, the others wait for the next round.
class Barrier {
  public:
    explicit Barrier(unsigned expected) : expected_(expected) {}
    void arrive_and_wait() {
        ++progress;
        if (++arrived_ == expected_) {
            arrived_ = 0;
            ++generation_;
            return;
        }
        const unsigned long generation = generation_;
        while (generation_ == generation) give_way();
    }

  private:
    unsigned expected_, arrived_ = 0;
    unsigned long generation_ = 0;
};
inline Barrier *block_barrier = nullptr;
// One barrier per warp of the block (the last one as wide as its lanes): the shuffles'.
inline std::deque<Barrier> *warp_barriers = nullptr;
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
    emu::Barrier &warp = (*emu::warp_barriers)[t / 32u];
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
    emu::Barrier &warp = (*emu::warp_barriers)[t / 32u];
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
inline void __nanosleep(unsigned) { emu::give_way(); }
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
        emu::current->copies.open.push_back(c);
    }
}
inline void copy_async_commit() {
    emu::current->copies.committed.push_back(std::move(emu::current->copies.open));
    emu::current->copies.open.clear();
}
template <int PENDING>
inline void copy_async_wait() {
    auto &groups = emu::current->copies.committed;
    while (groups.size() > static_cast<size_t>(PENDING)) {
        for (const auto &c : groups.front()) emu::perform(c);
        groups.erase(groups.begin());
    }
}

namespace emu {
// Copies issued but never waited for when a thread ended (wasted reads).
inline std::atomic<long> unwaited_copies{0};

inline const std::function<void()> *kernel_body = nullptr;

inline void fiber_main() {
    switched_stacks(nullptr, &launcher_stack_bottom, &launcher_stack_bytes);
    (*kernel_body)();
    long left = static_cast<long>(current->copies.open.size());
    for (const auto &g : current->copies.committed) left += static_cast<long>(g.size());
    unwaited_copies += left;
    current->done = true;
    ++progress;
    switching_stacks(nullptr, launcher_stack_bottom, launcher_stack_bytes);
}  // back to `launcher` through uc_link, or fiber_entry's switch

// Where a fiber's stack starts with the plain switch: the kernel, then back to the launch for good.
inline Resumable ended;  // not on the ended fiber's stack, which ASan has been told is gone
[[noreturn]] inline void fiber_entry() {
    fiber_main();
    switch_stacks(ended, launcher);
    std::abort();  // never resumed
}

// The fibers, kept from launch to launch: they cannot move (a context points into itself).
inline std::deque<Fiber> fiber_pool;

// Fiber `t`, made with a stack whose lowest page is inaccessible (an overflow stops the run) the first time.
inline Fiber &fiber(unsigned t) {
    while (fiber_pool.size() <= t) {
        Fiber &f = fiber_pool.emplace_back();
        void *p = mmap(nullptr, FIBER_STACK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) std::abort();
        mprotect(p, static_cast<size_t>(sysconf(_SC_PAGESIZE)), PROT_NONE);
        f.stack = static_cast<char *>(p);
    }
    return fiber_pool[t];
}

// Sets fiber `t` to start the kernel as thread `index` (on its own function: getcontext returns twice as far as
// the compiler knows, which would pin the launch's loop variables to memory).
__attribute__((noinline)) inline void start_fiber(unsigned t, uint3 index) {
    Fiber &f = fiber(t);
    if (plain_switch) {
        // As emu_switch_stacks leaves a stack: six zeroed registers, then the address its `ret` goes to, and
        // above it a null return address for fiber_entry, which then starts as if called (rsp = 8 mod 16).
        void **top = reinterpret_cast<void **>(f.stack + FIBER_STACK_BYTES);
        top[-1] = nullptr;
        top[-2] = reinterpret_cast<void *>(&fiber_entry);
        for (int r = 3; r <= 8; ++r) top[-r] = nullptr;
        f.saved.stack_pointer = top - 8;
    } else {
        ucontext_t &c = f.saved.context;
        if (getcontext(&c) != 0) std::abort();
        c.uc_stack = {f.stack, 0, FIBER_STACK_BYTES};
        c.uc_link = &launcher.context;
        makecontext(&c, fiber_main, 0);
    }
    f.index = index;
    f.copies = ThreadCopies{};
    f.done = false;
}

// Runs `body` (a kernel call) on every block of `grid`, `block` threads each
// (x fastest in threadIdx, as on the GPU).
template <class F>
void launch(uint3 grid, uint3 block, F &&body) {
    const unsigned threads = block.x * block.y * block.z;
    gridDim = grid;
    blockDim = block;
    const std::function<void()> run = body;
    kernel_body = &run;
    unsigned long block_number = 0;
    for (unsigned z = 0; z < grid.z; ++z) {
        for (unsigned y = 0; y < grid.y; ++y) {
            for (unsigned x = 0; x < grid.x; ++x) {
                blockIdx = {x, y, z};
                Barrier barrier(threads);
                block_barrier = &barrier;
                std::deque<Barrier> warps;
                for (unsigned w = 0; w * 32 < threads; ++w) warps.emplace_back(std::min(32u, threads - w * 32));
                warp_barriers = &warps;
                for (unsigned t = 0; t < threads; ++t) {
                    start_fiber(t, {t % block.x, t / block.x % block.y, t / (block.x * block.y)});
                }
                const bool falling = block_number++ % 2 == 1;
                for (unsigned running = threads; running > 0;) {
                    const unsigned long before = progress;
                    for (unsigned i = 0; i < threads; ++i) {
                        Fiber &f = fiber(falling ? threads - 1 - i : i);
                        if (f.done) continue;
                        current = &f;
                        threadIdx = f.index;
                        void *launcher_fake_stack = nullptr;
                        switching_stacks(&launcher_fake_stack, f.stack, FIBER_STACK_BYTES);
                        switch_stacks(launcher, f.saved);
                        switched_stacks(launcher_fake_stack);
                        if (f.done) --running;
                    }
                    if (running > 0 && progress == before) {
                        std::fprintf(stderr,
                                     "block (%u, %u, %u): %u of its %u threads cannot go on (a barrier that not every "
                                     "thread reaches, or a wait that nothing will end)\n",
                                     x, y, z, running, threads);
                        std::abort();
                    }
                }
                current = nullptr;
            }
        }
    }
    kernel_body = nullptr;
}

// One-dimensional blocks of `threads`.
template <class F>
void launch(uint3 grid, unsigned threads, F &&body) {
    launch(grid, uint3{threads, 1, 1}, std::forward<F>(body));
}
}  // namespace emu
