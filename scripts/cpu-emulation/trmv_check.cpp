// Runs STRMV's kernels (kernels/trmv.cu: the four pass-1 kernels and
// trmv_sum_f32) on the CPU (cuda_on_cpu.h) as src/routines/trmv.rs launches
// them (its Layout: tiles, chunks, work items, partial vectors), against a
// float64 reference: both triangles, both ops, unit and non-unit diagonals,
// float4 and scalar layouts, partial tiles, several chunks per tile,
// positive, negative and non-unit increments; then cases drawn afresh each
// run from the printed seed. The triangle that must not be
// read (and a unit diagonal) holds NaN, and A's span is placed against an
// inaccessible page, so a read outside it stops the run. Build and run with
// scripts/cpu-emulation/trmv-check.sh.
#include "cuda_on_cpu.h"
// The pass-1 kernels' dynamic shared memory (`extern __shared__ float reduce[]`): one
// array for the blocks, which run one after another.
#undef __shared__
#define __shared__
float reduce[64 * 1024];
#include "../../kernels/trmv.cu"
#include "fenced.h"
#include "test_seed.h"

#include <cinttypes>
#include <cstdio>
#include <random>

static std::mt19937_64 rng(test_seed("trmv_check"));
static float random_value() { return std::uniform_real_distribution<float>(-0.5f, 0.5f)(rng); }

struct Case {
    i64 n, lda;
    bool lower, trans, unit;
    int offset;   // A's floats past a 16-byte boundary (front placement)
    bool at_end;  // A's span ends at the fence instead
    int tx, ty, split, sum_tx;
    i64 incx;
};

// src/routines/trmv.rs: PER_THREAD, STEPS_PER_SPLIT, MAX_PARTIAL_VECTORS and Layout::new.
struct Layout {
    i64 tile, q, tiles;
    Layout(const Case &c) {
        const i64 per_thread = 4, steps = 16, max_partials = 64;
        tile = per_thread * (c.trans ? c.ty : c.tx);
        const i64 target = per_thread * (c.trans ? c.tx : c.ty) * steps * c.split;
        tiles = (c.n + tile - 1) / tile;
        q = std::max<i64>({(target + tile - 1) / tile, (tiles + max_partials - 1) / max_partials, 1});
    }
    i64 items() const {
        const i64 a = tiles / q, r = tiles % q;
        return q * (a * (a + 1) / 2) + r * (a + 1);
    }
    i64 partial_vectors() const { return (tiles - 1) / q + 1; }
};

static int run_case(const Case &c) {
    const bool vec4 = c.lda % 4 == 0 && c.offset == 0 && !c.at_end;
    const size_t span = static_cast<size_t>(c.lda * (c.n - 1) + c.n);
    Fenced a(span, c.offset, c.at_end);
    // The referenced triangle random; the other one, and the diagonal when unit, NaN (never to be added).
    for (i64 j = 0; j < c.n; ++j) {
        for (i64 i = 0; i < c.lda && j * c.lda + i < static_cast<i64>(span); ++i) {
            const bool referenced = i < c.n && (c.lower ? i >= j : i <= j) && !(c.unit && i == j);
            a.data[j * c.lda + i] = referenced ? random_value() : NAN;
        }
    }
    const i64 nx = 1 + (c.n - 1) * std::llabs(c.incx);
    std::vector<float> x0(nx);
    for (auto &v : x0) v = random_value();
    std::vector<float> x = x0;
    auto at = [&](i64 i) { return c.incx >= 0 ? i * c.incx : (c.n - 1 - i) * -c.incx; };

    const Layout layout(c);
    std::vector<float> partial(static_cast<size_t>(layout.partial_vectors() * c.n), NAN);
    const auto pass1 = c.trans ? (vec4 ? trmv_t_f32_vec4 : trmv_t_f32_scalar) : (vec4 ? trmv_n_f32_vec4 : trmv_n_f32_scalar);
    float *xfirst = x.data() + at(0);
    // A and x: no read may leave them (cuda_on_cpu.h: a fence page cannot see a 16-byte-aligned over-read).
    emu::read_spans = {{a.data, a.data + span}, {x.data(), x.data() + nx}};
    emu::launch(uint3{static_cast<unsigned>(layout.items()), 1, 1},
                uint3{static_cast<unsigned>(c.tx), static_cast<unsigned>(c.ty), 1}, [&] {
                    pass1(c.n, layout.tile, layout.q, layout.tiles, c.lower, c.unit, a.data, c.lda, xfirst, c.incx,
                          partial.data());
                });
    const bool suffix = c.trans ? c.lower : !c.lower;
    emu::launch(uint3{static_cast<unsigned>((c.n + c.sum_tx - 1) / c.sum_tx), 1, 1}, static_cast<unsigned>(c.sum_tx),
                [&] {
                    trmv_sum_f32(c.n, layout.tile, layout.q, layout.tiles, suffix, c.unit, partial.data(), xfirst,
                                 c.incx);
                });
    emu::read_spans.clear();

    int failures = 0;
    auto fail = [&](const char *what, i64 i, double got, double want) {
        if (failures++ < 3)
            std::printf("FAIL %s: n=%lld lda=%lld %s %s %s offset=%d at_end=%d vec4=%d shape=%dx%dx%d sum=%d incx=%lld: "
                        "%lld got %.9g want %.9g\n",
                        what, c.n, c.lda, c.lower ? "lower" : "upper", c.trans ? "T" : "N", c.unit ? "unit" : "non-unit",
                        c.offset, c.at_end, vec4, c.tx, c.ty, c.split, c.sum_tx, c.incx, i, got, want);
    };
    std::vector<bool> element(nx, false);
    for (i64 i = 0; i < c.n; ++i) {
        element[at(i)] = true;
        double sum = 0, size = 0;
        for (i64 j = 0; j < c.n; ++j) {
            // op(A)[i][j] = A[i][j] (N) or A[j][i] (T), within the triangle.
            const i64 r = c.trans ? j : i, col = c.trans ? i : j;
            if (c.lower ? r < col : r > col) continue;
            const double v = r == col && c.unit ? 1.0 : a.data[col * c.lda + r];
            const double t = v * x0[at(j)];
            sum += t;
            size += std::fabs(t);
        }
        const double bound = 2.0 * (c.n + 2.0) * 0x1p-24 * size + 1e-38;
        const float got = x[at(i)];
        if (!std::isfinite(got) || std::fabs(got - sum) > bound) fail("value", i, got, sum);
    }
    for (i64 s = 0; s < nx; ++s)
        if (!element[s] && std::memcmp(&x[s], &x0[s], 4)) fail("storage between elements of x", s, x[s], x0[s]);
    return failures;
}

