//! The three occupancies of method.md §2, from the CUDA occupancy model.
//!
//! [`max_active_blocks_per_sm`] reproduces what the driver's
//! `cuOccupancyMaxActiveBlocksPerMultiprocessor` returns, following NVIDIA's
//! `cuda_occupancy.h` (CUDA 12) step by step, for the default shared-memory
//! carveout and with partitioned global caching off (it exists only on 5.2/6.x).
//! The per-SM block-barrier limit that header adds on Hopper (2 barriers per
//! block slot, 1 used per block by default) never binds, so it is left out.

use super::device_model::DeviceModel;
use super::kernel_model::{Geometry, KernelModel, LaunchShape};

/// How well one launch fills the GPU (method.md §2). All three are in 0 ..= 1;
/// all are 0 when a block of the shape cannot run at all.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Occupancy {
    /// Blocks of this shape one SM holds at once (`MaxActvBlkPerMp`).
    pub active_blocks_per_sm: u32,
    /// Active warps per SM over the most the SM can hold (`WrpOcp`).
    pub warp: f64,
    /// Active blocks per SM over the most the SM can hold (`BlkOcp`).
    pub block: f64,
    /// Blocks of the grid over the blocks of the whole waves they need (`GrdOcp`).
    pub grid: f64,
}

impl Occupancy {
    /// A launch that cannot run.
    pub const NONE: Occupancy = Occupancy { active_blocks_per_sm: 0, warp: 0.0, block: 0.0, grid: 0.0 };

    /// The three occupancies of a shape launched with a geometry.
    pub fn of(device: &DeviceModel, kernel: &KernelModel, shape: &LaunchShape, geometry: &Geometry) -> Occupancy {
        let Some(threads_per_block) = shape.tx.checked_mul(shape.ty) else {
            return Occupancy::NONE;
        };
        let active = max_active_blocks_per_sm(device, kernel, threads_per_block, geometry.dynamic_shared_bytes);
        Occupancy::with_active_blocks(device, threads_per_block, active, geometry)
    }

    /// The occupancies once the active blocks per SM are known (the optimizer
    /// memoises those per block size: they do not depend on the grid).
    pub fn with_active_blocks(
        device: &DeviceModel,
        threads_per_block: u32,
        active: u32,
        geometry: &Geometry,
    ) -> Occupancy {
        if active == 0 {
            return Occupancy::NONE;
        }
        let warps_per_block = threads_per_block.div_ceil(device.warp_size);
        Occupancy {
            active_blocks_per_sm: active,
            warp: ratio(active as u64 * warps_per_block as u64, device.max_warps_per_sm() as u64),
            block: ratio(active as u64, device.max_blocks_per_sm as u64),
            grid: grid_occupancy(geometry.blocks(), active as u64 * device.sm_count as u64),
        }
    }

    /// Blocks the whole device holds at once: one wave.
    pub fn blocks_per_wave(&self, device: &DeviceModel) -> u64 {
        self.active_blocks_per_sm as u64 * device.sm_count as u64
    }

    /// Whether at least one block fits on an SM.
    pub fn is_runnable(&self) -> bool {
        self.active_blocks_per_sm > 0
    }
}

/// `GrdOcp = blocks / ceil(blocks, blocks_per_device)`, where ceil rounds up to
/// a multiple: 1 when every wave is full. 0 when there is nothing to launch or
/// nothing fits.
pub fn grid_occupancy(blocks: u64, active_blocks_per_device: u64) -> f64 {
    if blocks == 0 || active_blocks_per_device == 0 {
        return 0.0;
    }
    let whole_waves = waves(blocks, active_blocks_per_device).saturating_mul(active_blocks_per_device);
    blocks as f64 / whole_waves as f64
}

/// Waves `blocks` need at `active_blocks_per_device` a wave (u64::MAX when
/// nothing fits).
pub fn waves(blocks: u64, active_blocks_per_device: u64) -> u64 {
    if active_blocks_per_device == 0 { u64::MAX } else { blocks.div_ceil(active_blocks_per_device) }
}

