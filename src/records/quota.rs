//! How much one player and one address may record in an hour (issue 28, item 5): input
//! bytes and games started. One guest once grew the database by 44 MB a second by
//! starting a new game at every game's size limit; past these quotas the game goes on
//! but is not recorded, and the player is told so once.
//!
//! Counted in fixed windows of an hour, each opened by the first game or input of its
//! player (or address) and forgotten an hour later. A tape takes input bytes from the
//! quota [`CHUNK`] at a time, so that the lock here is taken once every few hundred
//! moves rather than at each one.
//!
//! Players are counted under a 64-bit hash of their key (SipHash with this server's
//! random keys, so nobody can choose names that collide), not under a copy of the key:
//! every player who starts a game has an entry for an hour, and a copy of each name
//! was about 50 bytes of every idle player's memory (issue 29).

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::net::IpAddr;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Input bytes one player may record in an hour: 16 MiB. A student holding an arrow key
/// down for the whole hour (30 moves a second) records about 1 MiB.
pub const PLAYER_BYTES_PER_HOUR: u64 = 16 * 1024 * 1024;

/// Games one player may start recording in an hour: one every 30 seconds.
pub const PLAYER_GAMES_PER_HOUR: u32 = 120;

/// Input bytes all the players of one address may record in an hour: 64 MiB, so that a
/// class behind one school NAT (a few MiB an hour) never meets it, and one machine
/// opening guest after guest is stopped at four players' worth.
pub const ADDRESS_BYTES_PER_HOUR: u64 = 64 * 1024 * 1024;

/// Games all the players of one address may start recording in an hour: a class of 40
/// behind one NAT starting a game every 2 minutes each.
pub const ADDRESS_GAMES_PER_HOUR: u32 = 1200;

/// The window the quotas count in.
const WINDOW: Duration = Duration::from_secs(3600);

/// Input bytes a tape takes from the quotas at once.
pub const CHUNK: u64 = 4096;

/// How often windows older than an hour are forgotten.
const PRUNE_EVERY: Duration = Duration::from_secs(60);

/// Why a recording was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// The player's own quota.
    Player,
    /// The quota of the player's address.
    Address,
}

/// What one player or address recorded in its current window.
#[derive(Debug, Clone, Copy)]
struct Usage {
    since: Instant,
    bytes: u64,
    games: u32,
}

impl Usage {
    fn fresh(now: Instant) -> Usage {
        Usage {
            since: now,
            bytes: 0,
            games: 0,
        }
    }

    /// This usage, or a new window's if its hour is over.
    fn current(self, now: Instant) -> Usage {
        if now.saturating_duration_since(self.since) >= WINDOW {
            Usage::fresh(now)
        } else {
            self
        }
    }
}

/// The limits the quotas apply: the constants above, smaller in unit tests.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Input bytes per player and hour.
    pub player_bytes: u64,
    /// Games per player and hour.
    pub player_games: u32,
    /// Input bytes per address and hour.
    pub address_bytes: u64,
    /// Games per address and hour.
    pub address_games: u32,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            player_bytes: PLAYER_BYTES_PER_HOUR,
            player_games: PLAYER_GAMES_PER_HOUR,
            address_bytes: ADDRESS_BYTES_PER_HOUR,
            address_games: ADDRESS_GAMES_PER_HOUR,
        }
    }
}

/// Every player's and address's usage this hour.
#[derive(Debug)]
pub struct Quotas {
    limits: Limits,
    /// Hashes players' keys for [`Tables::players`].
    hasher: RandomState,
    tables: Mutex<Tables>,
}

#[derive(Debug)]
struct Tables {
    /// By the hash of the player's key.
    players: HashMap<u64, Usage>,
    addresses: HashMap<IpAddr, Usage>,
    pruned: Instant,
}

impl Default for Quotas {
    fn default() -> Quotas {
        Quotas::new(Limits::default())
    }
}

impl Quotas {
    /// Quotas with these limits, nobody counted yet.
    pub fn new(limits: Limits) -> Quotas {
        Quotas {
            limits,
            hasher: RandomState::new(),
            tables: Mutex::new(Tables {
                players: HashMap::new(),
                addresses: HashMap::new(),
                pruned: Instant::now(),
            }),
        }
    }

    /// Count a game started by `player` (a lowercase name) from `address`, unless it
    /// is one too many for either this hour, or either has no input bytes left.
    ///
    /// # Errors
    /// [`Refused`]: whose quota is used up (nothing is counted then).
    pub fn game(&self, player: &str, address: IpAddr, now: Instant) -> Result<(), Refused> {
        self.charge(player, address, now, 0, 1)
    }

    /// Take `bytes` of input for `player` from `address`, unless that goes past either
    /// quota this hour.
    ///
    /// # Errors
    /// [`Refused`]: whose quota is used up (nothing is counted then).
    pub fn bytes(
        &self,
        player: &str,
        address: IpAddr,
        now: Instant,
        bytes: u64,
    ) -> Result<(), Refused> {
        self.charge(player, address, now, bytes, 0)
    }

