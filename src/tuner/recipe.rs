//! Tuning recipes (method.md §4): the four numbers per (device, kernel) that
//! the offline analyzer measures and the online optimizer obeys.
//!
//! # The recipe file
//!
//! A text table, one recipe per line, columns separated by `|` (so that device
//! names may hold spaces), surrounding spaces ignored:
//!
//! ```text
//! # device | cc | kernel | warp_occupancy_min | block_occupancy_min | threads_min | ty_per_tx_max
//! NVIDIA H100 80GB HBM3 | 9.0 | axpy_f32_vec4 | 0.25 | 0 | 64  | -
//! *                     | 9.0 | gemv_n_f32    | 0.5  | 0 | 128 | 2
//! ```
//!
//! - `device`: the name the driver reports, exactly; `*` = every device of that cc.
//! - `cc`: compute capability, `major.minor`.
//! - `kernel`: the kernel's name (its PTX entry point), e.g. `gemv_n_f32`.
//! - `warp_occupancy_min`, `block_occupancy_min`: WrpOcpMin, BlkOcpMin, in 0 ..= 1.
//! - `threads_min`: ThMin, threads per block (0 = the kernel's Tx step, as in the paper).
//! - `ty_per_tx_max`: TyPerTxMax, a positive number, or `-` for none.
//!
//! Lines starting with `#` are comments (the header row is one) and blank
//! lines are skipped. A later row for the same (device, cc, kernel) replaces an
//! earlier one. A file with any malformed row is refused as a whole, with every
//! error reported by line number, and the built-in defaults are used instead.
//!
//! # Where recipes come from
//!
//! The file named by `MUBLAS_RECIPES`, else `$XDG_CACHE_HOME/mublas/recipes.txt`,
//! else `$HOME/.cache/mublas/recipes.txt`. For a (device, kernel) pair the
//! first match wins: a row naming the device → a `*` row of its compute
//! capability → the built-in row of its architecture family → a permissive
//! recipe that only asks for whole warps.

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};
use std::path::{Path, PathBuf};

/// Warps are 32 threads on every NVIDIA GPU; the permissive recipe asks for one.
const WARP_SIZE: u32 = 32;

/// The four parameters of the paper's tuning recipe (method.md §3–4).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TuningRecipe {
    /// WrpOcpMin: the least Warp-Occupancy that still reached the target performance.
    pub warp_occupancy_min: f64,
    /// BlkOcpMin: the least Block-Occupancy that still reached it.
    pub block_occupancy_min: f64,
    /// ThMin: the fewest threads per block that still reached it (0 = the Tx step).
    pub threads_min: u32,
    /// TyPerTxMax: the largest Ty/Tx that still reached it; None = no limit.
    pub ty_per_tx_max: Option<f64>,
}

impl TuningRecipe {
    /// No constraint beyond whole warps: what a kernel without a recipe gets.
    pub const fn permissive(warp_size: u32) -> TuningRecipe {
        TuningRecipe { warp_occupancy_min: 0.0, block_occupancy_min: 0.0, threads_min: warp_size, ty_per_tx_max: None }
    }
}

/// GPU generations that share built-in recipes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArchFamily {
    /// cc 7.x
    VoltaTuring,
    /// cc 8.x
    AmpereAda,
    /// cc 9.x
    Hopper,
    /// cc 10.x, 11.x, 12.x
    Blackwell,
}

impl ArchFamily {
    pub fn of_compute_capability(major: u32) -> Option<ArchFamily> {
        match major {
            7 => Some(ArchFamily::VoltaTuring),
            8 => Some(ArchFamily::AmpereAda),
            9 => Some(ArchFamily::Hopper),
            10..=12 => Some(ArchFamily::Blackwell),
            _ => None,
        }
    }
}

/// One row of [`BUILT_IN_RECIPES`].
struct BuiltInRecipe {
    family: ArchFamily,
    kernel: &'static str,
    recipe: TuningRecipe,
}

