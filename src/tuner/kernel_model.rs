//! What the tuner knows of one kernel: its compiled resources (read from the
//! driver once per loaded function) and its launch space (declared in the
//! routine that launches it).

/// Resources of one compiled kernel, as the driver reports them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelModel {
    /// Registers per thread (CU_FUNC_ATTRIBUTE_NUM_REGS).
    pub registers_per_thread: u32,
    /// Static shared memory per block in bytes (CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES).
    pub static_shared_bytes: u32,
    /// The most threads a block of this kernel may have (CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK).
    pub max_threads_per_block: u32,
}

/// The problem a launch is sized for. Each routine says what m, n, k mean for
/// it (SAXPY: n = vector length; GEMV: m rows, n columns; GEMM: m, n, k). Two
/// equal problems always get the same plan from one rule, so with the kernel
/// and the rule this is the plan cache's key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Problem {
    pub m: u64,
    pub n: u64,
    pub k: u64,
}

/// A block shape plus the extra dimension a kernel may declare (a reduction
/// split, a tile variant); `split` is 1 for kernels that have none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LaunchShape {
    pub tx: u32,
    pub ty: u32,
    pub split: u32,
}

/// Grid and dynamic shared memory of a launch, given the problem and the shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub grid: (u32, u32, u32),
    pub dynamic_shared_bytes: u32,
}

impl Geometry {
    /// All blocks of the grid: what Grid-Occupancy counts.
    pub fn blocks(&self) -> u64 {
        self.grid.0 as u64 * self.grid.1 as u64 * self.grid.2 as u64
    }
}

/// The candidate shapes a kernel accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchSpace {
    /// Tx runs over tx_min, tx_min + tx_step, … ≤ tx_max (and ≤ the kernel's own limit).
    pub tx_step: u32,
    pub tx_min: u32,
    pub tx_max: u32,
    /// Ty runs over ty_min ..= ty_max (1 ..= 1 for 1-D blocks).
    pub ty_min: u32,
    pub ty_max: u32,
    /// The values of the extra dimension, `&[1]` when the kernel has none.
    pub splits: &'static [u32],
}

impl LaunchSpace {
    /// The paper's default Tx step, `128 / (sizeof(float) · Nt)` with Nt = 4
    /// (one 128-byte segment per step of 16-byte loads); used when `tx_step` is 0.
    pub const DEFAULT_TX_STEP: u32 = 8;

    /// `tx_step`, or [`Self::DEFAULT_TX_STEP`] when it is 0.
    pub fn effective_tx_step(&self) -> u32 {
        if self.tx_step == 0 { Self::DEFAULT_TX_STEP } else { self.tx_step }
    }

    /// Every shape this space declares whose Tx·Ty is at most `max_threads`,
    /// Tx ascending (for tests and tools that run each one; the optimizer
    /// visits its own order and bounds).
    pub fn shapes(&self, max_threads: u32) -> impl Iterator<Item = LaunchShape> + '_ {
        let splits: &[u32] = if self.splits.is_empty() { &[1] } else { self.splits };
        (self.tx_min..=self.tx_max).step_by(self.effective_tx_step() as usize).filter(|&tx| tx > 0).flat_map(
            move |tx| {
                (self.ty_min.max(1)..=self.ty_max)
                    .filter(move |ty| tx.checked_mul(*ty).is_some_and(|threads| threads <= max_threads))
                    .flat_map(move |ty| splits.iter().map(move |&split| LaunchShape { tx, ty, split }))
            },
        )
    }

    /// Whether a shape is one this space declares (the kernel's own thread
    /// limit aside): Tx on the lattice, Ty in range, split listed.
    pub fn contains(&self, shape: &LaunchShape) -> bool {
        let tx_on_lattice = shape.tx >= self.tx_min
            && shape.tx <= self.tx_max
            && (shape.tx - self.tx_min).is_multiple_of(self.effective_tx_step());
        let split_listed = if self.splits.is_empty() { shape.split == 1 } else { self.splits.contains(&shape.split) };
        tx_on_lattice && shape.tx > 0 && (self.ty_min.max(1)..=self.ty_max).contains(&shape.ty) && split_listed
    }
}

/// A kernel as the tuner sees it: its name (the PTX entry point, and the key of
/// its tuning recipe), its launch space, and how the problem and the shape give
/// the grid. Routines declare one `static` of these per kernel.
#[derive(Clone, Copy, Debug)]
pub struct KernelSpec {
    pub name: &'static str,
    pub space: LaunchSpace,
    pub geometry: fn(&Problem, &LaunchShape) -> Geometry,
}
