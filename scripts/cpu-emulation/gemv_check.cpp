// Runs every SGEMV kernel of kernels/gemv.cu on the CPU (cuda_on_cpu.h)
// against a float64 reference, launched as src/routines/gemv/ launches
// them (grid from the block shape, the split's ranges and work buffer):
// every lda mod 4 and A offset the kernel takes, partial row tiles and column
// groups, chunks of x and of rows crossed, splits, strided x and y, beta = 0
// over NaN in y, alpha = 0, scalars from memory. A's span is placed against
// an inaccessible page, before its first element or after its last, so a read
// outside it stops the run, as does a misaligned float4 load; the split's
// tickets and slots must be back at 0 after each call. Then
// gemv_n_f32_wide_any, the float4 N kernel for any A, over many more
// offsets and tile widths, and so on; last, cases drawn afresh each run from
// the printed seed, for every kernel. Build and run with scripts/cpu-emulation/gemv-check.sh.
#include "cuda_on_cpu.h"
#include "../../kernels/gemv.cu"
#include "fenced.h"
#include "test_seed.h"

#include <cinttypes>
#include <cstdio>
#include <random>
#include <string>

static std::mt19937_64 rng(test_seed("gemv_check"));
static float random_value() { return std::uniform_real_distribution<float>(-0.5f, 0.5f)(rng); }

typedef void (*GemvKernel)(i64, i64, float, const float *, const float *, i64, const float *, i64, float, const float *,
                           float *, i64, i64, unsigned *, SplitSlot *);

// How the host launches a kernel (src/routines/gemv/: tiles, reduction_split, lanes_geometry).
enum class Layout { N, Lanes, NShort, T, TShort, TPaired, TGroups4, TGroups6, NCluster16, NCluster32, NCluster64 };

// The launch spaces of src/routines/gemv/, as block shapes (Tx, Ty) tried and whether they split.
enum class Space { N, Narrow, Wide, Few, Lanes, Sweep, Short, T, L1Any, Paired, PairedSplit, Stacked, TShort, Groups, Cluster };

struct KernelInfo {
    const char *name;
    GemvKernel fn;
    Layout layout;
    Space space;
    bool vec;        // A 16-byte aligned and lda % 4 == 0
    bool x_float4;   // x 16-byte aligned with unit stride
    bool x_unit;     // x with unit stride
};

