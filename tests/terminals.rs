//! Terminals over real TCP (SPEC section 10): a client that answers like telnet gets
//! single keys and the server's line editing; one that never answers (nc) is told so
//! and keeps lines; colour draws boards in place, in each viewer's own settings; and a
//! client that asks for nothing sees no telnet byte and no ANSI.

mod common;

use std::time::Duration;

use common::{named, Client, TestServer};

use common::keys::{keys_on, DO, ECHO, IAC, NAWS, SB, SE, SGA, TTYPE, WILL};

#[tokio::test]
async fn single_keys_act_at_once_and_the_server_edits_the_line() {
    let server = TestServer::start().await;
    let mut ann = named(&server, "ann").await;
    ann.send("set keys on").await;
    let asked = ann.read_until_bytes(&[IAC, DO, TTYPE]).await;
    assert!(
        asked.ends_with(&[IAC, WILL, ECHO, IAC, WILL, SGA, IAC, DO, NAWS, IAC, DO, TTYPE]),
        "{asked:?}"
    );
    ann.send_raw(&[IAC, DO, ECHO, IAC, DO, SGA]).await;
    ann.read_text_until("Single keys are on").await;
    ann.read_text_until("> ").await;
    // Typed key by key: each is echoed; Enter sends the line.
    for key in "play 2048 seed=1".bytes() {
        ann.send_raw(&[key]).await;
    }
    assert_eq!(ann.read_text_until("seed=1").await, "play 2048 seed=1");
    ann.send_raw(b"\r\0").await;
    let board = ann.read_text_until("Enter command: ").await;
    // ann used `set`: the first game of a kind says how to get help and out.
    assert!(
        board.starts_with(
            "\r\n/help lists this game's commands, /leave goes back to the lobby.\r\nWelcome to 2048!"
        ),
        "{board}"
    );
    assert!(board.contains("Step: 0"), "{board}");
    // One key, no Enter: the board moves.
    ann.send_raw(b"a").await;
    let moved = ann.read_text_until("Enter command: ").await;
    assert!(moved.contains("Step: 1"), "{moved}");
    assert!(
        moved.starts_with("a\r\n"),
        "the key, then its answer: {moved}"
    );
    // An arrow key, in one or in two pieces.
    ann.send_raw(b"\x1b[").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    ann.send_raw(b"B").await;
    let moved = ann.read_text_until("Enter command: ").await;
    assert!(moved.contains("Step: 2"), "{moved}");
    // A typed line that starts with a key that is not the game's: /say, edited.
    ann.send_raw(b"/say hellx\x7fo\r\n").await;
    let said = ann.read_text_until("Enter command: ").await;
    assert_eq!(
        said,
        "/say hellx\u{8} \u{8}o\r\n[ann] hello\r\nEnter command: "
    );
    // Ctrl-C drops a half-typed line; Ctrl-U and Ctrl-W erase.
    ann.send_raw(b"/who\x03").await;
    assert_eq!(
        ann.read_text_until("Enter command: ").await,
        "/who^C\r\nEnter command: "
    );
    ann.send_raw(b"q").await;
    assert_eq!(ann.read_text_until("> ").await, "q\r\nBye!\r\n> ");
    ann.send_raw(b"xyz\x15who are\x17\r").await;
    let who = ann.read_text_until("> ").await;
    assert!(who.contains("1 player online:"), "{who}");
    let erase = "\u{8} \u{8}";
    assert!(
        who.starts_with(&format!(
            "xyz{}who are{}\r\n",
            erase.repeat(3),
            erase.repeat(3)
        )),
        "{who:?}"
    );

    // Star Pusher: w a s d and the arrows move one step at once; d3 is typed D3.
    ann.send_raw(b"play starpusher arcade 3\r").await;
    ann.read_text_until("Enter command: ").await;
    ann.send_raw(b"\x1bOA").await;
    let moved = ann.read_text_until("Enter command: ").await;
    assert!(moved.contains("Moves: 1  Pushes: 1"), "{moved}");
    ann.send_raw(b"s").await;
    let moved = ann.read_text_until("Enter command: ").await;
    assert!(moved.contains("Moves: 2"), "{moved}");
    ann.send_raw(b"D3\r").await;
    let moved = ann.read_text_until("Enter command: ").await;
    assert!(moved.starts_with("D3\r\n"), "{moved}");
    assert!(moved.contains("Moves: 3"), "{moved}");
    // Keys off: the client is told to edit lines itself again, and lines work.
    ann.send_raw(b"/set keys off\r").await;
    let off = ann.read_until_bytes(&[IAC, 252, SGA]).await;
    assert!(off.ends_with(&[IAC, 252, ECHO, IAC, 252, SGA]), "{off:?}");
    ann.send("a").await;
    let moved = ann.read_text_until("Enter command: ").await;
    assert!(moved.contains("Moves: 4"), "{moved}");
}

