// Runs SAXPY's kernels (kernels/axpy.cu) on the CPU (cuda_on_cpu.h) as
// src/routines/axpy.rs launches them (its vec4_split and geometries),
// against a float64 reference: heads and tails of 0 to 3 elements, several
// float4 groups per thread (the split), a thread per element or group,
// positive, negative and non-unit increments, alpha from memory, alpha = 0;
// incy = 0 (every term into y[0]) on one block and on several, whose partial
// sums and arrival counter then live in a work area.
// x and y each end against an inaccessible page (or start right after one),
// so a read or write outside them stops the run. Build and run with
// scripts/cpu-emulation/saxpy-check.sh.
#include "cuda_on_cpu.h"
#include "../../kernels/axpy.cu"
#include "fenced.h"
#include "test_seed.h"

#include <cinttypes>
#include <cstdio>
#include <random>

static std::mt19937_64 rng(test_seed("saxpy_check"));
static float random_value() { return std::uniform_real_distribution<float>(-0.5f, 0.5f)(rng); }

enum class Kernel { Vec4, Single, Strided, SumToY0 };

struct Case {
    Kernel kernel;
    i64 n;
    int offset;    // floats past a 16-byte boundary (x and y alike for the float4 kernels)
    bool at_end;   // the vectors end at the fence instead
    int tx, split;
    i64 incx, incy;
    float alpha;
    bool device_alpha;
};

static int run_case(const Case &c) {
    const i64 nx = 1 + (c.n - 1) * std::llabs(c.incx), ny = 1 + (c.n - 1) * std::llabs(c.incy);
    Fenced fx(nx, c.offset, c.at_end), fy(ny, c.offset, c.at_end);
    // alpha = 0: x is NaN, which any use would carry into y.
    for (i64 i = 0; i < nx; ++i) fx.data[i] = c.alpha == 0.0f ? std::nanf("") : random_value();
    for (i64 i = 0; i < ny; ++i) fy.data[i] = random_value();
    const std::vector<float> x0(fx.data, fx.data + nx), y0(fy.data, fy.data + ny);
    auto at = [&](i64 i, i64 inc) { return inc >= 0 ? i * inc : (c.n - 1 - i) * -inc; };
    const float alpha_memory = c.alpha;
    const float *alpha_ptr = c.device_alpha ? &alpha_memory : nullptr;
    const float alpha_value = c.device_alpha ? 0.0f : c.alpha;
    const float *x = fx.data + at(0, c.incx);
    float *y = fy.data + at(0, c.incy);
    // src/routines/axpy.rs: vec4_split, one_dimensional (UNROLL 2) and one_thread_each.
    const i64 head = std::min<i64>((16 - reinterpret_cast<uintptr_t>(y) % 16) % 16 / 4, c.n);
    const i64 groups = (c.n - head) / 4;
    bool fail_counter = false;
    i64 sum_depth = 0;  // incy = 0: the roundings on any term's way into y[0]
    auto blocks = [&](i64 work, i64 per_block) { return static_cast<unsigned>(std::max<i64>((work + per_block - 1) / per_block, 1)); };
    switch (c.kernel) {
        case Kernel::Vec4:
            emu::launch(uint3{blocks(groups, 2 * c.tx * c.split), 1, 1}, static_cast<unsigned>(c.tx),
                        [&] { axpy_f32_vec4(c.n, alpha_value, alpha_ptr, x, y); });
            break;
        case Kernel::Single:
            emu::launch(uint3{blocks(c.n - 3 * groups, c.tx), 1, 1}, static_cast<unsigned>(c.tx), [&] {
                axpy_f32_vec4_single(static_cast<unsigned>(c.n), static_cast<unsigned>(head),
                                     static_cast<unsigned>(groups), alpha_value, alpha_ptr, x, y);
            });
            break;
        case Kernel::Strided:
            emu::launch(uint3{blocks(c.n, 2 * c.tx * c.split), 1, 1}, static_cast<unsigned>(c.tx),
                        [&] { axpy_f32_strided(c.n, alpha_value, alpha_ptr, x, c.incx, y, c.incy); });
            break;
        case Kernel::SumToY0: {
            // src/routines/axpy.rs: sum_blocks (16 terms per thread, at most 1024 blocks; `split` > 1 here
            // stands for the routine's fallback to one block) and sum_terms_per_block.
            const unsigned count = c.split > 1 ? 1u : std::min<unsigned>(blocks(c.n, 16 * c.tx), 1024u);
            const i64 per_block = std::max<i64>((c.n + count - 1) / count, 1);
            std::vector<float> partials(count, std::nanf(""));
            unsigned counter = 0;
            emu::launch(uint3{count, 1, 1}, static_cast<unsigned>(c.tx), [&] {
                axpy_f32_sum_to_y0(c.n, per_block, alpha_value, alpha_ptr, x, c.incx, y,
                                   count > 1 ? &counter : nullptr, count > 1 ? partials.data() : nullptr);
            });
            if (counter != 0) fail_counter = true;
            // A thread's terms one after another, the warp's and the block's trees (5 levels each at most),
            // with several blocks the last one's share of the partials and its trees again, and y[0]'s update.
            const i64 tree = 10;
            sum_depth = (per_block + c.tx - 1) / c.tx + tree + (count > 1 ? (count + c.tx - 1) / c.tx + tree : 0) + 2;
            break;
        }
    }
    int failures = 0;
    auto fail = [&](const char *what, i64 i, double got, double want) {
        if (failures++ < 3)
            std::printf("FAIL %s: kernel=%d n=%lld offset=%d at_end=%d tx=%d split=%d incx=%lld incy=%lld alpha=%g "
                        "device=%d: %lld got %.9g want %.9g\n",
                        what, static_cast<int>(c.kernel), c.n, c.offset, c.at_end, c.tx, c.split, c.incx, c.incy,
                        c.alpha, c.device_alpha, i, got, want);
    };
    // Each element of y: y0 plus its terms (one each, or with incy = 0 all n on y[0]), within a rounding of
    // each of the sum's steps: 2 for one term, and for incy = 0 a thread's terms in turn, then the trees.
    std::vector<double> want(y0.begin(), y0.end()), magnitude(ny, 0.0);
    for (i64 s = 0; s < ny; ++s) magnitude[s] = std::fabs(y0[s]);
    for (i64 i = 0; i < c.n && c.alpha != 0.0f; ++i) {
        const double term = static_cast<double>(c.alpha) * x0[at(i, c.incx)];
        want[at(i, c.incy)] += term;
        magnitude[at(i, c.incy)] += std::fabs(term);
    }
    const double steps = c.incy == 0 ? static_cast<double>(sum_depth) : 2.0;
    std::vector<bool> element(ny, false);
    for (i64 i = 0; i < c.n; ++i) {
        const i64 iy = at(i, c.incy);
        element[iy] = true;
        const double bound = steps * 0x1p-24 * magnitude[iy];
        if (!std::isfinite(fy.data[iy]) || std::fabs(fy.data[iy] - want[iy]) > bound) fail("value", i, fy.data[iy], want[iy]);
    }
    if (fail_counter) fail("arrival counter not reset to 0", 0, 0, 0);
    if (c.alpha == 0.0f && std::memcmp(fy.data, y0.data(), ny * 4)) fail("alpha = 0 changed y", 0, 0, 0);
    for (i64 s = 0; s < ny; ++s)
        if (!element[s] && std::memcmp(&fy.data[s], &y0[s], 4)) fail("storage between elements of y", s, fy.data[s], y0[s]);
    if (std::memcmp(fx.data, x0.data(), nx * 4)) fail("x modified", 0, 0, 0);  // bitwise: NaN included
    return failures;
}

