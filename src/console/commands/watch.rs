//! `watch NAME`, `watch race N`: see a game or a race's standings as they change
//! (SPEC section 7).

use super::{Args, CommandSpec, Help, Place};
use crate::console::{Console, Outcome};

/// `watch`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "watch",
    place: Place::Lobby {
        in_game: "Leave the game first (/leave), then watch NAME.\n",
    },
    admins_only: false,
    help: Help::Player(concat!(
        "  watch NAME         see NAME's game as it happens; any line stops watching\n",
        "  watch race N       the standings of race N as they change\n",
    )),
    run,
};

/// `watch`'s words: whom (or `race`), and the race's number, as typed.
fn parse(args: Args<'_>) -> (Option<&str>, Option<&str>) {
    (args.word(0), args.word(1))
}

fn run(console: &mut Console, args: Args<'_>) -> Outcome {
    let (name, race) = parse(args);
    console.seat_reply(|seat| seat.watch(name, race))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_name_or_a_race() {
        assert_eq!(parse(Args::new("bob")), (Some("bob"), None));
        assert_eq!(parse(Args::new("race 3")), (Some("race"), Some("3")));
    }
}
