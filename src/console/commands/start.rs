//! `start`: the host starts the race (SPEC section 9).

use super::{Args, CommandSpec, Help, Place};
use crate::cluster::bus::RaceOp;
use crate::console::{Console, Outcome};
use crate::seat;

/// `start`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "start",
    place: Place::LOBBY,
    admins_only: false,
    // Help has always printed this line without its indent; kept byte for byte.
    help: Help::Lobby("start              start the race you host\n"),
    run,
};

fn run(console: &mut Console, _: Args<'_>) -> Outcome {
    let Some(seat) = &mut console.seat else {
        return console.say(String::new());
    };
    let reply = match seat.away_request(RaceOp::Start) {
        Some(away) => return console.race_job(away),
        None => seat::Reply::Say(seat.start_race()),
    };
    console.social_reply(reply)
}
