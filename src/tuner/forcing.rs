//! Forced shapes. Work in progress.
#[derive(Debug, Default)]
pub struct ForcedShapes;
