use super::clusters::*;
use super::few_and_narrow::*;
use super::geometry::*;
use super::groups::*;
use super::kernels::*;
use super::paired::*;
use super::paired_split::*;
use super::plan::*;
use super::short::*;
use super::stacked::*;
use super::wide::*;
use super::*;
use crate::handle::{SPLIT_COUNTER_SLOTS, SPLIT_SLOTS};
use crate::tuner::optimizer;
use crate::tuner::{DeviceModel, KernelModel, LaunchPlan, LaunchShape, Problem};

#[test]
fn the_narrow_kernels_take_the_smallest_tiles_on_an_h100() {
    // What `plan` weighs on an H100 (the narrow kernels have no stored
    // recipe: the permissive one), with the N kernels' 64 registers and x chunk.
    use crate::tuner::optimizer::{choose, sm_coverage};
    use crate::tuner::{DeviceModel, KernelModel, TuningRecipe};
    let device = DeviceModel::h100_sxm();
    let model = KernelModel { registers_per_thread: 64, static_shared_bytes: 8193, max_threads_per_block: 1024 };
    let recipe = TuningRecipe::permissive(32);
    for (m, blocks) in [(256u64, 8u64), (512, 16), (1000, 32)] {
        let problem = Problem { m, n: 512, k: 0 };
        let plan = choose(&device, &model, &GEMV_N_NARROW, &recipe, &problem).unwrap();
        assert_eq!((plan.shape.tx, plan.shape.split), (8, 1), "{m} rows: {plan:?}");
        assert_eq!(plan.geometry.blocks(), blocks);
        // The default kernel's unsplit 128-row tiles engage 4 times fewer SMs.
        let default = choose(&device, &model, &GEMV_N, &recipe, &problem).unwrap();
        assert_eq!(default.geometry.grid.1, 1);
        assert!(sm_coverage(&device, &plan) > sm_coverage(&device, &default));
    }
}

/// The wide N kernels as the driver reports them on an H100 (94 and 102 registers).
fn wide_models() -> [KernelModel; 2] {
    let model = |registers_per_thread| KernelModel {
        registers_per_thread,
        static_shared_bytes: 8193,
        max_threads_per_block: WIDE_THREADS,
    };
    [model(94), model(102)]
}

/// The scalar lanes kernel as the driver reports it on an H100 (46 registers).
fn lanes_model() -> KernelModel {
    KernelModel { registers_per_thread: 46, static_shared_bytes: 4224, max_threads_per_block: 1024 }
}

#[test]
fn the_lanes_kernel_takes_a_row_per_lane_unsplit() {
    let mut ty = LANES_SPACE.ty_min;
    while ty <= LANES_SPACE.ty_max {
        let shape = LaunchShape { tx: 32, ty, split: 1 };
        for (m, n, tiles) in [(1u64, 1u64, 1u32), (31, 5, 1), (32, 5000, 1), (33, 7, 2), (4097, 4097, 129)] {
            let problem = Problem { m, n, k: 0 };
            let g = lanes_geometry(&problem, &shape);
            assert_eq!((g.grid, g.dynamic_shared_bytes), ((tiles, 1, 1), 0), "{m} × {n}, {shape:?}");
            // `launch` takes its split from Layout::N's rule: one range, all the columns.
            assert_eq!(reduction_split(Layout::N, &problem, &shape), (n, 1));
        }
        ty += 1;
    }
}

#[test]
fn the_lanes_kernel_replaces_the_scalar_wide_one_where_it_fills_one_wave() {
    use crate::tuner::{ForcedShapes, RecipeBook, Tuner};
    let device = DeviceModel::h100_sxm();
    let tuner = Tuner::new(device.clone(), RecipeBook::built_in(), ForcedShapes::new());
    let lanes = |m: u64, n: u64| tuner.plan(&GEMV_N_SCALAR_LANES, &lanes_model(), &Problem { m, n, k: 0 });
    // The recipe asks for 1024 threads: a block per SM, 32-row tiles.
    for (m, blocks) in [(2001u64, 63u64), (3001, 94), (4097, 129), (4223, 132), (4224, 132)] {
        let plan = lanes(m, m);
        assert_eq!((plan.shape.tx, plan.shape.ty, plan.geometry.blocks()), (32, 32, blocks), "{m}²");
        assert!(wide_pays(&device, Twin::Lanes, m as i64, m as i64, 4, &plan), "{m}²");
    }
    // Past 132 tiles, two waves: the scalar wide kernel's larger tiles instead.
    for m in [4225u64, 5001, 8191] {
        assert!(!wide_pays(&device, Twin::Lanes, m as i64, m as i64, 4, &lanes(m, m)), "{m}²");
    }
    // The problems the wide kernels serve, no others.
    assert!(!wide_pays(&device, Twin::Lanes, 1999, 1999, 16, &lanes(1999, 1999)), "too few rows");
    assert!(!wide_pays(&device, Twin::Lanes, 4097, 1500, 4, &lanes(4097, 1500)), "fewer than 2000 columns");
    assert!(!wide_pays(&device, Twin::Lanes, 4097, 20001, 1, &lanes(4097, 20001)), "past 16384 columns");
}

#[test]
fn the_wide_kernels_take_the_longest_row_tiles_that_fill_one_wave() {
    let device = DeviceModel::h100_sxm();
    for kernel in wide_models() {
        for (m, n, shape, blocks) in [
            (2000u64, 2000u64, (8, 64), 63),
            (4096, 4096, (8, 64), 128),
            (4100, 4100, (8, 64), 129),
            (5000, 5000, (16, 32), 79),
            (6000, 6000, (16, 32), 94),
            (7000, 7000, (16, 32), 110),
            (8192, 8192, (16, 32), 128),
            (8192, 2000, (16, 32), 128),
            (10000, 10000, (24, 21), 105),
            (12000, 12000, (24, 21), 125),
            (16384, 16384, (32, 16), 128),
            (20000, 20000, (40, 12), 125),
            (32768, 32768, (64, 8), 128),
        ] {
            let plan = wide_plan(&device, &kernel, &GEMV_N_WIDE, &Problem { m, n, k: 0 }, wide_thread_rows);
            assert_eq!((plan.shape.tx, plan.shape.ty, plan.shape.split), (shape.0, shape.1, 1), "{m} × {n}");
            assert_eq!(plan.geometry.blocks(), blocks, "{m} × {n}");
            assert_eq!(optimizer::waves(&device, &plan), 1, "{m} × {n}");
        }
        // No one-wave grid of 256-row tiles or shorter: the largest Tx, in two waves.
        let plan = wide_plan(&device, &kernel, &GEMV_N_WIDE, &Problem { m: 65536, n: 1024, k: 0 }, wide_thread_rows);
        assert_eq!((plan.shape.tx, plan.geometry.blocks()), (64, 256));
        assert_eq!(optimizer::waves(&device, &plan), 2);
    }
}

#[test]
fn on_fast_dram_the_float4_wide_kernel_takes_one_tile_per_sm() {
    let h200 = DeviceModel::h200();
    for kernel in wide_models() {
        for (m, shape, blocks) in [
            (4225u64, (10, 32), 106),
            (4500, (10, 32), 113),
            (5000, (10, 32), 125),
            (5500, (12, 32), 115),
            (6000, (12, 32), 125),
            (6500, (14, 24), 117),
            (7000, (14, 24), 125),
            (8192, (16, 24), 128),
            (9000, (18, 16), 125),
            (10000, (20, 16), 125),
            (11000, (22, 16), 125),
        ] {
            assert!(wide_fine_serves(&h200, &GEMV_N_WIDE, m as i64), "{m}");
            let plan = wide_fine_plan(&h200, &kernel, &GEMV_N_WIDE, &Problem { m, n: m, k: 0 });
            assert_eq!((plan.shape.tx, plan.shape.ty, plan.shape.split), (shape.0, shape.1, 1), "{m}²");
            assert_eq!(plan.geometry.blocks(), blocks, "{m}²");
            assert!(wide_pays(&h200, Twin::Wide, m as i64, m as i64, 1, &plan), "{m}²");
        }
        // Past one wave of the longest tiles: two waves, which wide_pays refuses.
        let plan = wide_fine_plan(&h200, &kernel, &GEMV_N_WIDE, &Problem { m: 40000, n: 2048, k: 0 });
        assert_eq!((plan.shape.tx, plan.shape.ty), (64, 8));
        assert!(!wide_pays(&h200, Twin::Wide, 40000, 2048, 1, &plan));
    }
}

#[test]
fn the_any_a_wide_kernel_serves_from_2000_rows_on_either_dram() {
    let (h100, h200) = (DeviceModel::h100_sxm(), DeviceModel::h200());
    let plan = |device: &DeviceModel, m: u64, n: u64| {
        let plan = wide_any_plan(device, &wide_models()[0], &GEMV_N_WIDE_ANY, &Problem { m, n, k: 0 });
        (plan.shape.tx, plan.shape.ty, plan.geometry.blocks())
    };
    // From 2000 rows up to 48-row tiles (Tx 12; 96-row tiles, Tx 24, on at least 6144 columns), on the
    // columns the wide kernels serve: the float4 kernel's shapes on fast DRAM past one wave of 32-row tiles,
    // and below it 32-row tiles of 512 threads where they engage less than 95 % of the SMs, of 384 where
    // they engage more. The same on the H100.
    for (m, shape, blocks) in [
        (2000u64, (8, 64), 63),
        (3501, (8, 64), 110),
        (4000, (8, 64), 125),
        (4225, (10, 32), 106),
        (5001, (10, 32), 126),
        (6336, (12, 32), 132),
        (9001, (18, 16), 126),
        (12672, (24, 16), 132),
    ] {
        let fewest_columns = if m > 6336 { 6144 } else { 2000 };
        for device in [&h100, &h200] {
            let serves = |n: i64| wide_any_serves(device, m as i64, n);
            assert!(serves(fewest_columns) && serves(16384), "{m}");
            assert_eq!(plan(device, m, m), (shape.0, shape.1, blocks), "{m}²");
        }
    }
    for device in [&h100, &h200] {
        assert!(!wide_any_serves(device, 1999, 2000) && !wide_any_serves(device, 12673, 12673));
        // Up to one wave of 32-row tiles, on fewer than 2000 columns: the sweep (on fast DRAM), the lanes kernel.
        assert!(!wide_any_serves(device, 3001, 1999) && wide_any_serves(device, 3001, 2000));
        // Past 6336 rows, on at least 6144 columns.
        assert!(wide_any_serves(device, 6337, 6144) && !wide_any_serves(device, 6337, 6143));
        assert!(wide_any_serves(device, 6336, 2000));
        assert!(!wide_any_serves(device, 5001, 16385));
        // Where 32-row tiles engage 95 % of the SMs or more (126 of 132), on at least 3000 columns, in
        // 32-row tiles of 384 threads; off fast DRAM also on 2000 to 2999 columns, of 512 threads.
        for m in [4001, 4095] {
            assert!(wide_any_serves(device, m, 3000), "{m}");
            assert_eq!(plan(device, m as u64, 3000), (8, 48, (m as u64).div_ceil(32)), "{m}");
        }
    }
    for m in [4001, 4095] {
        assert!(!wide_any_serves(&h200, m, 2999), "{m}");
        assert!(wide_any_serves(&h100, m, 2000) && !wide_any_serves(&h100, m, 1999), "{m}");
        assert_eq!(plan(&h100, m as u64, 2999), (8, 64, (m as u64).div_ceil(32)), "{m}");
    }
    // From 4096 rows to the end of that wave, on fast DRAM the sweep; on the H100 the same rule.
    for m in [4096, 4224] {
        assert!(!wide_any_serves(&h200, m, m), "{m}");
        assert!(wide_any_serves(&h100, m, 2000) && !wide_any_serves(&h100, m, 1999), "{m}");
        assert_eq!(plan(&h100, m as u64, m as u64), (8, 48, (m as u64).div_ceil(32)), "{m}");
    }
    // Off fast DRAM, from 15841 to 20000 rows on up to 20000 columns (wide_pays asks for 2000 or more): Tx
    // 32 tiles on 12 thread rows, then 10; not from 12673 to 15840, nor past 20000, nor on fast DRAM (the sweep).
    for (m, tx, ty) in
        [(15841i64, 32, 12), (16384, 32, 12), (16385, 32, 12), (16897, 34, 10), (19999, 38, 10), (20000, 38, 10)]
    {
        for n in [2000, 2048, m, 16384, 20000] {
            assert!(wide_any_serves(&h100, m, n) && !wide_any_serves(&h200, m, n), "{m} x {n}");
        }
        assert!(!wide_any_serves(&h100, m, 20001), "{m}");
        assert_eq!(plan(&h100, m as u64, m as u64), (tx, ty, (m as u64).div_ceil(4 * tx as u64)), "{m}");
    }
    for m in [12673, 14001, 15840, 20001] {
        assert!(!wide_any_serves(&h100, m, m) && !wide_any_serves(&h100, m, 6144), "{m}");
    }
}

