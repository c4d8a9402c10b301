//! The lobby's own texts: its prompt, the greeting, goodbye, and the one-line errors
//! for a game or a command that does not exist (SPEC section 1).
//!
//! The commands themselves, with their parsers and help lines, are in
//! [`crate::console::commands`]; which games exist is the table's
//! ([`crate::catalog::table`]).

use crate::catalog::table::GameKind;

/// The lobby prompt (no line ending).
pub const PROMPT: &str = "> ";

/// Sent when a player leaves with `quit`.
pub const GOODBYE: &str = "Goodbye.\n";

/// The greeting sent on connect, ending with the lobby prompt.
pub fn banner() -> String {
    format!(
        "Welcome to arcade!\nGames: {}\nCommands: play GAME [ARGS], levels [GAME], who, say TEXT, tell NAME TEXT, watch NAME, name NAME, help, quit\n{PROMPT}",
        GameKind::names()
    )
}

/// The one-line error for `play` without a known game.
pub fn unknown_game(word: Option<&str>) -> String {
    match word {
        Some(word) => format!(
            "Unknown game: {word}. Choose one of: {}.",
            GameKind::names()
        ),
        None => format!("Play what? Choose one of: {}.", GameKind::names()),
    }
}

/// The one-line error for an unknown lobby command.
pub fn unknown_command(word: &str) -> String {
    format!("Unknown command: {word}. Type help.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_strings() {
        assert_eq!(
            unknown_command("Dance"),
            "Unknown command: Dance. Type help."
        );
        assert!(
            unknown_game(Some("chess")).starts_with("Unknown game: chess. Choose one of: sokoban")
        );
        assert_eq!(
            unknown_game(None),
            "Play what? Choose one of: sokoban, starpusher, 2048, wumpus."
        );
    }

    #[test]
    fn banner_names_games_and_commands_and_ends_with_prompt() {
        let text = banner();
        assert!(text.contains("sokoban, starpusher, 2048, wumpus"));
        assert!(text.contains("help") && text.contains("quit"));
        assert!(text.ends_with("\n> "));
    }
}