#[tokio::test]
async fn a_message_arriving_mid_typing_keeps_the_typed_line() {
    let server = TestServer::start().await;
    let mut ann = named(&server, "ann").await;
    let mut bob = named(&server, "bob").await;
    keys_on(&mut ann).await;
    ann.send_raw(b"say hal").await;
    ann.read_text_until("say hal").await;
    bob.send("say hi ann").await;
    bob.read_text_until("> ").await;
    assert_eq!(
        ann.read_text_until("> say hal").await,
        "\r\u{1b}[K[bob] hi ann\r\n> say hal"
    );
    ann.send_raw(b"lo\r").await;
    assert_eq!(ann.read_text_until("> ").await, "lo\r\n[ann] hallo\r\n> ");
}

#[tokio::test]
async fn a_client_that_never_answers_is_told_and_keeps_lines() {
    let server = TestServer::start().await;
    let mut nc = named(&server, "nc").await;
    nc.send("set keys on").await;
    // One answer, when the client's silence is known: the prompt, then why not.
    let said = nc.read_text_until("Your client did not answer").await;
    assert_eq!(said, "> \r\nYour client did not answer", "{said}");
    assert_eq!(
        nc.read_text_until("> ").await,
        " (nc and scripts never do): keys stay off.\r\nSingle keys need a telnet client; lines and Enter work as before.\r\n> "
    );
    nc.send("set").await;
    assert_eq!(
        nc.read_text_until("> ").await,
        "Settings:\r\n  chat on\r\n  keys off\r\n  color off\r\n  warnings off\r\n  reader off\r\n> "
    );
    // Lines work as before.
    nc.send("play 2048 seed=1").await;
    assert!(nc
        .read_text_until("Enter command: ")
        .await
        .contains("Step: 0"));
    nc.send("a").await;
    assert!(nc
        .read_text_until("Enter command: ")
        .await
        .contains("Step: 1"));
}

#[tokio::test]
async fn a_client_that_refuses_is_told() {
    let server = TestServer::start().await;
    let mut ann = named(&server, "ann").await;
    ann.send("set keys on").await;
    ann.read_until_bytes(&[IAC, WILL, SGA]).await;
    ann.send_raw(&[IAC, 254, ECHO]).await;
    let said = ann.read_text_until("> ").await;
    assert!(
        said.ends_with("Your client refused character mode: keys stay off.\r\nSingle keys need a telnet client; lines and Enter work as before.\r\n> "),
        "{said}"
    );
}

#[tokio::test]
async fn line_mode_arrows_and_control_keys() {
    let server = TestServer::start().await;
    let mut ann = named(&server, "ann").await;
    // Ctrl-D before a command no longer spoils it.
    ann.send_raw(b"\x04help\r\n").await;
    assert!(ann.read_text_until("> ").await.starts_with("Commands:"));
    // An arrow key sent as a line moves, in the game's own terms.
    ann.send("play sokoban").await;
    ann.read_text_until("Enter command: ").await;
    ann.send_raw(b"\x1b[A\r\n").await;
    let moved = ann.read_text_until("Enter command: ").await;
    ann.send("s1").await;
    ann.read_text_until("Enter command: ").await;
    ann.send("w1").await;
    assert_eq!(ann.read_text_until("Enter command: ").await, moved);
    // Telnet's Ctrl-C drops the line being typed.
    ann.send_raw(&[b'e', IAC, 244]).await;
    assert_eq!(
        ann.read_text_until("Enter command: ").await,
        "^C\r\nEnter command: "
    );
    ann.send_raw(b"\r\n").await;
    assert!(ann
        .read_text_until("Enter command: ")
        .await
        .starts_with("Invalid command"));
    // Are you there?
    ann.send_raw(&[IAC, 246]).await;
    assert_eq!(
        ann.read_text_until("Enter command: ").await,
        "\r\n[arcade: yes, here]\r\nEnter command: "
    );
}