#[test]
fn the_float4_wide_kernel_takes_wide_plans_shapes_up_to_one_wave_and_past_15840_rows_off_fast_dram() {
    let (h100, h200) = (DeviceModel::h100_sxm(), DeviceModel::h200());
    // Up to one wave of 32-row tiles, and for the other wide kernels: wide_plan's shapes.
    for device in [&h100, &h200] {
        assert!(!wide_fine_serves(device, &GEMV_N_WIDE, 4224));
        assert!(wide_fine_serves(device, &GEMV_N_WIDE, 4225));
        assert!(!wide_fine_serves(device, &GEMV_N_SCALAR_WIDE, 5000));
        assert!(!wide_fine_serves(device, &GEMV_N_WIDE_STAGED, 5000));
    }
    // Off fast DRAM up to 12672 rows (Tx 24, 16 thread rows), the shapes of fast DRAM; past them up to
    // 15840 rows (Tx 30) one tile per SM on 12 thread rows, where fast DRAM's have 8.
    let kernel = &wide_models()[0];
    let plan = |device, m: u64| {
        let plan = wide_fine_plan(device, kernel, &GEMV_N_WIDE, &Problem { m, n: m, k: 0 });
        ((plan.shape.tx, plan.shape.ty), plan.geometry.blocks())
    };
    for (m, shape) in [(5000u64, (10, 32)), (8192, (16, 24)), (10000, (20, 16)), (12672, (24, 16))] {
        assert!(wide_fine_serves(&h100, &GEMV_N_WIDE, m as i64), "{m}");
        assert_eq!(plan(&h100, m), plan(&h200, m), "{m}");
        assert_eq!(plan(&h100, m).0, shape, "{m}");
    }
    for (m, tx, blocks) in [(12673u64, 26, 122), (13000, 26, 125), (14000, 28, 125), (15000, 30, 125), (15840, 30, 132)]
    {
        assert!(wide_fine_serves(&h100, &GEMV_N_WIDE, m as i64), "{m}");
        assert_eq!(plan(&h100, m), ((tx, 12), blocks), "{m}");
        assert_eq!(plan(&h200, m), ((tx, 8), blocks), "{m}");
    }
    // Past them wide_plan's stay: from 15841 rows its 32 × 16 has one tile per SM too.
    assert!(!wide_fine_serves(&h100, &GEMV_N_WIDE, 15841) && wide_fine_serves(&h200, &GEMV_N_WIDE, 15841));
    for m in [15841u64, 16384] {
        let wide = wide_plan(&h100, kernel, &GEMV_N_WIDE, &Problem { m, n: m, k: 0 }, wide_thread_rows);
        assert_eq!((wide.shape.tx, wide.shape.ty, wide.geometry.blocks()), (32, 16, m.div_ceil(128)), "{m}");
        assert_eq!(plan(&h200, m), ((32, 8), m.div_ceil(128)), "{m}");
    }
}

/// The sweep kernel as the driver reports it on sm_90 (64 registers).
fn sweep_model() -> KernelModel {
    KernelModel { registers_per_thread: 64, static_shared_bytes: 4224, max_threads_per_block: 1024 }
}

#[test]
fn the_sweep_kernel_takes_the_shortest_row_tiles_that_fill_one_wave_of_full_blocks() {
    let device = DeviceModel::h200();
    let sweep =
        |m: u64, n: u64| wide_plan(&device, &sweep_model(), &GEMV_N_SWEEP, &Problem { m, n, k: 0 }, sweep_thread_rows);
    // One block of up to 1024 threads per SM: the most row tiles that 132 SMs hold, on a power of two
    // of thread rows.
    for (m, n, shape, blocks) in [
        (4097u64, 4097u64, (32, 32), 129),
        (6001, 6001, (64, 16), 94),
        (12000, 12000, (96, 8), 125),
        (16384, 16384, (128, 8), 128),
        (20000, 20000, (160, 4), 125),
        (24000, 24000, (192, 4), 125),
        (32768, 32768, (256, 4), 128),
        (65536, 1024, (512, 2), 128),
        (131072, 1024, (1024, 1), 128),
    ] {
        let plan = sweep(m, n);
        assert_eq!((plan.shape.tx, plan.shape.ty, plan.shape.split), (shape.0, shape.1, 1), "{m} × {n}");
        assert_eq!(plan.geometry.blocks(), blocks, "{m} × {n}");
        assert_eq!(optimizer::waves(&device, &plan), 1, "{m} × {n}");
    }
    // Past 132 tiles of 1024 rows, two waves, which `plan` refuses.
    assert_eq!(optimizer::waves(&device, &sweep(135_169, 1024)), 2);
}

#[test]
fn the_sweep_kernel_serves_long_columns_on_fast_dram_only() {
    let (h100, h200) = (DeviceModel::h100_sxm(), DeviceModel::h200());
    assert!(h100.dram_bytes_per_sm_second() < SWEEP_MIN_DRAM_BYTES_PER_SM_SECOND);
    assert!(h200.dram_bytes_per_sm_second() >= SWEEP_MIN_DRAM_BYTES_PER_SM_SECOND);
    for (default, m, n) in [
        (&GEMV_N, 4225, 4225),
        (&GEMV_N, 8192, 8192),
        (&GEMV_N, 12000, 12000),
        (&GEMV_N, 16384, 16384),
        (&GEMV_N, 65536, 1024),
        (&GEMV_N, 131072, 1024),
        (&GEMV_N_SCALAR, 4096, 4096),
        (&GEMV_N_SCALAR, 4224, 4223),
        (&GEMV_N_SCALAR, 4225, 4225),
        (&GEMV_N_SCALAR, 9001, 9001),
        (&GEMV_N_SCALAR, 20001, 20001),
    ] {
        assert!(sweep_serves(&h200, default, m, n), "{} {m} × {n}", default.name);
        assert!(!sweep_serves(&h100, default, m, n), "{} {m} × {n} on an H100", default.name);
    }
    assert!(!sweep_serves(&h200, &GEMV_N, 4224, 4224), "float4 A in one wave of 32-row tiles: the wide kernel");
    assert!(!sweep_serves(&h200, &GEMV_N, 4095, 4095), "float4 A in one wave of 32-row tiles");
    assert!(!sweep_serves(&h200, &GEMV_N, 1 << 20, 1023), "fewer than 1024 columns");
    assert!(!sweep_serves(&h200, &GEMV_N, 16896, 512), "fewer than 1024 columns");
    let unreported = DeviceModel { memory_clock_khz: 0, ..DeviceModel::h200() };
    assert!(!sweep_serves(&unreported, &GEMV_N, 16384, 16384), "no memory clock reported");
}

#[test]
fn few_rows_on_many_columns_run_the_narrow_kernels_split_on_fast_dram() {
    let (h100, h200) = (DeviceModel::h100_sxm(), DeviceModel::h200());
    for (m, n) in [(65, 513), (128, 2048), (512, 4096), (100, 100_000), (200, 32768)] {
        assert!(narrow_split_serves(&h200, m, n), "{m} × {n}");
        assert!(!narrow_split_serves(&h100, m, n), "{m} × {n} on an H100");
    }
    assert!(!narrow_split_serves(&h200, 512, 512), "at most 512 columns: unsplit");
    assert!(!narrow_split_serves(&h200, 513, 2048), "more than 512 rows");
    // Ranges of at most 2048 columns: 64 ranges up to 128 rows, 32 up to 256, 16 up to 512.
    for (m, n) in [(128, 131_072), (129, 65536), (256, 65536), (257, 32768), (512, 32768)] {
        assert!(narrow_split_serves(&h200, m, n) && !narrow_split_serves(&h200, m, n + 1), "{m} × {n}");
    }
    let model = KernelModel { registers_per_thread: 64, static_shared_bytes: 8193, max_threads_per_block: 1024 };
    // (m, n, split, blocks): at most 2 blocks per SM, ranges of at least 128 columns (a multiple of 128).
    for (m, n, split, blocks) in [
        (128u64, 2048u64, 64, 64),
        (384, 2048, 16, 192),
        (512, 2048, 16, 256),
        (512, 4096, 16, 256),
        (128, 16384, 64, 256),
        (65, 100_000, 64, 183),
    ] {
        let plan = narrow_split_plan(&h200, &model, &GEMV_N_NARROW, &Problem { m, n, k: 0 });
        assert_eq!((plan.shape.tx, plan.shape.ty, plan.shape.split), (8, 32, split), "{m} × {n}");
        assert_eq!(plan.geometry.blocks(), blocks, "{m} × {n}");
        assert!(GEMV_N_NARROW.space.contains(&plan.shape));
    }
}

#[test]
fn below_4096_rows_the_sweep_takes_any_a_on_up_to_three_times_as_many_columns_as_rows() {
    let (h100, h200) = (DeviceModel::h100_sxm(), DeviceModel::h200());
    for (m, n) in [(256, 256), (300, 500), (511, 511), (1001, 600), (1001, 3003), (3001, 300), (4095, 2000)] {
        assert!(sweep_serves(&h200, &GEMV_N_SCALAR, m, n), "{m} × {n}");
        assert!(!sweep_serves(&h100, &GEMV_N_SCALAR, m, n), "{m} × {n} on an H100");
    }
    for (m, n, why) in [
        (255, 255, "fewer than 256 rows"),
        (4001, 255, "fewer than 256 columns"),
        (1001, 3004, "more than three columns a row"),
        (257, 1000, "more than three columns a row"),
    ] {
        assert!(!sweep_serves(&h200, &GEMV_N_SCALAR, m, n), "{m} × {n}: {why}");
    }
    // Float4 A keeps its kernels there (the wide and few-columns ones).
    assert!(!sweep_serves(&h200, &GEMV_N, 1000, 1000));
    // The sweep's shape: 32-row tiles of 32 thread rows, one wave.
    let plan = wide_plan(&h200, &sweep_model(), &GEMV_N_SWEEP, &Problem { m: 1001, n: 1001, k: 0 }, sweep_thread_rows);
    assert_eq!((plan.shape.tx, plan.shape.ty, plan.geometry.blocks()), (32, 32, 32));
    assert!(sweep_pays(&h200, &GEMV_N_SCALAR, 1001, &plan));
}

