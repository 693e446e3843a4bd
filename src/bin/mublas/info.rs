//! `mublas info`.

use mublas::Handle;
use std::time::Instant;

pub fn run() -> Result<(), String> {
    mublas::launch::driver::init().map_err(|e| format!("no usable GPU: {e}"))?;
    let started = Instant::now();
    let handle = Handle::create().map_err(|e| format!("mublasCreate failed: {e}"))?;
    let first_create = started.elapsed();
    let started = Instant::now();
    let second = Handle::create().map_err(|e| format!("second create failed: {e}"))?;
    let second_create = started.elapsed();
    drop(second);

    let device = &handle.device;
    let m = device.model();
    println!("mublas {} on device {}: {}", env!("CARGO_PKG_VERSION"), device.ordinal, m.name);
    println!(
        "  compute capability {}.{}, {} SMs, warp {}; DRAM {} MHz × {} bits, {:.1} GB/s per SM (fast DRAM: {})",
        m.compute_capability.0,
        m.compute_capability.1,
        m.sm_count,
        m.warp_size,
        m.memory_clock_khz / 1000,
        m.memory_bus_bits,
        m.dram_bytes_per_sm_second() / 1e9,
        mublas::routines::gemv::fast_dram(m)
    );
    println!(
        "  per SM: {} threads, {} blocks, {} registers, {} B shared; per block: {} threads, {} registers, {} B shared ({} opt-in, {} reserved)",
        m.max_threads_per_sm,
        m.max_blocks_per_sm,
        m.registers_per_sm,
        m.shared_bytes_per_sm,
        m.max_threads_per_block,
        m.registers_per_block,
        m.shared_bytes_per_block,
        m.shared_bytes_per_block_optin,
        m.shared_bytes_reserved_per_block
    );
    println!(
        "  allocation units: registers {} per warp, warps in groups of {}, shared memory {} B",
        m.register_allocation_unit, m.warp_allocation_granularity, m.shared_allocation_unit
    );
    println!(
        "  create: first {:.2} ms (module loading {:.2} ms; context creation included if first in process), second {:.3} ms",
        first_create.as_secs_f64() * 1e3,
        device.load_seconds * 1e3,
        second_create.as_secs_f64() * 1e3
    );
    println!("  work buffer: {} bytes", handle.work_buffer_size());
    println!("kernel images:");
    for (name, choice) in &device.loaded_images {
        println!("  {name:<12} {choice}");
    }
    println!("kernels:                     registers  static smem  max threads/block");
    let mut kernels: Vec<_> = device.kernels().collect();
    kernels.sort_by_key(|k| k.name);
    for k in kernels {
        println!(
            "  {:<26} {:>9} {:>12} {:>18}",
            k.name, k.model.registers_per_thread, k.model.static_shared_bytes, k.model.max_threads_per_block
        );
    }
    println!("tuning recipes: {}", device.tuner.recipes().describe_source());
    if !device.tuner.forced().is_empty() {
        println!(
            "forced launch shapes ({}): {}",
            mublas::tuner::forcing::FORCE_SHAPE_VARIABLE,
            device.tuner.forced().to_setting()
        );
    }
    Ok(())
}