const fn built_in(
    family: ArchFamily,
    kernel: &'static str,
    warp_occupancy_min: f64,
    block_occupancy_min: f64,
    threads_min: u32,
    ty_per_tx_max: Option<f64>,
) -> BuiltInRecipe {
    BuiltInRecipe {
        family,
        kernel,
        recipe: TuningRecipe { warp_occupancy_min, block_occupancy_min, threads_min, ty_per_tx_max },
    }
}

use ArchFamily::Hopper;

/// Recipes used when the recipe file has none for a (device, kernel) pair.
/// The Hopper rows were measured: `mublas tune` on an H100 80GB HBM3 (SAXPY
/// sampled at n = 409600, the matrix routines at 8192, SGEMM at 4096 and
/// (256, 256, 65536)). Other families use a row of their own where the table
/// has one, else the Hopper row, as a starting point: running the analyzer on
/// the GPU writes measured rows that replace them. The `gemv_t_f32_short` rows
/// are not the analyzer's: they ask only for whole warps and half the SM's
/// warps (its launch space, at most 64 threads, is what was measured). The
/// `axpy_f32_vec4_single` row is from a later `mublas tune --routine saxpy`
/// (sampled at 409 600, 65 536 and 4 194 304: 97.8 % of the best candidate's
/// speed over the three against 91.1 % with no recipe). The
/// `gemv_t_f32_lean_l1` row is not the analyzer's either (it samples the
/// default kernels): it is `gemv_t_f32`'s with ThMin 256, which on the H100
/// put the optimizer within 5 % of the fastest shape timed (kernel time,
/// `scripts/gemv-ab.py`; 1000² 256 threads, 2000² 480, 3000² 512, 4096² 512
/// against 384, 5000² 608). With no recipe it takes 32 threads up to 3000²
/// (3–6 % slower). The `gemv_n_f32_scalar_lanes` row is set by hand too: its
/// tiles are 32 rows whatever the block, so the only choice is the threads,
/// and blocks of 1024 were the fastest timed (kernel time, 4097², H200: 19.3
/// µs on 32 × 32 against 23.4–25.0 on 32 × 16 with 8 to 32 columns in
/// flight); with no recipe the optimizer takes the first Ty that holds an SM
/// alone (22 at 46 registers). The `gemv_n_f32_scalar_thin` row is
/// `gemv_n_f32_scalar`'s with ThMin 256 and TyPerTxMax 0.25: the same grids
/// with half the threads per block (src/routines/gemv/, `Twin::Thin`).
#[rustfmt::skip]
const BUILT_IN_RECIPES: &[BuiltInRecipe] = &[
    //       family   kernel                     warp_occupancy_min  block_occupancy_min  threads_min  ty_per_tx_max
    built_in(Hopper,  "axpy_f32_vec4",           0.9375,             0.3125,              96,          None),
    built_in(Hopper,  "axpy_f32_vec4_single",    1.0,                0.5,                 128,         None),
    built_in(Hopper,  "axpy_f32_strided",        0.984375,           0.65625,             64,          None),
    built_in(Hopper,  "gemv_n_f32",              0.5,                0.0,                 512,         Some(0.5)),
    built_in(Hopper,  "gemv_n_f32_scalar",       0.5,                0.0,                 512,         Some(0.5)),
    built_in(Hopper,  "gemv_n_f32_scalar_lanes", 0.5,                0.0,                 1024,        None),
    built_in(Hopper,  "gemv_n_f32_scalar_thin",  0.5,                0.0,                 256,         Some(0.25)),
    built_in(Hopper,  "gemv_n_f32_short",        0.5,                0.0,                 256,         None),
    built_in(Hopper,  "gemv_n_f32_short_scalar", 0.5,                0.0,                 256,         None),
    built_in(Hopper,  "gemv_t_f32",              0.5,                0.0,                 512,         None),
    built_in(Hopper,  "gemv_t_f32_scalar",       0.5,                0.0,                 512,         None),
    built_in(Hopper,  "gemv_t_f32_lean_l1",      0.5,                0.0,                 256,         None),
    built_in(Hopper,  "gemv_t_f32_short",        0.5,                0.0,                 32,          None),
    built_in(Hopper,  "gemv_t_f32_short_scalar", 0.5,                0.0,                 32,          None),
    built_in(Hopper,  "trmv_n_f32_vec4",         0.5,                0.25,                128,         Some(0.125)),
    built_in(Hopper,  "trmv_n_f32_scalar",       0.5,                0.25,                128,         Some(0.125)),
    built_in(Hopper,  "trmv_t_f32_vec4",         0.375,              0.0625,              96,          Some(0.0625)),
    built_in(Hopper,  "trmv_t_f32_scalar",       0.421875,           0.09375,             64,          Some(0.0625)),
    built_in(Hopper,  "trmv_sum_f32",            0.875,              0.125,               128,         None),
    built_in(Hopper,  "gemm_f32_128x128_nn_vec", 0.25,               0.0625,              256,         None),
    built_in(Hopper,  "gemm_f32_128x128_tn_vec", 0.25,               0.0625,              256,         None),
];

