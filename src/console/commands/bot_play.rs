//! `bot-play GAME AGENT [seeds=A-B]`: a built-in agent plays in the server as a bot
//! session anyone can watch (SPEC section 12; the session is `console::agent`'s).

use super::{Args, CommandSpec, Help, Place};
use crate::agents::driver::{self, AGENTS};
use crate::console::agent::{self, AgentRun, MAX_SEEDS};
use crate::console::{Console, Outcome};
use crate::ladders::seeds::{self, SEEDED_GAMES};

/// `bot-play`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "bot-play",
    place: Place::LOBBY,
    admins_only: false,
    help: Help::Lobby("  bot-play GAME AGENT [seeds=A-B]  a built-in agent plays, to watch\n"),
    run,
};

fn usage() -> String {
    let agents: Vec<String> = AGENTS
        .iter()
        .map(|(name, plays)| format!("  {name}: {plays}"))
        .collect();
    format!(
        "Usage: bot-play GAME AGENT [seeds=A-B], GAME one of {}. The agents:\n{}\n",
        SEEDED_GAMES.join(", "),
        agents.join("\n")
    )
}

fn run(console: &mut Console, args: Args<'_>) -> Outcome {
    let Some(seat) = console.seat.as_ref() else {
        return console.say(String::new());
    };
    let (Some(game), Some(agent)) = (args.word(0), args.word(1)) else {
        return console.say(usage());
    };
    let Some(game) = SEEDED_GAMES
        .into_iter()
        .find(|name| name.eq_ignore_ascii_case(game))
    else {
        return console.say(format!("{}\n", seeds::NoSeeds(game.to_string())));
    };
    let Some(kind) = crate::catalog::table::GameKind::from_name(game) else {
        return console.say(usage());
    };
    let Some(&(agent, _)) = AGENTS
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(agent))
        .filter(|(name, _)| driver::agent(name, game, 1).is_some())
    else {
        return console.say(format!("No agent {agent} plays {game}. {}", usage()));
    };
    let seeds = match args.word(2) {
        None => (1, 1),
        Some(word) => match parse_seeds(word) {
            Some(seeds) => seeds,
            None => {
                return console.say(format!(
                    "{word}: give seeds=A-B, at most {MAX_SEEDS} seeds.\n"
                ))
            }
        },
    };
    let services = seat.services().clone();
    let run = AgentRun {
        kind,
        agent,
        seeds,
        address: seat.address(),
    };
    let text = match agent::start(&services, run, services.contexts.current()) {
        Ok(name) => format!(
            "{name} plays {game}, seeds {}-{}, as a bot: watch {name} to see it.\n",
            seeds.0, seeds.1
        ),
        Err(why) => format!("{why}\n"),
    };
    console.say(text)
}

/// `seeds=A-B` (or `seeds=N`): at most [`MAX_SEEDS`].
fn parse_seeds(word: &str) -> Option<(u64, u64)> {
    let (key, value) = word.split_once('=')?;
    if !key.eq_ignore_ascii_case("seeds") {
        return None;
    }
    seeds::range(value).filter(|(first, last)| last - first < MAX_SEEDS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_are_a_short_range() {
        assert_eq!(parse_seeds("seeds=1-3"), Some((1, 3)));
        assert_eq!(parse_seeds("SEEDS=7"), Some((7, 7)));
        assert_eq!(parse_seeds("seeds=3-1"), None);
        assert_eq!(parse_seeds("seeds=1-1000"), None);
        assert_eq!(parse_seeds("seed=1"), None);
    }
}
