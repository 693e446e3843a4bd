//! What the tuner knows of one GPU, read from the driver once, at `mublasCreate`.

/// The device limits that the occupancy model needs (method.md §2), plus the
/// allocation granularities of its compute capability, which the driver does
/// not report and [`DeviceModel::granularities`] supplies.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceModel {
    pub name: String,
    pub compute_capability: (u32, u32),
    pub sm_count: u32,
    pub warp_size: u32,
    pub max_threads_per_block: u32,
    pub max_threads_per_sm: u32,
    pub max_blocks_per_sm: u32,
    pub registers_per_sm: u32,
    pub registers_per_block: u32,
    pub shared_bytes_per_sm: u32,
    pub shared_bytes_per_block: u32,
    pub shared_bytes_per_block_optin: u32,
    pub shared_bytes_reserved_per_block: u32,
    /// Registers are given to warps in units of this many (256 on every part since Kepler).
    pub register_allocation_unit: u32,
    /// Warps are given registers in groups of this many: the SM's register
    /// sub-partitions (4 on every part since Kepler except GP100's 2), each
    /// owning an equal share of the register file.
    pub warp_allocation_granularity: u32,
    /// Shared memory is given to blocks in units of this many bytes.
    pub shared_allocation_unit: u32,
    /// DRAM's peak clock in kHz and its bus width in bits, as the driver
    /// reports them (0 where it does not): the kernels that stream A choose
    /// by the bandwidth each SM gets ([`DeviceModel::dram_bytes_per_sm_second`]).
    pub memory_clock_khz: u32,
    pub memory_bus_bits: u32,
}

impl DeviceModel {
    /// Warps the hardware can hold per SM.
    pub fn max_warps_per_sm(&self) -> u32 {
        self.max_threads_per_sm / self.warp_size
    }

    /// DRAM's peak bandwidth shared by one SM, bytes per second (two
    /// transfers per clock); 0 when the driver reports no memory clock.
    pub fn dram_bytes_per_sm_second(&self) -> f64 {
        let peak = 2.0 * self.memory_clock_khz as f64 * 1e3 * (self.memory_bus_bits / 8) as f64;
        peak / self.sm_count.max(1) as f64
    }
}

/// Allocation granularities per compute-capability major, as NVIDIA's
/// `cuda_occupancy.h` (CUDA 12) and Occupancy Calculator give them. The driver
/// does not report these, so they live here, as data.
///
/// The "warp allocation granularity" is the number of register sub-partitions
/// (warp schedulers) per SM: registers are split evenly between them, so the
/// warps an SM can hold for registers is a multiple of it. This is the poster's
/// `floor(RM / RW, Wgran)` and `cuda_occupancy.h`'s
/// `numWarpsPerSubPartition × numSubPartitions`, which are equal.
const GRANULARITIES: &[ArchGranularity] = &[
    // cc major | cc minor (None = all) | register unit | warp granularity | shared unit (bytes)
    ArchGranularity { major: 3, minor: None, register_unit: 256, warp_granularity: 4, shared_unit: 256 },
    ArchGranularity { major: 5, minor: None, register_unit: 256, warp_granularity: 4, shared_unit: 256 },
    // GP100 has two sub-partitions per SM, the other Pascal parts four.
    ArchGranularity { major: 6, minor: Some(0), register_unit: 256, warp_granularity: 2, shared_unit: 256 },
    ArchGranularity { major: 6, minor: None, register_unit: 256, warp_granularity: 4, shared_unit: 256 },
    ArchGranularity { major: 7, minor: None, register_unit: 256, warp_granularity: 4, shared_unit: 256 },
    ArchGranularity { major: 8, minor: None, register_unit: 256, warp_granularity: 4, shared_unit: 128 },
    ArchGranularity { major: 9, minor: None, register_unit: 256, warp_granularity: 4, shared_unit: 128 },
    // Blackwell (10.x datacentre, 11.x Thor, 12.x consumer): not in the CUDA 12.6
    // header we checked; taken as Hopper's, which NVIDIA's calculator sheet for
    // 12.8 also shows. Checked on hardware by the model-vs-driver GPU test.
    ArchGranularity { major: 10, minor: None, register_unit: 256, warp_granularity: 4, shared_unit: 128 },
    ArchGranularity { major: 11, minor: None, register_unit: 256, warp_granularity: 4, shared_unit: 128 },
    ArchGranularity { major: 12, minor: None, register_unit: 256, warp_granularity: 4, shared_unit: 128 },
];

/// One row of [`GRANULARITIES`].
struct ArchGranularity {
    major: u32,
    minor: Option<u32>,
    register_unit: u32,
    warp_granularity: u32,
    shared_unit: u32,
}

impl DeviceModel {
    /// `(register_allocation_unit, warp_allocation_granularity, shared_allocation_unit)`
    /// of a compute capability. A part newer than the table gets the newest
    /// row (the values have not changed since Ampere); an older one, Kepler's.
    pub fn granularities(cc_major: u32, cc_minor: u32) -> (u32, u32, u32) {
        let exact =
            GRANULARITIES.iter().find(|row| row.major == cc_major && row.minor.is_none_or(|minor| minor == cc_minor));
        let row = exact.unwrap_or_else(|| {
            if cc_major > GRANULARITIES[GRANULARITIES.len() - 1].major {
                &GRANULARITIES[GRANULARITIES.len() - 1]
            } else {
                &GRANULARITIES[0]
            }
        });
        (row.register_unit, row.warp_granularity, row.shared_unit)
    }