#[test]
fn under_12000_rows_the_sweep_takes_float4_a_where_its_grid_engages_as_many_sms_as_the_wide_kernels() {
    let device = DeviceModel::h200();
    let sweep =
        |m: u64| wide_plan(&device, &sweep_model(), &GEMV_N_SWEEP, &Problem { m, n: m, k: 0 }, sweep_thread_rows);
    // (m, the sweep's blocks, the wide kernel's): 64-row tiles up to 8448 rows, 96-row tiles past them.
    for (m, blocks, wide) in
        [(7400u64, 116u64, 116u64), (7680, 120, 120), (8000, 125, 125), (8192, 128, 128), (8448, 132, 132)]
    {
        let plan = sweep(m);
        assert_eq!((plan.geometry.blocks(), wide_fine_tiles(&device, m as i64)), (blocks, wide), "{m}²");
        assert!(sweep_pays(&device, &GEMV_N, m as i64, &plan), "{m}²");
    }
    for (m, blocks, wide) in [
        (6336u64, 99u64, 132u64),
        (7000, 110, 125),
        (7200, 113, 129),
        (8449, 89, 118),
        (10000, 105, 125),
        (11500, 120, 131),
    ] {
        let plan = sweep(m);
        assert_eq!((plan.geometry.blocks(), wide_fine_tiles(&device, m as i64)), (blocks, wide), "{m}²");
        assert!(!sweep_pays(&device, &GEMV_N, m as i64, &plan), "{m}²: the wide kernel");
    }
    // The few-columns kernel keeps its columns.
    assert!(sweep_serves(&device, &GEMV_N, 8192, 1537) && !sweep_serves(&device, &GEMV_N, 8192, 1536));
    // From 12000 rows, and for any other A, one wave is enough.
    let plan = sweep(12800);
    assert_eq!(plan.geometry.blocks(), 100);
    assert!(sweep_pays(&device, &GEMV_N, 12800, &plan));
    let plan = sweep(9001);
    assert_eq!(plan.geometry.blocks(), 94);
    assert!(sweep_pays(&device, &GEMV_N_SCALAR, 9001, &plan));
}

#[test]
fn the_long_kernel_takes_one_block_per_sm_where_the_default_doubles_up() {
    // What `plan` weighs on an H100 for the scalar default (63 registers, its built-in recipe).
    use crate::tuner::{ForcedShapes, RecipeBook, Tuner};
    let device = DeviceModel::h100_sxm();
    let tuner = Tuner::new(device.clone(), RecipeBook::built_in(), ForcedShapes::new());
    let model = KernelModel { registers_per_thread: 63, static_shared_bytes: 8208, max_threads_per_block: 1024 };
    let default = |m: u64, n: u64| tuner.plan(&GEMV_N_SCALAR, &model, &Problem { m, n, k: 0 });
    let long =
        |m: u64, n: u64| wide_plan(&device, &model, &GEMV_N_SCALAR_LONG, &Problem { m, n, k: 0 }, long_thread_rows);
    // The default's two blocks of 512 per SM: 133 blocks at 16897², 141 at 18001², 256 at 32767².
    for (m, n, blocks) in [(16897u64, 16897u64, 133u64), (18001, 18001, 141), (32767, 32767, 256)] {
        let plan = default(m, n);
        assert_eq!((plan.shape.tx, plan.shape.ty, plan.geometry.grid.1, plan.geometry.blocks()), (32, 16, 1, blocks));
    }
    let serves = |m: u64, n: u64| long_serves(&device, m as i64, n as i64, &default(m, n));
    assert!(!serves(16897, 16897), "a second block on one SM of 132");
    assert!(!serves(16897, 30001), "the same rows, more columns");
    // (m, n, Tx, Ty, blocks): the most blocks that run in one wave, one per SM.
    for (m, n, tx, ty, blocks) in [
        (18001u64, 18001u64, 64, 12, 71u64),
        (20001, 20001, 64, 12, 79),
        (32767, 32767, 64, 12, 128),
        (33001, 33001, 64, 12, 129),
        (40001, 20001, 96, 8, 105),
        (65537, 4096, 128, 6, 129),
    ] {
        assert!(serves(m, n), "{m} × {n}");
        let plan = long(m, n);
        assert_eq!((plan.shape.tx, plan.shape.ty, plan.shape.split), (tx, ty, 1), "{m} × {n}");
        assert_eq!((plan.geometry.blocks(), optimizer::waves(&device, &plan)), (blocks, 1), "{m} × {n}");
        assert!(long_pays(&device, &plan), "{m} × {n}");
    }
    // Past 512-row tiles on every SM, no one-wave grid: `plan` keeps the default (100001 × 2048: 64 × 16).
    assert!(serves(100001, 2048));
    assert!(!long_pays(&device, &long(100001, 2048)));
    assert!(!serves(65537, 2047), "fewer than 2048 columns");
    assert!(default(8192, 16385).geometry.grid.1 > 1);
    assert!(!serves(8192, 16385), "a split default");
    // Where the scalar wide kernel runs in one wave (at most 16384 columns, 33792 rows), it does.
    assert!(!serves(20001, 4096) && !serves(33792, 16384));
    assert!(serves(40001, 16384) && serves(20001, 16385));
    // On fast DRAM, before the sweep, only on 3/4 of the SMs or more: 102 blocks at 26001², 94 at 24001².
    let h200 = DeviceModel::h200();
    assert!(fast_dram(&h200) && h200.sm_count == 132);
    assert!(long_pays(&h200, &long(26001, 26001)) && long_pays(&h200, &long(65537, 4096)));
    assert!(!long_pays(&h200, &long(24001, 24001)) && !long_pays(&h200, &long(20001, 40001)));
    assert!(long_pays(&device, &long(24001, 24001)), "on the H100 in any one wave");
}

#[test]
fn the_thin_kernel_halves_the_blocks_of_a_grid_that_doubles_up() {
    // What `plan` weighs on an H100: the scalar default and its thin twin (63 registers), built-in recipes.
    use crate::tuner::{ForcedShapes, RecipeBook, Tuner};
    let device = DeviceModel::h100_sxm();
    let tuner = Tuner::new(device.clone(), RecipeBook::built_in(), ForcedShapes::new());
    let model = KernelModel { registers_per_thread: 63, static_shared_bytes: 8208, max_threads_per_block: 1024 };
    let plan = |spec: &KernelSpec, m: u64, n: u64| tuner.plan(spec, &model, &Problem { m, n, k: 0 });
    // (m, n, split, blocks): the same grid, 32 × 8 threads instead of 32 × 16.
    for (m, n, split, blocks) in [(3001u64, 100001u64, 8u32, 192u64), (2001, 200001, 16, 256), (12001, 20001, 2, 188)] {
        let default = plan(&GEMV_N_SCALAR, m, n);
        assert!(doubles_up(&device, &default), "{m} × {n}");
        let thin = plan(&GEMV_N_SCALAR_THIN, m, n);
        for (p, ty) in [(default, 16), (thin, 8)] {
            assert_eq!(
                (p.shape.tx, p.shape.ty, p.shape.split, p.geometry.blocks()),
                (32, ty, split, blocks),
                "{m} × {n}"
            );
        }
    }
    // One block per SM but a few: the default's 512 threads stay (16897²: 133 blocks; 1001²: 64).
    for (m, n) in [(16897u64, 16897u64), (17501, 20001), (1001, 1001)] {
        assert!(!doubles_up(&device, &plan(&GEMV_N_SCALAR, m, n)), "{m} × {n}");
    }
}

#[test]
fn when_the_wide_kernels_replace_the_default() {
    let device = DeviceModel::h100_sxm();
    let [float4, scalar] = wide_models();
    // What `plan` decides: the kernel that reads x through L1 (float4 or scalar), or the staged float4 one.
    let pays = |m: i64, n: i64, default_split: u32, vec4: bool| {
        let kind = if n <= WIDE_L1_MAX_COLUMNS { Twin::Wide } else { Twin::WideStaged };
        if kind == Twin::WideStaged && !vec4 {
            return false; // no scalar staged kernel
        }
        let kernel = if vec4 { &float4 } else { &scalar };
        let wide =
            wide_plan(&device, kernel, &GEMV_N_WIDE, &Problem { m: m as u64, n: n as u64, k: 0 }, wide_thread_rows);
        wide_pays(&device, kind, m, n, default_split, &wide)
    };
    for vec4 in [true, false] {
        // Where the default splits 8 ways or more on at most 4096 columns…
        assert!(pays(2000, 2000, 16, vec4));
        assert!(pays(3000, 3000, 8, vec4));
        assert!(pays(4096, 4096, 8, vec4));
        assert!(pays(3000, 1500, 8, vec4));
        // …and wherever one wave holds the rows, up to 16384 columns…
        for (m, n, default_split) in
            [(4097, 4097, 4), (5000, 5000, 4), (8192, 2000, 4), (2000, 8192, 8), (16384, 16384, 2)]
        {
            assert!(pays(m, n, default_split, vec4), "{m} × {n}, float4 {vec4}");
        }
        assert!(!pays(8192, 1500, 4, vec4), "fewer than 2000 columns, a 4-way split");
        assert!(!pays(1000, 1000, 16, vec4), "too few rows: 32 blocks");
        assert!(!pays(1024, 65536, 32, vec4), "too few rows");
        assert!(!pays(65536, 1024, 1, vec4), "no one-wave grid");
    }
    // …then the staged float4 kernel, on at least half the SMs.
    assert!(pays(20000, 20000, 1, true));
    assert!(pays(32768, 32768, 1, true));
    assert!(!pays(20000, 20000, 1, false));
    assert!(!pays(2000, 20000, 8, true), "63 blocks on 20000 columns");
}

#[test]
fn the_lean_kernel_with_x_through_l1_runs_where_one_unsplit_wave_holds_the_columns() {
    // Its built-in recipe on an H100, with the 48 registers of __maxnreg__(48).
    use crate::tuner::{ForcedShapes, RecipeBook, Tuner};
    let device = DeviceModel::h100_sxm();
    let tuner = Tuner::new(device.clone(), RecipeBook::built_in(), ForcedShapes::new());
    let model = KernelModel { registers_per_thread: 48, static_shared_bytes: 8193, max_threads_per_block: 1024 };
    let plan = |m: u64, n: u64| tuner.plan(&GEMV_T_LEAN_L1, &model, &Problem { m, n, k: 0 });
    for (n, threads) in [(1000u64, 256u32), (2000, 480), (3000, 512), (4096, 512), (5000, 608)] {
        let square = plan(n, n);
        assert_eq!(square.shape.tx, threads, "{n}²");
        assert!(lean_l1_pays(&device, &square), "{n}²: {square:?}");
    }
    // Past 40 warps × 132 SMs of columns, two waves: the default kernels keep them.
    for n in [5300u64, 8192, 16384] {
        assert!(!lean_l1_pays(&device, &plan(n, n)), "{n}²");
    }
    // A tall matrix that the optimizer splits keeps the default too.
    let tall = plan(1 << 20, 64);
    assert!(tall.geometry.grid.1 > 1 && !lean_l1_pays(&device, &tall), "{tall:?}");
}