/// The built-in recipe of a kernel on a compute capability: its family's row,
/// else the measured Hopper row, if the table has one.
pub fn built_in_recipe(compute_capability: (u32, u32), kernel_name: &str) -> Option<TuningRecipe> {
    built_in_row(compute_capability, kernel_name).map(|row| row.recipe)
}

/// The row [`built_in_recipe`] takes, which says the family it was measured on.
fn built_in_row(compute_capability: (u32, u32), kernel_name: &str) -> Option<&'static BuiltInRecipe> {
    let family = ArchFamily::of_compute_capability(compute_capability.0)?;
    let row = |f: ArchFamily| BUILT_IN_RECIPES.iter().find(|row| row.family == f && row.kernel == kernel_name);
    row(family).or_else(|| row(Hopper))
}

/// The device column's value that matches every device of a compute capability.
pub const ANY_DEVICE: &str = "*";

/// What one recipe row applies to.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RecipeKey {
    /// The driver's device name, or [`ANY_DEVICE`].
    pub device: String,
    pub compute_capability: (u32, u32),
    pub kernel: String,
}

/// Which rule gave a recipe (for `mublas info` and the analyzer's reports).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecipeOrigin {
    /// A file row naming the device.
    Device,
    /// A file row for any device of the compute capability.
    AnyDeviceOfComputeCapability,
    /// The built-in table: the row of this family (measured there).
    BuiltIn(ArchFamily),
    /// Nothing matched.
    Permissive,
}

/// Where a [`RecipeBook`]'s rows were read from.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum RecipeSource {
    /// No file: only the built-in table.
    #[default]
    BuiltIn,
    File(PathBuf),
}

/// Recipes keyed by (device, compute capability, kernel), over the built-in table.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RecipeBook {
    rows: BTreeMap<RecipeKey, TuningRecipe>,
    source: RecipeSource,
}

/// One bad line of a recipe file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecipeLineError {
    /// 1-based.
    pub line: usize,
    pub message: String,
}

/// Why a recipe file was refused: every bad line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecipeParseError {
    pub errors: Vec<RecipeLineError>,
}

impl fmt::Display for RecipeParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, error) in self.errors.iter().enumerate() {
            if index > 0 {
                f.write_str("; ")?;
            }
            write!(f, "line {}: {}", error.line, error.message)?;
        }
        Ok(())
    }
}

impl std::error::Error for RecipeParseError {}

/// The column names, in file order.
pub const COLUMNS: [&str; 7] =
    ["device", "cc", "kernel", "warp_occupancy_min", "block_occupancy_min", "threads_min", "ty_per_tx_max"];

impl RecipeBook {
    /// A book with no rows: every lookup goes to the built-in table.
    pub fn built_in() -> RecipeBook {
        RecipeBook::default()
    }