/// Blocks of `threads_per_block` threads and `dynamic_shared_bytes` of
/// dynamic shared memory that one SM runs at once: the smallest of the limits
/// of blocks, warps, registers and shared memory; 0 when a block cannot run.
///
/// Arithmetic is in u64 and every divisor is checked, so that nonsense device
/// values give 0 rather than a panic.
pub fn max_active_blocks_per_sm(
    device: &DeviceModel,
    kernel: &KernelModel,
    threads_per_block: u32,
    dynamic_shared_bytes: u32,
) -> u32 {
    if threads_per_block == 0
        || device.warp_size == 0
        || threads_per_block > device.max_threads_per_block
        || threads_per_block > kernel.max_threads_per_block
    {
        return 0;
    }
    let warps_per_block = threads_per_block.div_ceil(device.warp_size) as u64;

    let limit_by_blocks = device.max_blocks_per_sm as u64;
    let limit_by_warps = device.max_warps_per_sm() as u64 / warps_per_block;
    let limit_by_registers = blocks_per_sm_by_registers(device, kernel, warps_per_block);
    let limit_by_shared = blocks_per_sm_by_shared_memory(device, kernel, dynamic_shared_bytes);

    let active = limit_by_blocks.min(limit_by_warps).min(limit_by_registers).min(limit_by_shared);
    active.min(u32::MAX as u64) as u32
}

/// Registers go to warps in units of `register_allocation_unit`, and each of
/// the SM's `warp_allocation_granularity` sub-partitions owns an equal share of
/// the register file (`cudaOccMaxBlocksPerSMRegsLimit`).
fn blocks_per_sm_by_registers(device: &DeviceModel, kernel: &KernelModel, warps_per_block: u64) -> u64 {
    let unit = device.register_allocation_unit.max(1) as u64;
    let sub_partitions = device.warp_allocation_granularity.max(1) as u64;
    let registers_per_warp = (kernel.registers_per_thread as u64 * device.warp_size as u64).div_ceil(unit) * unit;
    let registers_per_block = registers_per_warp * warps_per_block;
    // The hardware checks the per-block limit as if the block's warps were
    // spread over every sub-partition, so it rounds the warps up to them.
    let registers_assumed_per_block = registers_per_warp * warps_per_block.div_ceil(sub_partitions) * sub_partitions;
    let block_limit = device.registers_per_block as u64;
    if kernel.registers_per_thread > device.max_registers_per_thread()
        || registers_per_block > block_limit
        || registers_assumed_per_block > block_limit
    {
        return 0;
    }
    if registers_per_warp == 0 {
        return u64::MAX;
    }
    let warps_per_sub_partition = device.registers_per_sm as u64 / sub_partitions / registers_per_warp;
    warps_per_sub_partition * sub_partitions / warps_per_block
}

/// Shared memory goes to blocks in units of `shared_allocation_unit`, and the
/// driver reserves some per block on Ampere and later
/// (`cudaOccMaxBlocksPerSMSmemLimit`). With the default carveout the driver
/// configures the SM's whole shared memory whenever any block uses some, so
/// the carveout steps (8 KiB … 228 KiB) do not enter.
fn blocks_per_sm_by_shared_memory(device: &DeviceModel, kernel: &KernelModel, dynamic_shared_bytes: u32) -> u64 {
    let unit = device.shared_allocation_unit.max(1) as u64;
    let used =
        kernel.static_shared_bytes as u64 + device.shared_bytes_reserved_per_block as u64 + dynamic_shared_bytes as u64;
    let allocated = used.div_ceil(unit) * unit;
    if allocated > device.shared_bytes_per_block_limit() as u64 {
        return 0;
    }
    if allocated == 0 {
        return u64::MAX;
    }
    device.shared_bytes_per_sm as u64 / allocated
}