#[tokio::test]
async fn colour_draws_boards_in_place_in_each_viewers_own_settings() {
    let server = TestServer::start().await;
    let mut ann = named(&server, "ann").await;
    let mut bob = named(&server, "bob").await;
    let mut cy = named(&server, "cy").await;
    ann.send("set color on").await;
    assert_eq!(
        ann.read_text_until("> ").await,
        "Colour is on: boards are drawn in colour, in place.\r\n> "
    );
    ann.send("play sokoban").await;
    let board = ann.read_until("Enter command: ").await;
    assert!(
        board.starts_with("\u{1b}[H\u{1b}[2J\u{1b}[38;5;231;48;5;25m#######"),
        "{board:?}"
    );
    assert!(board.contains("\u{1b}[1;38;5;16;48;5;31mP"), "{board:?}");
    // The board first, then the welcome and the prompt below it.
    assert!(
        board.ends_with("\u{1b}[0m\r\n/help lists this game's commands, /leave goes back to the lobby.\r\nWelcome to Sokoban!\r\nEnter command: "),
        "{board:?}"
    );
    // bob (no colour) and cy (colour) watch ann: each sees the board their own way.
    cy.send("set color on").await;
    cy.read_text_until("> ").await;
    bob.send("watch ann").await;
    let plain = bob.read_until("Enter command: ").await;
    assert!(!plain.contains('\u{1b}'), "{plain:?}");
    cy.send("watch ann").await;
    let painted = cy.read_until("Enter command: ").await;
    assert!(painted.contains("\u{1b}[H\u{1b}[2J"), "{painted:?}");
    ann.send("w1").await;
    ann.read_until("Enter command: ").await;
    assert!(!bob.read_until("Enter command: ").await.contains('\u{1b}'));
    assert!(cy
        .read_until("Enter command: ")
        .await
        .contains("\u{1b}[38;5;231;48;5;25m"));
    // 2048's tiles are coloured by value, each a block: a 2 or a 4 and its spaces.
    let mut di = named(&server, "di").await;
    di.send("set color on").await;
    di.read_text_until("> ").await;
    di.send("play 2048 seed=1").await;
    let tiles = di.read_until("Enter command: ").await;
    assert!(
        tiles.contains("\u{1b}[38;5;241;48;5;255m   2 \u{1b}[0m")
            || tiles.contains("\u{1b}[38;5;241;48;5;230m   4 \u{1b}[0m"),
        "{tiles:?}"
    );
}

#[tokio::test]
async fn a_board_wider_than_the_window_is_said() {
    let server = TestServer::start().await;
    let mut ann = named(&server, "ann").await;
    ann.send("set color on").await;
    ann.read_text_until("> ").await;
    // A telnet client that tells a window of 20 columns.
    ann.send("set keys on").await;
    ann.read_until_bytes(&[IAC, DO, TTYPE]).await;
    ann.send_raw(&[
        IAC, DO, ECHO, IAC, DO, SGA, IAC, WILL, NAWS, IAC, SB, NAWS, 0, 20, 0, 30, IAC, SE,
    ])
    .await;
    ann.read_text_until("Single keys are on").await;
    ann.read_text_until("> ").await;
    ann.send_raw(b"play 2048 size=8 seed=1\r").await;
    let board = ann.read_text_until("Enter command: ").await;
    assert!(
        board.contains(
            "columns wide and your window 20: widen it to see it whole.)\r\nEnter command: "
        ),
        "{board}"
    );
}

#[tokio::test]
async fn settings_are_kept_and_passwords_never_echoed_with_keys_on() {
    let server = TestServer::start().await;
    let mut ann = common::registered(server.addr, "ann", "secret-ann").await;
    ann.send("set color on").await;
    ann.read_text_until("> ").await;
    keys_on(&mut ann).await;
    drop(ann);
    tokio::time::sleep(Duration::from_millis(100)).await;
    // A login brings the settings back, and asks the client for single keys at once.
    let (mut again, said) = common::log_in(server.addr, "ann", "secret-ann").await;
    assert!(said.ends_with("You are now ann.\r\n> "), "{said}");
    again
        .read_until_bytes(&[IAC, WILL, ECHO, IAC, WILL, SGA])
        .await;
    again.send_raw(&[IAC, DO, ECHO, IAC, DO, SGA]).await;
    again.read_text_until("Single keys are on").await;
    again.read_text_until("> ").await;
    again.send_raw(b"set\r").await;
    let set = again.read_text_until("> ").await;
    assert!(set.contains("keys on") && set.contains("color on"), "{set}");
    // Another connection with keys on types the password key by key: never echoed.
    let mut other = named(&server, "other").await;
    keys_on(&mut other).await;
    other.send_raw(b"name ann\r").await;
    other.read_text_until("Password: ").await;
    other.send_raw(b"secret-ann\r").await;
    let answer = other.read_text_until("> ").await;
    assert!(!answer.contains("secret"), "{answer}");
    assert!(answer.ends_with("You are now ann.\r\n> "), "{answer:?}");
}

#[tokio::test]
async fn a_client_that_asks_for_nothing_sees_no_telnet_byte_and_no_ansi() {
    let server = TestServer::start().await;
    let mut nc = Client::connect_raw(server.addr).await;
    nc.send_raw(
        b"name plain\nwho\nplay 2048 seed=1\na\nq\nplay sokoban\nw1\ne\nplay starpusher\nd\nexit\nplay wumpus\nquit\nset\nquit\n",
    )
    .await;
    let all = nc.read_to_end_bytes().await;
    assert!(
        all.ends_with(b"Goodbye.\r\n"),
        "{:?}",
        String::from_utf8_lossy(&all)
    );
    assert!(!all.contains(&IAC), "a telnet byte");
    assert!(!all.contains(&0x1b), "an escape");
}
