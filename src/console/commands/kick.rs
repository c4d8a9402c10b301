//! `kick NAME [WHY]`: an admin closes a player's connection (SPEC section 11).

use super::{Args, CommandSpec, Help, Place};
use crate::console::{Console, Outcome};

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
    let (name, why) = parse(args);
    console.seat_says(|seat| seat.kick(name, why))
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