static const KernelInfo KERNELS[] = {
    {"gemv_n_f32", gemv_n_f32, Layout::N, Space::N, true, false, false},
    {"gemv_n_f32_scalar", gemv_n_f32_scalar, Layout::N, Space::N, false, false, false},
    {"gemv_n_f32_narrow", gemv_n_f32_narrow, Layout::N, Space::Narrow, true, false, false},
    {"gemv_n_f32_scalar_narrow", gemv_n_f32_scalar_narrow, Layout::N, Space::Narrow, false, false, false},
    {"gemv_n_f32_scalar_long", gemv_n_f32_scalar_long, Layout::N, Space::N, false, false, false},
    {"gemv_n_f32_scalar_thin", gemv_n_f32_scalar_thin, Layout::N, Space::N, false, false, false},
    {"gemv_n_f32_wide", gemv_n_f32_wide, Layout::N, Space::Wide, true, false, false},
    {"gemv_n_f32_scalar_wide", gemv_n_f32_scalar_wide, Layout::N, Space::Wide, false, false, false},
    {"gemv_n_f32_wide_staged", gemv_n_f32_wide_staged, Layout::N, Space::Wide, true, false, false},
    {"gemv_n_f32_wide_any", gemv_n_f32_wide_any, Layout::N, Space::Wide, false, false, false},
    {"gemv_n_f32_few", gemv_n_f32_few, Layout::N, Space::Few, true, false, false},
    {"gemv_n_f32_scalar_few", gemv_n_f32_scalar_few, Layout::N, Space::Few, false, false, false},
    {"gemv_n_f32_scalar_lanes", gemv_n_f32_scalar_lanes, Layout::Lanes, Space::Lanes, false, false, false},
    {"gemv_n_f32_sweep", gemv_n_f32_sweep, Layout::Lanes, Space::Sweep, false, false, false},
    {"gemv_n_f32_short", gemv_n_f32_short, Layout::NShort, Space::Short, true, false, false},
    {"gemv_n_f32_short_scalar", gemv_n_f32_short_scalar, Layout::NShort, Space::Short, false, false, false},
    {"gemv_n_f32_cluster16", gemv_n_f32_cluster16, Layout::NCluster16, Space::Cluster, true, false, false},
    {"gemv_n_f32_cluster32", gemv_n_f32_cluster32, Layout::NCluster32, Space::Cluster, true, false, false},
    {"gemv_n_f32_scalar_cluster16", gemv_n_f32_scalar_cluster16, Layout::NCluster16, Space::Cluster, false, false, false},
    {"gemv_n_f32_scalar_cluster32", gemv_n_f32_scalar_cluster32, Layout::NCluster32, Space::Cluster, false, false, false},
    {"gemv_n_f32_cluster64", gemv_n_f32_cluster64, Layout::NCluster64, Space::Cluster, true, false, false},
    {"gemv_n_f32_scalar_cluster64", gemv_n_f32_scalar_cluster64, Layout::NCluster64, Space::Cluster, false, false, false},
    {"gemv_t_f32", gemv_t_f32, Layout::T, Space::T, true, false, false},
    {"gemv_t_f32_scalar", gemv_t_f32_scalar, Layout::T, Space::T, false, false, false},
    {"gemv_t_f32_lean", gemv_t_f32_lean, Layout::T, Space::T, true, false, false},
    {"gemv_t_f32_scalar_lean", gemv_t_f32_scalar_lean, Layout::T, Space::T, false, false, false},
    {"gemv_t_f32_lean_l1", gemv_t_f32_lean_l1, Layout::T, Space::T, true, true, false},
    {"gemv_t_f32_l1_any", gemv_t_f32_l1_any, Layout::T, Space::L1Any, false, false, true},
    {"gemv_t_f32_paired", gemv_t_f32_paired, Layout::T, Space::Paired, true, true, false},
    {"gemv_t_f32_paired_split", gemv_t_f32_paired_split, Layout::TPaired, Space::PairedSplit, true, true, false},
    {"gemv_t_f32_stacked", gemv_t_f32_stacked, Layout::T, Space::Stacked, true, true, false},
    {"gemv_t_f32_paired_any", gemv_t_f32_paired_any, Layout::T, Space::Paired, false, false, true},
    {"gemv_t_f32_paired_split_any", gemv_t_f32_paired_split_any, Layout::TPaired, Space::PairedSplit, false, false, true},
    {"gemv_t_f32_stacked_any", gemv_t_f32_stacked_any, Layout::T, Space::Stacked, false, false, true},
    {"gemv_t_f32_short", gemv_t_f32_short, Layout::TShort, Space::TShort, true, false, false},
    {"gemv_t_f32_short_scalar", gemv_t_f32_short_scalar, Layout::TShort, Space::TShort, false, false, false},
    {"gemv_t_f32_groups4", gemv_t_f32_groups4, Layout::TGroups4, Space::Groups, true, false, false},
    {"gemv_t_f32_groups6", gemv_t_f32_groups6, Layout::TGroups6, Space::Groups, true, false, false},
    {"gemv_t_f32_scalar_groups4", gemv_t_f32_scalar_groups4, Layout::TGroups4, Space::Groups, false, false, false},
    {"gemv_t_f32_scalar_groups6", gemv_t_f32_scalar_groups6, Layout::TGroups6, Space::Groups, false, false, false},
};

