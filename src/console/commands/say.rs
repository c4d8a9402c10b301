//! `say TEXT`: to everyone in the same place (SPEC section 7).

use super::{Args, CommandSpec, Help, Place};
use crate::console::{Console, Outcome};
use crate::seat;

/// `say`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "say",
    place: Place::Everywhere,
    admins_only: false,
    help: Help::Player(
        "  say TEXT           to everyone in the same place (the lobby, or a game\n                     and its watchers)\n",
    ),
    run,
};

fn run(console: &mut Console, args: Args<'_>) -> Outcome {
    let Some(seat) = &mut console.seat else {
        return console.say(String::new());
    };
    // The text as typed, trimmed; may be empty (the seat answers with the usage).
    let reply = seat::Reply::Say(seat.say(args.text()));
    console.social_reply(reply)
}
