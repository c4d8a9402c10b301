//! Limits on logins and registrations, taken before the work, never slept on.
//!
//! A login attempt takes a token from its address's bucket, then one from its name's
//! (`governor`), and a place among the [`MAX_IN_FLIGHT_PER_NAME`] attempts a name may
//! have in flight; without all three it is refused at once, with how long to wait. The
//! refused attempt costs no hash and holds nothing. (Sleeping until a computed time
//! let parallel attempts all check the bucket first and then all go ahead.)
//!
//! A name's bucket is twice an address's: a guesser at one address spends at most half
//! of it, so the owner logging in from another address finds tokens left. A
//! registration takes a token from its address's hourly bucket.

use std::collections::HashMap;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use governor::clock::{Clock as _, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

/// Login attempts from one address at once, and then a minute.
pub const LOGINS_PER_ADDRESS: u32 = 5;

/// Login attempts for one name at once, and then a minute, from every address.
pub const LOGINS_PER_NAME: u32 = 2 * LOGINS_PER_ADDRESS;

/// Login attempts for one name being checked at the same moment.
pub const MAX_IN_FLIGHT_PER_NAME: u32 = 2;

/// Registrations from one address in an hour (a class behind one address registers
/// in its first minutes: room for it).
pub const REGISTRATIONS_PER_ADDRESS: u32 = 40;

/// Why an attempt may not go ahead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    /// A bucket is empty: try again after this long.
    #[error("Too many login attempts: try again in {} seconds.", whole_seconds(*.0))]
    Wait(Duration),
    /// Too many attempts for the name are being checked right now.
    #[error("{}", super::hashing::BUSY)]
    Busy,
    /// Too many registrations from the address.
    #[error("Too many registrations from your address: try again in {} minutes.", whole_minutes(*.0))]
    Registrations(Duration),
}

fn whole_seconds(wait: Duration) -> u64 {
    wait.as_secs() + u64::from(wait.subsec_nanos() > 0)
}

fn whole_minutes(wait: Duration) -> u64 {
    whole_seconds(wait).div_ceil(60).max(1)
}

/// The limits on logins and registrations of a server (or of a web page).
#[derive(Debug)]
pub struct LoginThrottle {
    by_name: DefaultKeyedRateLimiter<String>,
    by_address: DefaultKeyedRateLimiter<IpAddr>,
    registrations: DefaultKeyedRateLimiter<IpAddr>,
    in_flight: Arc<Mutex<HashMap<String, u32>>>,
    clock: DefaultClock,
    /// Checks since the limiters last forgot idle keys.
    checks: AtomicU32,
}

impl Default for LoginThrottle {
    fn default() -> Self {
        LoginThrottle::new()
    }
}

/// A login attempt admitted: its place among the name's attempts in flight, given
/// back when it is dropped.
#[derive(Debug)]
pub struct Attempt {
    name_key: String,
    in_flight: Arc<Mutex<HashMap<String, u32>>>,
}

impl Drop for Attempt {
    fn drop(&mut self) {
        if let Ok(mut in_flight) = self.in_flight.lock() {
            if let Some(count) = in_flight.get_mut(&self.name_key) {
                *count = count.saturating_sub(1);
                if *count == 0 {
                    in_flight.remove(&self.name_key);
                }
            }
        }
    }
}

fn per_minute(count: u32) -> Quota {
    Quota::per_minute(NonZeroU32::new(count).unwrap_or(NonZeroU32::MIN))
}

impl LoginThrottle {
    /// The limits above.
    pub fn new() -> LoginThrottle {
        LoginThrottle::with_limits(LOGINS_PER_ADDRESS, REGISTRATIONS_PER_ADDRESS)
    }

    /// `burst` login attempts per address at once, then `burst` a minute (a name twice
    /// that); `registrations` an hour per address (`--registrations-per-hour`).
    pub fn with_limits(burst: u32, registrations: u32) -> LoginThrottle {
        let registrations = NonZeroU32::new(registrations).unwrap_or(NonZeroU32::MIN);
        LoginThrottle {
            by_name: RateLimiter::keyed(per_minute(burst.saturating_mul(2))),
            by_address: RateLimiter::keyed(per_minute(burst)),
            registrations: RateLimiter::keyed(Quota::per_hour(registrations)),
            in_flight: Arc::new(Mutex::new(HashMap::new())),
            clock: DefaultClock::default(),
            checks: AtomicU32::new(0),
        }
    }

