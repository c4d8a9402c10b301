//! Ladders (SPEC section 12): every entrant, bot or person, plays the same seeds of
//! one game, and a table ranks them against each other and against the built-in
//! agents seed by seed, so that luck cancels out.
//!
//! What is pure lives here: the admin's words that open a ladder ([`opening`]), the
//! game a seed is ([`seeds`]), and the table from the results and the baselines
//! ([`table`]). The store keeps ladders and results (`store::ladders`); the console
//! plays an entrant through the seeds; the verifier checks each result by replay.

pub mod opening;
pub mod seeds;
pub mod table;
