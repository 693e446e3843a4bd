//! The tuner: chooses every launch's geometry from an occupancy model.
//!
//! `shared/docs/method.md` §2–5 is the method: three occupancies (warp, block,
//! grid), an online optimizer that maximises Grid-Occupancy subject to a
//! per-(device, kernel) tuning recipe, and an offline analyzer that derives
//! those recipes. Everything here is pure Rust and needs no GPU: the launch
//! layer fills a [`DeviceModel`] from the driver once per device and a
//! [`KernelModel`] once per loaded function, and asks [`Tuner::plan`] before
//! each launch.

pub mod device_model;
pub mod forcing;
pub mod kernel_model;
pub mod occupancy;
pub mod optimizer;
pub mod plan_cache;
pub mod recipe;

pub use device_model::DeviceModel;
pub use forcing::ForcedShapes;
pub use kernel_model::{Geometry, KernelModel, KernelSpec, LaunchShape, LaunchSpace, Problem};
pub use occupancy::Occupancy;
pub use optimizer::LaunchPlan;
pub use recipe::{RecipeBook, TuningRecipe};

// The Tuner type's own file; the module is the tuner as a whole.
#[allow(clippy::module_inception)]
mod tuner;
pub use tuner::Tuner;
