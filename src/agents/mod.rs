//! Built-in agents: programs that play arcade's games as a bot or a person would, the
//! baselines a ladder compares entrants with (issue 34, SPEC section 12). Pure like
//! `games` (no I/O, no tokio, no clock) and built only on `games`.

pub mod driver;
pub mod random;
pub mod twenty48;
pub mod wumpus;
