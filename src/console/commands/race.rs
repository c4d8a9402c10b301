//! `race GAME [ARGS] [time=DURATION] [all]`: open a race of a game (SPEC section 9).

use std::time::Duration;

use super::{Args, CommandSpec, Help, Place};
use crate::catalog::table::GameKind;
use crate::console::jobs::{FileWork, Job, Work};
use crate::console::{lobby, Console, Outcome};

/// `race`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "race",
    place: Place::LOBBY,
    // `race ... all` is for admins: the seat checks it.
    admins_only: false,
    // Help has always printed this line without its indent; kept byte for byte.
    help: Help::Lobby(
        "  race GAME [ARGS] [time=5m]\n                     open a race of GAME: the same game for everyone who joins\n",
    ),
    run,
};

/// The longest and shortest `time=` of a race.
const RACE_TIMES: std::ops::RangeInclusive<Duration> =
    Duration::from_secs(10)..=Duration::from_secs(24 * 60 * 60);

const USAGE: &str =
    "Usage: race GAME [ARGS] [time=DURATION] [all]\n(time from 10s to 24h, such as time=5m)\n";

/// A race to open: its game and arguments, its time limit, whether for everyone.
#[derive(Debug, PartialEq, Eq)]
struct Race {
    kind: &'static GameKind,
    args: Vec<String>,
    limit: Option<Duration>,
    all: bool,
}

/// `race`'s words, or the line that says what is wrong with them.
fn parse(args: Args<'_>) -> Result<Race, String> {
    let mut words = args.words();
    let Some(first) = words.next() else {
        return Err(String::from(USAGE));
    };
    let Some(kind) = GameKind::from_name(first) else {
        return Err(format!("{}\n", lobby::unknown_game(Some(first))));
    };
    let mut race = Race {
        kind,
        args: Vec::new(),
        limit: None,
        all: false,
    };
    for word in words {
        let lower = word.to_ascii_lowercase();
        if lower == "all" {
            race.all = true;
        } else if let Some(time) = lower.strip_prefix("time=") {
            match humantime::parse_duration(time) {
                Ok(time) if RACE_TIMES.contains(&time) => race.limit = Some(time),
                _ => return Err(String::from(USAGE)),
            }
        } else {
            race.args.push(word.to_string());
        }
    }
    Ok(race)
}

/// An admin's race for everyone opened from the web page: `words` as they would be
/// typed after `race` (the game, its arguments, `time=T`; `all` is implied), read as
/// `race` reads them: the game, its race arguments and the time limit, or the line
/// that says what is wrong.
///
/// # Errors
/// The words `race` answers a wrong line with (its usage, an unknown game).
pub fn for_everyone(
    words: &str,
) -> Result<(&'static GameKind, Vec<String>, Option<Duration>), String> {
    let race = parse(Args::new(words))?;
    Ok((race.kind, (race.kind.race_args)(race.args), race.limit))
}

fn run(console: &mut Console, args: Args<'_>) -> Outcome {
    let race = match parse(args) {
        Ok(race) => race,
        Err(text) => return console.say(text),
    };
    let Some(seat) = &console.seat else {
        return console.say(String::new());
    };
    if let Err(refusal) = seat.may_race(race.all) {
        return console.say(refusal);
    }
    let Race {
        kind,
        args,
        limit,
        all,
    } = race;
    let args = (kind.race_args)(args);
    Outcome::Wait(Job::new(Work::Files(FileWork::OpenRace {
        kind,
        args,
        saves: console.saves(),
        limit,
        all,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_game_its_words_a_time_and_all() {
        assert_eq!(
            parse(Args::new("2048 seed=1 time=5m ALL")),
            Ok(Race {
                kind: GameKind::from_name("2048").unwrap(),
                args: vec![String::from("seed=1")],
                limit: Some(Duration::from_secs(300)),
                all: true,
            })
        );
        assert_eq!(parse(Args::new("")), Err(String::from(USAGE)));
        assert_eq!(
            parse(Args::new("sokoban time=5s")),
            Err(String::from(USAGE))
        );
        assert!(
            parse(Args::new("chess")).is_err_and(|text| text.starts_with("Unknown game: chess."))
        );
    }
}