    /// Reads a recipe file's text. See the module documentation for the format.
    pub fn parse(text: &str) -> Result<RecipeBook, RecipeParseError> {
        // A byte-order mark, as some editors save UTF-8, is not part of the first line.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut book = RecipeBook::default();
        let mut errors = Vec::new();
        for (index, line) in text.lines().enumerate() {
            let trimmed = line.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            match parse_row(trimmed) {
                Ok((key, recipe)) => {
                    book.rows.insert(key, recipe);
                }
                Err(message) => errors.push(RecipeLineError { line: index + 1, message }),
            }
        }
        if errors.is_empty() { Ok(book) } else { Err(RecipeParseError { errors }) }
    }

    /// The book as a recipe file: the header row, then one aligned row per
    /// recipe, in key order. `parse(serialise(book))` gives the same rows.
    pub fn serialise(&self) -> String {
        let cells: Vec<[String; 7]> = self
            .rows
            .iter()
            .map(|(key, recipe)| {
                [
                    key.device.clone(),
                    format!("{}.{}", key.compute_capability.0, key.compute_capability.1),
                    key.kernel.clone(),
                    recipe.warp_occupancy_min.to_string(),
                    recipe.block_occupancy_min.to_string(),
                    recipe.threads_min.to_string(),
                    recipe.ty_per_tx_max.map_or_else(|| "-".to_string(), |ratio| ratio.to_string()),
                ]
            })
            .collect();
        // Pad every column to its widest cell; the header's "# " counts in the first.
        let mut widths = COLUMNS.map(str::len);
        widths[0] += 2;
        for row in &cells {
            for (width, cell) in widths.iter_mut().zip(row) {
                *width = (*width).max(cell.len());
            }
        }
        let mut text = String::from("# mublas tuning recipes (see src/tuner/recipe.rs for the format)\n");
        let mut header = COLUMNS.map(str::to_string);
        header[0] = format!("# {}", header[0]);
        write_row(&mut text, &header, &widths);
        for row in &cells {
            write_row(&mut text, row, &widths);
        }
        text
    }

    /// Adds or replaces one row. A device name holding `|` cannot be written
    /// to a recipe file (no NVIDIA name does).
    pub fn insert(&mut self, device: &str, compute_capability: (u32, u32), kernel: &str, recipe: TuningRecipe) {
        let key = RecipeKey { device: device.to_string(), compute_capability, kernel: kernel.to_string() };
        self.rows.insert(key, recipe);
    }

    /// Adds `other`'s rows; where both have a key, `other`'s row wins.
    /// The source stays this book's.
    pub fn merge(&mut self, other: &RecipeBook) {
        for (key, recipe) in &other.rows {
            self.rows.insert(key.clone(), *recipe);
        }
    }

