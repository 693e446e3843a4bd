// Checks cuda_on_cpu.h itself, so that the kernel checks keep meaning what
// they say: a barrier missing between one thread's write to shared memory and
// another's read gives a wrong result whichever thread writes first, the same
// exchange with the barrier gives the right one, a warp's shuffles sum its
// lanes, and a barrier that not every thread reaches stops the run (in a
// child process) instead of hanging it, as does (built with AddressSanitizer,
// as CTest builds it where it can) a read past a shared array. CTest runs it (emulated_self); by hand:
// g++ -std=c++20 -O2 -o /tmp/emulator-check emulator_check.cpp && /tmp/emulator-check
#include "cuda_on_cpu.h"

#include <sys/wait.h>

#include <csignal>
#include <cstdio>
#include <vector>

constexpr unsigned THREADS = 96;  // three warps

// The thread whose value thread t reads: the one `step` (+1 or -1) away, or itself at the block's ends.
static unsigned neighbour(unsigned t, int step) {
    const int n = static_cast<int>(t) + step;
    return n >= 0 && n < static_cast<int>(THREADS) ? static_cast<unsigned>(n) : t;
}

// Each thread stores a value of its block and thread, then reads its neighbour's.
static void neighbour_exchange(float *out, int step, bool barrier) {
    __shared__ float values[THREADS];
    const unsigned t = threadIdx.x;
    values[t] = static_cast<float>(1000 * blockIdx.x + t);
    if (barrier) __syncthreads();
    out[blockIdx.x * THREADS + t] = values[neighbour(t, step)];
}

// Whether every thread of two blocks read its neighbour's value. Without the barrier only the block whose threads
// run in the other direction than `step` reads early: +1 the even (rising) block, -1 the odd.
static bool exchange_is_right(int step, bool barrier) {
    std::vector<float> out(2 * THREADS, -1.0f);
    emu::launch(uint3{2, 1, 1}, THREADS, [&] { neighbour_exchange(out.data(), step, barrier); });
    for (unsigned b = 0; b < 2; ++b) {
        for (unsigned t = 0; t < THREADS; ++t) {
            if (out[b * THREADS + t] != static_cast<float>(1000 * b + neighbour(t, step))) return false;
        }
    }
    return true;
}

static void warp_sums(float *out) {
    float v = static_cast<float>(threadIdx.x);
    for (int lanes = 16; lanes > 0; lanes /= 2) v += __shfl_xor_sync(0xffffffffu, v, lanes);
    out[threadIdx.x] = v;
}

// Thread 0 skips the block's barrier.
static void divergent_barrier() {
    if (threadIdx.x != 0) __syncthreads();
}

// The last thread reads one float past a shared array.
static void shared_read_past_the_end(float *out) {
    __shared__ float values[THREADS];
    values[threadIdx.x] = 1.0f;
    __syncthreads();
    const unsigned past = threadIdx.x + (threadIdx.x + 1 == THREADS ? 1 : 0);
    out[threadIdx.x] = values[opaque(past)];
}

// Whether `kernel`, launched on one block in a child process, stops that process.
template <class F>
static bool stops_the_run(F kernel) {
    std::fflush(stdout);
    const pid_t child = fork();
    if (child == 0) {
        std::freopen("/dev/null", "w", stderr);
        emu::launch(uint3{1, 1, 1}, THREADS, kernel);
        std::_Exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    return !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main() {
    int failed = 0;
    auto expect = [&](bool ok, const char *what) {
        std::printf("%s %s\n", ok ? "ok  " : "FAIL", what);
        failed += !ok;
    };
    expect(!exchange_is_right(+1, false), "without the barrier, a thread reads its next neighbour's value too early");
    expect(!exchange_is_right(-1, false), "without the barrier, a thread reads its previous neighbour's too early");
    expect(exchange_is_right(+1, true) && exchange_is_right(-1, true), "with the barrier, every thread reads the value");

    std::vector<float> sums(THREADS);
    emu::launch(uint3{1, 1, 1}, THREADS, [&] { warp_sums(sums.data()); });
    bool sums_right = true;
    for (unsigned t = 0; t < THREADS; ++t) sums_right &= sums[t] == static_cast<float>(32 * (t / 32 * 32) + 496);
    expect(sums_right, "__shfl_xor_sync sums each warp's lanes");

    expect(stops_the_run([] { divergent_barrier(); }), "a barrier that thread 0 skips stops the run");
    int checks = 5;
#if defined(__SANITIZE_ADDRESS__)
    std::vector<float> out(THREADS);
    expect(stops_the_run([&] { shared_read_past_the_end(out.data()); }),
           "a read past a shared array stops the run (AddressSanitizer)");
    ++checks;
#else
    std::printf("skip a read past a shared array: not built with AddressSanitizer\n");
#endif
    std::printf("emulator: %d of %d checks failed\n", failed, checks);
    return failed == 0 ? 0 : 1;
}