static std::vector<std::pair<int, int>> shapes(Space space) {
    switch (space) {
        case Space::N: return {{32, 4}, {64, 2}};
        // 8 x 32: the split shape of few rows on many columns (narrow_split_plan).
        case Space::Narrow: return {{8, 16}, {32, 4}, {8, 32}};
        // And row tiles of 40 and 72 rows (Tx 10 and 18, a warp across two thread rows), as the routine takes on
        // fast DRAM.
        case Space::Wide: return {{8, 16}, {24, 8}, {64, 8}, {10, 32}, {18, 16}};
        // The fewest and most thread rows, and 16: past the last column on the narrower cases.
        case Space::Few: return {{8, 4}, {8, 16}, {8, 64}};
        case Space::Lanes: return {{32, 4}, {32, 1}};
        // Thread rows past the last column, ranges ending in a part group of 32, row tiles of 1 to 3 warps.
        case Space::Sweep: return {{32, 4}, {64, 3}, {96, 8}, {32, 1}};
        case Space::Short: return {{64, 1}, {256, 1}};
        case Space::T: return {{64, 1}, {256, 1}};
        case Space::L1Any: return {{256, 1}};
        // The library's 256, and blocks of 2 warps for partial last blocks on the small cases.
        case Space::Paired:
        case Space::PairedSplit: return {{64, 1}, {256, 1}};
        // One warp a column, 2, 5 (a range of rows that is not a power of two) and 16 (warps with no rows on
        // the smaller cases), and 2 columns a block of 3 warps each (a partial last block).
        case Space::Stacked: return {{32, 1}, {32, 2}, {32, 5}, {32, 16}, {64, 3}};
        case Space::TShort: return {{32, 1}, {64, 1}};
        case Space::Groups: return {{128, 1}, {256, 1}};
        case Space::Cluster: return {{128, 1}, {256, 1}};
    }
    return {};
}

static bool splits(Space space) {
    return space == Space::N || space == Space::Narrow || space == Space::Short || space == Space::T ||
           space == Space::PairedSplit || space == Space::Cluster;
}

struct Case {
    i64 m, n, lda;
    int offset;    // A's floats past a 16-byte boundary (front placement)
    bool at_end;   // A's span ends at the fence instead
    int tx, ty, split;
    int x_offset;  // x's floats past a 16-byte boundary
    i64 incx, incy;
    float alpha, beta;
    bool device_scalars;
    bool x_at_end = false;  // x's span ends at a fence (else it starts x_offset floats past one)
};

// The host's split_ranges: (range length, ranges).
static void split_ranges(i64 len, int split, i64 granule, i64 &per, int &ranges) {
    if (split <= 1 || len <= granule) {
        per = std::max<i64>(len, 1);
        ranges = 1;
        return;
    }
    per = ((len + split - 1) / split + granule - 1) / granule * granule;
    ranges = static_cast<int>((len + per - 1) / per);
}

static int lanes_per_column(i64 m) {
    int lanes = 1;
    while (lanes < 32 && 4 * lanes < m) lanes *= 2;
    return lanes;
}

constexpr int DRAWN_CASES_PER_KERNEL = 12;

