//! `stats [NAME]`: a player's results (SPEC section 8).

use super::{Args, CommandSpec, Help, Place};
use crate::console::{Console, Outcome};
use crate::players::accounts::PlayerName;
use crate::records::scores;

/// `stats`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "stats",
    place: Place::Everywhere,
    admins_only: false,
    help: Help::Player("  stats [NAME]       a player's results\n"),
    run,
};

fn run(console: &mut Console, args: Args<'_>) -> Outcome {
    let Some(seat) = &console.seat else {
        return console.say(String::new());
    };
    let key = match args.word(0) {
        Some(name) => name.to_ascii_lowercase(),
        None => seat.name().key(),
    };
    if !PlayerName::has_form(&key) {
        return console.say(String::from("Usage: stats [NAME]\n"));
    }
    console.query_job(scores::Query::Stats { key })
}