#[test]
fn the_t_kernel_for_any_a_serves_unsplit_plans_of_2000_columns_or_more() {
    use crate::tuner::{ForcedShapes, RecipeBook, Tuner};
    let device = DeviceModel::h100_sxm();
    let tuner = Tuner::new(device.clone(), RecipeBook::built_in(), ForcedShapes::new());
    let model = KernelModel { registers_per_thread: 64, static_shared_bytes: 8193, max_threads_per_block: 1024 };
    let serves = |default: &KernelSpec, m: i64, n: i64| {
        let plan = tuner.plan(default, &model, &problem(m, n));
        l1_any_serves(default, m, n, &plan)
    };
    for default in [&GEMV_T, &GEMV_T_SCALAR] {
        for (m, n) in [(2000, 2000), (4096, 4096), (8192, 8192), (1024, 65536), (2048, 8192)] {
            assert!(serves(default, m, n), "{} {m} × {n}", default.name);
        }
        assert!(!serves(default, 1999, 1999), "{}: fewer than 2000 columns", default.name);
        assert!(!serves(default, 1 << 20, 16), "{}: the default splits", default.name);
    }
    // Long float4 columns stay with the default's 8 loads in flight; scalar ones do not.
    assert!(!serves(&GEMV_T, 16384, 16384));
    assert!(serves(&GEMV_T_SCALAR, 16384, 16384));
}

#[test]
fn the_paired_t_kernel_serves_768_columns_or_more_split_or_not() {
    for (m, n) in [(130, 768), (1000, 1000), (2048, 2048), (20000, 20000), (65536, 1024), (1 << 24, 768)] {
        assert!(paired_serves(m, n), "{m} × {n}");
    }
    for (m, n) in [(512, 512), (100_000, 767), (1 << 20, 16)] {
        assert!(!paired_serves(m, n), "{m} × {n}: too few columns");
    }
    // From 256 columns, more rows than columns and fewer than 16 times as many.
    for (m, n) in [(2048, 512), (4095, 256), (8192, 700), (1024, 767), (257, 256)] {
        assert!(paired_serves(m, n) && !paired_split_serves(&DeviceModel::h200(), m, n), "{m} × {n}");
    }
    for (m, n) in [(8192, 512), (4096, 256), (4000, 255), (512, 512), (700, 767), (6000, 300)] {
        assert!(!paired_serves(m, n), "{m} × {n}");
    }
    assert!(paired_serves(PAIRED_MAX_ROWS, 768) && !paired_serves(PAIRED_MAX_ROWS + 1, 768), "32-bit rows");
    // Tiny matrices: at most 512 rows on at most 32 columns.
    for (m, n) in [(65, 1), (128, 2), (512, 8), (512, 32)] {
        assert!(paired_serves(m, n), "{m} × {n}: tiny");
    }
    for (m, n) in [(513, 8), (512, 33), (1024, 2)] {
        assert!(!paired_serves(m, n), "{m} × {n}: not tiny");
    }
    // Its only block shape: 256 threads, 8 columns a block, never split.
    assert_eq!((PAIRED_SPACE.tx_min, PAIRED_SPACE.tx_max, PAIRED_SPACE.splits), (256, 256, &[1][..]));
    let geometry = t_geometry(&problem(1000, 1000), &LaunchShape { tx: 256, ty: 1, split: 1 });
    assert_eq!(geometry.grid, (125, 1, 1));
}

#[test]
fn the_stacked_kernel_gives_each_warp_a_round_of_rows_and_halves_its_warps_until_one_wave() {
    // The stacked kernel as ptxas compiles it for sm_90 (102 registers): 16 warps per SM, so 1, 2, 4 and
    // 8 blocks of 16, 8, 4 and 2 warps.
    let device = DeviceModel::h200();
    let kernel = KernelModel { registers_per_thread: 102, static_shared_bytes: 128, max_threads_per_block: 512 };
    // (m, n, warps a column = blocks' Ty): from a warp per 1024 rows (a power of two, at most 16).
    for (m, n, ty) in [
        (1500u64, 33u64, 2),
        (2049, 100, 4),
        (3001, 512, 4),
        (4093, 256, 4),
        (8191, 32, 8),
        (20001, 3, 16),
        (32768, 17, 16),
        // Halved to fit one wave: 16 → 8 (200 blocks), 8 → 4 (511).
        (16383, 200, 8),
        (8189, 511, 4),
    ] {
        let plan = stacked_plan(&device, &kernel, &GEMV_T_STACKED, &problem(m as i64, n as i64));
        assert_eq!(
            (plan.shape.tx, plan.shape.ty, plan.geometry.grid, optimizer::waves(&device, &plan)),
            (32, ty, (n as u32, 1, 1), 1),
            "{m} × {n}"
        );
        assert!(stacked_serves(m as i64, n as i64), "{m} × {n}");
        assert!(stacked_pays(&device, m as i64, &plan), "{m} × {n}");
    }
    // One round for one warp; 2 warps on more than 128 columns; more than 512 columns or 32768 rows, or
    // 24576 on fewer than 16 columns.
    assert!(stacked_serves(24576, 1) && stacked_serves(32768, 16));
    for (m, n) in [(1024, 32), (2048, 129), (2048, 256), (4096, 513), (32769, 32), (24577, 15), (32768, 1)] {
        assert!(!stacked_serves(m, n), "{m} × {n}");
    }
    // More than 2048 rows a warp once halved to one wave: the split paired kernel's.
    for (m, n) in [(8195, 511), (16384, 512)] {
        let plan = stacked_plan(&device, &kernel, &GEMV_T_STACKED, &problem(m, n));
        assert_eq!(plan.shape.ty, 4, "{m} × {n}");
        assert!(stacked_serves(m, n) && !stacked_pays(&device, m, &plan), "{m} × {n}");
    }
}

#[test]
fn the_few_columns_kernel_halves_its_thread_rows_until_one_wave_holds_the_grid() {
    // The wide kernel's code as the driver reports it on sm_90 (94 registers, 8 KiB of x): on 132 SMs,
    // 1, 2, 5, 10 and 21 blocks of 64, 32, 16, 8 and 4 thread rows of 8 threads per SM.
    let device = DeviceModel::h200();
    let [kernel, _] = wide_models();
    // (m, n, thread rows, blocks): 32-row tiles, from one thread row per 8 columns (a power of two, 4 to 64).
    for (m, n, ty, blocks) in [
        (1024u64, 128u64, 16, 32),
        (4096, 512, 64, 128),
        (4096, 1536, 64, 128),
        (8192, 512, 32, 256),
        (6000, 384, 32, 188),
        (12000, 512, 16, 375),
        (16384, 128, 16, 512),
        (20000, 128, 16, 625),
        (32768, 128, 8, 1024),
        (50000, 128, 4, 1563),
        // No grid in one wave: the fewest thread rows, in two or three waves.
        (100_000, 64, 4, 3125),
        (200_000, 256, 4, 6250),
    ] {
        let plan = few_plan(&device, &kernel, &GEMV_N_FEW, &problem(m as i64, n as i64));
        assert_eq!(
            (plan.shape.tx, plan.shape.ty, plan.geometry.grid.1, plan.geometry.blocks()),
            (8, ty, 1, blocks),
            "{m} × {n}"
        );
        assert!(few_serves(&device, &GEMV_N, m as i64, n as i64), "{m} × {n}");
        assert!(few_pays(&device, n as i64, &plan), "{m} × {n}");
    }
    // More waves on more columns: not taken.
    let plan = few_plan(&device, &kernel, &GEMV_N_FEW, &problem(200_000, 257));
    assert_eq!((plan.shape.ty, optimizer::waves(&device, &plan)), (4, 3));
    assert!(!few_pays(&device, 257, &plan));
    // Only on fast DRAM, and only where it was timed.
    assert!(!few_serves(&DeviceModel::h100_sxm(), &GEMV_N, 4096, 512));
    assert!(few_serves(&device, &GEMV_N, 256, 1536));
    assert!(few_serves(&device, &GEMV_N, 200_000, 16));
    for (m, n) in [(255, 513), (4096, 1537), (200_001, 16)] {
        assert!(!few_serves(&device, &GEMV_N, m, n), "{m} × {n}");
    }
    // From 9 rows on the columns that no narrow or short kernel splits, for the short kernels too.
    for (default, m, n) in [(&GEMV_N, 255, 100), (&GEMV_N, 65, 512), (&GEMV_N_SHORT, 9, 512), (&GEMV_N_SHORT, 64, 32)] {
        assert!(few_serves(&device, default, m, n), "{} {m} × {n}", default.name);
    }
    for (default, m, n) in [(&GEMV_N_SHORT, 8, 512), (&GEMV_N_SHORT, 64, 513), (&GEMV_N_SHORT_SCALAR, 8, 100)] {
        assert!(!few_serves(&device, default, m, n), "{} {m} × {n}", default.name);
    }
    assert!(few_serves(&device, &GEMV_N_SHORT_SCALAR, 33, 512));
    // For any A: up to the columns the narrow kernels do not split on up to 24576 rows, 64 past them.
    for (m, n) in [(256, 512), (24_576, 512), (24_577, 64), (200_000, 64)] {
        assert!(few_serves(&device, &GEMV_N_SCALAR, m, n), "{m} × {n}");
    }
    for (m, n) in [(256, 513), (8, 16), (24_577, 65), (200_001, 16)] {
        assert!(!few_serves(&device, &GEMV_N_SCALAR, m, n), "{m} × {n}");
    }
    // Its plan, with the scalar code's 102 registers (the GPU test's shapes): 9 blocks of 8 × 8 per SM,
    // 19 of 8 × 4.
    let [_, scalar] = wide_models();
    for (m, n, ty) in [(257, 64, 8), (2049, 16, 4), (16385, 13, 4), (30001, 40, 8), (100_001, 64, 4)] {
        let plan = few_plan(&device, &scalar, &GEMV_N_SCALAR_FEW, &problem(m, n));
        assert_eq!((plan.shape.tx, plan.shape.ty), (8, ty), "{m} × {n}");
    }
}

