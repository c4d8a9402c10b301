//! Who is kept out for a while: `kick NAME for 10m` keeps the name and the address
//! the player was connected from out of this instance until the time is up (issue
//! 30, docs/teaching.md, "Admins").
//!
//! In memory only: a restart forgets every ban, and each instance of a cluster keeps
//! its own (a kick reaches a player on any instance, a ban only the instance where
//! the admin typed it). Bounded: at most [`MAX_BANS`] names and as many addresses,
//! each for at most [`MAX_BAN`]; a ban that has run out is dropped the next time one
//! is added, and when the table is full the one that would run out first makes room.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::players::accounts::PlayerName;

/// The longest ban: a day, past the end of any class.
pub const MAX_BAN: Duration = Duration::from_secs(24 * 60 * 60);

/// The shortest ban.
pub const MIN_BAN: Duration = Duration::from_secs(1);

/// The most names (and the most addresses) kept out at once.
pub const MAX_BANS: usize = 1_000;

/// Why a session cannot have a name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameTaken {
    /// Another session has it (in any case).
    #[error("{0} is already playing.")]
    Playing(PlayerName),
    /// An admin kicked its player for a while.
    #[error("{name} was kicked by an admin: the name can be used again in {}.", clock(.left))]
    Kicked {
        /// The name.
        name: PlayerName,
        /// How long the ban still runs (rounded up to a second).
        left: Duration,
    },
}

/// The bans as they move to a new server process in an upgrade (SPEC section 11):
/// each name and address with the seconds it still runs, rounded up.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct MovedBans {
    names: Vec<(String, u64)>,
    addresses: Vec<(IpAddr, u64)>,
}

/// A ban's time left as the player reads it: `9m59s`, `1h02m`.
pub fn clock(left: &Duration) -> String {
    crate::text::clock(*left)
}

/// The names and addresses kept out, each until an instant.
#[derive(Debug, Default)]
pub struct Bans {
    /// Short critical sections only: a look-up or an insert, never held across an
    /// `.await` (the lock is `std`'s).
    inner: Mutex<Table>,
}

#[derive(Debug, Default)]
struct Table {
    /// Name keys (lower case) to the end of their ban.
    names: HashMap<String, Instant>,
    addresses: HashMap<IpAddr, Instant>,
}

impl Bans {
    /// Every ban still running, to move.
    pub fn pack(&self) -> MovedBans {
        let now = Instant::now();
        let left = |until: &Instant| until.saturating_duration_since(now).as_secs() + 1;
        let table = self.lock();
        MovedBans {
            names: table
                .names
                .iter()
                .filter(|(_, until)| **until > now)
                .map(|(key, until)| (key.clone(), left(until)))
                .collect(),
            addresses: table
                .addresses
                .iter()
                .filter(|(_, until)| **until > now)
                .map(|(address, until)| (*address, left(until)))
                .collect(),
        }
    }

    /// Keep out again what `moved` kept out in the old process, for what it had left.
    pub fn unpack(&self, moved: MovedBans) {
        for (key, left) in moved.names.into_iter().take(MAX_BANS) {
            self.ban(&key, None, Duration::from_secs(left));
        }
        for (address, left) in moved.addresses.into_iter().take(MAX_BANS) {
            self.ban_address(address, Duration::from_secs(left));
        }
    }

    /// Keep the name `key` (lower case), and `address` if known, out for `length`
    /// (at most [`MAX_BAN`]) from now. A longer ban already running is kept.
    pub fn ban(&self, key: &str, address: Option<IpAddr>, length: Duration) {
        self.ban_at(key, address, length, Instant::now());
    }

    /// Keep `address` out for `length` (at most [`MAX_BAN`]) from now, not a name: a
    /// guest's `guest-N` is never given again, so its ban would keep no one out.
    pub fn ban_address(&self, address: IpAddr, length: Duration) {
        let now = Instant::now();
        let until = now + length.min(MAX_BAN);
        insert(&mut self.lock().addresses, address, until, now);
    }

    /// How long the name `key` (lower case) is still kept out, if it is.
    pub fn name_left(&self, key: &str) -> Option<Duration> {
        self.name_left_at(key, Instant::now())
    }

    /// How long `address` is still kept out, if it is.
    pub fn address_left(&self, address: IpAddr) -> Option<Duration> {
        self.address_left_at(address, Instant::now())
    }

    /// Why `name` cannot be taken now, if it is kept out.
    pub fn refuse_name(&self, name: &PlayerName) -> Option<NameTaken> {
        self.refuse_name_at(name, Instant::now())
    }

