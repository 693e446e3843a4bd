//! What the GPU tests and the benchmark share: random data, device buffers
//! with guard zones, address space with nothing mapped, streams, captured CUDA
//! graphs, and CUDA-event timing.
//! Part of the library so that the test binaries and the `mublas` tool, run
//! on a machine without Rust, use one implementation.

pub mod graph;
pub mod guarded;
pub mod random;
pub mod stream;
pub mod timing;
pub mod unmapped;

pub use graph::CapturedGraph;
pub use guarded::GuardedBuffer;
pub use random::Random;
pub use stream::{Stream, StreamGate};
pub use timing::EventTimer;
pub use unmapped::UnmappedRange;

/// The host's cores: the long random draws and the tests' float64 references of large cases use them all.
pub fn host_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |c| c.get())
}
