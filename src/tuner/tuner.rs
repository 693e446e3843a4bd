//! The tuner. Work in progress.
pub struct Tuner;