    fn forget_idle(&self) {
        if self.checks.fetch_add(1, Ordering::Relaxed) % 256 == 255 {
            // Keys whose buckets are full again need not be kept.
            self.by_name.retain_recent();
            self.by_address.retain_recent();
            self.registrations.retain_recent();
        }
    }

    /// Admit a login attempt for `name_key` from `address`, or say why not. Tokens are
    /// taken here: the attempt is counted whether the password is right or not.
    ///
    /// # Errors
    /// [`Refused::Busy`] or [`Refused::Wait`].
    pub fn admit(&self, name_key: &str, address: IpAddr) -> Result<Attempt, Refused> {
        self.forget_idle();
        // A place in flight first: it costs no token, and is given back on refusal.
        let attempt = {
            let Ok(mut in_flight) = self.in_flight.lock() else {
                return Err(Refused::Busy);
            };
            let count = in_flight.entry(name_key.to_string()).or_insert(0);
            if *count >= MAX_IN_FLIGHT_PER_NAME {
                return Err(Refused::Busy);
            }
            *count += 1;
            Attempt {
                name_key: name_key.to_string(),
                in_flight: Arc::clone(&self.in_flight),
            }
        };
        let now = self.clock.now();
        if let Err(not_until) = self.by_address.check_key(&address) {
            return Err(Refused::Wait(not_until.wait_time_from(now)));
        }
        if let Err(not_until) = self.by_name.check_key(&name_key.to_string()) {
            return Err(Refused::Wait(not_until.wait_time_from(now)));
        }
        Ok(attempt)
    }

    /// Count a registration from `address`, or say how long until the next.
    ///
    /// # Errors
    /// [`Refused::Registrations`].
    pub fn register(&self, address: IpAddr) -> Result<(), Refused> {
        self.forget_idle();
        let now = self.clock.now();
        self.registrations
            .check_key(&address)
            .map_err(|not_until| Refused::Registrations(not_until.wait_time_from(now)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attempts_take_tokens_before_and_are_refused_without_them() {
        let throttle = LoginThrottle::new();
        let here = IpAddr::from([127, 0, 0, 2]);
        let there = IpAddr::from([127, 0, 0, 3]);
        for _ in 0..LOGINS_PER_ADDRESS {
            drop(throttle.admit("ann", here).unwrap());
        }
        let Err(Refused::Wait(wait)) = throttle.admit("ann", here) else {
            panic!("the sixth attempt from one address went ahead");
        };
        assert!(wait > Duration::from_secs(5), "{wait:?}");
        assert!(Refused::Wait(wait)
            .to_string()
            .starts_with("Too many login attempts: try again in "));
        // Another address still gets through for the name: its bucket is twice as big.
        assert!(throttle.admit("ann", there).is_ok());
        assert!(throttle.admit("bob", here).is_err());
    }

    #[test]
    fn a_name_has_few_attempts_in_flight() {
        let throttle = LoginThrottle::with_limits(100, 100);
        let here = IpAddr::from([127, 0, 0, 2]);
        let first = throttle.admit("ann", here).unwrap();
        let _second = throttle.admit("ann", here).unwrap();
        assert_eq!(throttle.admit("ann", here).unwrap_err(), Refused::Busy);
        assert!(throttle.admit("bob", here).is_ok());
        drop(first);
        assert!(throttle.admit("ann", here).is_ok());
    }

    #[test]
    fn registrations_are_counted_per_address() {
        let throttle = LoginThrottle::new();
        let here = IpAddr::from([127, 0, 0, 2]);
        for _ in 0..REGISTRATIONS_PER_ADDRESS {
            throttle.register(here).unwrap();
        }
        let refused = throttle.register(here).unwrap_err();
        assert!(
            refused
                .to_string()
                .starts_with("Too many registrations from your address: try again in "),
            "{refused}"
        );
        assert!(throttle.register(IpAddr::from([127, 0, 0, 3])).is_ok());
    }
}