    fn refuse_name_at(&self, name: &PlayerName, now: Instant) -> Option<NameTaken> {
        self.name_left_at(&name.key(), now)
            .map(|left| NameTaken::Kicked {
                name: name.clone(),
                left,
            })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Table> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn ban_at(&self, key: &str, address: Option<IpAddr>, length: Duration, now: Instant) {
        let until = now + length.min(MAX_BAN);
        let mut table = self.lock();
        insert(&mut table.names, key.to_string(), until, now);
        if let Some(address) = address {
            insert(&mut table.addresses, address, until, now);
        }
    }

    fn name_left_at(&self, key: &str, now: Instant) -> Option<Duration> {
        left(self.lock().names.get(key).copied(), now)
    }

    fn address_left_at(&self, address: IpAddr, now: Instant) -> Option<Duration> {
        left(self.lock().addresses.get(&address).copied(), now)
    }
}

/// Add `key` until `until` to `bans`, within [`MAX_BANS`]: the bans that have run out
/// go first, then, if it is still full, the one that runs out soonest.
fn insert<K: std::hash::Hash + Eq + Clone>(
    bans: &mut HashMap<K, Instant>,
    key: K,
    until: Instant,
    now: Instant,
) {
    if let Some(running) = bans.get_mut(&key) {
        *running = (*running).max(until);
        return;
    }
    bans.retain(|_, end| *end > now);
    if bans.len() >= MAX_BANS {
        let soonest = bans
            .iter()
            .min_by_key(|(_, end)| **end)
            .map(|(key, _)| key.clone());
        if let Some(soonest) = soonest {
            bans.remove(&soonest);
        }
    }
    bans.insert(key, until);
}

/// What is left of a ban ending at `end`, rounded up to a whole second; `None` once
/// it has run out.
fn left(end: Option<Instant>, now: Instant) -> Option<Duration> {
    let left = end?
        .checked_duration_since(now)
        .filter(|left| !left.is_zero())?;
    let seconds = left.as_secs() + u64::from(left.subsec_nanos() > 0);
    Some(Duration::from_secs(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ADDRESS: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 7));

    #[test]
    fn a_ban_keeps_the_name_and_the_address_out_until_it_runs_out() {
        let bans = Bans::default();
        let now = Instant::now();
        bans.ban_at("bob", Some(ADDRESS), Duration::from_secs(600), now);
        assert_eq!(
            bans.name_left_at("bob", now),
            Some(Duration::from_secs(600))
        );
        let later = now + Duration::from_millis(1500);
        assert_eq!(
            bans.address_left_at(ADDRESS, later),
            Some(Duration::from_secs(599))
        );
        assert_eq!(bans.name_left_at("ann", now), None);
        let over = now + Duration::from_secs(600);
        assert_eq!(bans.name_left_at("bob", over), None);
        assert_eq!(bans.address_left_at(ADDRESS, over), None);
        // A shorter ban does not shorten a longer one; no more than a day.
        bans.ban_at("cy", None, Duration::from_secs(3600), now);
        bans.ban_at("cy", None, Duration::from_secs(60), now);
        assert_eq!(
            bans.name_left_at("cy", now),
            Some(Duration::from_secs(3600))
        );
        bans.ban_at("di", None, Duration::from_secs(1_000_000), now);
        assert_eq!(bans.name_left_at("di", now), Some(MAX_BAN));
        assert_eq!(bans.lock().addresses.len(), 1);
    }

    #[test]
    fn the_table_is_bounded_and_drops_what_ran_out_first() {
        let bans = Bans::default();
        let now = Instant::now();
        bans.ban_at("short", None, Duration::from_secs(1), now);
        for n in 0..MAX_BANS - 1 {
            bans.ban_at(
                &format!("p{n}"),
                None,
                Duration::from_secs(600 + n as u64),
                now,
            );
        }
        assert_eq!(bans.lock().names.len(), MAX_BANS);
        // Full: the ban that ran out goes first.
        let later = now + Duration::from_secs(2);
        bans.ban_at("new", None, Duration::from_secs(600), later);
        assert_eq!(bans.lock().names.len(), MAX_BANS);
        assert!(!bans.lock().names.contains_key("short"));
        // Still full, none run out: the one that runs out soonest makes room.
        bans.ban_at("newer", None, Duration::from_secs(6000), later);
        assert_eq!(bans.lock().names.len(), MAX_BANS);
        assert!(!bans.lock().names.contains_key("p0"));
        assert!(bans.lock().names.contains_key("newer"));
    }

    #[test]
    fn a_kicked_name_is_refused_with_the_time_left() {
        let bans = Bans::default();
        let bob = PlayerName::parse("Bob").unwrap();
        let now = Instant::now();
        assert_eq!(bans.refuse_name_at(&bob, now), None);
        bans.ban_at("bob", None, Duration::from_secs(600), now);
        let later = now + Duration::from_millis(1500);
        assert_eq!(
            bans.refuse_name_at(&bob, later)
                .expect("kept out")
                .to_string(),
            "Bob was kicked by an admin: the name can be used again in 9m59s."
        );
        assert_eq!(bans.refuse_name_at(&bob, now + MAX_BAN), None);
    }
}
