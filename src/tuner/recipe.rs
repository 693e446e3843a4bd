//! Tuning recipes. Work in progress.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TuningRecipe {
    pub warp_occupancy_min: f64,
    pub block_occupancy_min: f64,
    pub threads_min: u32,
    pub ty_per_tx_max: Option<f64>,
}
#[derive(Clone, Debug, Default)]
pub struct RecipeBook;
