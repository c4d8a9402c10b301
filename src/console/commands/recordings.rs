//! `recordings [NAME]`: recent games, with an id to replay (SPEC section 8).

use super::{Args, CommandSpec, Help, Place};
use crate::console::{Console, Outcome};
use crate::players::accounts::PlayerName;
use crate::records::scores;

/// `recordings`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "recordings",
    place: Place::Everywhere,
    admins_only: false,
    help: Help::Player("  recordings [NAME]  recent games, with an id to replay\n"),
    run,
};

fn run(console: &mut Console, args: Args<'_>) -> Outcome {
    if console.seat.is_none() {
        return console.say(String::new());
    }
    let key = args.word(0).map(str::to_ascii_lowercase);
    if key.as_deref().is_some_and(|key| !PlayerName::has_form(key)) {
        return console.say(String::from("Usage: recordings [NAME]\n"));
    }
    console.query_job(scores::Query::Recordings { key })
}
