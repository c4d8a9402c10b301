//! `arcade check-levels DIR`: every kind of level file checked, each problem printed
//! with file, line and reason, and the exit status says whether there were any.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

mod common;

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
    assert_eq!(
        stdout,
        "no/such/dir: no such directory: name a folder laid out like levels/ (sokoban/, starpusher/, wumpus/)\n"
    );
}

#[test]
fn a_directory_without_level_files_fails_and_says_what_it_found() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "Sokoban/mine.txt", "#####\n#P+-#\n#####\n");
    write(dir.path(), "loose.txt", "#####\n#P+-#\n#####\n");
    let (output, stdout) = check(dir.path());
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("no level files found: expected sokoban/NAME.txt"),
        "{stdout}"
    );
    assert!(
        stdout.contains("Sokoban/ should be called sokoban/"),
        "{stdout}"
    );
    assert!(
        stdout.contains("loose.txt must go into one of the folders"),
        "{stdout}"
    );
}

#[test]
fn serve_refuses_a_missing_levels_directory() {
    let output = Command::new(env!("CARGO_BIN_EXE_arcade"))
        .args([
            "serve",
            "--bind",
            "127.0.0.1",
            "--port",
            "0",
            "--levels",
            "/no/such/levels",
        ])
        .output()
        .expect("run arcade serve");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("arcade: --levels /no/such/levels: no such directory"),
        "{stderr}"
    );
}

#[cfg(unix)]
#[tokio::test]
async fn hostile_files_are_skipped_and_serve_answers_at_once() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "sokoban/good.txt", "#####\n#P+-#\n#####\n");
    let folder = dir.path().join("sokoban");
    std::os::unix::fs::symlink("/dev/zero", folder.join("zero.txt")).unwrap();
    let made = Command::new("mkfifo").arg(folder.join("fifo.txt")).status();
    assert!(made.is_ok_and(|status| status.success()), "mkfifo");
    let huge = fs::File::create(folder.join("huge.txt")).unwrap();
    huge.set_len(2_000_000_000).unwrap();

    let (output, stdout) = check(dir.path());
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("zero.txt: not a regular file"), "{stdout}");
    assert!(stdout.contains("fifo.txt: not a regular file"), "{stdout}");
    assert!(
        stdout.contains("huge.txt: too big (2000000000 bytes)"),
        "{stdout}"
    );
    assert!(stdout.contains("3 problem(s)"), "{stdout}");

    let options = arcade::server::Options {
        levels: Some(dir.path().to_path_buf()),
        ..arcade::server::Options::default()
    };
    let server = common::TestServer::start_with(options).await;
    let mut client = common::Client::connect(server.addr).await;
    client.send("levels sokoban").await;
    assert_eq!(
        client.read_until("> ").await,
        "sokoban: classic, good\r\n> "
    );
    server.shutdown().await;
}

/// An empty `--levels` folder (a class folder not filled yet, here with empty
/// `sokoban/` and `wumpus/` in it) starts the server with the built-in levels and a
/// warning, instead of an error that would restart a container in a loop (issue 30);
/// `check-levels` still says the folder is empty.
#[tokio::test]
async fn serve_with_an_empty_levels_folder_serves_the_built_in_levels() {
    let levels = tempfile::tempdir().unwrap();
    fs::create_dir(levels.path().join("sokoban")).unwrap();
    fs::create_dir(levels.path().join("wumpus")).unwrap();
    let data = tempfile::tempdir().unwrap();
    let dir = levels.path().to_str().expect("a path");
    let (mut child, addr, _, log) = common::spawn_server_logged(data.path(), &["--levels", dir]);
    let warned = log
        .lines()
        .find(|line| line.contains("the levels folder is empty"))
        .unwrap_or_else(|| panic!("no warning:\n{log}"));
    assert!(warned.contains("WARN"), "{warned}");
    assert!(warned.contains("serving the built-in levels"), "{warned}");
    assert!(warned.contains(dir), "{warned}");
    let mut client = common::Client::connect(addr).await;
    client.send("play sokoban").await;
    let board = client.read_text_until("Enter command: ").await;
    assert!(board.starts_with("Welcome to Sokoban!"), "{board}");
    let _ = child.kill();
    let _ = child.wait();

    let (output, stdout) = check(levels.path());
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains(": the folder is empty: put sokoban/NAME.txt"),
        "{stdout}"
    );
}

#[test]
fn solve_solves_the_built_in_collection_and_counts_in_words() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("levels/starpusher/arcade.txt");
    let output = Command::new(env!("CARGO_BIN_EXE_arcade"))
        .args(["check-levels", "--solve", "--time", "10s"])
        .arg(&file)
        .output()
        .expect("run arcade check-levels --solve");
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success(), "{text}");
    // "First Push" (`#@ $ .#`): one step, then the box pushed twice.
    assert!(
        text.contains("arcade.txt level 1: solved, 2 pushes, 3 moves ("),
        "{text}"
    );
    assert!(
        text.contains("25 levels: 25 solved, 0 unsolved in 10s, 0 without a solution"),
        "{text}"
    );
}