static int run_case(const KernelInfo &k, const Case &c) {
    const size_t span = static_cast<size_t>(c.lda * (c.n - 1) + c.m);
    Fenced a(span, c.offset, c.at_end);
    // With alpha 0, A and x hold NaN: the kernels must not use them (a multiply by 0 would carry NaN into y).
    for (size_t i = 0; i < span; ++i) a.data[i] = c.alpha == 0.0f ? NAN : random_value();
    const bool cluster =
        k.layout == Layout::NCluster16 || k.layout == Layout::NCluster32 || k.layout == Layout::NCluster64;
    const bool t = k.layout != Layout::N && k.layout != Layout::Lanes && k.layout != Layout::NShort && !cluster;
    const i64 len_x = t ? c.m : c.n, len_y = t ? c.n : c.m;
    const i64 nx = 1 + (len_x - 1) * std::llabs(c.incx), ny = 1 + (len_y - 1) * std::llabs(c.incy);
    Fenced xf(static_cast<size_t>(nx), c.x_offset, c.x_at_end);
    float *x = xf.data;
    std::vector<float> y0(ny);
    for (i64 i = 0; i < nx; ++i) x[i] = c.alpha == 0.0f ? NAN : random_value();
    for (auto &v : y0) v = random_value();
    // Element i of a strided vector, reference-BLAS style.
    auto at = [](i64 i, i64 len, i64 inc) { return inc >= 0 ? i * inc : (len - 1 - i) * -inc; };
    if (c.beta == 0.0f)
        for (i64 i = 0; i < len_y; ++i) y0[at(i, len_y, c.incy)] = NAN;
    std::vector<float> y = y0;

    // The launch, as the host sizes it.
    i64 per_split = 0;
    int ranges = 1;
    unsigned blocks = 1;
    switch (k.layout) {
        case Layout::N:
            blocks = static_cast<unsigned>((c.m + 4 * c.tx - 1) / (4 * c.tx));
            split_ranges(c.n, c.n <= 512 ? 1 : c.split, 128, per_split, ranges);
            break;
        case Layout::Lanes:
            blocks = static_cast<unsigned>((c.m + c.tx - 1) / c.tx);
            per_split = c.n;
            break;
        case Layout::NShort:
            split_ranges(c.n, c.split, 1024, per_split, ranges);
            break;
        case Layout::T:
        case Layout::TPaired:
            blocks = static_cast<unsigned>((c.n + c.tx / 32 - 1) / (c.tx / 32));
            // Ranges of whole x chunks (T), or of 128-row stretches (the split paired kernel).
            split_ranges(c.m, c.split, k.layout == Layout::T ? 2048 : 128, per_split, ranges);
            break;
        case Layout::TShort: {
            const int slots = std::max(1, c.tx / lanes_per_column(c.m));
            blocks = static_cast<unsigned>((c.n + 4 * slots - 1) / (4 * slots));
            per_split = c.m;
            break;
        }
        case Layout::TGroups4:
        case Layout::TGroups6: {
            // groups_columns_per_block: Tx / L slots of 2 columns, L lanes for ceil(m / groups) rows.
            const int groups = k.layout == Layout::TGroups4 ? 4 : 6;
            const int columns = std::max(1, c.tx / lanes_per_column((c.m + groups - 1) / groups)) * 2;
            blocks = static_cast<unsigned>((c.n + columns - 1) / columns);
            per_split = c.m;
            break;
        }
        case Layout::NCluster16:
        case Layout::NCluster32:
        case Layout::NCluster64: {
            // Row tiles of 16, 32 or 64 rows, each in `split` clusters of 8 column ranges (the last ones empty on
            // few columns).
            const i64 rows = k.layout == Layout::NCluster16 ? 16 : k.layout == Layout::NCluster32 ? 32 : 64;
            blocks = static_cast<unsigned>((c.m + rows - 1) / rows);
            ranges = 8 * c.split;
            per_split = std::max<i64>((c.n + ranges - 1) / ranges, 1);
            break;
        }
    }
    // A counter per block, or per column (the split paired kernel).
    std::vector<unsigned> counters(std::max<i64>(blocks, len_y), 0);
    std::vector<SplitSlot> slots(static_cast<size_t>(ranges) * len_y + 1, 0);
    const float scalars[2] = {c.alpha, c.beta};
    const float *alpha_ptr = c.device_scalars ? &scalars[0] : nullptr;
    const float *beta_ptr = c.device_scalars ? &scalars[1] : nullptr;
    const float *x0 = x + at(0, len_x, c.incx);
    float *yfirst = y.data() + at(0, len_y, c.incy);
    emu::read_spans = {{a.data, a.data + span}, {x, x + nx}};
    // alpha = 0: A and x are not read at all (their loads go through __ldg, which checks).
    if (c.alpha == 0.0f) emu::unread_spans = emu::read_spans;
    emu::launch(uint3{blocks, static_cast<unsigned>(ranges), 1},
                uint3{static_cast<unsigned>(c.tx), static_cast<unsigned>(c.ty), 1}, [&] {
                    k.fn(c.m, c.n, c.device_scalars ? 0.0f : c.alpha, alpha_ptr, a.data, c.lda, x0, c.incx,
                         c.device_scalars ? 0.0f : c.beta, beta_ptr, yfirst, c.incy, per_split, counters.data(),
                         slots.data());
                });
    emu::read_spans.clear();
    emu::unread_spans.clear();

    int failures = 0;
    auto fail = [&](const char *what, i64 i, double got, double want) {
        if (failures++ < 3)
            std::printf("FAIL %s %s: m=%lld n=%lld lda=%lld offset=%d at_end=%d shape=%dx%dx%d x_offset=%d incx=%lld "
                        "incy=%lld alpha=%g beta=%g device=%d: %lld got %.9g want %.9g\n",
                        k.name, what, c.m, c.n, c.lda, c.offset, c.at_end, c.tx, c.ty, c.split, c.x_offset, c.incx,
                        c.incy, c.alpha, c.beta, c.device_scalars, i, got, want);
    };
    std::vector<bool> element(ny, false);
    for (i64 i = 0; i < len_y; ++i) {
        const i64 iy = at(i, len_y, c.incy);
        element[iy] = true;
        double sum = 0, size = 0;
        if (c.alpha != 0.0f) {
            for (i64 j = 0; j < len_x; ++j) {
                const double aij = t ? a.data[j + i * c.lda] : a.data[i + j * c.lda];
                const double term = aij * x[at(j, len_x, c.incx)];
                sum += term;
                size += std::fabs(term);
            }
        }
        double want = c.alpha * sum, mag = std::fabs(c.alpha) * size;
        if (c.beta != 0.0f) {
            want += static_cast<double>(c.beta) * y0[iy];
            mag += std::fabs(static_cast<double>(c.beta) * y0[iy]);
        }
        const double bound = 2.0 * (len_x + 2.0) * 0x1p-24 * mag + 1e-38;
        if (!std::isfinite(y[iy]) || std::fabs(y[iy] - want) > bound) fail("value", i, y[iy], want);
    }
    for (i64 s = 0; s < ny; ++s)
        if (!element[s] && std::memcmp(&y[s], &y0[s], 4)) fail("storage between elements of y", s, y[s], y0[s]);
    for (size_t b = 0; b < counters.size(); ++b)
        if (counters[b]) fail("ticket counter not reset", static_cast<i64>(b), counters[b], 0);
    for (size_t i = 0; i < slots.size(); ++i)
        if (slots[i]) fail("split slot not cleared", static_cast<i64>(i), static_cast<double>(slots[i] >> 32), 0);
    return failures;
}

