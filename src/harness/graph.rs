//! A CUDA graph captured from a stream: the tests of calls made while a
//! program (PyTorch's `torch.cuda.graph`, say) captures them.

use crate::launch::context::ContextGuard;
use crate::launch::driver::describe;
use crate::status::{Error, Result};
use cudarc::driver::sys;

pub struct CapturedGraph {
    context: sys::CUcontext,
    graph: sys::CUgraph,
    exec: sys::CUgraphExec,
}

/// The driver call `what` returned `result`: an error names the call and the driver's error.
fn check(what: &str, result: sys::CUresult) -> Result<()> {
    result.result().map_err(|e| Error::ExecutionFailed(format!("{what}: {}", describe(&e))))
}

impl CapturedGraph {
    /// Runs `calls` while `stream` captures them in the global mode (the
    /// strictest: any allocation or wait on the thread invalidates the
    /// capture; PyTorch's default), then instantiates the graph. An error
    /// when the capture was invalidated.
    // Opaque driver handles, never dereferenced here; the driver checks them.
    #[allow(clippy::not_unsafe_ptr_arg_deref)]
    pub fn capture(context: sys::CUcontext, stream: sys::CUstream, calls: impl FnOnce()) -> Result<CapturedGraph> {
        let _bound = ContextGuard::bind(context)?;
        let mode = sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL;
        // SAFETY: a stream of this context.
        check("cuStreamBeginCapture", unsafe { sys::cuStreamBeginCapture_v2(stream, mode) })?;
        calls();
        let mut graph: sys::CUgraph = std::ptr::null_mut();
        // SAFETY: the stream began capturing above; an out-pointer.
        check("cuStreamEndCapture", unsafe { sys::cuStreamEndCapture(stream, &mut graph) })?;
        let mut exec: sys::CUgraphExec = std::ptr::null_mut();
        // SAFETY: the graph just captured; an out-pointer.
        let instantiated =
            check("cuGraphInstantiate", unsafe { sys::cuGraphInstantiateWithFlags(&mut exec, graph, 0) });
        let captured = CapturedGraph { context, graph, exec };
        instantiated.map(|()| captured)
    }

    /// Launches the graph on `stream` (asynchronously).
    #[allow(clippy::not_unsafe_ptr_arg_deref)]
    pub fn launch(&self, stream: sys::CUstream) -> Result<()> {
        let _bound = ContextGuard::bind(self.context)?;
        // SAFETY: an instantiated graph of this context.
        check("cuGraphLaunch", unsafe { sys::cuGraphLaunch(self.exec, stream) })
    }
}

impl Drop for CapturedGraph {
    fn drop(&mut self) {
        if let Ok(_bound) = ContextGuard::bind(self.context) {
            // SAFETY: created by us, destroyed once (null when instantiation failed).
            unsafe {
                if !self.exec.is_null() {
                    let _ = sys::cuGraphExecDestroy(self.exec);
                }
                let _ = sys::cuGraphDestroy(self.graph);
            }
        }
    }
}