int main() {
    int cases = 0, failed = 0;
    for (Kernel kernel : {Kernel::Vec4, Kernel::Single, Kernel::Strided}) {
        for (i64 n : {1, 3, 5, 17, 1000, 4099}) {
            for (int offset = 0; offset < 4; ++offset) {
                for (int tx : {64, 96, 288}) {
                    for (int split : {1, 3}) {
                        if (kernel == Kernel::Single && split > 1) continue;  // a thread per element or group
                        const int turn = cases;
                        Case c{kernel, n, offset, false, tx, split, 1, 1, 1.25f, turn % 3 == 1};
                        if (kernel == Kernel::Strided) {
                            const i64 incs[][2] = {{1, 1}, {-1, 2}, {3, -1}, {-2, -3}};
                            c.incx = incs[turn % 4][0];
                            c.incy = incs[turn % 4][1];
                        }
                        // Every other case against the back fences (x and y then equally aligned: same length).
                        c.at_end = turn % 2 == 1;
                        if (turn % 11 == 4) c.alpha = 0.0f;  // device alpha 0: the kernel returns at once, x unread
                        if (c.alpha == 0.0f) c.device_alpha = true;
                        ++cases;
                        failed += run_case(c) ? 1 : 0;
                    }
                }
            }
        }
    }
    // incy = 0: every term into y[0], on one block and on several (the counter and partials), x forwards,
    // backwards, strided and repeated (incx = 0); `split` 3 stands for the routine's one-block fallback.
    for (i64 n : {2, 33, 1000, 4099, 100003}) {
        for (i64 incx : {1, -1, 3, 0}) {
            for (int tx : {64, 288}) {
                for (int split : {1, 3}) {
                    const int turn = cases;
                    Case c{Kernel::SumToY0, n, turn % 4, turn % 2 == 1, tx, split, incx, 0, -0.75f, turn % 3 == 1};
                    if (turn % 13 == 6) c.alpha = 0.0f, c.device_alpha = true;
                    ++cases;
                    failed += run_case(c) ? 1 : 0;
                }
            }
        }
    }
    std::printf("SAXPY kernels: %d cases, %d failed\n", cases, failed);
    return failed ? 1 : 0;
}