    /// Every row, in key order.
    pub fn rows(&self) -> impl Iterator<Item = (&RecipeKey, &TuningRecipe)> {
        self.rows.iter()
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The recipe for a kernel on a device: exact device row > `*` row of the
    /// same compute capability > built-in family row > permissive.
    pub fn recipe_for(&self, device_name: &str, compute_capability: (u32, u32), kernel_name: &str) -> TuningRecipe {
        self.recipe_and_origin(device_name, compute_capability, kernel_name).0
    }

    /// [`Self::recipe_for`], also saying which rule matched.
    pub fn recipe_and_origin(
        &self,
        device_name: &str,
        compute_capability: (u32, u32),
        kernel_name: &str,
    ) -> (TuningRecipe, RecipeOrigin) {
        let mut key =
            RecipeKey { device: device_name.to_string(), compute_capability, kernel: kernel_name.to_string() };
        if let Some(recipe) = self.rows.get(&key) {
            return (*recipe, RecipeOrigin::Device);
        }
        key.device = ANY_DEVICE.to_string();
        if let Some(recipe) = self.rows.get(&key) {
            return (*recipe, RecipeOrigin::AnyDeviceOfComputeCapability);
        }
        if let Some(row) = built_in_row(compute_capability, kernel_name) {
            return (row.recipe, RecipeOrigin::BuiltIn(row.family));
        }
        (TuningRecipe::permissive(WARP_SIZE), RecipeOrigin::Permissive)
    }

    /// The file the rows came from; None when only built-in defaults are in use.
    pub fn path_in_use(&self) -> Option<&Path> {
        match &self.source {
            RecipeSource::BuiltIn => None,
            RecipeSource::File(path) => Some(path),
        }
    }

    pub fn source(&self) -> &RecipeSource {
        &self.source
    }

    /// One line for `mublas info`.
    pub fn describe_source(&self) -> String {
        match &self.source {
            RecipeSource::BuiltIn => "built-in defaults".to_string(),
            RecipeSource::File(path) => {
                format!("{} ({} recipes), over the built-in defaults", path.display(), self.rows.len())
            }
        }
    }

    /// Reads recipes from where the environment says (see the module docs).
    /// Never fails: a problem gives the built-in defaults and a warning for
    /// the caller to log.
    pub fn load_default() -> (RecipeBook, Option<String>) {
        RecipeBook::load_from(&RecipeLocations::from_env())
    }

    /// [`Self::load_default`] with the locations given.
    pub fn load_from(locations: &RecipeLocations) -> (RecipeBook, Option<String>) {
        let (path, named_by_user) = match (&locations.explicit, &locations.default) {
            (Some(path), _) => (path, true),
            (None, Some(path)) => (path, false),
            (None, None) => return (RecipeBook::built_in(), None),
        };
        let named = if named_by_user { " (MUBLAS_RECIPES)" } else { "" };
        match RecipeBook::read(path) {
            Ok(Some(mut book)) => {
                book.source = RecipeSource::File(path.clone());
                (book, None)
            }
            // No recipe file yet is the normal state before the analyzer has run.
            Ok(None) if !named_by_user => (RecipeBook::built_in(), None),
            Ok(None) => {
                let warning = format!("no tuning recipes at {}{named}; using built-in defaults", path.display());
                (RecipeBook::built_in(), Some(warning))
            }
            Err(why) => (RecipeBook::built_in(), Some(format!("{why}{named}; using built-in defaults"))),
        }
    }

    /// The rows of the recipe file at `path`; None where there is no such
    /// file, and why where it cannot be read or is malformed.
    pub fn read(path: &Path) -> Result<Option<RecipeBook>, String> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(format!("cannot read tuning recipes from {}: {error}", path.display())),
        };
        RecipeBook::parse(&text)
            .map(Some)
            .map_err(|error| format!("tuning recipes in {} are malformed ({error})", path.display()))
    }
}

/// Where recipes may be read from.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct RecipeLocations {
    /// `MUBLAS_RECIPES`: must exist.
    pub explicit: Option<PathBuf>,
    /// The per-user cache file: may be absent.
    pub default: Option<PathBuf>,
}

impl RecipeLocations {
    pub fn from_env() -> RecipeLocations {
        RecipeLocations::from_values(
            std::env::var_os("MUBLAS_RECIPES").map(PathBuf::from),
            std::env::var_os("XDG_CACHE_HOME").map(PathBuf::from),
            std::env::var_os("HOME").map(PathBuf::from),
        )
    }

    /// From the values of `MUBLAS_RECIPES`, `XDG_CACHE_HOME` and `HOME`.
    /// Empty values count as unset; a relative `XDG_CACHE_HOME` is ignored, as
    /// the XDG specification asks.
    pub fn from_values(
        mublas_recipes: Option<PathBuf>,
        xdg_cache_home: Option<PathBuf>,
        home: Option<PathBuf>,
    ) -> RecipeLocations {
        let non_empty = |path: Option<PathBuf>| path.filter(|path| !path.as_os_str().is_empty());
        let cache_dir = non_empty(xdg_cache_home)
            .filter(|path| path.is_absolute())
            .or_else(|| non_empty(home).map(|home| home.join(".cache")));
        RecipeLocations {
            explicit: non_empty(mublas_recipes),
            default: cache_dir.map(|dir| dir.join("mublas").join("recipes.txt")),
        }
    }

    /// The file an analyzer run should write: the one that would be read.
    pub fn file_to_write(&self) -> Option<&Path> {
        self.explicit.as_deref().or(self.default.as_deref())
    }
}

