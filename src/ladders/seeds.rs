//! The game a seed is, for the games that have seeds: 2048's `seed=N`, a random wumpus
//! world's `seed=N` (`wumpus random seed=N`), a Star Pusher collection's level N.
//! Classic Sokoban's levels have names, not numbers: it has no seeds.

/// The games a ladder (or `arcade bots run`) can be played on.
pub const SEEDED_GAMES: [&str; 3] = ["2048", "wumpus", "starpusher"];

/// Seeds `A-B` (or one seed `N`), `A <= B`, each within the store's integers; `None`
/// for anything else. What the callers allow at most is theirs to say.
pub fn range(text: &str) -> Option<(u64, u64)> {
    let (first, last) = text.split_once('-').unwrap_or((text, text));
    let (first, last) = (
        first.trim().parse::<u64>().ok()?,
        last.trim().parse::<u64>().ok()?,
    );
    (first <= last && last <= i64::MAX as u64).then_some((first, last))
}

/// Why a game has no seeds.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0} has no seeds: use 2048, wumpus (random worlds) or starpusher (level numbers)")]
pub struct NoSeeds(pub String);

/// The words `play GAME` takes for seed `seed` of `game`, `extra` (the game's own
/// arguments: `size=5`, a collection's name) before the seed.
///
/// # Errors
/// [`NoSeeds`] for a game without seeds.
pub fn play_args(game: &str, seed: u64, extra: &[String]) -> Result<Vec<String>, NoSeeds> {
    let mut args = Vec::with_capacity(extra.len() + 2);
    match game {
        "2048" => {
            args.extend(extra.iter().cloned());
            args.push(format!("seed={seed}"));
        }
        "wumpus" => {
            args.push(String::from("random"));
            args.extend(extra.iter().cloned());
            args.push(format!("seed={seed}"));
        }
        "starpusher" => {
            args.extend(extra.iter().cloned());
            args.push(seed.to_string());
        }
        _ => return Err(NoSeeds(game.to_string())),
    }
    Ok(args)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_game_takes_its_seed_its_own_way() {
        assert_eq!(play_args("2048", 7, &[]).unwrap(), ["seed=7"]);
        assert_eq!(
            play_args("wumpus", 7, &[String::from("size=5")]).unwrap(),
            ["random", "size=5", "seed=7"]
        );
        assert_eq!(play_args("starpusher", 3, &[]).unwrap(), ["3"]);
        assert_eq!(
            play_args("sokoban", 1, &[]),
            Err(NoSeeds(String::from("sokoban")))
        );
        assert_eq!(range("1-100"), Some((1, 100)));
        assert_eq!(range("7"), Some((7, 7)));
        assert_eq!(range("9-1"), None);
        assert_eq!(range("a-b"), None);
        assert_eq!(range(&format!("1-{}", u64::MAX)), None);
        for game in SEEDED_GAMES {
            assert!(play_args(game, 1, &[]).is_ok());
        }
    }
}
