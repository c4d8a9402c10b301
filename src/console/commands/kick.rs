//! `kick NAME [WHY]`: an admin closes a player's connection (SPEC section 11).

use super::{Args, CommandSpec, Help, Place};
use crate::console::{Console, Outcome};
use crate::seat;

/// `kick`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "kick",
    place: Place::Everywhere,
    admins_only: true,
    help: Help::Admin("kick NAME [WHY]"),
    run,
};

/// `kick`'s words: whom, as typed, and why (as typed, trimmed; may be empty).
fn parse(args: Args<'_>) -> (Option<&str>, &str) {
    (args.word(0), args.after_first())
}

fn run(console: &mut Console, args: Args<'_>) -> Outcome {
    let Some(seat) = &mut console.seat else {
        return console.say(String::new());
    };
    let (name, why) = parse(args);
    let reply = seat::Reply::Say(seat.kick(name, why));
    console.social_reply(reply)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_whom_and_why() {
        assert_eq!(
            parse(Args::new("bob  stop  that ")),
            (Some("bob"), "stop  that")
        );
        assert_eq!(parse(Args::new("bob")), (Some("bob"), ""));
    }
}
