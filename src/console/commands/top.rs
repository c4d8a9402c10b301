//! `top [GAME [LEVEL]]`: the leaderboards (SPEC section 8).

use super::{Args, CommandSpec, Help, Place};
use crate::console::{Console, Outcome};
use crate::records::scores;

/// `top`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "top",
    place: Place::Everywhere,
    admins_only: false,
    help: Help::Player("  top [GAME [LEVEL]] the leaderboards\n"),
    run,
};

fn run(console: &mut Console, args: Args<'_>) -> Outcome {
    if console.seat.is_none() {
        return console.say(String::new());
    }
    let words: Vec<&str> = args.words().collect();
    match scores::parse_top(&words) {
        Ok(query) => console.query_job(query),
        Err(error) => console.say(format!("{error}\n")),
    }
}
