//! `arcade check-levels DIR`: every kind of level file checked, each problem printed
//! with file, line and reason, and the exit status says whether there were any.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

fn check(dir: &Path) -> (Output, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_arcade"))
        .arg("check-levels")
        .arg(dir)
        .output()
        .expect("run arcade check-levels");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    (output, stdout)
}

fn write(dir: &Path, file: &str, text: &str) {
    let path = dir.join(file);
    fs::create_dir_all(path.parent().expect("a parent")).expect("create the folder");
    fs::write(path, text).expect("write a level");
}

#[test]
fn good_levels_pass() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "sokoban/ok.txt", "#####\n#P+-#\n#####\n");
    write(dir.path(), "starpusher/ok.txt", "#####\n#@$.#\n#####\n");
    write(
        dir.path(),
        "wumpus/ok.txt",
        "dim 2 2\nplayer 0 0 0 0 1\nexit 0 0\n",
    );
    let (output, stdout) = check(dir.path());
    assert!(output.status.success(), "{stdout}");
    assert!(stdout.contains("all levels are fine"), "{stdout}");
}

#[test]
fn every_kind_of_problem_is_named_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "sokoban/bad.txt", "#####\n#P+-#\n#P###\n");
    write(
        dir.path(),
        "starpusher/mixed.txt",
        "; one good, one bad\n#####\n#@$.#\n#####\n\n#####\n#@$ #\n#####\n",
    );
    write(dir.path(), "wumpus/bad.txt", "dim 2 2\nexit 0 0\n");
    let (output, stdout) = check(dir.path());
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    let sokoban = format!(
        "{}: line 1: two players",
        dir.path().join("sokoban/bad.txt").display()
    );
    assert!(stdout.contains(&sokoban), "{stdout}");
    let starpusher = format!(
        "Level 2 (line 6) in {}: ",
        dir.path().join("starpusher/mixed.txt").display()
    );
    assert!(stdout.contains(&starpusher), "{stdout}");
    assert!(stdout.contains("no goal"), "{stdout}");
    let wumpus = format!("{}: line 2:", dir.path().join("wumpus/bad.txt").display());
    assert!(stdout.contains(&wumpus), "{stdout}");
    assert!(stdout.contains("3 problem(s)"), "{stdout}");
}

#[test]
fn a_missing_directory_fails() {
    let (output, stdout) = check(Path::new("no/such/dir"));
    assert!(!output.status.success());
    assert!(stdout.contains("not a directory"), "{stdout}");
}
