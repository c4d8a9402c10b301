//! The lobby's own texts: its prompt, the greeting, goodbye, and the one-line errors
//! for a game or a command that does not exist (SPEC section 1).
//!
//! The commands themselves, with their parsers and help lines, are in
//! [`crate::console::commands`]; which games exist is the table's
//! ([`crate::catalog::table`]).

use crate::catalog::table::GameKind;
use crate::text::{wrap_list, COLUMNS};

/// The lobby prompt (no line ending).
pub const PROMPT: &str = "> ";

/// Sent when a player leaves with `quit`.
pub const GOODBYE: &str = "Goodbye.\n";

/// The greeting sent on connect, ending with the lobby prompt. It fits 80 columns,
/// and says on the way in what a new player stumbles on otherwise (issue 30): how to
/// get help in and out of any game, and that a guest's results are not kept.
pub fn banner() -> String {
    // Broken between commands, never inside one (`watch` and its `NAME` together).
    let commands: Vec<String> = [
        "play GAME [ARGS]",
        "levels [GAME]",
        "who",
        "say TEXT",
        "tell NAME TEXT",
        "watch NAME",
        "name NAME",
        "help",
        "quit",
    ]
    .map(String::from)
    .to_vec();
    format!(
        "Welcome to arcade!\nGames: {}\n{}{EVERY_GAME}\n{GUESTS}\n{PROMPT}",
        GameKind::names(),
        wrap_list("Commands: ", &commands, COLUMNS, "  "),
    )
}

/// The banner's last line for a client whose terminal type said a screen reader is in
/// use (SPEC section 10).
pub const READER_ON: &str =
    "Reader mode is on: games are described in words (set reader off draws them).\n";

/// The banner's line on the two commands that work in every game: each game leaves
/// and helps on a word of its own (`e`, `q`, `quit`...).
const EVERY_GAME: &str =
    "In every game, /help lists its commands and /leave goes back to the lobby.";

/// The line a player who uses section 7's commands gets on entering a game, the
/// first time a session.
pub const IN_GAMES: &str = "/help lists this game's commands, /leave goes back to the lobby.";

/// The banner's word to guests: only a chosen name keeps results (SPEC section 8).
const GUESTS: &str = "Guests' results are not kept: take a name first (name NAME) to keep yours.";

/// Told once to a guest who finished a game after using a command of section 7: the
/// result just reached was not kept, and how to keep the next.
pub const GUEST_RESULT: &str =
    "Guests' results are not kept: type name NAME before your next game.";

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
        assert!(text.contains("/help") && text.contains("/leave"));
        assert!(text.contains("name NAME"));
        // A command and its words stay on one line.
        assert!(text.contains("watch NAME"), "{text}");
        assert!(
            text.lines().all(|line| line.chars().count() <= COLUMNS),
            "{text}"
        );
        assert!(GUEST_RESULT.len() <= COLUMNS && IN_GAMES.len() <= COLUMNS);
    }
}