#[test]
fn the_split_paired_t_kernel_fills_the_fewest_blocks_per_sm_that_hold_its_grid() {
    // The kernel as ptxas builds it for sm_90 (80 registers, no shared memory): three blocks of 256 per SM.
    let device = DeviceModel::h200();
    let kernel = KernelModel { registers_per_thread: 80, static_shared_bytes: 0, max_threads_per_block: 256 };
    let split_plan =
        |m: u64, n: u64| paired_split_plan(&device, &kernel, &GEMV_T_PAIRED_SPLIT, &problem(m as i64, n as i64));
    // (m, n, split, blocks) on 132 SMs: n / 8 blocks a range.
    for (m, n, split, blocks) in [
        (200_000u64, 768u64, 4, 384),
        (32768, 768, 4, 384),
        (100_000, 1024, 2, 256),
        (1_000_000, 1024, 2, 256),
        (100_000, 1584, 2, 396),
        (65536, 512, 4, 256),
        (8192, 512, 4, 256),
        (8195, 300, 6, 228),
        (100_000, 256, 8, 256),
        (1_000_000, 128, 16, 256),
        (50000, 384, 8, 384),
        (300_000, 64, 33, 264),
        // 132 ranges of 8064 rows would leave the last empty: 131.
        (1 << 20, 16, 131, 262),
    ] {
        let plan = split_plan(m, n);
        assert_eq!((plan.shape.tx, plan.geometry.grid.1, plan.geometry.blocks()), (256, split, blocks), "{m} × {n}");
        assert!(paired_split_pays(&device, &plan), "{m} × {n}");
        assert!(paired_split_serves(&device, m as i64, n as i64), "{m} × {n}");
    }
    // Too small for two blocks per SM: the fullest grid of one, on a quarter of the SMs at least.
    for (m, n, split, blocks) in [(2048u64, 512u64, 2, 128), (4096, 256, 4, 128), (16384, 64, 16, 128)] {
        let plan = split_plan(m, n);
        assert_eq!((plan.geometry.grid.1, plan.geometry.blocks()), (split, blocks), "{m} × {n}");
        assert!(paired_split_pays(&device, &plan), "{m} × {n}");
    }
    // No split in one wave past 12 × 132 columns; none on a quarter of the SMs on ranges of 1024 rows or
    // more for 2048 × 128 (16 blocks, 2 ranges), nor of 512 for 4096 × 32 (4 blocks, 8 ranges) or 2048 × 64.
    for (m, n) in [(100_000, 1585), (2048, 128), (4096, 32), (2048, 64)] {
        assert!(!paired_split_pays(&device, &split_plan(m, n)), "{m} × {n}");
    }
    // Ranges of 512 rows on at most 64 columns where those of 1024 give no grid that pays.
    for (m, n, split) in [(4096u64, 64u64, 8), (3000, 64, 6), (8192, 32, 16), (6000, 32, 12)] {
        let plan = split_plan(m, n);
        assert_eq!(plan.geometry.grid.1, split, "{m} × {n}");
        assert!(paired_split_pays(&device, &plan), "{m} × {n}");
    }
    // On a quarter to half of them: 4096 × 128 in 4 ranges (64 blocks), 3000 × 128 in 3 (48).
    for (m, n, split) in [(4096u64, 128u64, 4), (3000, 128, 3)] {
        let plan = split_plan(m, n);
        assert_eq!(plan.geometry.grid.1, split, "{m} × {n}");
        assert!(paired_split_pays(&device, &plan), "{m} × {n}");
    }
    // Fewer than two ranges of 1024 rows, 32-bit rows, and where the unsplit paired kernel serves, fewer than
    // 32768 rows, or 100000 where its 8-column blocks fill more than 7/8 of the SMs (921 columns on 132 SMs).
    for (m, n) in [(2047, 512), (PAIRED_MAX_ROWS + 1, 512), (32767, 768), (99_999, 921), (65536, 1024)] {
        assert!(!paired_split_serves(&device, m, n), "{m} × {n}");
    }
    assert!(paired_split_serves(&device, 32768, 920) && paired_split_serves(&device, 100_000, 921));
    // Ranges of whole 128-row stretches, none empty: 32771 rows in 4 ranges of 8320.
    let shape = LaunchShape { tx: 256, ty: 1, split: 4 };
    assert_eq!(reduction_split(Layout::TPaired, &problem(32771, 768), &shape), (8320, 4));
    assert_eq!(Layout::of_kernel(&GEMV_T_PAIRED_SPLIT, Op::T, 32771), Layout::TPaired);
    assert_eq!(Layout::of_kernel(&GEMV_T_PAIRED, Op::T, 32771), Layout::T);
}

#[test]
fn the_split_paired_t_kernel_takes_the_tail_of_a_part_filled_last_wave_in_4_ranges() {
    // Both paired kernels as ptxas builds them for sm_90 (80 registers): three blocks of 256 per SM, 396 a wave.
    let device = DeviceModel::h200();
    let kernel = KernelModel { registers_per_thread: 80, static_shared_bytes: 0, max_threads_per_block: 256 };
    let unsplit = |m: i64, n: i64| {
        let shape = LaunchShape { tx: 256, ty: 1, split: 1 };
        LaunchPlan::of_shape(&device, &kernel, &GEMV_T_PAIRED, &problem(m, n), shape)
    };
    let serves = |m: i64, n: i64| paired_tail_split_serves(&device, m, n, || Ok(unsplit(m, n))).unwrap();
    // (m, n, unsplit blocks, last wave's fill in blocks): two or three waves, the last under 0.85 full.
    for (m, n, blocks, last) in [
        (65536, 3200, 400, 4),
        (65536, 5120, 640, 244),
        (32768, 4000, 500, 104),
        (200_000, 3456, 432, 36),
        (65536, 7040, 880, 88),
    ] {
        let plan = unsplit(m, n);
        assert_eq!(plan.geometry.blocks(), blocks, "{m} × {n}");
        assert!((optimizer::last_wave_fill(&device, &plan) - last as f64 / 396.0).abs() < 1e-9, "{m} × {n}");
        assert!(serves(m, n), "{m} × {n}");
        let split = paired_tail_split_plan(&device, &kernel, &GEMV_T_PAIRED_SPLIT, &problem(m, n));
        assert_eq!((split.shape.tx, split.geometry.grid.1, split.geometry.blocks()), (256, 4, 4 * blocks));
    }
    // One wave (3168 columns at most), a last wave 0.85 full or more (6040: 359 of 396; 9504: three full
    // waves), four waves or more, fewer than 32768 rows, or rows past 32 bits: the unsplit kernel keeps the call.
    for (m, n) in [(65536, 3168), (65536, 6144), (65536, 6040), (65536, 9504), (65536, 9505), (32767, 4000)] {
        assert!(!serves(m, n), "{m} × {n}");
    }
    assert!(serves(PAIRED_MAX_ROWS, 4000) && !serves(PAIRED_MAX_ROWS + 1, 4000));
    assert!((optimizer::last_wave_fill(&device, &unsplit(65536, 9504)) - 1.0).abs() < 1e-12);
}

#[test]
fn the_split_paired_t_kernel_for_any_a_cuts_long_columns_into_ranges_of_at_most_48000_rows() {
    // The kernel as ptxas builds it for sm_90 (128 registers): two blocks of 256 per SM.
    let device = DeviceModel::h200();
    let kernel = KernelModel { registers_per_thread: 128, static_shared_bytes: 0, max_threads_per_block: 256 };
    let float4_rule =
        |m: u64, n: u64| paired_split_plan(&device, &kernel, &GEMV_T_PAIRED_SPLIT_ANY, &problem(m as i64, n as i64));
    let long_plan = |m: u64, n: u64| {
        let problem = problem(m as i64, n as i64);
        long_any_split_plan(&device, &kernel, &GEMV_T_PAIRED_SPLIT_ANY, &problem, float4_rule(m, n), true)
    };
    // (m, n, split, rows a range) for long columns: the smallest split of the space with ranges that
    // short, in as many waves as it takes (131073 × 1001 fits one wave split 2, on ranges of 65536 rows).
    for (m, n, split, range) in [
        (60_001u64, 2001u64, 2, 30_080),
        (65_537, 4001, 2, 32_896),
        (100_001, 2001, 3, 33_408),
        (131_073, 1001, 3, 43_776),
        (200_001, 1001, 5, 40_064),
        (400_001, 2001, 12, 33_408),
    ] {
        let long = long_plan(m, n);
        let rows = reduction_split(Layout::TPaired, &problem(m as i64, n as i64), &long.shape).0;
        assert_eq!((long.geometry.grid.1, rows), (split, range), "{m} × {n}");
        assert!(long_any_split_serves(m as i64, n as i64, true), "{m} × {n}");
        assert!(!long_any_split_serves(m as i64, n as i64, false), "{m} × {n}: x 0 or 2 floats off A's float4s");
    }
    // With lda even, the float4 kernel's split wherever it pays (200000 × 1001: 2 ranges in one wave)…
    let problem_200k = problem(200_000, 1001);
    let one_wave = float4_rule(200_000, 1001);
    assert_eq!(one_wave.geometry.grid.1, 2);
    let even_lda = long_any_split_plan(&device, &kernel, &GEMV_T_PAIRED_SPLIT_ANY, &problem_200k, one_wave, false);
    assert_eq!(even_lda, one_wave);
    // …and where none pays, short ranges (100000 × 2048: 3 ranges in two waves).
    let unpaid = float4_rule(100_000, 2048);
    assert!(!paired_split_pays(&device, &unpaid));
    let problem_100k = problem(100_000, 2048);
    let split = long_any_split_plan(&device, &kernel, &GEMV_T_PAIRED_SPLIT_ANY, &problem_100k, unpaid, false);
    assert_eq!(split.geometry.grid.1, 3);
    // Where the float4 kernel's split pays on ranges that short, that split (1048577 × 16: 131 ranges).
    let short = long_plan(1 << 20 | 1, 16);
    assert_eq!(short.geometry.grid.1, 131);
    assert!(paired_split_pays(&device, &short));
    // 60000 rows or fewer, past 32-bit rows or the split's counters: not long.
    for (m, n) in
        [(60_000, 2001), (50_001, 2001), (PAIRED_MAX_ROWS + 1, 2001), (100_001, SPLIT_COUNTER_SLOTS as i64 + 1)]
    {
        assert!(!long_any_split_serves(m, n, true), "{m} × {n}");
    }
    // x an odd number of floats off A's float4s: lda odd, or A and x at floats of different parity.
    use XReads::{Float4, Strided, UnitStride};
    let (even_x, odd_x) = (UnitStride { odd_float: false }, UnitStride { odd_float: true });
    assert!(x_off_a_by_odd_floats(4096, 65537, Float4) && x_off_a_by_odd_floats(4096, 65537, even_x));
    assert!(x_off_a_by_odd_floats(4096, 65536, odd_x) && x_off_a_by_odd_floats(4100, 65536, Float4));
    assert!(x_off_a_by_odd_floats(4100, 65538, even_x) && !x_off_a_by_odd_floats(4100, 65538, odd_x));
    assert!(!x_off_a_by_odd_floats(4096, 65536, Float4) && !x_off_a_by_odd_floats(4104, 65538, even_x));
    assert!(!x_off_a_by_odd_floats(4096, 65536, Strided));
}

fn position(result: Result<Op>) -> u32 {
    match result {
        Err(Error::InvalidArgument { routine: "SGEMV", position }) => position,
        other => panic!("expected an SGEMV argument error, got {other:?}"),
    }
}

#[test]
fn trans_values() {
    assert_eq!(check_arguments(0, 3, 4, 3, 1, 1).unwrap(), Op::N);
    assert_eq!(check_arguments(1, 3, 4, 3, 1, 1).unwrap(), Op::T);
    assert_eq!(check_arguments(2, 3, 4, 3, 1, 1).unwrap(), Op::T, "C is T for real data");
    for trans in [3, 4, -1, i32::MAX, i32::MIN, 78] {
        assert_eq!(position(check_arguments(trans, 3, 4, 3, 1, 1)), 1, "trans = {trans}");
    }
}

#[test]
fn each_bad_argument_has_its_reference_position() {
    assert_eq!(position(check_arguments(0, -1, 4, 3, 1, 1)), 2);
    assert_eq!(position(check_arguments(0, 3, -1, 3, 1, 1)), 3);
    assert_eq!(position(check_arguments(0, 3, 4, 2, 1, 1)), 6);
    assert_eq!(position(check_arguments(1, 3, 4, 2, 1, 1)), 6, "lda ≥ m for T too");
    assert_eq!(position(check_arguments(0, 3, 4, 3, 0, 1)), 8);
    assert_eq!(position(check_arguments(0, 3, 4, 3, 1, 0)), 11);
}

#[test]
fn lda_must_be_at_least_one_even_for_empty_matrices() {
    assert_eq!(position(check_arguments(0, 0, 4, 0, 1, 1)), 6);
    assert_eq!(position(check_arguments(0, 0, 0, 0, 1, 1)), 6);
    assert!(check_arguments(0, 0, 0, 1, 1, 1).is_ok());
    assert!(check_arguments(0, 5, 0, 5, 1, 1).is_ok());
    assert_eq!(position(check_arguments(0, 5, 0, 4, 1, 1)), 6);
}

#[test]
fn first_bad_argument_wins() {
    assert_eq!(position(check_arguments(9, -1, -1, 0, 0, 0)), 1);
    assert_eq!(position(check_arguments(0, -1, -1, 0, 0, 0)), 2);
    assert_eq!(position(check_arguments(0, 1, -1, 0, 0, 0)), 3);
    assert_eq!(position(check_arguments(0, 1, 1, 0, 0, 0)), 6);
    assert_eq!(position(check_arguments(0, 1, 1, 1, 0, 0)), 8);
    assert_eq!(position(check_arguments(0, 1, 1, 1, 1, 0)), 11);
}

