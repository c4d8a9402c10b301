//! Every input kept under `fuzz/regressions/TARGET/` goes through its fuzz target's
//! property again ([`arcade::fuzzing`]), on the stable toolchain and without libFuzzer,
//! so a crash the fuzzer once found is a failing test until it is fixed, and stays
//! fixed after (docs/developing.md, "Fuzzing").

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

/// A fuzz target's property: panics when the input breaks it.
type Property = fn(&[u8]);

/// Each fuzz target under `fuzz/fuzz_targets/` and the property it checks.
const TARGETS: &[(&str, Property)] = &[
    ("telnet_decode", arcade::fuzzing::telnet_decode),
    ("levels", arcade::fuzzing::levels),
    ("console", arcade::fuzzing::console),
];

/// `fuzz/` beside the crate's manifest.
fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz")
}

/// The files of `dir`, sorted so that failures list alike on every run.
fn files_in(dir: &Path) -> Vec<PathBuf> {
    let entries = std::fs::read_dir(dir)
        .unwrap_or_else(|error| panic!("{}: {error} (every target keeps inputs)", dir.display()));
    let mut files: Vec<PathBuf> = entries
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    files
}

#[test]
fn every_fuzz_target_is_replayed_here() {
    let mut names: Vec<String> = files_in(&fuzz_dir().join("fuzz_targets"))
        .iter()
        .filter_map(|path| Some(path.file_stem()?.to_str()?.to_string()))
        .collect();
    names.sort();
    let mut known: Vec<&str> = TARGETS.iter().map(|(name, _)| *name).collect();
    known.sort_unstable();
    assert_eq!(names, known, "add the new target to TARGETS");
}

#[test]
fn kept_inputs_pass_their_target() {
    let mut failures = Vec::new();
    for (name, property) in TARGETS {
        let files = files_in(&fuzz_dir().join("regressions").join(name));
        assert!(!files.is_empty(), "fuzz/regressions/{name}/ keeps no input");
        for file in files {
            let data = std::fs::read(&file).expect("a kept input");
            if let Err(panic) = catch_unwind(AssertUnwindSafe(|| property(&data))) {
                let message = panic
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| panic.downcast_ref::<&str>().copied())
                    .unwrap_or("(not a string)");
                failures.push(format!("{}: {message}", file.display()));
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}
