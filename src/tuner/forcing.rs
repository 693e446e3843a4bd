//! Pinning a kernel's launch shape, bypassing the optimizer: for experiments,
//! for the analyzer (which runs every candidate shape), and for users who
//! want a fixed, reproducible reduction order.
//!
//! From the environment: `MUBLAS_FORCE_SHAPE=kernel=TXxTY[xSPLIT][,kernel=…]`,
//! e.g. `axpy_f32_vec4=256x1,gemv_n_f32=64x4x2` (SPLIT defaults to 1).
//! Malformed entries are reported as warnings and skipped.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::RwLock;

use super::kernel_model::LaunchShape;

/// The environment variable read by [`ForcedShapes::from_env`].
pub const FORCE_SHAPE_VARIABLE: &str = "MUBLAS_FORCE_SHAPE";

/// Kernel name → forced shape. Safe to change while other threads plan.
#[derive(Debug, Default)]
pub struct ForcedShapes {
    shapes: RwLock<HashMap<String, LaunchShape>>,
    /// Lets the hot path skip the lock when nothing is forced (the usual case).
    any_forced: AtomicBool,
}

impl ForcedShapes {
    /// Nothing forced.
    pub fn new() -> ForcedShapes {
        ForcedShapes::default()
    }

    /// Reads `MUBLAS_FORCE_SHAPE`; returns the shapes and one warning per bad entry.
    pub fn from_env() -> (ForcedShapes, Vec<String>) {
        match std::env::var(FORCE_SHAPE_VARIABLE) {
            Ok(text) => ForcedShapes::parse(&text),
            Err(std::env::VarError::NotPresent) => (ForcedShapes::new(), Vec::new()),
            Err(std::env::VarError::NotUnicode(_)) => {
                (ForcedShapes::new(), vec![format!("{FORCE_SHAPE_VARIABLE} is not valid UTF-8; ignored")])
            }
        }
    }

    /// Parses `kernel=TXxTY[xSPLIT]` entries separated by commas. Empty
    /// entries are skipped; a later entry for the same kernel wins.
    pub fn parse(text: &str) -> (ForcedShapes, Vec<String>) {
        let forced = ForcedShapes::new();
        let mut warnings = Vec::new();
        for entry in text.split(',').map(str::trim).filter(|entry| !entry.is_empty()) {
            let parsed = entry.split_once('=').ok_or_else(|| "expected kernel=TXxTY[xSPLIT]".to_string()).and_then(
                |(kernel, shape)| {
                    let kernel = kernel.trim();
                    if kernel.is_empty() {
                        return Err("empty kernel name".to_string());
                    }
                    Ok((kernel, parse_shape(shape)?))
                },
            );
            match parsed {
                Ok((kernel, shape)) => forced.set(kernel, Some(shape)),
                Err(reason) => warnings.push(format!("{FORCE_SHAPE_VARIABLE}: ignoring {entry:?}: {reason}")),
            }
        }
        (forced, warnings)
    }

    /// Forces `kernel` to `shape`, or lets the optimizer choose again (None).
    pub fn set(&self, kernel: &str, shape: Option<LaunchShape>) {
        let mut shapes = self.shapes.write();
        match shape {
            Some(shape) => {
                shapes.insert(kernel.to_string(), shape);
            }
            None => {
                shapes.remove(kernel);
            }
        }
        self.any_forced.store(!shapes.is_empty(), Ordering::Release);
    }

    /// Forces nothing any more.
    pub fn clear(&self) {
        let mut shapes = self.shapes.write();
        shapes.clear();
        self.any_forced.store(false, Ordering::Release);
    }

    /// The shape forced for a kernel, if any.
    #[inline]
    pub fn get(&self, kernel: &str) -> Option<LaunchShape> {
        if !self.any_forced.load(Ordering::Acquire) {
            return None;
        }
        self.shapes.read().get(kernel).copied()
    }

    pub fn is_empty(&self) -> bool {
        !self.any_forced.load(Ordering::Acquire)
    }

    /// Every forced shape, sorted by kernel name.
    pub fn entries(&self) -> Vec<(String, LaunchShape)> {
        let mut entries: Vec<(String, LaunchShape)> =
            self.shapes.read().iter().map(|(kernel, shape)| (kernel.clone(), *shape)).collect();
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        entries
    }

