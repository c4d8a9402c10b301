//! Fuzz target `levels`: every level and world parser, then a game played on what it
//! read. The property lives in [`arcade::fuzzing::levels`], where `cargo test` replays
//! the inputs kept in `fuzz/regressions/levels/`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| arcade::fuzzing::levels(data));