#[test]
fn negative_increments_are_valid() {
    assert!(check_arguments(0, 3, 4, 3, -1, -3).is_ok());
}

#[test]
fn argument_errors_come_before_quick_returns() {
    // m == 0 is a quick return, but only after lda and the increments are checked.
    let handle_free = Call::new(0, 0, 5, Scalar::Host(1.0), 0, 0, 0, 1, Scalar::Host(0.0), 0, 1);
    assert!(matches!(handle_free, Err(Error::InvalidArgument { position: 6, .. })));
    let handle_free = Call::new(0, 0, 5, Scalar::Host(1.0), 0, 1, 0, 0, Scalar::Host(0.0), 0, 1);
    assert!(matches!(handle_free, Err(Error::InvalidArgument { position: 8, .. })));
}

#[test]
fn quick_returns() {
    let (one, zero, half) = (Scalar::Host(1.0), Scalar::Host(0.0), Scalar::Host(0.5));
    assert!(quick_return(0, 5, half, half));
    assert!(quick_return(5, 0, half, half));
    assert!(quick_return(5, 5, zero, one));
    assert!(!quick_return(5, 5, zero, half), "alpha = 0 still scales y");
    assert!(!quick_return(5, 5, half, one));
    assert!(!quick_return(5, 5, Scalar::Device(64), one), "device scalars are unknown to the host");
    assert!(!quick_return(5, 5, zero, Scalar::Device(64)));
}

#[test]
fn quick_returns_accept_null_pointers_and_nothing_else_does() {
    let (one, zero, half) = (Scalar::Host(1.0), Scalar::Host(0.0), Scalar::Host(0.5));
    assert!(Call::new(0, 0, 5, half, 0, 1, 0, 1, half, 0, 1).unwrap().is_none());
    assert!(Call::new(1, 5, 5, zero, 0, 5, 0, 1, one, 0, 1).unwrap().is_none());
    // alpha = 0: A and x are not read, so they may be null; y may not.
    assert!(Call::new(0, 5, 5, zero, 0, 5, 0, 1, half, 4096, 1).unwrap().is_some());
    assert!(matches!(Call::new(0, 5, 5, zero, 0, 5, 0, 1, half, 0, 1), Err(Error::InvalidValue(_))));
    assert!(matches!(Call::new(0, 5, 5, half, 0, 5, 4096, 1, half, 4096, 1), Err(Error::InvalidValue(_))));
    assert!(matches!(Call::new(0, 5, 5, half, 4096, 5, 0, 1, half, 4096, 1), Err(Error::InvalidValue(_))));
}

#[test]
fn vector_lengths_follow_op() {
    let call = Call::new(0, 7, 3, Scalar::Host(1.0), 4096, 7, 8192, -2, Scalar::Host(0.0), 16384, 3).unwrap().unwrap();
    assert_eq!((call.x.len, call.y.len), (3, 7));
    let call = Call::new(2, 7, 3, Scalar::Host(1.0), 4096, 7, 8192, -2, Scalar::Host(0.0), 16384, 3).unwrap().unwrap();
    assert_eq!((call.op, call.x.len, call.y.len), (Op::T, 7, 3));
}

#[test]
fn kernel_selection_needs_aligned_columns() {
    assert_eq!(select_kernel(Op::N, 1000, 4096, 1024).name, "gemv_n_f32");
    assert_eq!(select_kernel(Op::N, 1000, 4100, 1024).name, "gemv_n_f32_scalar");
    assert_eq!(select_kernel(Op::N, 1000, 4096, 1027).name, "gemv_n_f32_scalar");
    assert_eq!(select_kernel(Op::N, 1000, 4096, 1026).name, "gemv_n_f32_scalar");
    assert_eq!(select_kernel(Op::T, 1000, 4096, 1000).name, "gemv_t_f32");
    assert_eq!(select_kernel(Op::T, 1000, 4104, 1000).name, "gemv_t_f32_scalar");
    assert_eq!(select_kernel(Op::T, 1000, 4096, 1001).name, "gemv_t_f32_scalar");
    assert_eq!(select_kernel(Op::T, 8, 4096, 8).name, "gemv_t_f32_short");
    assert_eq!(select_kernel(Op::T, 8, 4104, 8).name, "gemv_t_f32_short_scalar");
    assert_eq!(select_kernel(Op::T, 7, 4096, 7).name, "gemv_t_f32_short_scalar");
    // The kernels the routine loads (KERNEL_SPECS) are those it can choose: the defaults and their twins
    // for every op, alignment of A and way of reading x.
    let mut choosable: Vec<&str> = Vec::new();
    for op in [Op::N, Op::T] {
        for m in [1i64, 8, 64, 100, 384, 512, 1000, 5000, 100_000] {
            for (a, lda) in [(4096u64, m), (4096, (m + 3) / 4 * 4), (4100, m + 1)] {
                for x in [
                    XReads::Float4,
                    XReads::UnitStride { odd_float: false },
                    XReads::UnitStride { odd_float: true },
                    XReads::Strided,
                ] {
                    for kernel in candidate_kernels(op, m, a, lda, x) {
                        if !choosable.contains(&kernel.name) {
                            choosable.push(kernel.name);
                        }
                    }
                }
            }
        }
    }
    let mut loaded: Vec<&str> = KERNEL_SPECS.iter().map(|spec| spec.name).collect();
    choosable.sort();
    loaded.sort();
    assert_eq!(choosable, loaded);
    assert_eq!(KERNEL_NAMES.len(), KERNEL_SPECS.len() + 1, "and the read floor's");
    assert!(KERNEL_NAMES.contains(&READ_FLOOR_NAME));
    // The T kernels have lean variants (the float4 one also with x through L1, and the paired kernels
    // first, stacked, split and not, for x as float4), the
    // scalar one a kernel for any A with x through L1 (for x with unit stride); the N kernels narrow and
    // wide ones, offered after the default.
    let names = |kernels: Vec<&KernelSpec>| kernels.iter().map(|k| k.name).collect::<Vec<_>>();
    use XReads::{Float4, Strided};
    const UNIT_STRIDE: XReads = XReads::UnitStride { odd_float: false };
    assert_eq!(
        names(candidate_kernels(Op::T, 1000, 4096, 1000, Float4)),
        [
            "gemv_t_f32",
            "gemv_t_f32_stacked",
            "gemv_t_f32_stacked_any",
            "gemv_t_f32_paired_split",
            "gemv_t_f32_paired_split_any",
            "gemv_t_f32_paired",
            "gemv_t_f32_paired_any",
            "gemv_t_f32_lean_l1",
            "gemv_t_f32_lean",
            "gemv_t_f32_l1_any"
        ]
    );
    assert_eq!(
        names(candidate_kernels(Op::T, 1000, 4096, 1000, UNIT_STRIDE)),
        [
            "gemv_t_f32",
            "gemv_t_f32_stacked_any",
            "gemv_t_f32_paired_split_any",
            "gemv_t_f32_paired_any",
            "gemv_t_f32_lean",
            "gemv_t_f32_l1_any"
        ]
    );
    assert_eq!(names(candidate_kernels(Op::T, 1000, 4096, 1000, Strided)), ["gemv_t_f32", "gemv_t_f32_lean"]);
    let scalar_default = [
        "gemv_t_f32_scalar",
        "gemv_t_f32_stacked_any",
        "gemv_t_f32_paired_split_any",
        "gemv_t_f32_paired_any",
        "gemv_t_f32_scalar_lean",
        "gemv_t_f32_l1_any",
    ];
    for x in [Float4, UNIT_STRIDE] {
        // Odd lda, then A off its 16-byte boundary.
        assert_eq!(names(candidate_kernels(Op::T, 1000, 4096, 1001, x)), scalar_default);
        assert_eq!(names(candidate_kernels(Op::T, 1000, 4100, 1000, x)), scalar_default);
    }
    assert_eq!(
        names(candidate_kernels(Op::T, 1000, 4096, 1001, Strided)),
        ["gemv_t_f32_scalar", "gemv_t_f32_scalar_lean"]
    );
    for x in [Float4, UNIT_STRIDE, Strided] {
        assert_eq!(names(candidate_kernels(Op::T, 8, 4096, 8, x)), ["gemv_t_f32_short"]);
        assert_eq!(
            names(candidate_kernels(Op::N, 1000, 4096, 1000, x)),
            [
                "gemv_n_f32",
                "gemv_n_f32_cluster16",
                "gemv_n_f32_cluster32",
                "gemv_n_f32_cluster64",
                "gemv_n_f32_sweep",
                "gemv_n_f32_few",
                "gemv_n_f32_narrow",
                "gemv_n_f32_wide",
                "gemv_n_f32_wide_staged"
            ]
        );
        assert_eq!(
            names(candidate_kernels(Op::N, 1000, 4096, 1001, x)),
            [
                "gemv_n_f32_scalar",
                "gemv_n_f32_scalar_cluster16",
                "gemv_n_f32_scalar_cluster32",
                "gemv_n_f32_scalar_cluster64",
                "gemv_n_f32_wide_any",
                "gemv_n_f32_scalar_long",
                "gemv_n_f32_sweep",
                "gemv_n_f32_scalar_few",
                "gemv_n_f32_scalar_narrow",
                "gemv_n_f32_scalar_lanes",
                "gemv_n_f32_scalar_wide",
                "gemv_n_f32_scalar_thin"
            ]
        );
        assert_eq!(
            names(candidate_kernels(Op::N, 64, 4096, 64, x)),
            [
                "gemv_n_f32_short",
                "gemv_n_f32_cluster16",
                "gemv_n_f32_cluster32",
                "gemv_n_f32_cluster64",
                "gemv_n_f32_few"
            ]
        );
    }
    // x as float4: 16-byte aligned, unit stride; as floats: unit stride.
    assert_eq!(x_reads(4096, 1), Float4);
    assert_eq!(x_reads(4100, 1), XReads::UnitStride { odd_float: true });
    assert_eq!(x_reads(4104, 1), XReads::UnitStride { odd_float: false });
    assert_eq!(x_reads(4096, 2), Strided);
    assert_eq!(x_reads(4096, -1), Strided);
}

#[test]
fn few_rows_go_to_the_short_kernels() {
    assert_eq!(select_kernel(Op::N, 64, 4096, 64).name, "gemv_n_f32_short");
    assert_eq!(select_kernel(Op::N, 16, 4096, 17).name, "gemv_n_f32_short_scalar");
    assert_eq!(select_kernel(Op::N, 1, 4100, 1).name, "gemv_n_f32_short_scalar");
    assert_eq!(select_kernel(Op::N, 65, 4096, 68).name, "gemv_n_f32");
    assert_eq!(select_kernel(Op::T, 16, 4096, 16).name, "gemv_t_f32_short");
    assert_eq!(select_kernel(Op::T, 64, 4100, 64).name, "gemv_t_f32_short_scalar");
    assert_eq!(select_kernel(Op::T, 65, 4096, 68).name, "gemv_t_f32");
    assert_eq!(Layout::of(Op::N, SHORT_ROWS_MAX), Layout::NShort);
    assert_eq!(Layout::of(Op::N, SHORT_ROWS_MAX + 1), Layout::N);
    assert_eq!(Layout::of(Op::T, SHORT_ROWS_MAX), Layout::TShort);
    assert_eq!(Layout::of(Op::T, SHORT_ROWS_MAX + 1), Layout::T);
}

