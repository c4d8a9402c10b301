//! `broadcast TEXT`: an admin's line to everyone (SPEC section 11).

use super::{Args, CommandSpec, Help, Place};
use crate::console::{Console, Outcome};
use crate::seat;

/// `broadcast`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "broadcast",
    place: Place::Everywhere,
    admins_only: true,
    help: Help::Admin("broadcast TEXT"),
    run,
};

fn run(console: &mut Console, args: Args<'_>) -> Outcome {
    let Some(seat) = &mut console.seat else {
        return console.say(String::new());
    };
    let reply = seat::Reply::Say(seat.broadcast(args.text()));
    console.social_reply(reply)
}
