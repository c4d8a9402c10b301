//! Counts in the games' own words, singular for one: `1 move`, `12 moves`. The same
//! rule as `crate::text::count`, which `games/` may not use (it depends on nothing
//! else in the crate).

/// `n` and its noun: `one` for 1, `many` for any other count.
pub(super) fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `1 move`, `N moves`.
pub(super) fn moves(n: u64) -> String {
    count(n, "move", "moves")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(moves(1), "1 move");
        assert_eq!(moves(0), "0 moves");
        assert_eq!(count(2, "action", "actions"), "2 actions");
    }
}
