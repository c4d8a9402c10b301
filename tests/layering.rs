//! The module graph has no circle: `src/games/` is the leaf of the crate and uses
//! nothing else of it, so that every game stays a pure state machine that anything
//! above it (the store, the table, the console, `arcade play`) can drive.

use std::path::Path;

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src/games") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            rust_files(&path, files);
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            files.push(path);
        }
    }
}

#[test]
fn games_use_nothing_else_of_the_crate() {
    let games = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/games");
    let mut files = Vec::new();
    rust_files(&games, &mut files);
    assert!(files.len() >= 10, "{files:?}");
    let mut outside = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("read a source file");
        for (index, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            let mut rest = code;
            while let Some(at) = rest.find("crate::") {
                rest = &rest[at + "crate::".len()..];
                if !rest.starts_with("games") {
                    outside.push(format!("{}:{}: {line}", file.display(), index + 1));
                }
            }
        }
    }
    assert!(
        outside.is_empty(),
        "games reach outside src/games:\n{}",
        outside.join("\n")
    );
}
