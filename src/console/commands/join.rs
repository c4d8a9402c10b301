//! `join N`: enter race N (SPEC section 9), here or on the instance that has it.

use super::{Args, CommandSpec, Help, Place};
use crate::cluster::bus::RaceOp;
use crate::console::{Console, Outcome};
use crate::races::rules::RaceId;
use crate::seat;

/// `join`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "join",
    place: Place::LOBBY,
    admins_only: false,
    // Help has always printed this line without its indent; kept byte for byte.
    help: Help::Lobby("join N             join race N (leave leaves it)\n"),
    run,
};

fn run(console: &mut Console, args: Args<'_>) -> Outcome {
    let Some(seat) = &mut console.seat else {
        return console.say(String::new());
    };
    let race = args.word(0);
    let away = race
        .and_then(|race| race.parse::<RaceId>().ok())
        .and_then(|race| seat.away_request(RaceOp::Join(race)));
    let reply = match away {
        Some(away) => return console.race_job(away),
        None => seat::Reply::Say(seat.join(race)),
    };
    console.social_reply(reply)
}