    /// The forced shapes in `MUBLAS_FORCE_SHAPE` syntax (for `mublas info`).
    pub fn to_setting(&self) -> String {
        self.entries()
            .iter()
            .map(|(kernel, shape)| format!("{kernel}={}", format_shape(shape)))
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// `TXxTY` or `TXxTYxSPLIT`, each a positive whole number (`x` or `X`).
pub fn parse_shape(text: &str) -> Result<LaunchShape, String> {
    let parts: Vec<&str> = text.trim().split(['x', 'X']).map(str::trim).collect();
    let number = |part: &str| match part.parse::<u32>() {
        Ok(value) if value > 0 => Ok(value),
        _ => Err(format!("{part:?} is not a positive whole number")),
    };
    match parts[..] {
        [tx, ty] => Ok(LaunchShape { tx: number(tx)?, ty: number(ty)?, split: 1 }),
        [tx, ty, split] => Ok(LaunchShape { tx: number(tx)?, ty: number(ty)?, split: number(split)? }),
        _ => Err(format!("expected TXxTY or TXxTYxSPLIT, found {:?}", text.trim())),
    }
}

/// The inverse of [`parse_shape`]; the split is written only when it is not 1.
pub fn format_shape(shape: &LaunchShape) -> String {
    if shape.split == 1 {
        format!("{}x{}", shape.tx, shape.ty)
    } else {
        format!("{}x{}x{}", shape.tx, shape.ty, shape.split)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(tx: u32, ty: u32, split: u32) -> LaunchShape {
        LaunchShape { tx, ty, split }
    }

    #[test]
    fn parses_the_documented_example() {
        let (forced, warnings) = ForcedShapes::parse("axpy_f32_vec4=256x1,gemv_n_f32=64x4x2");
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(forced.get("axpy_f32_vec4"), Some(shape(256, 1, 1)));
        assert_eq!(forced.get("gemv_n_f32"), Some(shape(64, 4, 2)));
        assert_eq!(forced.get("gemv_t_f32"), None);
        assert_eq!(forced.to_setting(), "axpy_f32_vec4=256x1,gemv_n_f32=64x4x2");
    }

    #[test]
    fn tolerates_spaces_case_and_empty_entries() {
        let (forced, warnings) = ForcedShapes::parse(" axpy_f32_vec4 = 128X1 , ,gemv_n_f32=32 x 8 x 1,");
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(
            forced.entries(),
            vec![("axpy_f32_vec4".to_string(), shape(128, 1, 1)), ("gemv_n_f32".to_string(), shape(32, 8, 1))]
        );
        let (forced, warnings) = ForcedShapes::parse("");
        assert!(forced.is_empty() && warnings.is_empty());
    }

    #[test]
    fn bad_entries_warn_and_are_skipped() {
        let (forced, warnings) =
            ForcedShapes::parse("a=256,b=0x1,c=64x4x2x1,=32x1,d,e=-32x1,f=32x1,g=ax1,h=99999999999x1");
        assert_eq!(forced.entries(), vec![("f".to_string(), shape(32, 1, 1))]);
        assert_eq!(warnings.len(), 8, "{warnings:?}");
        assert!(warnings.iter().all(|warning| warning.starts_with("MUBLAS_FORCE_SHAPE: ignoring")));
        assert!(warnings[1].contains("\"0\""), "{}", warnings[1]);
    }

    #[test]
    fn set_and_clear() {
        let forced = ForcedShapes::new();
        forced.set("k", Some(shape(64, 2, 1)));
        assert_eq!(forced.get("k"), Some(shape(64, 2, 1)));
        assert!(!forced.is_empty());
        forced.set("k", None);
        assert_eq!(forced.get("k"), None);
        assert!(forced.is_empty());
        forced.set("k", Some(shape(32, 1, 1)));
        forced.set("j", Some(shape(64, 1, 2)));
        assert_eq!(forced.to_setting(), "j=64x1x2,k=32x1");
        forced.clear();
        assert!(forced.is_empty());
        assert_eq!(forced.to_setting(), "");
    }

    #[test]
    fn shapes_format_and_parse_back() {
        for original in [shape(256, 1, 1), shape(64, 4, 2)] {
            assert_eq!(parse_shape(&format_shape(&original)), Ok(original));
        }
    }
}