// Whether the kernel may take the case (the host's select_kernel and twins).
static bool serves(const KernelInfo &k, const Case &c) {
    const bool a_vec = c.lda % 4 == 0 && c.offset == 0 && !c.at_end;
    if (k.vec && !a_vec) return false;
    if (k.x_float4 && (c.incx != 1 || c.x_offset)) return false;
    if (k.x_unit && c.incx != 1) return false;
    const bool short_rows = c.m <= 64;
    switch (k.layout) {
        case Layout::N:
        case Layout::Lanes:
            return !short_rows;
        case Layout::T:
        case Layout::TPaired:
            return c.m > 64;
        case Layout::NShort:
        case Layout::TShort:
            return short_rows;
        // 65 to 384 rows, 512 for A that is not float4 (groups_rows in src/routines/gemv/).
        case Layout::TGroups4:
        case Layout::TGroups6:
            return c.m > 64 && c.m <= (k.vec ? 384 : 512);
        // At most 1024 rows (cluster_rows in src/routines/gemv/).
        case Layout::NCluster16:
        case Layout::NCluster32:
        case Layout::NCluster64:
            return c.m <= 1024;
    }
    return false;
}

// A case drawn afresh (from the run's seed) among those the kernel serves: rows and columns anywhere in its range
// up to 800 × 600 (the fixed cases cross the x and row chunks), so that the fixed cases' remainders are not the
// only ones met, with any launch shape, split, layout and scalars.
static Case drawn_case(const KernelInfo &k) {
    i64 low = 65, high = 800;
    switch (k.layout) {
        case Layout::NShort:
        case Layout::TShort: low = 1, high = 64; break;
        case Layout::TGroups4:
        case Layout::TGroups6: high = k.vec ? 384 : 512; break;
        case Layout::NCluster16:
        case Layout::NCluster32:
        case Layout::NCluster64: low = 1; break;
        default: break;
    }
    const i64 m = draw_between(rng, low, high), n = draw_between(rng, 1, 600);
    const auto shapes_of = shapes(k.space);
    const auto [tx, ty] = shapes_of[static_cast<size_t>(draw_between(rng, 0, static_cast<i64>(shapes_of.size()) - 1))];
    int split = 1;
    if (k.space == Space::Cluster) {
        split = tx == 128 ? draw(rng, {1, 2}) : 1;
    } else if (splits(k.space)) {
        split = draw(rng, {1, 2, 3, 4, 5, 8});
    }
    Case c{m, n, k.vec ? (m + 3) / 4 * 4 + 4 * draw_between(rng, 0, 2) : m + draw_between(rng, 0, 5),
           k.vec ? 0 : static_cast<int>(draw_between(rng, 0, 3)), false, tx, ty, split,
           k.x_float4 ? 0 : static_cast<int>(draw_between(rng, 0, 3)), k.x_float4 || k.x_unit ? 1 : draw<i64>(rng, {1, -1, 2, -3}),
           draw<i64>(rng, {1, -1, 3, -2}), draw(rng, {1.25f, -0.75f, 1.25f, -0.75f, 0.0f}), draw(rng, {-0.5f, 0.0f, 1.0f}),
           draw(rng, {false, true})};
    c.at_end = !k.vec && c.offset == 0 && draw(rng, {false, true});
    c.x_at_end = !k.x_float4 && draw(rng, {false, true});
    return c;
}

