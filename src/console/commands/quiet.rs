//! `quiet`: shorthand for `set chat off` (SPEC section 7); `set`'s help line says so.

use super::{Args, CommandSpec, Help, Place};
use crate::console::{Console, Outcome};

/// `quiet`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "quiet",
    place: Place::Everywhere,
    admins_only: false,
    help: Help::Unlisted,
    run,
};

fn run(console: &mut Console, _: Args<'_>) -> Outcome {
    console.seat_reply(|seat| seat.set(Some("chat"), Some("off"), false))
}
