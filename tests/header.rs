//! include/mublas.h must be what cbindgen makes of src/capi today.
//! `MUBLAS_BLESS_HEADER=1 cargo test --test header` rewrites it.

use std::path::Path;

#[test]
fn header_is_current() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(root.join("cbindgen.toml")).expect("cbindgen.toml");
    // Only the C ABI layer: the rest of the crate has public constants that are not API.
    // (with_src follows the module's `mod` items into its files.)
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_config(config)
        .with_src(root.join("src/capi/mod.rs"))
        .generate()
        .expect("cbindgen failed")
        .write(&mut generated);
    let path = root.join("include/mublas.h");
    if std::env::var_os("MUBLAS_BLESS_HEADER").is_some() {
        std::fs::create_dir_all(root.join("include")).unwrap();
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "include/mublas.h is stale: run `MUBLAS_BLESS_HEADER=1 cargo test --test header` and commit it"
    );
}