    fn charge(
        &self,
        player: &str,
        address: IpAddr,
        now: Instant,
        bytes: u64,
        games: u32,
    ) -> Result<(), Refused> {
        let limits = self.limits;
        // IPv4 clients reached over an IPv6 socket count as their IPv4 address.
        let address = address.to_canonical();
        let player = self.hasher.hash_one(player);
        // Held for a few map operations, never across an await.
        let mut tables = self.tables.lock().unwrap_or_else(PoisonError::into_inner);
        tables.prune(now);
        let mine = tables
            .players
            .get(&player)
            .map_or(Usage::fresh(now), |usage| usage.current(now));
        let theirs = tables
            .addresses
            .get(&address)
            .map_or(Usage::fresh(now), |usage| usage.current(now));
        // A new game needs some input left to record, a move needs its bytes.
        let over = |usage: Usage, max_bytes: u64, max_games: u32| {
            let bytes_over = if games > 0 {
                usage.bytes >= max_bytes
            } else {
                usage.bytes.saturating_add(bytes) > max_bytes
            };
            bytes_over || usage.games.saturating_add(games) > max_games
        };
        if over(mine, limits.player_bytes, limits.player_games) {
            return Err(Refused::Player);
        }
        if over(theirs, limits.address_bytes, limits.address_games) {
            return Err(Refused::Address);
        }
        let add = |usage: Usage| Usage {
            since: usage.since,
            bytes: usage.bytes + bytes,
            games: usage.games + games,
        };
        tables.players.insert(player, add(mine));
        tables.addresses.insert(address, add(theirs));
        Ok(())
    }
}

impl Tables {
    /// Forget the windows that are over (at most every [`PRUNE_EVERY`]): the tables
    /// hold only who recorded in the last hour.
    fn prune(&mut self, now: Instant) {
        if now.saturating_duration_since(self.pruned) < PRUNE_EVERY {
            return;
        }
        self.pruned = now;
        let live = |usage: &mut Usage| now.saturating_duration_since(usage.since) < WINDOW;
        self.players.retain(|_, usage| live(usage));
        self.addresses.retain(|_, usage| live(usage));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOME: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 1));
    const OTHER: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 2));

    fn small() -> Quotas {
        Quotas::new(Limits {
            player_bytes: 100,
            player_games: 2,
            address_bytes: 250,
            address_games: 3,
        })
    }

    #[test]
    fn a_player_past_their_games_is_refused_until_the_hour_is_over() {
        let quotas = small();
        let now = Instant::now();
        assert_eq!(quotas.game("ann", HOME, now), Ok(()));
        assert_eq!(quotas.game("ann", HOME, now), Ok(()));
        assert_eq!(quotas.game("ann", HOME, now), Err(Refused::Player));
        // Someone else from elsewhere is not affected.
        assert_eq!(quotas.game("bo", OTHER, now), Ok(()));
        assert_eq!(quotas.game("ann", HOME, now + WINDOW), Ok(()));
    }

    #[test]
    fn an_address_counts_all_its_players() {
        let quotas = small();
        let now = Instant::now();
        for player in ["guest-1", "guest-2", "guest-3"] {
            assert_eq!(quotas.game(player, HOME, now), Ok(()));
        }
        assert_eq!(quotas.game("guest-4", HOME, now), Err(Refused::Address));
        assert_eq!(quotas.game("guest-4", OTHER, now), Ok(()));
        // Bytes likewise: 3 players of 90 bytes pass 250.
        assert_eq!(quotas.bytes("guest-1", HOME, now, 90), Ok(()));
        assert_eq!(quotas.bytes("guest-2", HOME, now, 90), Ok(()));
        assert_eq!(
            quotas.bytes("guest-3", HOME, now, 90),
            Err(Refused::Address)
        );
        assert_eq!(quotas.bytes("guest-1", HOME, now, 11), Err(Refused::Player));
        assert_eq!(quotas.bytes("guest-1", HOME, now, 10), Ok(()));
    }

    #[test]
    fn a_player_without_bytes_left_starts_no_recorded_game() {
        let quotas = small();
        let now = Instant::now();
        assert_eq!(quotas.bytes("ann", HOME, now, 100), Ok(()));
        assert_eq!(quotas.game("ann", HOME, now), Err(Refused::Player));
    }

    #[test]
    fn a_refusal_counts_nothing() {
        let quotas = small();
        let now = Instant::now();
        assert_eq!(quotas.bytes("ann", HOME, now, 101), Err(Refused::Player));
        assert_eq!(quotas.bytes("ann", HOME, now, 100), Ok(()));
    }

    #[test]
    fn windows_over_are_forgotten() {
        let quotas = small();
        let now = Instant::now();
        quotas.game("ann", HOME, now).unwrap();
        quotas
            .game("bo", OTHER, now + WINDOW + PRUNE_EVERY)
            .unwrap();
        let tables = quotas.tables.lock().unwrap();
        assert_eq!(tables.players.len(), 1);
        assert_eq!(tables.addresses.len(), 1);
    }

    #[test]
    fn an_ipv4_client_over_ipv6_counts_as_its_ipv4_address() {
        let quotas = small();
        let now = Instant::now();
        let mapped: IpAddr = "::ffff:10.0.0.1".parse().unwrap();
        for player in ["x", "y", "z"] {
            quotas.game(player, HOME, now).unwrap();
        }
        assert_eq!(quotas.game("w", mapped, now), Err(Refused::Address));
    }
}
