//! Problems with level files name the line and column and show at most one character
//! of the file, never its text: a level file can be a symlink to a secret (a line of
//! `/etc/shadow`), and its problems go to the log and to `check-levels`.

use std::fs;
use std::process::Command;

use arcade::catalog::levels::LevelFile;
use arcade::games::sokoban::parse_level;
use arcade::games::starpusher::xsb::Collection;
use arcade::games::world::Level;
use arcade::games::wumpus::{parse_cave, Cave};

/// A line of a password file, as a symlinked "level" would hold it.
const SECRET: &str = "root:x:0:0:secret-text";

/// Fails the test if any message shows a word of the secret.
fn assert_hidden(messages: &[String], file: &str) {
    for message in messages {
        assert!(
            !message.contains("root") && !message.contains("secret"),
            "{file:?} gave {message:?}"
        );
    }
}

#[test]
fn sokoban_messages_never_show_the_file() {
    let files = [
        SECRET.to_string(),
        format!("#####\n#P+-#\n#####\n{SECRET}\n"),
        format!("#####\n{SECRET}\n#P+-#\n#####\n"),
        format!("#####\n#P+-#{SECRET}\n#####\n"),
        format!("   {SECRET}   \n#P+-#\n"),
        format!("P+-{SECRET}"),
        format!("#P+-#\n\u{1b}[2J{SECRET}\n"),
        format!("#P+-# {SECRET}"),
    ];
    for file in &files {
        let error = parse_level(file).map(|_| ()).unwrap_err();
        let problems = Level::parse("level.txt", file).map(|_| ()).unwrap_err();
        let mut messages: Vec<String> = problems.iter().map(ToString::to_string).collect();
        messages.push(error.to_string());
        assert_hidden(&messages, file);
        assert!(
            messages[0].contains(" at column "),
            "{file:?}: {messages:?}"
        );
    }
    // The one character shown: the first that is not a glyph, or its code point.
    let error = parse_level(&format!("#P+-#\n\u{1b}[2J{SECRET}\n")).unwrap_err();
    assert_eq!(
        error.to_string(),
        "unknown character U+001B at column 1: use # . P + - O"
    );
    let error = parse_level(&format!("#P+-#{SECRET}\n")).unwrap_err();
    assert_eq!(
        error.to_string(),
        "unknown character 'r' at column 6: use # . P + - O"
    );
}

#[test]
fn star_pusher_messages_never_show_the_file() {
    let good = "#####\n#@$.#\n#####\n";
    // Lines that read as board rows with a mistake in them: each is a problem.
    let broken = [
        format!("#{SECRET}#\n"),
        format!("{good}#{SECRET}#\n"),
        format!("#####\n#@$.#{SECRET}#\n#####\n"),
        format!("# {SECRET} #\n{good}"),
        format!("#3{SECRET}#\n"),
        format!("#\u{202e}{SECRET}#\n"),
    ];
    for file in &broken {
        let parsed = Collection::parse_partial("set.txt", file);
        let messages: Vec<String> = parsed.problems.iter().map(ToString::to_string).collect();
        assert!(!messages.is_empty(), "{file:?}");
        assert!(
            messages.iter().all(|m| m.contains(", column ")),
            "{messages:?}"
        );
        assert_hidden(&messages, file);
    }
    // The one character shown is printable ASCII, or else its code point.
    let parsed = Collection::parse_partial("set.txt", "#####\n#@$.#é#\n#####\n");
    assert_eq!(
        parsed.problems[0].to_string(),
        "Level 1 (line 1) in set.txt: unknown character U+00E9 on line 2, column 6: \
         use # @ + $ * . and space, - or _ for floor"
    );
    // Lines that are not board rows are metadata; a file of nothing else has no levels.
    for file in [
        format!("{SECRET}\n"),
        format!("{SECRET}\n\n{good}"),
        format!("{good}{SECRET}\n"),
        format!("Title: {SECRET}\n{good}\n#####\n# $.#\n#####\n"),
    ] {
        let parsed = Collection::parse_partial("set.txt", &file);
        let messages: Vec<String> = parsed.problems.iter().map(ToString::to_string).collect();
        assert_hidden(&messages, &file);
    }
}

/// A valid world, one keyword per line, in the required order.
const WORLD: [&str; 7] = [
    "dim 4 4",
    "player 0 0 1 0 1",
    "wumpus 3 2",
    "gold 3 3",
    "pit 2 0",
    "exit 0 0",
    "blocked 1 1",
];

#[test]
fn wumpus_messages_never_show_the_file() {
    let mut files = vec![SECRET.to_string(), format!("dim 4 4\n{SECRET}\n")];
    // The secret in every position of every line: as the keyword, as each field, after
    // the last field, glued to a number, and split into words.
    for (index, line) in WORLD.iter().enumerate() {
        let words: Vec<&str> = line.split(' ').collect();
        let mut variants = Vec::new();
        for position in 0..words.len() {
            let mut changed = words.clone();
            changed[position] = SECRET;
            variants.push(changed.join(" "));
            let glued = format!("{}{SECRET}", words[position]);
            changed[position] = &glued;
            variants.push(changed.join(" "));
        }
        variants.push(format!("{line} {SECRET}"));
        variants.push(format!("{line} {}", SECRET.replace(':', " ")));
        for variant in variants {
            let mut lines = WORLD.to_vec();
            lines[index] = &variant;
            files.push(lines.join("\n"));
        }
    }
    for file in &files {
        let error = parse_cave(file).map(|_| ()).unwrap_err();
        let problems = Cave::parse("world.txt", file).map(|_| ()).unwrap_err();
        let mut messages: Vec<String> = problems.iter().map(ToString::to_string).collect();
        messages.push(error.to_string());
        assert_hidden(&messages, file);
    }
}

/// The case from the hardening issue: level files that are symlinks to a secret, read
/// by `check-levels`, whose output names each file and line but shows none of it.
#[cfg(unix)]
#[test]
fn check_levels_on_symlinks_to_a_secret_shows_none_of_it() {
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("shadow");
    fs::write(&secret, format!("{SECRET}\ndaemon:*:19000:0:99999:7:::\n")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for kind in ["sokoban", "starpusher", "wumpus"] {
        let folder = dir.path().join(kind);
        fs::create_dir(&folder).unwrap();
        std::os::unix::fs::symlink(&secret, folder.join("level.txt")).unwrap();
    }
    let output = Command::new(env!("CARGO_BIN_EXE_arcade"))
        .arg("check-levels")
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    // The paths are ours, not the file's: take them out before looking.
    let shown = |bytes: &[u8]| {
        String::from_utf8_lossy(bytes)
            .replace(&dir.path().display().to_string(), "DIR")
            .replace(&outside.path().display().to_string(), "OUTSIDE")
    };
    let stdout = shown(&output.stdout);
    let stderr = shown(&output.stderr);
    for (kind, line) in [("sokoban", 1), ("wumpus", 1)] {
        let named = format!("DIR/{kind}/level.txt: line {line}: ");
        assert!(stdout.contains(&named), "{stdout}");
    }
    assert!(stdout.contains("DIR/starpusher/level.txt: line 1: no levels found"));
    assert!(stdout.contains("3 problem(s)"), "{stdout}");
    assert_hidden(&[stdout, stderr], "check-levels");
}
