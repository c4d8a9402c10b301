//! `bot NAME [TOKEN]`: the session becomes a program's (SPEC section 12): JSON lines
//! both ways from the answer on (`console::bot`), under NAME, a guest's name or, with
//! one of its bot tokens, a registered one.

use super::{Args, CommandSpec, Help, Place};
use crate::console::{Console, Outcome};

/// `bot`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "bot",
    place: Place::LOBBY,
    admins_only: false,
    help: Help::Lobby(
        "  bot NAME [TOKEN]   play as a program: JSON lines both ways (docs/bots.md)\n",
    ),
    run,
};

const USAGE: &str = "Usage: bot NAME [TOKEN]: a program plays as NAME, in JSON lines (a registered\nNAME needs one of its bot tokens: bottoken new makes one).\n";

fn run(console: &mut Console, args: Args<'_>) -> Outcome {
    let (Some(name), token, None) = (args.word(0), args.word(1), args.word(2)) else {
        return console.say(String::from(USAGE));
    };
    console.seat_reply(|seat| seat.bot_command(name, token))
}
