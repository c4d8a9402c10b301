//! `levels [GAME]`: what a game can load (SPEC section 1), saved worlds included.

use std::fmt::Write as _;

use super::{Args, CommandSpec, Help, Place};
use crate::catalog::table::{Context, GameKind, GAMES};
use crate::console::jobs::{FileWork, Job, Work};
use crate::console::{lobby, Console, Outcome};

/// `levels`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "levels",
    place: Place::LOBBY,
    admins_only: false,
    help: Help::Lobby("  levels [GAME]      list what a game can load\n"),
    run,
};

/// `levels`' words: every game, or one (`Err`: a word that names no game).
fn parse(args: Args<'_>) -> Result<Option<&'static GameKind>, &str> {
    match args.word(0) {
        None => Ok(None),
        Some(game) => GameKind::from_name(game).map(Some).ok_or(game),
    }
}

fn run(console: &mut Console, args: Args<'_>) -> Outcome {
    match parse(args) {
        // Listing may read the disk (the saved worlds): a job.
        Ok(kind) => Outcome::Wait(Job::new(Work::Files(FileWork::Levels {
            kind,
            saves: console.saves(),
        }))),
        Err(word) => console.say(format!("{}\n", lobby::unknown_game(Some(word)))),
    }
}

/// The text of `levels [GAME]`, without the prompt. It may read the disk (the saved
/// worlds): run it off the event loop.
pub fn text(kind: Option<&'static GameKind>, context: &Context) -> String {
    let kinds = match kind {
        Some(kind) => std::slice::from_ref(kind),
        None => GAMES,
    };
    let mut text = String::new();
    for kind in kinds {
        let names = (kind.level_names)(context);
        if names.is_empty() {
            let _ = writeln!(text, "{}: (no levels to choose: just play it)", kind.name);
        } else {
            // A class's folder may hold many: the list wraps at 80 columns.
            text.push_str(&crate::text::wrap_list(
                &format!("{}: ", kind.name),
                &names,
                crate::text::COLUMNS,
                "  ",
            ));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::levels::Levels;

    fn context() -> Context {
        let (levels, problems) = Levels::built_in();
        assert!(problems.is_empty(), "{problems:?}");
        Context {
            levels,
            data_dir: std::env::temp_dir().join("arcade-lobby-tests-unused"),
        }
    }

    fn game(name: &str) -> &'static GameKind {
        GameKind::from_name(name).unwrap()
    }

    #[test]
    fn parses_no_game_or_one() {
        assert_eq!(parse(Args::new("")), Ok(None));
        assert_eq!(parse(Args::new("SOKOBAN")), Ok(Some(game("sokoban"))));
        assert_eq!(parse(Args::new("chess")), Err("chess"));
    }

    #[test]
    fn levels_of_each_game() {
        let context = context();
        assert_eq!(
            text(Some(game("starpusher")), &context),
            "starpusher: arcade (25 levels)\n"
        );
        assert!(text(Some(game("2048")), &context).contains("2048: (no levels"));
        let all = text(None, &context);
        assert!(all.contains("sokoban: classic"), "{all}");
        assert!(all.contains("wumpus: big, classic, maze"), "{all}");
    }
}