fn write_row(text: &mut String, cells: &[String; 7], widths: &[usize; 7]) {
    let mut line = String::new();
    for (index, (cell, width)) in cells.iter().zip(widths).enumerate() {
        if index > 0 {
            line.push_str(" | ");
        }
        let _ = write!(line, "{cell:<width$}");
    }
    text.push_str(line.trim_end());
    text.push('\n');
}

fn parse_row(line: &str) -> Result<(RecipeKey, TuningRecipe), String> {
    let cells: Vec<&str> = line.split('|').map(str::trim).collect();
    let [device, cc, kernel, warp, block, threads, ratio] = cells[..] else {
        return Err(format!(
            "expected {} columns separated by '|' ({}), found {}",
            COLUMNS.len(),
            COLUMNS.join(" | "),
            cells.len()
        ));
    };
    if device.is_empty() {
        return Err("empty device name (use * for any device of the compute capability)".to_string());
    }
    if kernel.is_empty() || kernel.contains(char::is_whitespace) {
        return Err(format!("bad kernel name {kernel:?}"));
    }
    let compute_capability = parse_compute_capability(cc)?;
    let warp_occupancy_min = parse_occupancy(COLUMNS[3], warp)?;
    let block_occupancy_min = parse_occupancy(COLUMNS[4], block)?;
    let threads_min: u32 = threads
        .parse()
        .map_err(|_| format!("{}: expected a whole number of threads, found {threads:?}", COLUMNS[5]))?;
    let ty_per_tx_max = if ratio == "-" {
        None
    } else {
        match ratio.parse::<f64>() {
            Ok(value) if value.is_finite() && value > 0.0 => Some(value),
            _ => return Err(format!("{}: expected a positive number or '-', found {ratio:?}", COLUMNS[6])),
        }
    };
    let key = RecipeKey { device: device.to_string(), compute_capability, kernel: kernel.to_string() };
    Ok((key, TuningRecipe { warp_occupancy_min, block_occupancy_min, threads_min, ty_per_tx_max }))
}

fn parse_compute_capability(text: &str) -> Result<(u32, u32), String> {
    let bad = || format!("cc: expected major.minor such as 9.0, found {text:?}");
    let (major, minor) = text.split_once('.').ok_or_else(bad)?;
    Ok((major.parse().map_err(|_| bad())?, minor.parse().map_err(|_| bad())?))
}

