//! Fuzz target `telnet_decode`: the telnet decoder gives the same items however its
//! input is split into reads. The property lives in [`arcade::fuzzing::telnet_decode`],
//! where `cargo test` replays the inputs kept in `fuzz/regressions/telnet_decode/`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| arcade::fuzzing::telnet_decode(data));
