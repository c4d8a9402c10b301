//! `set`, `set OPTION`, `set OPTION on|off`: the session's settings (SPEC section 10).

use super::{Args, CommandSpec, Help, Place};
use crate::console::{Console, Outcome};

/// `set`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "set",
    place: Place::Everywhere,
    admins_only: false,
    help: Help::Player(concat!(
        "  set [OPTION on|off]  your settings: chat, keys (single keys, for telnet: a\n",
        "                     game's keys act at once on an empty line; type d3 as D3),\n",
        "                     color (boards in colour, drawn in place), warnings\n",
        "                     (Sokoban: say when a push leaves a level unsolvable),\n",
        "                     reader (for screen readers: games in words, no drawing);\n",
        "                     quiet is set chat off\n",
    )),
    run,
};

/// `set`'s words: the option and the value as typed, and whether more followed (a
/// mistake).
fn parse(args: Args<'_>) -> (Option<&str>, Option<&str>, bool) {
    (args.word(0), args.word(1), args.more_than(2))
}

fn run(console: &mut Console, args: Args<'_>) -> Outcome {
    let (option, value, extra) = parse(args);
    let outcome = console.seat_reply(|seat| seat.set(option, value, extra));
    // The game in play describes or draws itself from its next reply on.
    console.sync_reader();
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_an_option_a_value_and_too_much() {
        assert_eq!(
            parse(Args::new("chat OFF")),
            (Some("chat"), Some("OFF"), false)
        );
        assert_eq!(parse(Args::new("")), (None, None, false));
        assert_eq!(
            parse(Args::new("chat on now")),
            (Some("chat"), Some("on"), true)
        );
    }
}
