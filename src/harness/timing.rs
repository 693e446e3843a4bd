//! Benchmark timing by CUDA events (shared/docs/testing.md): an event pair
//! around each call on the stream, warm-up calls first, the median reported.

use crate::launch::context::ContextGuard;
use crate::launch::driver::describe;
use crate::status::{Error, Result};
use cudarc::driver::{result, sys};

pub struct EventTimer {
    context: sys::CUcontext,
    stream: sys::CUstream,
    /// An event pair per call of [`EventTimer::time_queued_us`] (one for [`EventTimer::time_us`]).
    queued: Vec<(sys::CUevent, sys::CUevent)>,
}

/// The most calls [`EventTimer::time_queued_us`] times in one go.
pub const MAX_QUEUED_CALLS: usize = 8;

impl EventTimer {
    pub fn new(context: sys::CUcontext, stream: sys::CUstream) -> Result<EventTimer> {
        let _bound = ContextGuard::bind(context)?;
        let create =
            || result::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT).map_err(|e| Error::Internal(describe(&e)));
        let mut queued = Vec::with_capacity(MAX_QUEUED_CALLS);
        for _ in 0..MAX_QUEUED_CALLS {
            queued.push((create()?, create()?));
        }
        Ok(EventTimer { context, stream, queued })
    }

    /// Microseconds the GPU spent between events recorded before and after `call`.
    pub fn time_us(&self, call: impl FnOnce() -> Result<()>) -> Result<f64> {
        let mut call = Some(call);
        Ok(self.time_queued_us(1, |_| call.take().expect("called once")())?[0])
    }

    /// Microseconds the GPU spent on each of `calls` calls queued back to
    /// back: an event pair around each, the host waiting only after the
    /// last. The first call starts on an idle GPU like a [`EventTimer::time_us`]
    /// call; each later one starts when the one before ends, so that its time
    /// is its kernels' and the gaps between them, without the host's part of
    /// the call or the launch on an idle GPU.
    pub fn time_queued_us(&self, calls: usize, mut call: impl FnMut(usize) -> Result<()>) -> Result<Vec<f64>> {
        assert!(calls <= MAX_QUEUED_CALLS, "at most {MAX_QUEUED_CALLS} queued calls");
        let _bound = ContextGuard::bind(self.context)?;
        let fail = |e: result::DriverError| Error::ExecutionFailed(describe(&e));
        for (j, &(start, stop)) in self.queued[..calls].iter().enumerate() {
            // SAFETY: events and stream belong to this context.
            unsafe { result::event::record(start, self.stream) }.map_err(fail)?;
            call(j)?;
            unsafe { result::event::record(stop, self.stream) }.map_err(fail)?;
        }
        let mut times = Vec::with_capacity(calls);
        for &(start, stop) in &self.queued[..calls] {
            // SAFETY: both recorded above, on this context's stream.
            unsafe {
                result::event::synchronize(stop).map_err(fail)?;
                times.push(result::event::elapsed(start, stop).map_err(fail)? as f64 * 1e3);
            }
        }
        Ok(times)
    }

    /// `warmups` untimed calls, then the median of `reps` timed ones; `call(i)` gets the rep index
    /// (the caller rotates its inputs by it).
    pub fn median_us(&self, warmups: usize, reps: usize, mut call: impl FnMut(usize) -> Result<()>) -> Result<f64> {
        for i in 0..warmups {
            self.time_us(|| call(i))?;
        }
        let mut times = Vec::with_capacity(reps);
        for i in 0..reps {
            times.push(self.time_us(|| call(warmups + i))?);
        }
        Ok(median(&mut times))
    }
}

pub fn median(values: &mut [f64]) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    let n = values.len();
    if n == 0 {
        f64::NAN
    } else if n % 2 == 1 {
        values[n / 2]
    } else {
        0.5 * (values[n / 2 - 1] + values[n / 2])
    }
}

impl Drop for EventTimer {
    fn drop(&mut self) {
        if let Ok(_bound) = ContextGuard::bind(self.context) {
            // SAFETY: created by us, destroyed once.
            unsafe {
                for &(start, stop) in &self.queued {
                    let _ = result::event::destroy(start);
                    let _ = result::event::destroy(stop);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(super::median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(super::median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
    }
}
