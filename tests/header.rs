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

/// The names of the functions a text calls or declares: identifiers that start
/// with `prefix` and are followed by `(`.
fn names_before_parenthesis(text: &str, prefix: &str) -> std::collections::BTreeSet<String> {
    let mut names = std::collections::BTreeSet::new();
    for (at, _) in text.match_indices(prefix) {
        let starts_word = text[..at].chars().next_back().is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        let name: String = text[at..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        if starts_word && text[at + name.len()..].starts_with('(') {
            names.insert(name);
        }
    }
    names
}

/// The functions include/mublas.h declares.
fn header_functions() -> std::collections::BTreeSet<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let header = std::fs::read_to_string(root.join("include/mublas.h")).unwrap();
    let declared = names_before_parenthesis(&header, "mublas");
    assert!(declared.len() > 20, "header functions not found: {declared:?}");
    declared
}

/// include/mublas.f90 is written by hand: it must bind every function of the
/// header, by the header's name, and nothing the header lacks.
#[test]
fn fortran_module_binds_every_function_of_the_header() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let module = std::fs::read_to_string(root.join("include/mublas.f90")).unwrap();
    let declared = header_functions();
    let bound: std::collections::BTreeSet<String> = module
        .split("bind(C, name=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .filter(|name| name.starts_with("mublas"))
        .map(str::to_string)
        .collect();
    assert_eq!(
        declared.difference(&bound).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "declared in mublas.h, not bound in mublas.f90"
    );
    assert_eq!(
        bound.difference(&declared).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "bound in mublas.f90, not declared in mublas.h"
    );
}

/// c-tests/header_cxx.cpp links the header as C++ and takes the address of
/// every function it lists, so that each must resolve with C linkage: it must
/// list every function of the header.
#[test]
fn cxx_header_test_takes_every_function_of_the_header() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cxx = std::fs::read_to_string(root.join("c-tests/header_cxx.cpp")).unwrap();
    let declared = header_functions();
    let taken: std::collections::BTreeSet<String> = cxx
        .split("const void *>(&")
        .skip(1)
        .map(|rest| rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect())
        .collect();
    assert_eq!(
        declared.difference(&taken).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "declared in mublas.h, address not taken in c-tests/header_cxx.cpp"
    );
}

/// Every constant of the header (`#define MUBLAS_… value`) has its Fortran
/// parameter with the same value.
#[test]
fn fortran_module_gives_every_constant_of_the_header() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let header = std::fs::read_to_string(root.join("include/mublas.h")).unwrap();
    let module = std::fs::read_to_string(root.join("include/mublas.f90")).unwrap();
    let parameters: std::collections::BTreeMap<&str, &str> = module
        .lines()
        .filter_map(|line| line.split_once("parameter ::"))
        .flat_map(|(_, list)| list.split('!').next().unwrap_or("").split(','))
        .filter_map(|item| item.split_once('='))
        .map(|(name, value)| (name.trim(), value.trim()))
        .collect();
    let constants: Vec<(&str, &str)> = header
        .lines()
        .filter_map(|line| line.strip_prefix("#define MUBLAS_"))
        .filter_map(|rest| rest.split_once(' '))
        .map(|(name, value)| (name, value.trim()))
        .collect();
    assert!(constants.len() > 20, "header constants not found: {constants:?}");
    for (name, value) in constants {
        let name = format!("MUBLAS_{name}");
        assert_eq!(parameters.get(name.as_str()), Some(&value), "{name} = {value} in mublas.h; in mublas.f90:");
    }
}
