//! `unregister NAME`: an admin deletes a registered name's account, so that the name is
//! free for anyone (a student's name taken by another, a name registered by mistake).
//! Its results and recordings stay.

use super::{Args, CommandSpec, Help, Place};
use crate::console::{Console, Outcome};

/// `unregister`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "unregister",
    place: Place::Everywhere,
    admins_only: true,
    help: Help::Admin("unregister NAME"),
    run,
};

fn run(console: &mut Console, args: Args<'_>) -> Outcome {
    console.seat_reply(|seat| seat.unregister(args.word(0)))
}
