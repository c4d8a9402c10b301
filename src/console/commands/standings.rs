//! `standings` (in a race, `/standings`): the table of the player's race (SPEC
//! section 9), here or from the instance that has it.

use super::{Args, CommandSpec, Help, Place};
use crate::cluster::bus::RaceOp;
use crate::console::{Console, Outcome};
use crate::seat;

/// `standings`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "standings",
    place: Place::Everywhere,
    admins_only: false,
    help: Help::Player("  standings          the standings of your race\n"),
    run,
};

fn run(console: &mut Console, _: Args<'_>) -> Outcome {
    let Some(seat) = &mut console.seat else {
        return console.say(String::new());
    };
    let reply = match seat.away_request(RaceOp::Standings) {
        Some(away) => return console.race_job(away),
        None => seat::Reply::Say(seat.standings()),
    };
    console.social_reply(reply)
}
