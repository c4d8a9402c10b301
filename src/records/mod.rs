//! Recordings of games, their writer, and the scores read from them.

pub mod recorder;
pub mod recording;
pub mod scores;
