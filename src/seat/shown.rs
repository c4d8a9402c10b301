//! How what players typed is shown to others: without control characters, names cut
//! to length, idle times in short.

use std::time::Duration;

use crate::players::accounts;

/// A text from another instance (a race's game), without control characters.
pub(super) fn safe_text(text: &str) -> String {
    crate::text::one_line(text)
}

pub(super) fn shown_name(name: &str) -> String {
    crate::text::kept(name, crate::text::Keep::Nothing)
        .take(accounts::MAX_NAME + 4)
        .collect()
}

/// An idle time for `who`: `42s`, `17m`, `3h05m`.
pub(super) fn idle(idle: Duration) -> String {
    crate::text::idle(idle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_times() {
        assert_eq!(idle(Duration::from_secs(0)), "0s");
        assert_eq!(idle(Duration::from_secs(59)), "59s");
        assert_eq!(idle(Duration::from_secs(61)), "1m");
        assert_eq!(idle(Duration::from_secs(3 * 3600 + 5 * 60 + 9)), "3h05m");
    }

    #[test]
    fn names_as_typed_are_shown_safely() {
        assert_eq!(shown_name("bob\u{1b}[2J"), "bob[2J");
        assert_eq!(shown_name(&"x".repeat(100)).len(), 20);
    }
}