fn parse_occupancy(column: &str, text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(value) if (0.0..=1.0).contains(&value) => Ok(value),
        _ => Err(format!("{column}: expected a number from 0 to 1, found {text:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H100: &str = "NVIDIA H100 80GB HBM3";

    fn recipe(warp: f64, block: f64, threads: u32, ratio: Option<f64>) -> TuningRecipe {
        TuningRecipe {
            warp_occupancy_min: warp,
            block_occupancy_min: block,
            threads_min: threads,
            ty_per_tx_max: ratio,
        }
    }

    const SAMPLE: &str = "\
# device | cc | kernel | warp_occupancy_min | block_occupancy_min | threads_min | ty_per_tx_max
NVIDIA H100 80GB HBM3 | 9.0 | axpy_f32_vec4 | 0.25 | 0 | 64 | -

   # an indented comment
* | 9.0 | gemv_n_f32 | 0.5 | 0.125 | 128 | 2.0
*|8.6|gemv_n_f32|0.6|0|248|0.5
";

    #[test]
    fn parses_a_table_with_spaces_in_device_names() {
        let book = RecipeBook::parse(SAMPLE).unwrap();
        assert_eq!(book.len(), 3);
        assert_eq!(book.recipe_for(H100, (9, 0), "axpy_f32_vec4"), recipe(0.25, 0.0, 64, None));
        assert_eq!(book.recipe_for(H100, (9, 0), "gemv_n_f32"), recipe(0.5, 0.125, 128, Some(2.0)));
        assert_eq!(book.recipe_for("NVIDIA RTX A6000", (8, 6), "gemv_n_f32"), recipe(0.6, 0.0, 248, Some(0.5)));
    }

    #[test]
    fn lookup_order_is_device_then_any_then_built_in_then_permissive() {
        let mut book = RecipeBook::built_in();
        let by_device = recipe(0.1, 0.0, 32, None);
        let by_cc = recipe(0.2, 0.0, 64, None);
        book.insert(H100, (9, 0), "axpy_f32_vec4", by_device);
        book.insert(ANY_DEVICE, (9, 0), "axpy_f32_vec4", by_cc);
        assert_eq!(book.recipe_and_origin(H100, (9, 0), "axpy_f32_vec4"), (by_device, RecipeOrigin::Device));
        assert_eq!(
            book.recipe_and_origin("NVIDIA H200", (9, 0), "axpy_f32_vec4"),
            (by_cc, RecipeOrigin::AnyDeviceOfComputeCapability)
        );
        // Another compute capability falls through to the built-in table (its
        // family's row, else the measured Hopper row, which the origin names).
        assert_eq!(
            book.recipe_and_origin("NVIDIA A100-SXM4-80GB", (8, 0), "axpy_f32_vec4"),
            (built_in_recipe((9, 0), "axpy_f32_vec4").unwrap(), RecipeOrigin::BuiltIn(ArchFamily::Hopper))
        );
        assert_eq!(
            book.recipe_and_origin("NVIDIA GeForce RTX 5090", (12, 0), "axpy_f32_strided").1,
            RecipeOrigin::BuiltIn(ArchFamily::Hopper)
        );
        // A kernel nobody has a recipe for, or an unknown architecture.
        assert_eq!(
            book.recipe_and_origin(H100, (9, 0), "sgemm_nn_f32"),
            (TuningRecipe::permissive(32), RecipeOrigin::Permissive)
        );
        assert_eq!(book.recipe_and_origin("Tesla K20m", (3, 5), "axpy_f32_vec4").1, RecipeOrigin::Permissive);
        assert_eq!(TuningRecipe::permissive(32), recipe(0.0, 0.0, 32, None));
    }

    #[test]
    fn a_byte_order_mark_is_not_part_of_the_first_line() {
        let with_mark = format!("\u{feff}{SAMPLE}");
        assert_eq!(RecipeBook::parse(&with_mark).unwrap(), RecipeBook::parse(SAMPLE).unwrap());
    }

    #[test]
    fn serialise_then_parse_gives_the_same_rows() {
        let mut book = RecipeBook::parse(SAMPLE).unwrap();
        book.insert("Tesla K20c", (3, 5), "trmv_lnn_f32", recipe(1.0 / 3.0, 0.09375, 0, Some(10.5)));
        let text = book.serialise();
        assert!(text.lines().nth(1).unwrap().starts_with("# device"), "{text}");
        let again = RecipeBook::parse(&text).unwrap();
        assert_eq!(again.rows, book.rows, "{text}");
        assert_eq!(again.serialise(), text);
    }

    #[test]
    fn serialised_columns_line_up() {
        let text = RecipeBook::parse(SAMPLE).unwrap().serialise();
        let bar_positions: Vec<Vec<usize>> =
            text.lines().skip(1).map(|line| line.match_indices('|').map(|(at, _)| at).collect()).collect();
        assert!(bar_positions.windows(2).all(|pair| pair[0] == pair[1]), "{text}");
    }

    #[test]
    fn malformed_lines_are_reported_by_number() {
        let text = "\
# header
* | 9.0 | axpy_f32_vec4 | 0.5 | 0 | 128 | -
* | 9.0 | axpy_f32_vec4 | 1.5 | 0 | 128 | -
* | nine | axpy_f32_vec4 | 0.5 | 0 | 128 | -
* | 9.0 | axpy_f32_vec4 | 0.5 | 0 | 128
* | 9.0 | axpy_f32_vec4 | 0.5 | 0 | -3 | -
* | 9.0 | axpy_f32_vec4 | 0.5 | 0 | 128 | 0
 | 9.0 | axpy_f32_vec4 | 0.5 | 0 | 128 | -
";
        let error = RecipeBook::parse(text).unwrap_err();
        let lines: Vec<usize> = error.errors.iter().map(|error| error.line).collect();
        assert_eq!(lines, vec![3, 4, 5, 6, 7, 8]);
        let message = error.to_string();
        assert!(message.starts_with("line 3: warp_occupancy_min"), "{message}");
        assert!(message.contains("line 5: expected 7 columns"), "{message}");
    }

    #[test]
    fn later_rows_and_merged_books_win() {
        let text = "* | 9.0 | k | 0.1 | 0 | 32 | -\n* | 9.0 | k | 0.2 | 0 | 32 | -\n";
        let mut book = RecipeBook::parse(text).unwrap();
        assert_eq!(book.recipe_for("x", (9, 0), "k").warp_occupancy_min, 0.2);
        let mut newer = RecipeBook::built_in();
        newer.insert(ANY_DEVICE, (9, 0), "k", recipe(0.3, 0.0, 32, None));
        newer.insert(ANY_DEVICE, (8, 0), "k", recipe(0.4, 0.0, 32, None));
        book.merge(&newer);
        assert_eq!(book.len(), 2);
        assert_eq!(book.recipe_for("x", (9, 0), "k").warp_occupancy_min, 0.3);
        assert_eq!(book.recipe_for("x", (8, 0), "k").warp_occupancy_min, 0.4);
    }

    #[test]
    fn locations_follow_the_environment_rules() {
        let locations = RecipeLocations::from_values(None, Some("/xdg".into()), Some("/home/u".into()));
        assert_eq!(locations.default, Some(PathBuf::from("/xdg/mublas/recipes.txt")));
        let locations = RecipeLocations::from_values(None, Some("relative".into()), Some("/home/u".into()));
        assert_eq!(locations.default, Some(PathBuf::from("/home/u/.cache/mublas/recipes.txt")));
        let locations = RecipeLocations::from_values(Some("".into()), Some("".into()), Some("/home/u".into()));
        assert_eq!(locations.explicit, None);
        assert_eq!(locations.file_to_write(), Some(Path::new("/home/u/.cache/mublas/recipes.txt")));
        let locations = RecipeLocations::from_values(Some("/r.txt".into()), None, None);
        assert_eq!(locations.file_to_write(), Some(Path::new("/r.txt")));
        assert_eq!(RecipeLocations::from_values(None, None, None), RecipeLocations::default());
    }

    /// A scratch folder of our own under the system temp folder.
    fn scratch_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("mublas-recipe-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn loading_falls_back_with_a_warning_only_when_something_is_wrong() {
        let dir = scratch_dir("load");
        let missing = dir.join("missing.txt");
        let good = dir.join("good.txt");
        let bad = dir.join("bad.txt");
        std::fs::write(&good, SAMPLE).unwrap();
        std::fs::write(&bad, "* | 9.0 | k | 2 | 0 | 32 | -\n").unwrap();

        // A missing default file is the normal state: silent.
        let (book, warning) =
            RecipeBook::load_from(&RecipeLocations { explicit: None, default: Some(missing.clone()) });
        assert_eq!((book.is_empty(), warning), (true, None));
        assert_eq!(book.path_in_use(), None);
        assert_eq!(book.describe_source(), "built-in defaults");

        // A missing MUBLAS_RECIPES file is the user's mistake: warn.
        let (book, warning) =
            RecipeBook::load_from(&RecipeLocations { explicit: Some(missing), default: Some(good.clone()) });
        assert!(book.is_empty());
        assert!(warning.unwrap().contains("MUBLAS_RECIPES"));

        let (book, warning) = RecipeBook::load_from(&RecipeLocations { explicit: None, default: Some(good.clone()) });
        assert_eq!((book.len(), warning), (3, None));
        assert_eq!(book.path_in_use(), Some(good.as_path()));
        assert!(book.describe_source().contains("3 recipes"));

        let (book, warning) = RecipeBook::load_from(&RecipeLocations { explicit: Some(bad), default: Some(good) });
        assert!(book.is_empty());
        let warning = warning.unwrap();
        assert!(warning.contains("malformed") && warning.contains("line 1"), "{warning}");

        let _ = std::fs::remove_dir_all(&dir);
    }
}