int main() {
    int cases = 0, failed = 0;
    // (Tx, Ty, split) from the pass-1 space, and the sum kernel's block.
    const int shapes[][4] = {{32, 1, 1, 64}, {64, 2, 2, 128}, {128, 4, 1, 512}, {32, 4, 4, 64}, {96, 3, 2, 192}};
    for (i64 n : {1, 7, 33, 130, 513}) {
        for (const auto &s : shapes) {
            for (int variant = 0; variant < 8; ++variant) {
                // Every variant in the float4 layout (lda a multiple of 4, A on 16 bytes) and in the scalar one
                // (A one to three floats past 16 bytes, or at the back fence).
                for (bool vec4 : {true, false}) {
                    const int turn = cases;
                    const i64 lda = vec4 ? (n + 3) / 4 * 4 + (turn % 3 == 1 ? 4 : 0) : n + (turn % 3 == 1 ? 3 : 0);
                    Case c{n, lda, (variant & 1) != 0, (variant & 2) != 0, (variant & 4) != 0, 0, false,
                           s[0], s[1], s[2], s[3], 1};
                    if (!vec4 && turn % 4 == 1) {
                        c.at_end = true;
                    } else if (!vec4) {
                        c.offset = 1 + turn % 3;
                    }
                    c.incx = turn % 5 == 1 ? -1 : turn % 5 == 3 ? 3 : turn % 5 == 4 ? -2 : 1;
                    ++cases;
                    failed += run_case(c) ? 1 : 0;
                }
            }
        }
    }
    // Cases drawn afresh each run (the seed printed first replays them): any n up to 1100, shape, triangle, op,
    // diagonal, layout and increment.
    auto between = [](i64 low, i64 high) { return draw_between(rng, low, high); };
    const i64 increments[] = {1, -1, 3, -2};
    constexpr int DRAWN_CASES = 96;
    for (int drawn = 0; drawn < DRAWN_CASES; ++drawn) {
        const i64 n = between(1, 1100);
        const auto &s = shapes[between(0, std::size(shapes) - 1)];
        const bool vec4 = between(0, 1);
        Case c{n, vec4 ? (n + 3) / 4 * 4 + 4 * between(0, 1) : n + between(0, 3), between(0, 1) == 1, between(0, 1) == 1,
               between(0, 1) == 1, vec4 ? 0 : static_cast<int>(between(0, 3)), false, s[0], s[1], s[2], s[3],
               increments[between(0, 3)]};
        c.at_end = !vec4 && c.offset == 0 && between(0, 1);
        ++cases;
        failed += run_case(c) ? 1 : 0;
    }
    std::printf("STRMV kernels: %d cases (%d of them drawn), %d failed\n", cases, DRAWN_CASES, failed);
    return failed ? 1 : 0;
}
