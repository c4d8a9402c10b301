//! Telnet's bytes, and `set keys on` answered as a telnet client answers it (SPEC
//! section 10), for the tests of single keys.

use super::Client;

pub const IAC: u8 = 255;
pub const WILL: u8 = 251;
pub const DO: u8 = 253;
pub const SB: u8 = 250;
pub const SE: u8 = 240;
pub const ECHO: u8 = 1;
pub const SGA: u8 = 3;
pub const TTYPE: u8 = 24;
pub const NAWS: u8 = 31;

/// `set keys on`, answered as a telnet client does: yes to echo and go-ahead, a 100x30
/// window, an xterm.
pub async fn keys_on(client: &mut Client) {
    client.send("set keys on").await;
    let asked = client.read_until_bytes(&[IAC, WILL, SGA]).await;
    assert!(
        asked.ends_with(&[IAC, WILL, ECHO, IAC, WILL, SGA]),
        "{asked:?}"
    );
    // The window size and terminal type are asked for too (here, or already when the
    // client showed it speaks telnet); the answers are the same.
    client
        .send_raw(&[
            IAC, DO, ECHO, IAC, DO, SGA, IAC, WILL, NAWS, IAC, SB, NAWS, 0, 100, 0, 30, IAC, SE,
            IAC, WILL, TTYPE,
        ])
        .await;
    let said = client.read_text_until("> ").await;
    assert!(said.contains("Single keys are on"), "{said}");
    // Asked for the terminal's type once it agreed to tell it.
    client.read_until_bytes(&[IAC, SB, TTYPE, 1, IAC, SE]).await;
    let mut ttype = vec![IAC, SB, TTYPE, 0];
    ttype.extend_from_slice(b"XTERM");
    ttype.extend_from_slice(&[IAC, SE]);
    client.send_raw(&ttype).await;
}
