//! Recordings of games: their format, the recorder sessions hold, its writer task, the
//! check of results by replay, and the scores read from them.

pub mod cast;
pub mod places;
pub mod reader;
pub mod recorder;
pub mod recording;
pub mod scores;
pub mod verifier;
pub mod writer;

/// How often the writer and the verifier log what they did (when they did anything).
const REPORT_EVERY: std::time::Duration = std::time::Duration::from_secs(10);
