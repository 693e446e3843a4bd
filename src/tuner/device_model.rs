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

    /// A GPU as its driver reports it, for tests: the limits every part since
    /// cc 3.5 shares (warps of 32; a block of at most 1024 threads, 64 Ki
    /// registers and 48 KiB of shared memory without opting in; 64 Ki
    /// registers an SM), and its own. A block may opt in to the SM's shared
    /// memory but for the 1 KiB that the driver keeps of each block's since
    /// Ampere.
    #[allow(clippy::too_many_arguments)]
    fn part(
        name: &str,
        compute_capability: (u32, u32),
        sm_count: u32,
        max_threads_per_sm: u32,
        max_blocks_per_sm: u32,
        shared_kib_per_sm: u32,
        memory_clock_khz: u32,
        memory_bus_bits: u32,
    ) -> Self {
        let shared_bytes_per_sm = shared_kib_per_sm << 10;
        let reserved = if compute_capability.0 >= 8 { 1024 } else { 0 };
        DeviceModel {
            name: name.to_string(),
            compute_capability,
            sm_count,
            warp_size: 32,
            max_threads_per_block: 1024,
            max_threads_per_sm,
            max_blocks_per_sm,
            registers_per_sm: 65536,
            registers_per_block: 65536,
            shared_bytes_per_sm,
            shared_bytes_per_block: 49_152,
            shared_bytes_per_block_optin: shared_bytes_per_sm - reserved,
            shared_bytes_reserved_per_block: reserved,
            register_allocation_unit: 0,
            warp_allocation_granularity: 0,
            shared_allocation_unit: 0,
            memory_clock_khz,
            memory_bus_bits,
        }
        .with_granularities_of_compute_capability()
    }

    /// An H100 SXM5 80 GB as its driver reports it, for tests without a GPU.
    pub fn h100_sxm() -> Self {
        Self::part("NVIDIA H100 80GB HBM3", (9, 0), 132, 2048, 32, 228, 2_619_000, 5120)
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
        Self::part("Tesla K20m", (3, 5), 13, 2048, 16, 48, 2_600_000, 320)
    }

    /// Current GPUs other than the H100 SXM and H200 that mublas was measured
    /// on, each no larger than an H100 SXM in any limit (nor newer): fewer
    /// SMs (114 to 28), fewer threads or blocks an SM (cc 8.6, 8.9, 7.5), less
    /// shared memory (164 to 64 KiB an SM), slower DRAM, and the code of
    /// compute capability 8.x and 7.x. The GPU tests plan launches for each
    /// and run them on the H100 or H200 they have
    /// ([`Handle::create_planned_for`](crate::handle::Handle::create_planned_for)),
    /// so that every rule that reads the device meets the parts it was not
    /// measured on.
    pub fn other_gpus() -> Vec<DeviceModel> {
        vec![
            Self::part("NVIDIA H100 PCIe", (9, 0), 114, 2048, 32, 228, 1_593_000, 5120),
            Self::part("NVIDIA A100-SXM4-80GB", (8, 0), 108, 2048, 32, 164, 1_593_000, 5120),
            Self::part("NVIDIA L4", (8, 9), 58, 1536, 24, 100, 6_251_000, 192),
            Self::part("NVIDIA GeForce RTX 3060", (8, 6), 28, 1536, 16, 100, 7_501_000, 192),
            Self::part("Tesla T4", (7, 5), 40, 1024, 16, 64, 5_001_000, 256),
            Self::part("Tesla V100-SXM2-16GB", (7, 0), 80, 2048, 32, 96, 877_000, 4096),
        ]
    }

    /// The limits in which this model exceeds `device` (none: launches
    /// planned for this model run on `device` as planned, each block with no
    /// more threads, registers or shared memory than `device` gives one, and
    /// no more blocks at once than it holds, which stream-K's waits rely on):
    /// a newer compute capability, another warp size, more SMs, or more of
    /// anything an SM or a block.
    pub fn limits_exceeding(&self, device: &DeviceModel) -> Vec<&'static str> {
        [
            ("compute capability", self.compute_capability > device.compute_capability),
            ("warp size", self.warp_size != device.warp_size),
            ("SMs", self.sm_count > device.sm_count),
            ("threads a block", self.max_threads_per_block > device.max_threads_per_block),
            ("threads an SM", self.max_threads_per_sm > device.max_threads_per_sm),
            ("blocks an SM", self.max_blocks_per_sm > device.max_blocks_per_sm),
            ("registers an SM", self.registers_per_sm > device.registers_per_sm),
            ("registers a block", self.registers_per_block > device.registers_per_block),
            ("shared memory an SM", self.shared_bytes_per_sm > device.shared_bytes_per_sm),
            ("shared memory a block", self.shared_bytes_per_block_limit() > device.shared_bytes_per_block_limit()),
        ]
        .into_iter()
        .filter_map(|(limit, exceeds)| exceeds.then_some(limit))
        .collect()
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

    #[test]
    fn the_other_gpus_fit_within_an_h100_and_not_the_reverse() {
        let h100 = DeviceModel::h100_sxm();
        let others = DeviceModel::other_gpus();
        for gpu in &others {
            assert_eq!(gpu.limits_exceeding(&h100), Vec::<&str>::new(), "{}", gpu.name);
            assert!(gpu.sm_count < h100.sm_count, "{}", gpu.name);
        }
        assert_eq!(DeviceModel::h200().limits_exceeding(&h100), Vec::<&str>::new());
        let part = |name: &str| others.iter().find(|gpu| gpu.name.contains(name)).unwrap();
        assert_eq!(
            h100.limits_exceeding(part("T4")),
            [
                "compute capability",
                "SMs",
                "threads an SM",
                "blocks an SM",
                "shared memory an SM",
                "shared memory a block"
            ]
        );
        assert_eq!(
            part("H100 PCIe").limits_exceeding(part("A100")),
            ["compute capability", "SMs", "shared memory an SM", "shared memory a block"]
        );
        // The drivers' own figures: A100 164 KiB an SM, 163 opt-in; Ada 48 warps an SM, 99 KiB opt-in; Turing none reserved.
        let a100 = part("A100");
        assert_eq!((a100.shared_bytes_per_sm, a100.shared_bytes_per_block_optin), (167_936, 166_912));
        assert_eq!((part("L4").max_warps_per_sm(), part("L4").shared_bytes_per_block_optin), (48, 101_376));
        assert_eq!((part("T4").shared_bytes_per_block_limit(), part("T4").shared_allocation_unit), (65_536, 256));
        // A100 80GB's 2039 GB/s.
        assert_eq!((a100.dram_bytes_per_sm_second() * 108.0 / 1e9).round(), 2039.0);
    }
}