fn ratio(numerator: u64, denominator: u64) -> f64 {
    if denominator == 0 { 0.0 } else { numerator as f64 / denominator as f64 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(registers_per_thread: u32, static_shared_bytes: u32) -> KernelModel {
        KernelModel { registers_per_thread, static_shared_bytes, max_threads_per_block: 1024 }
    }

    fn one_dimensional(tx: u32) -> LaunchShape {
        LaunchShape { tx, ty: 1, split: 1 }
    }

    fn grid_of(blocks: u32, dynamic_shared_bytes: u32) -> Geometry {
        Geometry { grid: (blocks, 1, 1), dynamic_shared_bytes }
    }

    /// The MUBLAS poster's table: Kepler, an SGEMV-N kernel of 39 registers per
    /// thread, Tx = 32, Ty = 4 … 16, shared memory SB = Tx·Ty·16 bytes (x staged
    /// as float4 per thread: 32·Ty·4·4).
    ///
    /// By hand: a warp needs ceil(39·32, 256) = 1280 registers; per sub-partition
    /// floor(16384 / 1280) = 12 warps, so 48 warps per SM for registers
    /// (= the poster's floor(65536/1280, 4) = 48). A block has Ty warps, so the
    /// register limit is floor(48 / Ty); the shared-memory limit is
    /// floor(49152 / (512·Ty)) = floor(96 / Ty); the block limit 16.
    ///
    /// | Ty | regs: 48/Ty | smem: 96/Ty | active | warps | WrpOcp | BlkOcp |
    /// |----|-------------|-------------|--------|-------|--------|--------|
    /// |  4 | 12 | 24 | 12 | 48 | 48/64 | 12/16 |
    /// |  5 |  9 | 19 |  9 | 45 | 45/64 |  9/16 |
    /// |  6 |  8 | 16 |  8 | 48 | 48/64 |  8/16 |
    /// |  7 |  6 | 13 |  6 | 42 | 42/64 |  6/16 |
    /// |  8 |  6 | 12 |  6 | 48 | 48/64 |  6/16 |
    /// |  9 |  5 | 10 |  5 | 45 | 45/64 |  5/16 |
    /// | 10 |  4 |  9 |  4 | 40 | 40/64 |  4/16 |
    /// | 11 |  4 |  8 |  4 | 44 | 44/64 |  4/16 |
    /// | 12 |  4 |  8 |  4 | 48 | 48/64 |  4/16 |
    /// | 13 |  3 |  7 |  3 | 39 | 39/64 |  3/16 |
    /// | 14 |  3 |  6 |  3 | 42 | 42/64 |  3/16 |
    /// | 15 |  3 |  6 |  3 | 45 | 45/64 |  3/16 |
    /// | 16 |  3 |  6 |  3 | 48 | 48/64 |  3/16 |
    ///
    /// Grid-Occupancy for M = 20000 rows on 13 SMX: BD = ceil(20000 / 128) = 157
    /// blocks whatever Ty; BD-max = active·13.
    /// Ty = 4: 156 → 157/312. Ty = 5: 117 → 157/234. Ty = 10: 52 → 157/208.
    /// Ty = 16: 39 → 157/195.
    #[test]
    fn poster_kepler_table() {
        let device = DeviceModel::kepler_k20();
        let sgemv_n = kernel(39, 0);
        let expected_active = [12, 9, 8, 6, 6, 5, 4, 4, 4, 3, 3, 3, 3];
        for (ty, &active) in (4u32..=16).zip(expected_active.iter()) {
            let shape = LaunchShape { tx: 32, ty, split: 1 };
            let geometry = grid_of(157, 512 * ty);
            let occupancy = Occupancy::of(&device, &sgemv_n, &shape, &geometry);
            assert_eq!(occupancy.active_blocks_per_sm, active, "Ty = {ty}");
            assert_eq!(occupancy.warp, (active * ty) as f64 / 64.0, "Ty = {ty}");
            assert_eq!(occupancy.block, active as f64 / 16.0, "Ty = {ty}");
        }
        let grid_at = |ty: u32| {
            Occupancy::of(&device, &sgemv_n, &LaunchShape { tx: 32, ty, split: 1 }, &grid_of(157, 512 * ty)).grid
        };
        assert_eq!(grid_at(4), 157.0 / 312.0);
        assert_eq!(grid_at(5), 157.0 / 234.0);
        assert_eq!(grid_at(10), 157.0 / 208.0);
        assert_eq!(grid_at(16), 157.0 / 195.0);
    }

    /// 32 registers, 256 threads: a warp takes 1024 registers, 16 warps per
    /// sub-partition, 64 per SM → 8 blocks (also the warp limit 64/8).
    /// Shared memory: only the 1 KiB reservation → 228 blocks. So 8 blocks,
    /// 64 warps (WrpOcp 1.0), BlkOcp 8/32.
    #[test]
    fn h100_register_and_warp_limits_agree() {
        let device = DeviceModel::h100_sxm();
        let occupancy = Occupancy::of(&device, &kernel(32, 0), &one_dimensional(256), &grid_of(1056, 0));
        assert_eq!(occupancy.active_blocks_per_sm, 8);
        assert_eq!(occupancy.warp, 1.0);
        assert_eq!(occupancy.block, 0.25);
        assert_eq!(occupancy.grid, 1.0);
    }

    /// 64 registers, 1024 threads: 2048 per warp, 32 warps = 65536 = the
    /// per-block limit exactly, so it runs; 8 warps per sub-partition, 32 per
    /// SM → 1 block. WrpOcp 32/64.
    #[test]
    fn h100_full_register_file_block() {
        let device = DeviceModel::h100_sxm();
        assert_eq!(max_active_blocks_per_sm(&device, &kernel(64, 0), 1024, 0), 1);
        let occupancy = Occupancy::of(&device, &kernel(64, 0), &one_dimensional(1024), &grid_of(10, 0));
        assert_eq!(occupancy.warp, 0.5);
        assert_eq!(occupancy.block, 1.0 / 32.0);
    }

    /// 255 registers: 255·32 = 8160 rounds to 8192 per warp; 512 threads = 16
    /// warps = 131072 > 65536 registers per block → cannot launch. 256 threads:
    /// 8 warps = 65536 → 1 block (2 warps per sub-partition = 8 per SM).
    #[test]
    fn h100_register_heavy_blocks() {
        let device = DeviceModel::h100_sxm();
        assert_eq!(max_active_blocks_per_sm(&device, &kernel(255, 0), 512, 0), 0);
        assert_eq!(max_active_blocks_per_sm(&device, &kernel(255, 0), 256, 0), 1);
        // 257 registers is over Hopper's 256 per thread, whatever the block.
        assert_eq!(max_active_blocks_per_sm(&device, &kernel(257, 0), 32, 0), 0);
        assert_eq!(max_active_blocks_per_sm(&device, &kernel(256, 0), 32, 0), 8);
    }

    /// 40 registers, 96 threads (3 warps): 1280 per warp, 12 warps per
    /// sub-partition, 48 per SM → 16 blocks; the warp limit is 64/3 = 21; the
    /// hardware check counts 4 warps (3 rounded to the 4 sub-partitions) ×
    /// 1280 = 5120 ≤ 65536. So 16, WrpOcp 48/64, BlkOcp 16/32.
    #[test]
    fn h100_partial_warp_group() {
        let device = DeviceModel::h100_sxm();
        let occupancy = Occupancy::of(&device, &kernel(40, 0), &one_dimensional(96), &grid_of(1, 0));
        assert_eq!(occupancy.active_blocks_per_sm, 16);
        assert_eq!(occupancy.warp, 0.75);
        assert_eq!(occupancy.block, 0.5);
    }

    /// Shared memory on H100: 48 KiB static + 1 KiB reserved = 50176 bytes
    /// (a multiple of 128) → floor(233472 / 50176) = 4 blocks. 227 KiB dynamic
    /// plus 1 KiB = 233472 = the limit → 1 block; one byte more rounds to 233600
    /// and cannot launch. 100 bytes dynamic: 1124 rounds to 1152 → 202 blocks,
    /// so the block limit (32) binds.
    #[test]
    fn h100_shared_memory_limits() {
        let device = DeviceModel::h100_sxm();
        assert_eq!(max_active_blocks_per_sm(&device, &kernel(32, 49_152), 128, 0), 4);
        assert_eq!(max_active_blocks_per_sm(&device, &kernel(32, 0), 128, 232_448), 1);
        assert_eq!(max_active_blocks_per_sm(&device, &kernel(32, 0), 128, 232_449), 0);
        assert_eq!(max_active_blocks_per_sm(&device, &kernel(16, 0), 64, 100), 32);
    }

    #[test]
    fn thread_limits() {
        let device = DeviceModel::h100_sxm();
        let small = KernelModel { registers_per_thread: 32, static_shared_bytes: 0, max_threads_per_block: 256 };
        assert_eq!(max_active_blocks_per_sm(&device, &small, 512, 0), 0);
        assert_eq!(max_active_blocks_per_sm(&device, &small, 256, 0), 8);
        assert_eq!(max_active_blocks_per_sm(&device, &kernel(32, 0), 1025, 0), 0);
        assert_eq!(max_active_blocks_per_sm(&device, &kernel(32, 0), 0, 0), 0);
        // A kernel with no registers is limited by warps and blocks only:
        // 32 threads → 1 warp → min(64, 32) = 32.
        assert_eq!(max_active_blocks_per_sm(&device, &kernel(0, 0), 32, 0), 32);
        // 1000 threads round up to 32 warps: 64 / 32 = 2 blocks.
        assert_eq!(max_active_blocks_per_sm(&device, &kernel(0, 0), 1000, 0), 2);
    }

    /// 8 blocks per SM × 132 SMs = 1056 per wave; 1057 blocks need two waves
    /// → 1057/2112.
    #[test]
    fn grid_occupancy_counts_partial_waves() {
        let device = DeviceModel::h100_sxm();
        let occupancy = Occupancy::of(&device, &kernel(32, 0), &one_dimensional(256), &grid_of(1057, 0));
        assert_eq!(occupancy.grid, 1057.0 / 2112.0);
        assert_eq!(grid_occupancy(1, 1056), 1.0 / 1056.0);
        assert_eq!(grid_occupancy(2112, 1056), 1.0);
        assert_eq!(grid_occupancy(0, 1056), 0.0);
        assert_eq!(grid_occupancy(5, 0), 0.0);
    }

    #[test]
    fn nothing_fits_gives_zero_everywhere() {
        let device = DeviceModel::h100_sxm();
        let occupancy = Occupancy::of(&device, &kernel(255, 0), &one_dimensional(1024), &grid_of(100, 0));
        assert_eq!(occupancy, Occupancy::NONE);
        assert!(!occupancy.is_runnable());
    }

    #[test]
    fn nonsense_device_values_do_not_panic() {
        let mut device = DeviceModel::h100_sxm();
        device.warp_size = 0;
        assert_eq!(max_active_blocks_per_sm(&device, &kernel(32, 0), 256, 0), 0);
        let mut device = DeviceModel::h100_sxm();
        device.max_blocks_per_sm = 0;
        device.sm_count = 0;
        device.register_allocation_unit = 0;
        device.warp_allocation_granularity = 0;
        device.shared_allocation_unit = 0;
        let occupancy =
            Occupancy::of(&device, &kernel(32, 0), &LaunchShape { tx: u32::MAX, ty: 2, split: 1 }, &grid_of(1, 0));
        assert_eq!(occupancy, Occupancy::NONE);
        let occupancy = Occupancy::of(&device, &kernel(32, 0), &one_dimensional(256), &grid_of(1, 0));
        assert_eq!(occupancy, Occupancy::NONE);
    }
}
