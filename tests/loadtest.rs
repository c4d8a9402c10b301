//! `arcade loadtest ARGS` runs the load tester, which is a binary of its own
//! (`arcade-loadtest`, the loadtest/ crate, whose own tests/ test the load tester):
//! the one beside the `arcade` executable, with ARGS unchanged and its exit status as
//! the command's; without it, a message that says how to build it.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A directory of its own under the target's scratch space holding `arcade` (hard
/// linked, so that its own path says it lives there; copied where that fails).
fn arcade_alone(name: &str) -> (PathBuf, PathBuf) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let arcade = dir.join("arcade");
    if std::fs::hard_link(env!("CARGO_BIN_EXE_arcade"), &arcade).is_err() {
        std::fs::copy(env!("CARGO_BIN_EXE_arcade"), &arcade).expect("a copy of arcade");
    }
    (dir, arcade)
}

#[test]
fn without_the_load_tester_it_says_how_to_build_it() {
    let (_dir, arcade) = arcade_alone("loadtest-missing");
    let output = Command::new(&arcade)
        .args(["loadtest", "--help"])
        .output()
        .expect("run arcade");
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with(
            "arcade loadtest needs the arcade-loadtest binary: cargo build --release -p arcade-loadtest"
        ),
        "{stderr}"
    );
}

#[cfg(unix)]
#[test]
fn arguments_and_exit_status_pass_through() {
    use std::os::unix::fs::PermissionsExt as _;
    let (dir, arcade) = arcade_alone("loadtest-stand-in");
    // A stand-in that prints its arguments one a line and fails in its own way.
    let stand_in = dir.join("arcade-loadtest");
    std::fs::write(&stand_in, "#!/bin/sh\nprintf '%s\\n' \"$@\"\nexit 3\n").expect("write it");
    std::fs::set_permissions(&stand_in, std::fs::Permissions::from_mode(0o755))
        .expect("make it executable");
    let output = Command::new(&arcade)
        .args([
            "loadtest",
            "--help",
            "-h",
            "--addr",
            "127.0.0.1:1",
            "two words",
        ])
        .output()
        .expect("run arcade");
    assert_eq!(output.status.code(), Some(3));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "--help\n-h\n--addr\n127.0.0.1:1\ntwo words\n"
    );
}

#[test]
fn help_is_the_load_testers() {
    let beside = Path::new(env!("CARGO_BIN_EXE_arcade")).with_file_name("arcade-loadtest");
    if !beside.is_file() {
        // `cargo test -p arcade` builds only the server; `cargo test` at the root
        // builds both packages.
        // CI runs the README's `cargo test --all-targets` at the root: it must be there.
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "{} is not built (cargo test at the workspace's root builds it)",
            beside.display()
        );
        eprintln!("skipped: {} is not built", beside.display());
        return;
    }
    let output = Command::new(env!("CARGO_BIN_EXE_arcade"))
        .args(["loadtest", "--help"])
        .output()
        .expect("run arcade");
    assert!(output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("Usage: arcade loadtest [OPTIONS]"),
        "{stdout}"
    );
    assert!(stdout.contains("--sessions <SESSIONS>"), "{stdout}");
}
