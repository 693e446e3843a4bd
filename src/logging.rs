//! Logging behind `MUBLAS_LOG` (not `RUST_LOG`, which the host program may use),
//! initialised once, lazily, on the first API call that can log.

use std::sync::Once;

pub fn init() {
    static INIT: Once = Once::new();
    INIT.call_once(|| {
        let env = env_logger::Env::new().filter("MUBLAS_LOG").write_style("MUBLAS_LOG_STYLE");
        // A Rust host may have installed a logger already; then ours stays out of the way.
        let _ = env_logger::Builder::from_env(env).format_target(false).try_init();
    });
}
