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
    /// Warps are given registers in groups of this many.
    pub warp_allocation_granularity: u32,
    /// Shared memory is given to blocks in units of this many bytes.
    pub shared_allocation_unit: u32,
}

impl DeviceModel {
    /// Warps the hardware can hold per SM.
    pub fn max_warps_per_sm(&self) -> u32 {
        self.max_threads_per_sm / self.warp_size
    }
}