#[test]
fn lanes_per_column_give_each_lane_four_rows() {
    let expected = [
        (1u64, 1u64),
        (4, 1),
        (5, 2),
        (8, 2),
        (9, 4),
        (16, 4),
        (17, 8),
        (32, 8),
        (33, 16),
        (64, 16),
        (65, 32),
        (128, 32),
        (1 << 20, 32),
    ];
    for (m, lanes) in expected {
        assert_eq!(lanes_per_column(m), lanes, "m = {m}");
    }
    assert_eq!(lanes_per_column(0), 1);
}

#[test]
fn split_ranges_cover_without_empty_ranges() {
    for len in 1..600u64 {
        for split in [1u32, 2, 3, 4, 8, 16, 64, 128] {
            for granule in [4u64, 128] {
                let (per, count) = split_ranges(len, split, granule);
                assert!(count >= 1 && count <= split.max(1));
                assert!(per * count as u64 >= len, "len {len} split {split}: ranges do not cover");
                assert!((count as u64 - 1) * per < len, "len {len} split {split}: an empty range");
                if count > 1 {
                    assert_eq!(per % granule, 0);
                }
            }
        }
    }
    assert_eq!(split_ranges(1000, 8, 4), (128, 8));
    assert_eq!(split_ranges(3, 64, 4), (3, 1));
    assert_eq!(split_ranges(1 << 20, 64, 128), (16384, 64));
}

#[test]
fn n_geometry_covers_rows_without_dynamic_shared_memory() {
    let shape = LaunchShape { tx: 32, ty: 8, split: 1 };
    let g = n_geometry(&problem(1000, 1000), &shape);
    assert_eq!(g.grid, (8, 1, 1)); // 128 rows per block
    assert_eq!(g.dynamic_shared_bytes, 0);
    let g = n_geometry(&problem(1, 1), &LaunchShape { tx: 256, ty: 1, split: 1 });
    assert_eq!((g.grid, g.dynamic_shared_bytes), ((1, 1, 1), 0));
    let g = n_geometry(&problem(4097, 4097), &LaunchShape { tx: 256, ty: 4, split: 1 });
    assert_eq!((g.grid, g.dynamic_shared_bytes), ((5, 1, 1), 0));
}

#[test]
fn n_geometry_splits_columns() {
    let g = n_geometry(&problem(1000, 1000), &LaunchShape { tx: 32, ty: 8, split: 8 });
    assert_eq!(g.grid, (8, 8, 1));
    assert_eq!(reduction_split(Layout::N, &problem(1000, 1000), &LaunchShape { tx: 32, ty: 8, split: 8 }), (128, 8));
    // A range holds at least 128 columns.
    let g = n_geometry(&problem(5000, 128), &LaunchShape { tx: 64, ty: 1, split: 64 });
    assert_eq!(g.grid.1, 1);
    let g = n_geometry(&problem(5000, 700), &LaunchShape { tx: 64, ty: 1, split: 64 });
    assert_eq!(g.grid.1, 6);
    // At most N_SPLIT_MIN_COLUMNS columns: never split, whatever the rows.
    for m in [1, 512, 5000, 1 << 16] {
        assert_eq!(n_geometry(&problem(m, 512), &LaunchShape { tx: 32, ty: 16, split: 4 }).grid.1, 1);
    }
    assert_eq!(n_geometry(&problem(512, 513), &LaunchShape { tx: 32, ty: 16, split: 4 }).grid.1, 3);
    // Partial vectors beyond SPLIT_SLOTS: a smaller split.
    let g = n_geometry(&problem(1 << 16, 4096), &LaunchShape { tx: 32, ty: 1, split: 64 });
    assert_eq!(g.grid.1, 16);
    assert!(split_slots(Op::N, 1 << 16, 4096, g.grid.1) <= SPLIT_SLOTS);
    // More tiles than counters: no split.
    let m = (SPLIT_COUNTER_SLOTS as i64 + 1) * 128;
    let g = n_geometry(&problem(m, 64), &LaunchShape { tx: 32, ty: 1, split: 4 });
    assert_eq!(g.grid, (SPLIT_COUNTER_SLOTS as u32 + 1, 1, 1));
}

#[test]
fn the_short_n_kernels_take_no_more_threads_than_a_range_keeps_busy() {
    use crate::tuner::{ForcedShapes, RecipeBook, Tuner};
    let device = DeviceModel::h200();
    let tuner = Tuner::new(device.clone(), RecipeBook::built_in(), ForcedShapes::new());
    let kernel = KernelModel { registers_per_thread: 60, static_shared_bytes: 8192, max_threads_per_block: 1024 };
    let plan = |m: u64, n: u64| {
        let problem = Problem { m, n, k: 0 };
        let optimizer = tuner.plan_uncached(&GEMV_N_SHORT, &kernel, &problem);
        (short_plan(&device, &kernel, &GEMV_N_SHORT, &problem, optimizer), optimizer)
    };
    // (m, n, threads, ranges): up to 4 rows a warp loads 128 columns a step, so ranges of 512 keep 4 busy,
    // of 1024 8; from 5 to 8 rows, 64 (8 warps on 512 columns); ranges of 4096 would keep 32 warps busy, but
    // a split takes at most SHORT_SPLIT_MAX_THREADS.
    for (m, n, tx, ranges) in [(1, 65536, 128, 128), (4, 262144, 256, 256), (8, 32768, 256, 64), (1, 1 << 20, 256, 256)]
    {
        let (plan, optimizer) = plan(m, n);
        assert_eq!((optimizer.shape.tx, optimizer.geometry.grid.1), (512, ranges), "{m} × {n}");
        assert_eq!((plan.shape.tx, plan.geometry.grid.1), (tx, ranges), "{m} × {n}");
    }
    // Unsplit, as many warps as the columns keep busy: 1 row, 128 columns a warp; 8 rows, 64; 64 rows, 8.
    for (m, n, tx) in [(1, 500, 128), (8, 32, 32), (8, 512, 256), (64, 512, 512)] {
        let (plan, optimizer) = plan(m, n);
        assert_eq!((optimizer.geometry.grid.1, plan.geometry.grid.1), (1, 1), "{m} × {n}");
        assert_eq!(plan.shape.tx, tx.min(optimizer.shape.tx), "{m} × {n}");
    }
}

#[test]
fn short_geometry_is_one_tile_of_column_ranges() {
    let g = short_geometry(&problem(16, 1 << 20), &LaunchShape { tx: 512, ty: 1, split: 256 });
    assert_eq!((g.grid, g.dynamic_shared_bytes), ((1, 256, 1), 0));
    assert_eq!(
        reduction_split(Layout::NShort, &problem(16, 1 << 20), &LaunchShape { tx: 512, ty: 1, split: 256 }),
        (4096, 256)
    );
    // Ranges of at least SHORT_COLUMN_GRANULE = 512 columns.
    let g = short_geometry(&problem(3, 2500), &LaunchShape { tx: 64, ty: 1, split: 64 });
    assert_eq!(g.grid, (1, 5, 1));
    let g = short_geometry(&problem(64, 512), &LaunchShape { tx: 64, ty: 1, split: 64 });
    assert_eq!(g.grid, (1, 1, 1));
}

#[test]
fn t_geometry_lanes_per_column() {
    // 32 lanes per column from m = 65 on: Tx / 32 columns per block.
    let g = t_geometry(&problem(1000, 1000), &LaunchShape { tx: 256, ty: 1, split: 1 });
    assert_eq!((g.grid, g.dynamic_shared_bytes), ((125, 1, 1), 0));
    let g = t_geometry(&problem(1000, 1001), &LaunchShape { tx: 256, ty: 1, split: 1 });
    assert_eq!(g.grid, (126, 1, 1));
    // The short T kernels, 16 rows: 4 lanes per column, 8 column slots per warp, 4 columns per slot.
    assert_eq!(t_columns_per_block(16, 1024), 1024);
    let g = t_short_geometry(&problem(16, 1 << 20), &LaunchShape { tx: 1024, ty: 1, split: 1 });
    assert_eq!(g.grid, (1024, 1, 1));
    assert_eq!(t_columns_per_block(1, 32), 128);
    let g = t_short_geometry(&problem(1, 1000), &LaunchShape { tx: 32, ty: 1, split: 1 });
    assert_eq!(g.grid, (8, 1, 1));
    // Few rows are never split.
    let g = t_short_geometry(&problem(64, 1000), &LaunchShape { tx: 32, ty: 1, split: 512 });
    assert_eq!(g.grid, (125, 1, 1));
    // Tall and skinny: split the rows, in ranges of at least 2048.
    let g = t_geometry(&problem(1 << 20, 16), &LaunchShape { tx: 32, ty: 1, split: 64 });
    assert_eq!(g.grid, (16, 64, 1));
    let g = t_geometry(&problem(1 << 20, 16), &LaunchShape { tx: 512, ty: 1, split: 512 });
    assert_eq!(g.grid, (1, 512, 1));
    assert_eq!(
        reduction_split(Layout::T, &problem(1 << 20, 16), &LaunchShape { tx: 512, ty: 1, split: 512 }),
        (2048, 512)
    );
    let g = t_geometry(&problem(2048, 16), &LaunchShape { tx: 32, ty: 1, split: 64 });
    assert_eq!(g.grid.1, 1);
    let g = t_geometry(&problem(5000, 16), &LaunchShape { tx: 32, ty: 1, split: 64 });
    assert_eq!(g.grid.1, 3);
}

