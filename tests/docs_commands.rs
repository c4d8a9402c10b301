//! The `arcade ...` command lines the docs show work as written (issue 30): each one in
//! a code block of README.md and docs/*.md is run with `--help` after it, so that the
//! binary parses every subcommand and option it names (and does nothing else).
//! Usage synopses (`[--addr ADDR]`, `...`) and lines that need a running server's
//! process id are left out.

use std::path::Path;
use std::process::Command;

/// The command lines in code blocks of `text` that run `arcade`, without the prompt,
/// a pipe into it or a trailing comment.
fn arcade_lines(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        let indented = line.starts_with("    ");
        if !fenced && !indented {
            continue;
        }
        let mut command = line.trim();
        command = command.strip_prefix("$ ").unwrap_or(command);
        if let Some((_, after)) = command.split_once("| ") {
            command = after.trim();
        }
        if let Some((before, _)) = command.split_once(" #") {
            command = before.trim();
        }
        if !command.starts_with("arcade ") {
            continue;
        }
        if command.contains('[') || command.contains("...") || command.contains("PID") {
            continue;
        }
        lines.push(command.to_string());
    }
    lines
}

/// A command line's words as a shell reads them: white space between words, a word in
/// double quotes kept whole (`--setup "set warnings on"`).
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut started = false;
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                started = true;
            }
            c if c.is_whitespace() && !quoted => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            c => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        words.push(word);
    }
    words
}

#[test]
fn every_arcade_command_in_the_docs_parses() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    for entry in std::fs::read_dir(root.join("docs")).expect("docs/") {
        let path = entry.expect("a docs entry").path();
        if path.extension().is_some_and(|ext| ext == "md") {
            files.push(path);
        }
    }
    let mut checked = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a doc");
        for line in arcade_lines(&text) {
            let words: Vec<String> = shell_words(&line).into_iter().skip(1).collect();
            let output = Command::new(env!("CARGO_BIN_EXE_arcade"))
                .args(&words)
                .arg("--help")
                .output()
                .expect("run arcade");
            assert!(
                output.status.success(),
                "{}: `{line}` does not parse:\n{}",
                file.display(),
                String::from_utf8_lossy(&output.stderr)
            );
            checked += 1;
        }
    }
    // The teacher's first screen alone has three.
    assert!(checked >= 3, "only {checked} command lines found");
}

#[test]
fn quoted_words_stay_whole() {
    assert_eq!(
        shell_words(r#"arcade loadtest --setup "set warnings on"  --names"#),
        [
            "arcade",
            "loadtest",
            "--setup",
            "set warnings on",
            "--names"
        ]
    );
}

#[test]
fn lines_are_found_in_blocks_only() {
    let text = "arcade loose\n```sh\n$ arcade serve --port 1   # a comment\nprintf x | arcade admin set-password T\narcade loadtest [--addr A]\n```\n    arcade accounts list\n";
    assert_eq!(
        arcade_lines(text),
        [
            "arcade serve --port 1",
            "arcade admin set-password T",
            "arcade accounts list"
        ]
    );
}
