//! The built-in agents: programs that play arcade's games, as baselines for students'
//! bots. Pure like [`crate::games`] (no I/O, no tokio, no clock: a budget is a depth or
//! a count the caller chooses) and using nothing of the crate but `games`.

pub mod random;
pub mod twenty48;