    /// The most registers one thread may use: 255 before Volta, 256 since
    /// (`cudaOccRegAllocationMaxPerThread`). A kernel above it gets 0 blocks.
    pub fn max_registers_per_thread(&self) -> u32 {
        if self.compute_capability.0 >= 7 { 256 } else { 255 }
    }

    /// Shared memory one block may be given, counting the driver's reserved
    /// bytes: the opt-in limit (the launch layer raises a function's dynamic
    /// limit when a plan needs it), plus the per-block reservation that
    /// Ampere and later add (`cudaOccSMemPerBlock`).
    pub fn shared_bytes_per_block_limit(&self) -> u32 {
        let base = self.shared_bytes_per_block.max(self.shared_bytes_per_block_optin);
        if self.compute_capability.0 >= 8 { base.saturating_add(self.shared_bytes_reserved_per_block) } else { base }
    }

    /// Fills the three granularities from the compute capability.
    pub fn with_granularities_of_compute_capability(mut self) -> Self {
        let (major, minor) = self.compute_capability;
        let (registers, warps, shared) = Self::granularities(major, minor);
        self.register_allocation_unit = registers;
        self.warp_allocation_granularity = warps;
        self.shared_allocation_unit = shared;
        self
    }

    /// An H100 SXM5 80 GB as its driver reports it, for tests without a GPU.
    pub fn h100_sxm() -> Self {
        DeviceModel {
            name: "NVIDIA H100 80GB HBM3".to_string(),
            compute_capability: (9, 0),
            sm_count: 132,
            warp_size: 32,
            max_threads_per_block: 1024,
            max_threads_per_sm: 2048,
            max_blocks_per_sm: 32,
            registers_per_sm: 65536,
            registers_per_block: 65536,
            shared_bytes_per_sm: 233_472,
            shared_bytes_per_block: 49_152,
            shared_bytes_per_block_optin: 232_448,
            shared_bytes_reserved_per_block: 1024,
            register_allocation_unit: 0,
            warp_allocation_granularity: 0,
            shared_allocation_unit: 0,
            memory_clock_khz: 2_619_000,
            memory_bus_bits: 5120,
        }
        .with_granularities_of_compute_capability()
    }

    /// An H200 as its driver reports it: an H100 SXM's SMs on faster, wider DRAM.
    pub fn h200() -> Self {
        DeviceModel {
            name: "NVIDIA H200".to_string(),
            memory_clock_khz: 3_201_000,
            memory_bus_bits: 6016,
            ..DeviceModel::h100_sxm()
        }
    }

    /// The Kepler GPU of the MUBLAS poster's occupancy table (a Tesla K20m:
    /// 13 SMX, cc 3.5), for the test that reproduces that table.
    pub fn kepler_k20() -> Self {
        DeviceModel {
            name: "Tesla K20m".to_string(),
            compute_capability: (3, 5),
            sm_count: 13,
            warp_size: 32,
            max_threads_per_block: 1024,
            max_threads_per_sm: 2048,
            max_blocks_per_sm: 16,
            registers_per_sm: 65536,
            registers_per_block: 65536,
            shared_bytes_per_sm: 49_152,
            shared_bytes_per_block: 49_152,
            shared_bytes_per_block_optin: 49_152,
            shared_bytes_reserved_per_block: 0,
            register_allocation_unit: 0,
            warp_allocation_granularity: 0,
            shared_allocation_unit: 0,
            memory_clock_khz: 2_600_000,
            memory_bus_bits: 320,
        }
        .with_granularities_of_compute_capability()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn granularities_follow_cuda_occupancy_h() {
        assert_eq!(DeviceModel::granularities(3, 5), (256, 4, 256));
        assert_eq!(DeviceModel::granularities(6, 0), (256, 2, 256));
        assert_eq!(DeviceModel::granularities(6, 1), (256, 4, 256));
        assert_eq!(DeviceModel::granularities(7, 0), (256, 4, 256));
        assert_eq!(DeviceModel::granularities(7, 5), (256, 4, 256));
        assert_eq!(DeviceModel::granularities(8, 0), (256, 4, 128));
        assert_eq!(DeviceModel::granularities(8, 9), (256, 4, 128));
        assert_eq!(DeviceModel::granularities(9, 0), (256, 4, 128));
        assert_eq!(DeviceModel::granularities(12, 0), (256, 4, 128));
        // Unknown parts: newest row above, Kepler's below.
        assert_eq!(DeviceModel::granularities(15, 0), (256, 4, 128));
        assert_eq!(DeviceModel::granularities(2, 0), (256, 4, 256));
    }

    #[test]
    fn test_devices_are_complete() {
        let h100 = DeviceModel::h100_sxm();
        assert_eq!(h100.max_warps_per_sm(), 64);
        assert_eq!(h100.shared_allocation_unit, 128);
        // 227 KiB opt-in + 1 KiB reserved = the SM's 228 KiB.
        assert_eq!(h100.shared_bytes_per_block_limit(), 233_472);
        let k20 = DeviceModel::kepler_k20();
        assert_eq!(k20.max_warps_per_sm(), 64);
        assert_eq!((k20.register_allocation_unit, k20.warp_allocation_granularity), (256, 4));
        assert_eq!(k20.shared_bytes_per_block_limit(), 49_152);
        assert_eq!(k20.max_registers_per_thread(), 255);
    }
}
