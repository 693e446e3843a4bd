// Runs gemv_n_f32_wide_any (kernels/gemv.cu: float4 loads of A at any
// alignment and lda) on the CPU (cuda_on_cpu.h) against a float64
// reference: every lda mod 4 and A offset, row tiles of 8 to 64 threads,
// whole and partial tiles, groups of 8 columns and the rest, strided x and y,
// beta = 0 over NaN in y, alpha = 0. A's span is placed against an
// inaccessible page, before its first element or after its last, so a read
// outside it stops the run; a misaligned float4 load stops it too. Build and
// run with scripts/cpu-emulation/gemv-check.sh.
#include "cuda_on_cpu.h"
#include "../../kernels/gemv.cu"

#include <sys/mman.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <random>

static std::mt19937_64 rng(12345);
static float random_value() { return std::uniform_real_distribution<float>(-0.5f, 0.5f)(rng); }

// `floats` floats between two inaccessible pages: starting right after the
// first (at `offset` floats past it) or ending right before the second.
struct Fenced {
    char *base = nullptr;
    size_t bytes = 0;
    float *data = nullptr;
    Fenced(size_t floats, int offset, bool at_end) {
        const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
        const size_t inner = ((floats + 8) * 4 + page - 1) / page * page;
        bytes = inner + 2 * page;
        base = static_cast<char *>(mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
        if (base == MAP_FAILED) std::abort();
        mprotect(base, page, PROT_NONE);
        mprotect(base + page + inner, page, PROT_NONE);
        data = at_end ? reinterpret_cast<float *>(base + page + inner) - floats
                      : reinterpret_cast<float *>(base + page) + offset;
    }
    ~Fenced() { munmap(base, bytes); }
};

struct Case {
    i64 m, n, lda;
    int offset;  // A's floats past a 16-byte boundary (at the front); at the back, where its end falls
    bool at_end;
    int tx, ty;
    i64 incx, incy;
    float alpha, beta;
};

static int run_case(const Case &c) {
    const size_t span = static_cast<size_t>(c.lda * (c.n - 1) + c.m);
    Fenced a(span, c.offset, c.at_end);
    for (size_t i = 0; i < span; ++i) a.data[i] = random_value();
    const i64 nx = 1 + (c.n - 1) * std::llabs(c.incx), ny = 1 + (c.m - 1) * std::llabs(c.incy);
    std::vector<float> x(nx), y0(ny);
    for (auto &v : x) v = random_value();
    for (auto &v : y0) v = random_value();
    // Element i of a strided vector, reference-BLAS style.
    auto at = [](i64 i, i64 len, i64 inc) { return inc >= 0 ? i * inc : (len - 1 - i) * -inc; };
    if (c.beta == 0.0f)
        for (i64 i = 0; i < c.m; ++i) y0[at(i, c.m, c.incy)] = NAN;
    std::vector<float> y = y0;
    // The kernels take the address of element 0 (the host's StridedVector::first_element).
    const float *x0 = x.data() + at(0, c.n, c.incx);
    float *yfirst = y.data() + at(0, c.m, c.incy);
    const i64 tile_rows = 4 * c.tx;
    const uint3 grid{static_cast<unsigned>((c.m + tile_rows - 1) / tile_rows), 1, 1};
    emu::launch(grid, uint3{static_cast<unsigned>(c.tx), static_cast<unsigned>(c.ty), 1}, [&] {
        gemv_n_f32_wide_any(c.m, c.n, c.alpha, nullptr, a.data, c.lda, x0, c.incx, c.beta, nullptr, yfirst, c.incy, c.n,
                            nullptr, nullptr);
    });
    int failures = 0;
    auto fail = [&](const char *what, i64 i, double got, double want) {
        if (failures++ < 3)
            std::printf("FAIL %s: m=%lld n=%lld lda=%lld offset=%d at_end=%d shape=%dx%d incx=%lld incy=%lld alpha=%g beta=%g: "
                        "row %lld got %.9g want %.9g\n",
                        what, c.m, c.n, c.lda, c.offset, c.at_end, c.tx, c.ty, c.incx, c.incy, c.alpha, c.beta, i, got, want);
    };
    std::vector<bool> element(ny, false);
    for (i64 i = 0; i < c.m; ++i) {
        const i64 iy = at(i, c.m, c.incy);
        element[iy] = true;
        double sum = 0, size = 0;
        if (c.alpha != 0.0f) {
            for (i64 j = 0; j < c.n; ++j) {
                const double t = static_cast<double>(a.data[i + j * c.lda]) * x[at(j, c.n, c.incx)];
                sum += t;
                size += std::fabs(t);
            }
        }
        double want = c.alpha * sum, mag = std::fabs(c.alpha) * size;
        if (c.beta != 0.0f) {
            want += static_cast<double>(c.beta) * y0[iy];
            mag += std::fabs(static_cast<double>(c.beta) * y0[iy]);
        }
        const double bound = 2.0 * (c.n + 2.0) * 0x1p-24 * mag + 1e-38;
        if (!std::isfinite(y[iy]) || std::fabs(y[iy] - want) > bound) fail("value", i, y[iy], want);
    }
    for (i64 s = 0; s < ny; ++s)
        if (!element[s] && std::memcmp(&y[s], &y0[s], 4)) fail("storage between elements of y", s, y[s], y0[s]);
    return failures;
}

int main() {
    int cases = 0, failed = 0;
    const int shapes[][2] = {{8, 4}, {24, 3}, {64, 2}};
    for (const auto &shape : shapes) {
        const int tx = shape[0], ty = shape[1];
        const i64 tile = 4 * tx;
        // Rows: one whole tile, whole tiles and a partial one; columns: fewer than a group, groups and a rest.
        const i64 ms[] = {tile, 2 * tile + 5};
        const i64 ns[] = {1, 2, 7, 8 * ty + 3, 8 * ty * 2 + 9};
        for (i64 m : ms) {
            for (i64 n : ns) {
                for (int pad = 0; pad < 4; ++pad) {
                    for (int offset = 0; offset < 4; ++offset) {
                        for (bool at_end : {false, true}) {
                            if (at_end && offset) continue;  // at the back the span's end fixes the alignment
                            const int k = cases;
                            const i64 incx = k % 3 == 0 ? -2 : 1, incy = k % 4 == 1 ? 3 : k % 4 == 3 ? -1 : 1;
                            const float alpha = k % 11 == 5 ? 0.0f : 1.25f, beta = k % 5 == 2 ? 0.0f : -0.5f;
                            const Case c{m, n, m + pad, offset, at_end, tx, ty, incx, incy, alpha, beta};
                            ++cases;
                            failed += run_case(c) ? 1 : 0;
                        }
                    }
                }
            }
        }
    }
    // lda < 4 (the kernel's row-by-row path): one row, and three.
    for (i64 m : {1, 3}) {
        for (i64 n : {1, 5, 40}) {
            ++cases;
            failed += run_case(Case{m, n, m, 1, false, 8, 4, 1, 1, 0.75f, 0.5f}) ? 1 : 0;
        }
    }
    std::printf("gemv_n_f32_wide_any: %d cases, %d failed\n", cases, failed);
    return failed ? 1 : 0;
}
