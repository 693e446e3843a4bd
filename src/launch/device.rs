//! Per-device state, shared by every handle on that device and context: the
//! context (the device's primary context, retained, unless the program made
//! its own), the loaded kernels, the device model and the tuner.
//!
//! Created on the first `mublasCreate` for a device (and context) and kept
//! while any handle uses it, so a second handle costs no module loading.

use super::context::ContextIncarnation;
use super::driver::{self, describe};
use super::images::{ImageChoice, KernelImage, PtxForcing};
use super::kernel::Kernel;
use crate::status::{Error, Result};
use crate::tuner::plan_cache::FxHasher;
use crate::tuner::{DeviceModel, ForcedShapes, RecipeBook, Tuner};
use cudarc::driver::{result, sys};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::{Arc, Weak};
use std::time::Instant;

/// Kernel entry points to resolve, per embedded image.
pub type EntryPoints = [(&'static KernelImage, &'static [&'static str])];

pub struct DeviceState {
    pub ordinal: i32,
    device: sys::CUdevice,
    context: sys::CUcontext,
    /// Whether `context` is the device's primary context, retained by us; a
    /// context the program made (cuCtxCreate) is its own to destroy, after
    /// the handles on it.
    retained_primary: bool,
    /// The primary context when the kernels were loaded (None for a context
    /// of the program's own, which must outlive the handles on it).
    incarnation: Option<ContextIncarnation>,
    modules: Vec<sys::CUmodule>,
    /// By entry-point name; FxHash: this lookup is on every call's path.
    kernels: HashMap<&'static str, Kernel, BuildHasherDefault<FxHasher>>,
    /// Which binary each image was loaded from, for `mublas info` and the log.
    pub loaded_images: Vec<(&'static str, ImageChoice)>,
    pub tuner: Tuner,
    /// Wall time of module loading at creation, for `mublas info`.
    pub load_seconds: f64,
}

// SAFETY: the raw driver handles are immutable after creation and valid from any thread.
unsafe impl Send for DeviceState {}
unsafe impl Sync for DeviceState {}

static OPEN_DEVICES: Mutex<Vec<Weak<DeviceState>>> = Mutex::new(Vec::new());

impl DeviceState {
    /// The state of device `ordinal` in `context`, a context of the program's
    /// own, or (None) in the device's primary context: shared with other live
    /// handles or made now.
    pub fn open(ordinal: i32, context: Option<sys::CUcontext>, entry_points: &EntryPoints) -> Result<Arc<DeviceState>> {
        let mut open = OPEN_DEVICES.lock();
        open.retain(|weak| weak.strong_count() > 0);
        // A state whose primary context was reset since serves no new handle:
        // the next one loads the kernels again.
        let wanted = |s: &DeviceState| {
            s.ordinal == ordinal
                && match context {
                    Some(c) => s.context == c,
                    None => s.retained_primary && !s.context_was_reset(),
                }
        };
        if let Some(state) = open.iter().filter_map(Weak::upgrade).find(|s| wanted(s)) {
            return Ok(state);
        }
        let state = Arc::new(DeviceState::create(ordinal, context, None, entry_points)?);
        open.push(Arc::downgrade(&state));
        Ok(state)
    }

    /// A state of device `ordinal` in `context`, as [`open`](Self::open) makes,
    /// whose launches are planned for `profile`, another GPU no larger than
    /// this one ([`DeviceModel::limits_exceeding`]; INVALID_VALUE otherwise),
    /// with the code that GPU gets: where its compute capability is older,
    /// the newest PTX not above it. For tests; never shared with other handles.
    pub fn open_planned_for(
        ordinal: i32,
        context: Option<sys::CUcontext>,
        profile: DeviceModel,
        entry_points: &EntryPoints,
    ) -> Result<Arc<DeviceState>> {
        Ok(Arc::new(DeviceState::create(ordinal, context, Some(profile), entry_points)?))
    }

    fn create(
        ordinal: i32,
        own_context: Option<sys::CUcontext>,
        profile: Option<DeviceModel>,
        entry_points: &EntryPoints,
    ) -> Result<DeviceState> {
        driver::init()?;
        let device = result::device::get(ordinal).map_err(|e| Error::NotInitialized(describe(&e)))?;
        let device_model = read_device_model(device)?;
        let (major, minor) = device_model.compute_capability;
        // The compute capability whose code is loaded: a profile's where it is older (its PTX runs here).
        let (code_major, code_minor, forcing) = match &profile {
            Some(p) if p.compute_capability < device_model.compute_capability => {
                (p.compute_capability.0, p.compute_capability.1, PtxForcing::Newest)
            }
            _ => (major, minor, PtxForcing::from_env()),
        };
        let model = match profile {
            None => device_model,
            Some(profile) => {
                let exceeding = profile.limits_exceeding(&device_model);
                if !exceeding.is_empty() {
                    return Err(Error::InvalidValue(format!(
                        "{} cannot run launches planned for {}, which has more {}",
                        device_model.name,
                        profile.name,
                        exceeding.join(", ")
                    )));
                }
                log::info!("device {ordinal} ({}): launches planned for {}", device_model.name, profile.name);
                profile
            }
        };
        let context = match own_context {
            Some(context) => context,
            // SAFETY: `device` is a valid ordinal; the retain is released in Drop.
            None => unsafe { result::primary_ctx::retain(device) }.map_err(|e| Error::NotInitialized(describe(&e)))?,
        };
        let mut state = DeviceState {
            ordinal,
            device,
            context,
            retained_primary: own_context.is_none(),
            incarnation: if own_context.is_none() { ContextIncarnation::of(context) } else { None },
            modules: Vec::new(),
            kernels: HashMap::default(),
            loaded_images: Vec::new(),
            tuner: Tuner::new(model, load_recipes(), load_forced_shapes()),
            load_seconds: 0.0,
        };
        // From here on, Drop releases what was taken so far.
        let _bound = super::context::ContextGuard::bind(context)?;
        let started = Instant::now();
        for (image, names) in entry_points {
            let choice = image.choose(code_major, code_minor, forcing).ok_or_else(|| match forcing {
                PtxForcing::Arch(arch) => Error::ArchMismatch(format!(
                    "MUBLAS_FORCE_PTX={arch}: no PTX for compute_{arch} that runs on compute capability {major}.{minor} is embedded"
                )),
                _ => Error::ArchMismatch(format!(
                    "compute capability {major}.{minor} is older than the oldest supported, {}.{}",
                    image.oldest_ptx_arch() / 10,
                    image.oldest_ptx_arch() % 10
                )),
            })?;
            // SAFETY: the image bytes are a complete PTX (NUL-terminated) or CUBIN file.
            let module =
                unsafe { result::module::load_data(image.bytes(choice).as_ptr() as *const _) }.map_err(|e| {
                    Error::ArchMismatch(format!("loading kernels {} ({choice}) failed: {}", image.name, describe(&e)))
                })?;
            state.modules.push(module);
            state.loaded_images.push((image.name, choice));
            let shared_optin = state.tuner.device().shared_bytes_per_block_optin;
            for name in names.iter() {
                let kernel = Kernel::resolve(module, name, shared_optin, state.incarnation).map_err(|e| {
                    Error::Internal(format!("kernel {name} missing from {}: {}", image.name, describe(&e)))
                })?;
                state.kernels.insert(name, kernel);
            }
        }
        state.load_seconds = started.elapsed().as_secs_f64();
        let model = state.tuner.device().clone();
        log::info!(
            "device {ordinal}: {} (compute capability {}.{}, {} SMs, DRAM {:.1} GB/s per SM); kernels {} loaded in {:.1} ms",
            model.name,
            model.compute_capability.0,
            model.compute_capability.1,
            model.sm_count,
            model.dram_bytes_per_sm_second() / 1e9,
            state.loaded_images.iter().map(|(n, c)| format!("{n}: {c}")).collect::<Vec<_>>().join(", "),
            state.load_seconds * 1e3
        );
        Ok(state)
    }

    pub fn context(&self) -> sys::CUcontext {
        self.context
    }

    /// Whether the primary context was reset (cudaDeviceReset) since the
    /// kernels were loaded ([`ContextIncarnation`]): then nothing made in it
    /// is released, and launches fail with EXECUTION_FAILED ([`Kernel::launch`]).
    pub fn context_was_reset(&self) -> bool {
        self.incarnation.is_some_and(|incarnation| incarnation.was_reset())
    }

    /// EXECUTION_FAILED once the primary context was reset.
    pub fn ensure_not_reset(&self) -> Result<()> {
        self.incarnation.map_or(Ok(()), |incarnation| incarnation.ensure_current())
    }

    pub fn model(&self) -> &DeviceModel {
        self.tuner.device()
    }

    /// A kernel loaded at creation. Unknown names are a bug of ours.
    pub fn kernel(&self, name: &str) -> Result<&Kernel> {
        self.kernels.get(name).ok_or_else(|| Error::Internal(format!("kernel {name} was not loaded")))
    }

    pub fn kernels(&self) -> impl Iterator<Item = &Kernel> {
        self.kernels.values()
    }
}

impl Drop for DeviceState {
    fn drop(&mut self) {
        if self.context_was_reset() {
            log::info!(
                "device {}: its context was reset since the kernels were loaded; nothing to unload",
                self.ordinal
            );
        } else if let Ok(_bound) = super::context::ContextGuard::bind(self.context) {
            for module in self.modules.drain(..) {
                // SAFETY: loaded by us in this context, unloaded once.
                let _ = unsafe { result::module::unload(module) };
            }
        }
        if self.retained_primary {
            // SAFETY: balances the retain in `create`; the application's own retains keep it alive.
            let _ = unsafe { result::primary_ctx::release(self.device) };
        }
    }
}

/// The tuning recipes: a bad or missing file is a warning and the built-in defaults, never a failure.
fn load_recipes() -> RecipeBook {
    let (book, warning) = RecipeBook::load_default();
    if let Some(warning) = warning {
        log::warn!("{warning}");
    }
    log::info!("tuning recipes: {}", book.describe_source());
    book
}

/// Shapes pinned by MUBLAS_FORCE_SHAPE; bad entries are ignored with a warning.
fn load_forced_shapes() -> ForcedShapes {
    let (forced, warnings) = ForcedShapes::from_env();
    for warning in warnings {
        log::warn!("{warning}");
    }
    forced
}

/// Reads the device limits the occupancy model needs, once.
fn read_device_model(device: sys::CUdevice) -> Result<DeviceModel> {
    use sys::CUdevice_attribute_enum as A;
    let attribute = |a: A| -> Result<u32> {
        // SAFETY: `device` is valid; attributes are plain integers.
        unsafe { result::device::get_attribute(device, a) }
            .map(|v| v.max(0) as u32)
            .map_err(|e| Error::NotInitialized(describe(&e)))
    };
    let cc = (
        attribute(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
        attribute(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
    );
    let (register_allocation_unit, warp_allocation_granularity, shared_allocation_unit) =
        DeviceModel::granularities(cc.0, cc.1);
    Ok(DeviceModel {
        name: result::device::get_name(device).map_err(|e| Error::NotInitialized(describe(&e)))?,
        compute_capability: cc,
        sm_count: attribute(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
        warp_size: attribute(A::CU_DEVICE_ATTRIBUTE_WARP_SIZE)?,
        max_threads_per_block: attribute(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
        max_threads_per_sm: attribute(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)?,
        max_blocks_per_sm: attribute(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR)?,
        registers_per_sm: attribute(A::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR)?,
        registers_per_block: attribute(A::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK)?,
        shared_bytes_per_sm: attribute(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)?,
        shared_bytes_per_block: attribute(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)?,
        shared_bytes_per_block_optin: attribute(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?,
        shared_bytes_reserved_per_block: attribute(A::CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK)?,
        register_allocation_unit,
        warp_allocation_granularity,
        shared_allocation_unit,
        // Only kernel choices read these; a driver without them leaves those choices as on slower DRAM.
        memory_clock_khz: attribute(A::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE).unwrap_or(0),
        memory_bus_bits: attribute(A::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH).unwrap_or(0),
    })
}
