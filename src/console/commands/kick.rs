//! `kick NAME [for TIME] [WHY]`: an admin closes a player's connection (SPEC section
//! 11), and with `for TIME` keeps them out that long: their name, and new connections
//! from the address they were connected from ([`crate::players::bans`]).

use std::time::Duration;

use super::{Args, CommandSpec, Help, Place};
use crate::console::{Console, Outcome};
use crate::players::bans::{clock, MAX_BAN, MIN_BAN};

/// `kick`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "kick",
    place: Place::Everywhere,
    admins_only: true,
    help: Help::Admin("kick NAME [for TIME] [WHY]"),
    run,
};

const USAGE: &str = "Usage: kick NAME [for TIME] [WHY]\n(for TIME keeps the name and its address out that long: 1s to 24h, such as for 10m)\n";

/// A kick as typed.
#[derive(Debug, PartialEq, Eq)]
struct Kick<'a> {
    /// Whom, as typed.
    name: &'a str,
    /// How long to keep them out, if at all.
    ban: Option<Duration>,
    /// Why, as typed (trimmed; may be empty).
    why: &'a str,
}

/// `kick`'s words, or the line that says what is wrong with them. `for` followed by
/// a word that starts with a digit is a time, which must be one (`kick bob for
/// spamming` is a reason, as it always was).
fn parse(args: Args<'_>) -> Result<Kick<'_>, String> {
    let Some(name) = args.word(0) else {
        return Err(String::from(USAGE));
    };
    let rest = Args::new(args.after_first());
    let time = rest
        .word(0)
        .filter(|word| word.eq_ignore_ascii_case("for"))
        .and(rest.word(1))
        .filter(|word| word.starts_with(|c: char| c.is_ascii_digit()));
    let Some(time) = time else {
        return Ok(Kick {
            name,
            ban: None,
            why: rest.text(),
        });
    };
    match humantime::parse_duration(time) {
        Ok(ban) if (MIN_BAN..=MAX_BAN).contains(&ban) => Ok(Kick {
            name,
            ban: Some(ban),
            why: Args::new(rest.after_first()).after_first(),
        }),
        _ => Err(format!(
            "{time} is not a time from 1s to 24h: say for 30s, for 10m or for 2h.\n"
        )),
    }
}

fn run(console: &mut Console, args: Args<'_>) -> Outcome {
    let kick = match parse(args) {
        Ok(kick) => kick,
        Err(text) => return console.say(text),
    };
    console.seat_says(|seat| {
        let services = seat.services().clone();
        let found = services.registry.find(kick.name);
        let Some(ban) = kick.ban else {
            return seat.kick(Some(kick.name), kick.why);
        };
        let Some((id, name, _)) = found.filter(|(id, ..)| *id != seat.id()) else {
            // Nobody to keep out: the kick says why (no such player, yourself).
            return seat.kick(Some(kick.name), kick.why);
        };
        // The address the registry knows: the client's own behind a PROXY header. A
        // player on another instance has none here; the admin's own address is never
        // kept out (a teacher on the same machine or behind the same NAT).
        let address = services
            .registry
            .sessions()
            .into_iter()
            .find(|(session, _)| *session == id)
            .map(|(_, peer)| peer.ip());
        let kept = address.filter(|address| *address != seat.address());
        let left = clock(&ban);
        let why = match kick.why {
            "" => format!("you can come back in {left}"),
            why => format!("{why} (you can come back in {left})"),
        };
        // Banned before the kick, so that an immediate reconnection is refused.
        // A guest's name is never given again: only its address is worth keeping out.
        let guest = name.is_guest();
        match (guest, kept) {
            (false, _) => services.registry.bans().ban(&name.key(), kept, ban),
            (true, Some(address)) => services.registry.bans().ban_address(address, ban),
            (true, None) => {}
        }
        tracing::info!(admin = %seat.name(), kicked = %name, address = ?kept, ?ban, "kept out");
        let mut text = seat.kick(Some(kick.name), &why);
        let whom = match (guest, address, kept) {
            (false, _, Some(_)) => "The name and its address are",
            (false, Some(_), None) => "The name is (not its address: it is yours too)",
            (false, None, None) => "The name is (on this instance; its address is not known here)",
            (true, _, Some(_)) => "Its address is (a guest's name is never used again)",
            (true, _, None) => {
                text.push_str(
                    "Nothing is kept out: a guest's name is never used again,\nand its address is not known here or is yours too.\n",
                );
                return text;
            }
        };
        text.push_str(&format!("{whom} kept out for {left}.\n"));
        text
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_whom_for_how_long_and_why() {
        let kick = |line| parse(Args::new(line));
        assert_eq!(
            kick("bob  stop  that "),
            Ok(Kick {
                name: "bob",
                ban: None,
                why: "stop  that"
            })
        );
        assert_eq!(
            kick("bob"),
            Ok(Kick {
                name: "bob",
                ban: None,
                why: ""
            })
        );
        assert_eq!(
            kick("bob FOR 10m  stop that"),
            Ok(Kick {
                name: "bob",
                ban: Some(Duration::from_secs(600)),
                why: "stop that"
            })
        );
        assert_eq!(
            kick("bob for 2h"),
            Ok(Kick {
                name: "bob",
                ban: Some(Duration::from_secs(7200)),
                why: ""
            })
        );
        // `for` and a word that is not a number: a reason, as before.
        assert_eq!(
            kick("bob for spamming"),
            Ok(Kick {
                name: "bob",
                ban: None,
                why: "for spamming"
            })
        );
        for bad in ["bob for 25h", "bob for 0s", "bob for 10x", "bob for 10"] {
            let said = kick(bad).unwrap_err();
            assert!(
                said.ends_with("is not a time from 1s to 24h: say for 30s, for 10m or for 2h.\n"),
                "{bad}: {said}"
            );
        }
        assert_eq!(kick(""), Err(String::from(USAGE)));
    }
}
