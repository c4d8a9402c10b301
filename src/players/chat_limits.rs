//! What others can make a player read: chat limited per sending address and tells per
//! recipient, on top of each player's own limit (the seat's).
//!
//! Why: 250 connections from one address, each within its own limit, sent 1,250 tells
//! to the teacher at once. A limit per address stops the many connections of one
//! student; a limit per recipient stops many students ganging up on one player. What
//! goes over is refused to the sender, with a reason, and never reaches the recipient:
//! the recipient's inbox drops only what still comes faster than it reads.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU32, Ordering};

use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use super::ids::SessionId;

/// Chat lines (`say`, `tell`) from one address at once, before the rate below applies.
pub const CHAT_BURST_PER_ADDRESS: u32 = 60;

/// Chat lines a second from one address, after the burst.
pub const CHAT_PER_SECOND_PER_ADDRESS: u32 = 20;

/// Tells to one player at once, from everyone, before the rate below applies.
pub const TELL_BURST_PER_RECIPIENT: u32 = 40;

/// Tells a second to one player, from everyone, after the burst.
pub const TELLS_PER_SECOND_PER_RECIPIENT: u32 = 4;

/// What the sender hears when its address has sent too much.
pub const ADDRESS_TOO_FAST: &str =
    "Too much chat from your address: wait a moment, then send it again.";

/// What the sender of a tell hears when its recipient has been sent too much.
pub fn recipient_too_busy(name: &str) -> String {
    format!(
        "{name} is being sent too many messages: yours was not delivered,\ntry again in a moment."
    )
}

/// The limits of one server.
#[derive(Debug)]
pub struct ChatLimits {
    by_address: DefaultKeyedRateLimiter<IpAddr>,
    by_recipient: DefaultKeyedRateLimiter<SessionId>,
    /// Checks since the limiters last forgot idle keys.
    checks: AtomicU32,
}

impl Default for ChatLimits {
    fn default() -> Self {
        ChatLimits::new()
    }
}

fn quota(per_second: u32, burst: u32) -> Quota {
    Quota::per_second(NonZeroU32::new(per_second).unwrap_or(NonZeroU32::MIN))
        .allow_burst(NonZeroU32::new(burst).unwrap_or(NonZeroU32::MIN))
}

impl ChatLimits {
    /// The limits above.
    pub fn new() -> ChatLimits {
        ChatLimits {
            by_address: RateLimiter::keyed(quota(
                CHAT_PER_SECOND_PER_ADDRESS,
                CHAT_BURST_PER_ADDRESS,
            )),
            by_recipient: RateLimiter::keyed(quota(
                TELLS_PER_SECOND_PER_RECIPIENT,
                TELL_BURST_PER_RECIPIENT,
            )),
            checks: AtomicU32::new(0),
        }
    }

    fn forget_idle(&self) {
        if self.checks.fetch_add(1, Ordering::Relaxed) % 1024 == 1023 {
            self.by_address.retain_recent();
            self.by_recipient.retain_recent();
        }
    }

    /// Whether a line of chat from `address` may go now (it is counted if so).
    pub fn from_address(&self, address: IpAddr) -> bool {
        self.forget_idle();
        self.by_address.check_key(&address).is_ok()
    }

    /// Whether a tell to `recipient` may go now (it is counted if so).
    pub fn to_recipient(&self, recipient: SessionId) -> bool {
        self.forget_idle();
        self.by_recipient.check_key(&recipient).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_address_and_one_recipient_have_their_limits() {
        let limits = ChatLimits::new();
        let here = IpAddr::from([127, 0, 0, 2]);
        let allowed = (0..100).filter(|_| limits.from_address(here)).count();
        assert_eq!(allowed, CHAT_BURST_PER_ADDRESS as usize);
        assert!(limits.from_address(IpAddr::from([127, 0, 0, 3])));
        let teacher = SessionId(7);
        let allowed = (0..100).filter(|_| limits.to_recipient(teacher)).count();
        assert_eq!(allowed, TELL_BURST_PER_RECIPIENT as usize);
        assert!(limits.to_recipient(SessionId(8)));
    }
}
