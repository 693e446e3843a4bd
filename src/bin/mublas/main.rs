//! `mublas`: the command-line tool.
//!
//! - `mublas info`: the device, its compute capability, the kernels loaded and
//!   their resources, the tuning recipes in use. Exits non-zero without a GPU.
//! - `mublas bench [ROUTINE…] [--quick] [--reps N] [--csv FILE] [--alternate | --queued] [--shapes FILE]`:
//!   mublas against the real cuBLAS in the same run, by the method of shared/docs/testing.md
//!   (`--shapes`: `sgemm-tiles` over a file of "ta,tb,m,n,k" lines).
//! - `mublas tune`: the offline analyzer; writes tuning recipes.
//! - `mublas report`: size sweeps with every candidate shape; CSV and SVG figures.

mod bench;
mod decisions;
mod floor;
mod info;
mod overhead;
mod report;
mod tune;
mod workload;

use std::process::ExitCode;

const USAGE: &str = "usage: mublas info
       mublas bench [saxpy] [sgemv] [strmv] [sgemm] [sgemm-tiles] [sgemm-transposed] [sgemm-tail] [sgemm-stream-k] [sgemv-sawtooth] [sgemv-shapes] [floor] [decisions] [overhead] [--quick] [--reps N] [--csv FILE] [--alternate | --queued] [--shapes FILE]
       mublas tune [--routine R] [--size N]... [--target 0.98]
       mublas report [--routine R] [--out DIR] [--sizes N]";

fn main() -> ExitCode {
    mublas::logging::init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("info") => info::run(),
        Some("bench") => bench::run(&args[1..]),
        Some("tune") => tune::run(&args[1..]),
        Some("report") => report::run(&args[1..]),
        Some("-h") | Some("--help") | Some("help") => {
            println!("{USAGE}");
            Ok(())
        }
        _ => Err(USAGE.to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("mublas: {message}");
            ExitCode::FAILURE
        }
    }
}