#[test]
fn geometry_agrees_with_the_launch_split_for_every_candidate() {
    let specs = [
        (&GEMV_N, Layout::N),
        (&GEMV_N_SCALAR, Layout::N),
        (&GEMV_N_NARROW, Layout::N),
        (&GEMV_N_SCALAR_NARROW, Layout::N),
        (&GEMV_N_WIDE, Layout::N),
        (&GEMV_N_SCALAR_WIDE, Layout::N),
        (&GEMV_N_SCALAR_LONG, Layout::N),
        (&GEMV_N_SCALAR_THIN, Layout::N),
        (&GEMV_N_WIDE_STAGED, Layout::N),
        (&GEMV_N_FEW, Layout::N),
        (&GEMV_N_SCALAR_FEW, Layout::N),
        (&GEMV_N_SHORT, Layout::NShort),
        (&GEMV_N_SHORT_SCALAR, Layout::NShort),
        (&GEMV_T, Layout::T),
        (&GEMV_T_SCALAR, Layout::T),
        (&GEMV_T_LEAN, Layout::T),
        (&GEMV_T_SCALAR_LEAN, Layout::T),
        (&GEMV_T_LEAN_L1, Layout::T),
        (&GEMV_T_L1_ANY, Layout::T),
        (&GEMV_T_PAIRED, Layout::T),
        (&GEMV_T_PAIRED_ANY, Layout::T),
        (&GEMV_T_PAIRED_SPLIT, Layout::TPaired),
        (&GEMV_T_PAIRED_SPLIT_ANY, Layout::TPaired),
        (&GEMV_T_STACKED, Layout::T),
        (&GEMV_T_STACKED_ANY, Layout::T),
        (&GEMV_T_SHORT, Layout::TShort),
        (&GEMV_T_SHORT_SCALAR, Layout::TShort),
        (&GEMV_T_GROUPS4, Layout::TGroups(4)),
        (&GEMV_T_SCALAR_GROUPS4, Layout::TGroups(4)),
        (&GEMV_T_GROUPS6, Layout::TGroups(6)),
        (&GEMV_T_SCALAR_GROUPS6, Layout::TGroups(6)),
        (&GEMV_N_CLUSTER16, Layout::NCluster(16)),
        (&GEMV_N_SCALAR_CLUSTER16, Layout::NCluster(16)),
        (&GEMV_N_CLUSTER32, Layout::NCluster(32)),
        (&GEMV_N_SCALAR_CLUSTER32, Layout::NCluster(32)),
        (&GEMV_N_CLUSTER64, Layout::NCluster(64)),
        (&GEMV_N_SCALAR_CLUSTER64, Layout::NCluster(64)),
    ];
    for (spec, layout) in specs {
        let space = spec.space;
        for (m, n) in
            [(1u64, 1u64), (7, 33), (1000, 1000), (5000, 3), (3, 5000), (1 << 20, 16), (16, 1 << 20), (64, 100_000)]
        {
            let problem = Problem { m, n, k: 0 };
            for shape in space.shapes(1024) {
                let LaunchShape { tx, ty, split } = shape;
                let g = (spec.geometry)(&problem, &shape);
                let (per, splits) = reduction_split(layout, &problem, &shape);
                assert_eq!(g.grid.1, splits);
                let op = if matches!(layout, Layout::T | Layout::TShort | Layout::TPaired | Layout::TGroups(_)) {
                    Op::T
                } else {
                    Op::N
                };
                if !matches!(layout, Layout::NShort | Layout::TShort) {
                    assert_eq!(Layout::of_kernel(spec, op, 65), layout, "{}", spec.name);
                }
                let len = if op == Op::T { m } else { n };
                if let Layout::NCluster(_) = layout {
                    // Whole clusters of ranges (fewer where their partial vectors would not fit),
                    // the last ones empty where n is smaller than their count.
                    assert!(splits.is_multiple_of(CLUSTER_BLOCKS) && splits <= split);
                    assert!(splits == split || m * (splits / CLUSTER_BLOCKS + 1) as u64 > SPLIT_SLOTS);
                    assert_eq!(per, n.div_ceil(splits as u64).max(1));
                } else {
                    assert!(per * splits as u64 >= len && (splits as u64 - 1) * per < len);
                }
                let tiles = match layout {
                    Layout::N => m.div_ceil(4 * tx as u64),
                    Layout::NShort => 1,
                    Layout::T | Layout::TShort | Layout::TPaired => n.div_ceil(t_columns_per_block(m, tx)),
                    Layout::TGroups(groups) => n.div_ceil(tx as u64 / lanes_per_column(m.div_ceil(groups)) * 2),
                    Layout::NCluster(rows) => m.div_ceil(rows),
                };
                assert_eq!(g.grid.0 as u64, tiles.max(1));
                assert_eq!(g.dynamic_shared_bytes, 0, "{shape:?}");
                // The N kernels fold Ty / 2 slots of 4·Tx floats through their x chunk (GEMV_N_XCHUNK).
                assert!(2 * tx * ty <= 2048);
                // (The cluster kernels take a partial vector a cluster.)
                let vectors = if matches!(layout, Layout::NCluster(_)) { splits / CLUSTER_BLOCKS } else { splits };
                assert!(split_slots(op, m as i64, n as i64, vectors) <= SPLIT_SLOTS);
            }
        }
    }
}

#[test]
fn the_cluster_kernels_take_few_rows_on_many_columns() {
    // 1 to 1024 rows on 513 to 8 × 2048 columns, and from 256 rows on only past 1536 (the few-columns kernel);
    // past 8 × 2048 columns 9 to 128 rows.
    for (m, n) in [
        (1, 513),
        (64, 4096),
        (65, 513),
        (255, 513),
        (200, 16384),
        (256, 1537),
        (1024, 16384),
        (9, 16385),
        (100, 16385),
        (128, 1 << 24),
    ] {
        assert!(cluster_serves(|| true, m, n), "{m} x {n}");
        assert!(!cluster_serves(|| false, m, n), "{m} x {n}: no clusters");
    }
    for (m, n) in [(16, 512), (1025, 4096), (100, 512), (129, 16385), (8, 16385), (256, 1536), (1024, 600)] {
        assert!(!cluster_serves(|| true, m, n), "{m} x {n}");
    }
    // In one cluster a tile: 16-row tiles while their 8 blocks each fit one per SM (132 on the H100: 16 tiles,
    // 256 rows), then 32.
    let device = DeviceModel::h100_sxm();
    for (m, rows) in [(1, 16), (65, 16), (256, 16), (257, 32), (1024, 32)] {
        assert_eq!(cluster_tile_rows(&device, m, 16384), rows, "{m} rows");
        assert_eq!(clusters_per_tile(&device, m, 16384, rows), 1, "{m} rows");
    }
    // In several: 16 rows up to 16, 32 up to 32 (64 up to 2^22 elements of A), then 64; clusters for a block
    // per SM up to 2^22 elements, two past that.
    for (m, n, rows, clusters) in [
        (9, 16385, 16, 8),
        (16, 32768, 16, 8),
        (16, 32769, 16, 17),
        (16, 262144, 16, 17),
        (16, 262145, 16, 33),
        (17, 262144, 32, 33),
        (64, 65536, 32, 8),
        (64, 65537, 64, 33),
        (33, 262144, 64, 33),
        (65, 262144, 64, 17),
        (100, 16385, 64, 8),
        (128, 262144, 64, 17),
    ] {
        assert_eq!(cluster_tile_rows(&device, m, n), rows, "{m} x {n}");
        assert_eq!(clusters_per_tile(&device, m, n, rows), clusters, "{m} x {n}");
    }
    // Only calls of such rows list them, the float4 pair for float4 A, the scalar pair otherwise.
    let names = |m: i64, lda: i64| {
        candidate_kernels(Op::N, m, 4096, lda, XReads::Float4).iter().map(|k| k.name).collect::<Vec<_>>()
    };
    assert_eq!(names(300, 300)[..3], ["gemv_n_f32", "gemv_n_f32_cluster16", "gemv_n_f32_cluster32"]);
    assert_eq!(
        names(300, 301)[..3],
        ["gemv_n_f32_scalar", "gemv_n_f32_scalar_cluster16", "gemv_n_f32_scalar_cluster32"]
    );
    assert_eq!(names(33, 36)[..3], ["gemv_n_f32_short", "gemv_n_f32_cluster16", "gemv_n_f32_cluster32"]);
    assert!(!names(1025, 1028).iter().any(|name| name.contains("cluster")));
    assert!(needs_clusters(&GEMV_N_SCALAR_CLUSTER32) && !needs_clusters(&GEMV_N_NARROW));
}

#[test]
fn the_groups_kernels_cover_their_rows_with_the_fewest_lanes() {
    // 6 groups where 4 would need twice the lanes, 4 elsewhere.
    for (rows, groups) in [(65..=96, 6), (97..=128, 4), (129..=192, 6), (193..=256, 4), (257..=384, 6)] {
        for m in rows {
            assert_eq!(groups_of_rows(m), groups, "{m} rows");
            let lanes = lanes_per_column((m as u64).div_ceil(groups));
            // Every row has a lane, and at most 32 lanes share a column.
            assert!(4 * lanes * groups >= m as u64 && lanes <= 32, "{m} rows");
            assert_eq!(groups_columns_per_block(m as u64, 256, groups), 256 / lanes * GROUPS_COLUMNS_PER_LANE);
        }
    }
    // Served from 65 rows (the short kernel's end) to GROUPS_MAX_ROWS, on GROUPS_MIN_COLUMNS columns or more.
    let serves = |m, n| groups_serves(&GEMV_T, m, n);
    assert!(serves(65, 4096) && serves(384, 1 << 20) && serves(128, 262_144));
    assert!(!serves(64, 262_144) && !serves(385, 262_144) && !serves(128, 4095));
    // For A that is not float4, to 512 rows (4 groups on 32 lanes).
    let scalar = |m, n| groups_serves(&GEMV_T_SCALAR, m, n);
    assert!(scalar(65, 4096) && scalar(385, 4096) && scalar(512, 262_144));
    assert!(!scalar(64, 262_144) && !scalar(513, 262_144) && !scalar(512, 4095));
    assert_eq!(groups_of_rows(385), 4);
    assert_eq!(groups_of_rows(512), 4);
    // Only calls with such rows list them (their lanes hold at most 128 · groups rows).
    let names = |m: i64| {
        let lda = (m + 3) / 4 * 4;
        candidate_kernels(Op::T, m, 4096, lda, XReads::Strided).iter().map(|k| k.name).collect::<Vec<_>>()
    };
    assert_eq!(names(200), ["gemv_t_f32", "gemv_t_f32_groups4", "gemv_t_f32_groups6", "gemv_t_f32_lean"]);
    assert_eq!(names(385), ["gemv_t_f32", "gemv_t_f32_lean"]);
    let listed = |m: i64| candidate_kernels(Op::T, m, 4096, m + 1, XReads::Strided).len();
    assert_eq!((listed(512), listed(513)), (4, 2), "odd lda: the scalar kernel, its groups twins, the lean one");
    let scalar = candidate_kernels(Op::T, 101, 4096, 101, XReads::Strided);
    assert_eq!(
        scalar.iter().map(|k| k.name).collect::<Vec<_>>()[..3],
        ["gemv_t_f32_scalar", "gemv_t_f32_scalar_groups4", "gemv_t_f32_scalar_groups6"]
    );
}

#[test]
fn the_groups_kernels_take_smaller_blocks_where_larger_leave_sms_idle() {
    let device = DeviceModel::h100_sxm();
    let kernel = KernelModel { registers_per_thread: 64, static_shared_bytes: 2048, max_threads_per_block: 256 };
    for (m, n, tx, blocks) in [
        // 4 lanes a column: 128 columns a block of 256 threads.
        (65i64, 4096i64, 128u32, 64u64),
        (65, 16_384, 128, 256),
        (65, 32_768, 256, 256),
        (65, 262_144, 256, 2048),
        // 16 lanes: 32 columns a block.
        (300, 4096, 128, 256),
        (300, 8192, 256, 256),
        (256, 8192, 256, 256),
    ] {
        let spec = if groups_of_rows(m) == 6 { &GEMV_T_GROUPS6 } else { &GEMV_T_GROUPS4 };
        let plan = groups_plan(&device, &kernel, spec, &problem(m, n));
        assert_eq!((plan.shape.tx, plan.shape.ty, plan.shape.split), (tx, 1, 1), "{m} × {n}");
        assert_eq!(plan.geometry.blocks(), blocks, "{m} × {n}");
    }
}

#[test]
fn split_slots_hold_a_partial_vector_per_range() {
    assert_eq!(split_slots(Op::N, 1000, 1000, 1), 0);
    assert_eq!(split_slots(Op::N, 1000, 50, 8), 8 * 1000);
    assert_eq!(split_slots(Op::T, 1000, 50, 8), 8 * 50);
}

#[test]
fn bytes_moved_counts_a_x_and_y_twice() {
    assert_eq!(bytes_moved(Op::N, 1000, 1000), (1e6 + 3000.0) * 4.0);
    assert_eq!(bytes_moved(Op::N, 10, 20), (200.0 + 20.0 + 20.0) * 4.0);
    assert_eq!(bytes_moved(Op::T, 10, 20), (200.0 + 10.0 + 40.0) * 4.0);
}

/// Kernels whose code or launch assumes one range of columns: `gemv_n_f32_wide_any`'s
/// whole row tiles walk every column whatever their block's split range
/// (`gemv_n_any_columns` in kernels/gemv.cu), and the few-columns kernels are
/// launched for m ≤ 64 under the short kernels' layout (`Layout::of_kernel`),
/// whose split ranges differ from those of `n_geometry`, which sized their
/// grid. A split in their launch spaces would give wrong sums.
#[test]
fn kernels_that_take_one_column_range_are_never_split() {
    for spec in [&GEMV_N_WIDE_ANY, &GEMV_N_FEW, &GEMV_N_SCALAR_FEW] {
        assert_eq!(spec.space.splits, &[1], "{}", spec.name);
    }
}
