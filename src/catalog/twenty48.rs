//! 2048's row of the table of games: `play 2048 [size=N] [win=N] [seed=N]
//! [style=box|ascii]`, a drawn seed kept so that a recording or a race replays, the
//! best score remembered, every key acting at once, tiles coloured by value. Its
//! leaderboards are per size, and per win value when it is not 2048.

use crate::catalog::kind::{Board, GameKind, Keys, LoadScript, MemoryCodec, Usage};
use crate::catalog::start::boxed;
use crate::codec::terminal::Palette;
use crate::games::twenty48;

pub(super) const ROW: GameKind = GameKind {
    name: "2048",
    usage: Usage {
        args: "2048 [size=N] [win=N] [seed=N] [style=box|ascii]",
        about: "slide and merge tiles (default: size=4 win=2048 box)",
    },
    start: |args, _| {
        twenty48::from_args(args)
            .map(boxed)
            .map_err(|error| error.to_string())
    },
    level_names: |_| Vec::new(),
    from_file: None,
    // A move that finds nothing to slide is refused and leaves nothing to take
    // back; `b` then says so, and the board is still the opening one.
    load_script: Some(LoadScript {
        lobby_line: "play 2048 seed=1",
        commands: &["a", "b", "w", "b", "d", "b", "s", "b"],
    }),
    recorded_args: twenty48_seeded,
    level_key: |args| {
        let words: Vec<&str> = args.iter().map(String::as_str).collect();
        twenty48::parse_args(&words)
            .map(|(settings, _)| settings.level())
            .unwrap_or_default()
    },
    memory: MemoryCodec {
        remember: |memory| {
            memory
                .get::<twenty48::Best>()
                .map(|best| best.0.to_string())
                .unwrap_or_default()
        },
        recall: |text, memory| {
            if let Ok(best) = text.parse() {
                memory.part::<twenty48::Best>().0 = best;
            }
        },
    },
    from_state: None,
    boards: &[Board::Score],
    race_args: twenty48_seeded,
    // The 2048 seed's improved version reads single keys: every key acts at once.
    keys: Keys {
        instant: |key| {
            const KEYS: [&str; 11] = ["w", "a", "s", "d", "h", "j", "k", "l", "b", "r", "q"];
            KEYS.iter().copied().find(|k| k.starts_with(key))
        },
        arrows: ["w", "s", "d", "a"],
        help: None,
    },
    palette: Some(Palette::Tiles(&['┌', '│', '├', '└', '+', '|'])),
};

/// 2048's arguments with a drawn `seed=` when none was typed: the game is then the
/// one that seed makes, exactly as an unseeded game drawn from that seed.
/// Arguments that would not start are left as typed, so the player reads the same
/// error.
fn twenty48_seeded(mut args: Vec<String>) -> Vec<String> {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    if let Ok((_, None)) = twenty48::parse_args(&words) {
        args.push(format!("seed={}", rand::random::<u64>()));
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::start::testing::{never_ends, start};

    #[test]
    fn twenty48_arguments() {
        assert!(start(&ROW, &["seed=3"]).is_ok());
        assert_eq!(
            start(&ROW, &["size=2"]).err().as_deref(),
            Some("size must be 3 to 8.")
        );
    }

    #[test]
    fn twenty48_script_never_ends_the_game() {
        never_ends(&ROW, &["Illegal", "Game over", "You win"]);
    }
}