int main(int argc, char **argv) {
    const char *only = argc > 1 ? argv[1] : "";
    int cases = 0, failed = 0;
    // (m, n): partial row tiles and column groups; 2500 columns cross N's x chunk, 2101 rows T's row chunk;
    // m <= 64 for the short kernels.
    // 300 rows: part-filled last tiles of 16, 32 and 64 rows on the cluster kernels (in 1 or 2 clusters a tile).
    const i64 dims[][2] = {{130, 37}, {100, 2500}, {2101, 9}, {16, 300}, {7, 40}, {61, 1100}, {300, 700}};
    for (const auto &k : KERNELS) {
        if (!std::strstr(k.name, only)) continue;
        for (const auto &dim : dims) {
            const i64 m = dim[0], n = dim[1];
            // A warp per column: 2500 columns would be 80,000 emulated threads a call.
            if ((k.layout == Layout::T || k.layout == Layout::TPaired) && n > 1000) continue;
            // 300 x 700 for the cluster kernels only.
            if (m == 300 && k.space != Space::Cluster) continue;
            for (const auto &[tx, ty] : shapes(k.space)) {
                for (int split : {1, 4}) {
                    if (split > 1 && !splits(k.space)) continue;
                    // Several clusters a tile (split 2 for them): on 128 threads, as many emulated threads as one.
                    if (k.space == Space::Cluster && split > 1) {
                        if (tx != 128) continue;
                        split = 2;
                    }
                    for (int variant = 0; variant < 4; ++variant) {
                        Case c{m, n, m + (variant & 1 ? 3 : 0), variant / 2 % 2, false, tx, ty, split, 0, 1, 1,
                               1.25f, -0.5f, false};
                        if (!serves(k, c)) {
                            // The float4 kernels: their aligned case, on the back fence when the span allows.
                            c.lda = (m + 3) / 4 * 4 + (variant & 1 ? 4 : 0);
                            c.offset = 0;
                            if (!serves(k, c)) continue;
                        }
                        const int turn = cases;
                        c.at_end = !k.vec && turn % 3 == 1;
                        c.x_offset = k.x_float4 ? 0 : turn % 2;
                        c.x_at_end = !k.x_float4 && turn % 4 == 3;
                        c.incx = k.x_float4 || k.x_unit ? 1 : turn % 4 == 2 ? -2 : 1;
                        c.incy = turn % 5 == 1 ? 3 : turn % 5 == 3 ? -1 : 1;
                        c.alpha = turn % 13 == 6 ? 0.0f : 1.25f;
                        c.beta = turn % 7 == 2 ? 0.0f : turn % 7 == 4 ? 1.0f : -0.5f;
                        c.device_scalars = turn % 3 == 0;
                        ++cases;
                        failed += run_case(k, c) ? 1 : 0;
                    }
                }
            }
        }
    }
    // The float4 N kernel for any A over every lda mod 4 and A offset, row tiles of 8, 24 and 64 threads, and
    // last column groups of 0 to 7 columns ((n - 1) mod 8: 0, 1, 6, 2, 5, 7, 0).
    const KernelInfo &any = *std::find_if(std::begin(KERNELS), std::end(KERNELS),
                                          [](const KernelInfo &k) { return std::strcmp(k.name, "gemv_n_f32_wide_any") == 0; });
    if (std::strstr(any.name, only)) {
        const int tiles[][2] = {{8, 4}, {24, 3}, {64, 2}};
        for (const auto &shape : tiles) {
            const int tx = shape[0], ty = shape[1];
            const i64 tile = 4 * tx;
            for (i64 m : {tile, 2 * tile + 5}) {
                for (i64 n : {i64{1}, i64{2}, i64{7}, i64{8} * ty + 3, i64{8} * ty + 6, i64{8} * ty + 8, i64{16} * ty + 9}) {
                    for (int pad = 0; pad < 4; ++pad) {
                        for (int offset = 0; offset < 4; ++offset) {
                            for (bool at_end : {false, true}) {
                                if (at_end && offset) continue;  // at the back the span's end fixes the alignment
                                const int turn = cases;
                                const Case c{m, n, m + pad, offset, at_end, tx, ty, 1, turn % 2,
                                             turn % 3 == 0 ? -2 : 1, turn % 4 == 1 ? 3 : turn % 4 == 3 ? -1 : 1,
                                             turn % 11 == 5 ? 0.0f : 1.25f, turn % 5 == 2 ? 0.0f : -0.5f, turn % 2 == 1};
                                ++cases;
                                failed += run_case(any, c) ? 1 : 0;
                            }
                        }
                    }
                }
            }
        }
        // lda < 4: the kernel reads row by row.
        for (i64 m : {1, 3}) {
            for (i64 n : {1, 5, 40}) {
                ++cases;
                failed += run_case(any, Case{m, n, m, 1, false, 8, 4, 1, 0, 1, 1, 0.75f, 0.5f, false}) ? 1 : 0;
            }
        }
    }
    // The paired T kernels for any A and x (gemv_t_paired_sum's ANY): every A offset and x offset (so every
    // shift Q of x against A's float4s), lda mod 4, rows from a few float4s (the peeled rows alone) to several
    // rounds, ranges of a warp that start and end anywhere, x's span against a fence at either end.
    for (const char *name : {"gemv_t_f32_paired_any", "gemv_t_f32_paired_split_any", "gemv_t_f32_stacked_any"}) {
        if (!std::strstr(name, only)) continue;
        const KernelInfo &k = *std::find_if(std::begin(KERNELS), std::end(KERNELS),
                                            [&](const KernelInfo &e) { return std::strcmp(e.name, name) == 0; });
        const bool split = k.space == Space::PairedSplit, stacked = k.space == Space::Stacked;
        for (i64 m : {65, 66, 67, 68, 69, 70, 71, 72, 129, 134, 300, 1031, 2101}) {
            for (int offset = 0; offset < 4; ++offset) {
                for (int x_offset = 0; x_offset < 4; ++x_offset) {
                    const int turn = cases;
                    Case c{m, turn % 3 == 0 ? 1 : 3, m + (offset + x_offset + m) % 4, offset, false,
                           stacked ? 32 * (1 + turn % 2) : 64, stacked ? (turn % 4 == 0 ? 16 : 3 + turn % 3) : 1,
                           split ? 2 + turn % 7 : 1, x_offset, 1, turn % 3 == 1 ? -2 : 1,
                           turn % 17 == 8 ? 0.0f : 1.25f, turn % 5 == 2 ? 0.0f : -0.5f, turn % 2 == 1};
                    c.x_at_end = turn % 2 == 0;
                    ++cases;
                    failed += run_case(k, c) ? 1 : 0;
                }
            }
        }
    }
    // The groups T kernels over their rows: 4 to 32 lanes a column (6 groups: 65 rows on 4 lanes, 384 on 16; 4
    // groups: 97 on 8, 384 and 512 on 32), the last group of a lane partial or empty, columns ending in a
    // part-filled block and slot, lda mod 4, strided x.
    for (const char *name : {"gemv_t_f32_groups4", "gemv_t_f32_groups6", "gemv_t_f32_scalar_groups4",
                             "gemv_t_f32_scalar_groups6"}) {
        if (!std::strstr(name, only)) continue;
        const KernelInfo &k = *std::find_if(std::begin(KERNELS), std::end(KERNELS),
                                            [&](const KernelInfo &e) { return std::strcmp(e.name, name) == 0; });
        for (i64 m : {65, 66, 96, 97, 127, 129, 191, 192, 193, 255, 257, 300, 383, 384, 449, 511, 512}) {
            for (i64 n : {1, 3, 66, 300}) {
                const int turn = cases;
                Case c{m, n, k.vec ? (m + 3) / 4 * 4 : m + turn % 4, k.vec ? 0 : turn % 4, !k.vec && turn % 5 == 2,
                       turn % 2 ? 256 : 128, 1, 1, turn % 4, turn % 3 == 1 ? -2 : 1, turn % 4 == 3 ? -1 : 1,
                       turn % 17 == 8 ? 0.0f : 1.25f, turn % 5 == 2 ? 0.0f : -0.5f, turn % 2 == 1};
                c.x_at_end = turn % 3 == 0;
                ++cases;
                failed += run_case(k, c) ? 1 : 0;
            }
        }
    }
    // Cases drawn afresh each run (the seed above replays them).
    int drawn = 0;
    for (const auto &k : KERNELS) {
        if (!std::strstr(k.name, only)) continue;
        for (int i = 0; i < DRAWN_CASES_PER_KERNEL; ++i) {
            const Case c = drawn_case(k);
            if (!serves(k, c)) std::abort();  // drawn_case draws only what the kernel serves
            ++drawn;
            failed += run_case(k, c) ? 1 : 0;
        }
    }
    cases += drawn;
    std::printf("SGEMV kernels: %d cases (%d of them drawn), %d failed\n", cases, drawn, failed);
    return failed ? 1 : 0;
}
