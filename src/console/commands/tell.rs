//! `tell NAME TEXT`: to one player (SPEC section 7).

use super::{Args, CommandSpec, Help, Place};
use crate::console::{Console, Outcome};

/// `tell`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "tell",
    place: Place::Everywhere,
    admins_only: false,
    help: Help::Player("  tell NAME TEXT     to one player\n"),
    run,
};

/// `tell`'s words: to whom, as typed, and the text as typed (trimmed).
fn parse(args: Args<'_>) -> (Option<&str>, &str) {
    (args.word(0), args.after_first())
}

fn run(console: &mut Console, args: Args<'_>) -> Outcome {
    let (name, text) = parse(args);
    console.seat_says(|seat| seat.tell(name, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_name_and_the_text_as_typed() {
        assert_eq!(
            parse(Args::new("Ann  are you there?")),
            (Some("Ann"), "are you there?")
        );
        assert_eq!(parse(Args::new("")), (None, ""));
    }
}
