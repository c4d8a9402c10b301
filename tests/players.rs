//! Players over real TCP (SPEC section 7): names and accounts, who, chat, watching,
//! the player commands inside games, and what the telnet client is told around a
//! password.

mod common;

use std::time::Duration;

use arcade::server::Options;
use common::{named, Client, TestServer};

#[tokio::test]
async fn three_students_and_a_teacher_see_talk_and_watch() {
    let server = TestServer::start().await;
    let mut ann = named(&server, "ann").await;
    let mut bob = named(&server, "bob").await;
    let mut cy = named(&server, "cy").await;
    let mut teacher = named(&server, "teacher").await;

    cy.send("play sokoban classic").await;
    cy.read_until("Enter command: ").await;
    teacher.send("who").await;
    let who = teacher.read_until("> ").await;
    assert!(who.starts_with("4 players online:\r\n"), "{who}");
    for line in ["  ann ", "  bob ", "  cy ", "  teacher "] {
        assert!(who.contains(line), "{line} in {who}");
    }
    assert!(who.contains("sokoban classic"), "{who}");

    // The lobby hears the lobby; cy, in a game, does not.
    ann.send("say anyone stuck on level 3?").await;
    assert_eq!(
        ann.read_until("> ").await,
        "[ann] anyone stuck on level 3?\r\n> "
    );
    for other in [&mut bob, &mut teacher] {
        assert_eq!(
            other.read_until("> ").await,
            "\r\n[ann] anyone stuck on level 3?\r\n> "
        );
    }
    cy.send("/tell teacher help!").await;
    assert_eq!(
        cy.read_until("Enter command: ").await,
        "[you tell teacher] help!\r\nEnter command: "
    );
    assert_eq!(
        teacher.read_until("> ").await,
        "\r\n[cy tells you] help!\r\n> "
    );

    // The teacher watches cy's game from the board as it stands to cy's exit.
    teacher.send("watch cy").await;
    assert_eq!(
        teacher.read_until("Enter command: ").await,
        "You are watching cy. Type anything to stop.\r\n#######\r\n#.....#\r\n#...+.#\r\n##..+.#\r\n#--.#P#\r\n#######\r\nEnter command: "
    );
    for command in ["w1", "a2", "/say watch this"] {
        cy.send(command).await;
        let seen = cy.read_until("Enter command: ").await;
        if !command.starts_with('/') {
            // Each frame after cy's prompt starts a line of its own on the teacher's
            // screen.
            assert_eq!(
                teacher.read_until("Enter command: ").await,
                format!("\r\n{seen}")
            );
        }
    }
    // cy's game and its watcher are one place: the teacher hears cy's /say.
    assert_eq!(
        teacher.read_until("\r\n[cy] watch this\r\n").await,
        "\r\n[cy] watch this\r\n"
    );
    cy.send("/leave").await;
    assert_eq!(cy.read_until("> ").await, "Bye!\r\n> ");
    assert_eq!(
        teacher.read_until("> ").await,
        "Bye!\r\n\r\ncy left the game.\r\n> "
    );
    teacher.send("who").await;
    assert!(teacher.read_until("> ").await.contains("  teacher "));
    server.shutdown().await;
}

#[tokio::test]
async fn a_password_is_not_echoed_and_a_registered_name_is_taken_over() {
    let server = TestServer::start().await;
    let mut ann = named(&server, "Ann").await;
    ann.send("register").await;
    // IAC WILL ECHO: the client stops echoing what is typed.
    assert_eq!(
        ann.read_until_bytes(b"Choose a password: ").await,
        b"\xff\xfb\x01Choose a password: "
    );
    ann.send("open sesame").await;
    assert_eq!(
        ann.read_text_until("Type it again: ").await,
        "\r\nType it again: "
    );
    ann.send("open sesame").await;
    // IAC WONT ECHO: the client echoes again.
    assert_eq!(
        ann.read_until_bytes(b"> ").await,
        b"\xff\xfc\x01\r\nAnn is registered: from now on, name Ann asks for this password.\r\n> "
    );

    let mut other = Client::connect(server.addr).await;
    other.send("name ann").await;
    assert_eq!(
        other.read_until_bytes(b"Password: ").await,
        b"\xff\xfb\x01Password: "
    );
    // A telnet client agrees (DO ECHO): that is not refused.
    other.send_raw(b"\xff\xfd\x01").await;
    other.send("open sesam").await;
    assert_eq!(
        other.read_until_bytes(b"> ").await,
        b"\xff\xfc\x01\r\nWrong password.\r\n> "
    );
    other.send("name ann").await;
    other.read_text_until("Password: ").await;
    other.send("open sesame").await;
    assert_eq!(
        other.read_until_bytes(b"> ").await,
        b"\xff\xfc\x01\r\nYou are now Ann.\r\n> "
    );
    assert_eq!(
        ann.read_to_end().await,
        "\r\nSomeone logged in as Ann from elsewhere.\r\n"
    );
    other.send("who").await;
    let who = other.read_text_until("> ").await;
    assert!(who.starts_with("1 player online:\r\n  Ann "), "{who}");
    server.shutdown().await;
}

#[tokio::test]
async fn repeated_wrong_passwords_are_refused_after_five() {
    let server = TestServer::start().await;
    let _owner = common::registered(server.addr, "owner", "right-one").await;
    let mut guesser = Client::connect(server.addr).await;
    // One try to register, then five guesses go at once.
    for _ in 0..5 {
        guesser.send("name owner").await;
        guesser.read_text_until("Password: ").await;
        guesser.send("guess").await;
        assert!(guesser
            .read_text_until("> ")
            .await
            .ends_with("Wrong password.\r\n> "));
    }
    guesser.send("name owner").await;
    guesser.read_text_until("Password: ").await;
    guesser.send("guess").await;
    // The sixth is refused at once, unchecked: no sleeping attempt holds anything.
    let said = guesser.read_text_until("> ").await;
    assert!(
        said.contains("Too many login attempts: try again in "),
        "the sixth guess was not refused: {said}"
    );
    server.shutdown().await;
}

#[tokio::test]
async fn accounts_and_settings_survive_a_restart() {
    let data = tempfile::tempdir().unwrap();
    let options = || Options {
        data_dir: data.path().to_path_buf(),
        ..Options::default()
    };
    let server = TestServer::start_with(options()).await;
    let mut zoe = common::registered(server.addr, "zoe", "kept-password").await;
    zoe.send("set chat off").await;
    zoe.read_text_until("> ").await;
    server.shutdown().await;
    assert!(data.path().join("arcade.db").is_file());

    let server = TestServer::start_with(options()).await;
    let mut zoe = Client::connect(server.addr).await;
    zoe.send("name ZOE").await;
    zoe.read_text_until("Password: ").await;
    zoe.send("kept-password").await;
    assert!(zoe
        .read_text_until("> ")
        .await
        .ends_with("You are now zoe.\r\n> "));
    zoe.send("set").await;
    assert_eq!(
        zoe.read_text_until("> ").await,
        "Settings:\r\n  chat off\r\n  keys off\r\n  color off\r\n  warnings off\r\n  reader off\r\n> "
    );
    server.shutdown().await;
}

#[tokio::test]
async fn chat_cannot_write_into_another_terminal() {
    let server = TestServer::start().await;
    let mut ann = named(&server, "ann").await;
    let mut bob = named(&server, "bob").await;
    // ESC sequences, a bell and the one-character CSI (U+009B, in UTF-8).
    ann.send_raw("say \u{1b}[2J\u{1b}]0;owned\u{7}hi\u{9b}\r\n".as_bytes())
        .await;
    ann.read_until("> ").await;
    let seen = bob.read_until("> ").await;
    // The line loses its escape sequences whole (SPEC section 10); what is left of the
    // OSC one is text, and no control character reaches bob.
    assert_eq!(seen, "\r\n[ann] ]0;ownedhi\r\n> ");
    server.shutdown().await;
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_watcher_that_never_reads_slows_no_one_and_holds_no_memory() {
    let (mut server, addr, _log, _data) = common::spawn_server_process(&[]);
    let mut player = Client::connect(addr).await;
    player.send("name player").await;
    player.read_until("> ").await;
    player.send("play 2048 seed=1").await;
    player.read_until("Enter command: ").await;
    // A watcher with a tiny receive buffer that reads nothing after asking.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut watcher = Client::from_stream(socket.connect(addr).await.unwrap());
    watcher.read_until("> ").await;
    watcher.send("watch player").await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let before = common::resident_bytes(server.id());
    // 20,000 moves that are taken back at once: every reply a whole board.
    for _ in 0..2_500 {
        player
            .send_raw(b"a\r\nb\r\nw\r\nb\r\nd\r\nb\r\ns\r\nb\r\n")
            .await;
        for _ in 0..8 {
            player.read_until("Enter command: ").await;
        }
    }
    let grown = common::resident_bytes(server.id()).saturating_sub(before);
    // About 15 MB of frames went by; a watcher keeps at most 32 waiting.
    assert!(grown < 4 * 1024 * 1024, "the server grew by {grown} bytes");
    player.send("who").await;
    player.read_until("Enter command: ").await;
    server.kill().expect("stop the server");
    let _ = server.wait();
}

/// `bottoken` over TCP (SPEC section 12): a registered player makes a token (shown
/// once), lists it, sees its last use after the store matched it, revokes it; the cap
/// is named when reached; a guest is refused.
#[tokio::test]
async fn a_registered_player_makes_lists_and_revokes_bot_tokens() {
    use arcade::players::bot_tokens::BotToken;
    let server = TestServer::start().await;
    let mut ann = common::registered(server.addr, "Ann", "ann-password").await;
    ann.send("bottoken list").await;
    assert_eq!(
        ann.read_until("> ").await,
        "You have no bot tokens. bottoken new makes one.\r\n> "
    );
    ann.send("bottoken new").await;
    let said = ann.read_until("> ").await;
    let secret = said
        .strip_prefix("New bot token 1: ")
        .and_then(|rest| rest.split("\r\n").next())
        .unwrap_or_else(|| panic!("no token in {said:?}"));
    let token = BotToken::parse(secret).unwrap_or_else(|error| panic!("{error}: {said:?}"));
    assert_eq!(
        said,
        format!(
            "New bot token 1: {secret}\r\n\
             It is shown only this once: your bot logs in with bot Ann TOKEN.\r\n\
             Keep it out of shared files; bottoken revoke 1 ends it.\r\n> "
        )
    );
    // The list shows the prefix only, never the token, until a bot has used it.
    let prefix = token.prefix();
    ann.send("BOTTOKEN LIST").await;
    let listed = ann.read_until("> ").await;
    assert!(
        listed.starts_with(&format!("Your bot tokens:\r\n  1. {prefix}...  made 20")),
        "{listed:?}"
    );
    assert!(listed.ends_with(", last used never\r\n> "), "{listed:?}");
    assert!(!listed.contains(secret), "{listed:?}");
    // The store knows the token by its hash, for ann only.
    let store = arcade::store::Store::open(&server.db).await.unwrap();
    let hash = token.hash();
    assert!(store.bot_token_matches("ann", hash.as_str()).await.unwrap());
    assert!(!store.bot_token_matches("bo", hash.as_str()).await.unwrap());
    ann.send("bottoken list").await;
    let listed = ann.read_until("> ").await;
    assert!(!listed.contains("never"), "{listed:?}");
    assert_eq!(listed.matches(", last used 20").count(), 1, "{listed:?}");
    // In a game, with a `/`, as sshkey.
    ann.send("play 2048 seed=1").await;
    ann.read_until("Enter command: ").await;
    ann.send("/bottoken list").await;
    let listed = ann.read_until("Enter command: ").await;
    assert!(
        listed.starts_with(&format!("Your bot tokens:\r\n  1. {prefix}...")),
        "{listed:?}"
    );
    ann.send("/leave").await;
    ann.read_until("> ").await;
    // Up to five; the sixth names the cap and the way out.
    for n in 2..=5 {
        ann.send("bottoken new").await;
        let said = ann.read_until("> ").await;
        assert!(
            said.starts_with(&format!("New bot token {n}: arcbot_")),
            "{said:?}"
        );
    }
    ann.send("bottoken new").await;
    assert_eq!(
        ann.read_until("> ").await,
        "You hold 5 bot tokens, the most there can be: bottoken revoke N one\r\n\
         first (bottoken list numbers them).\r\n> "
    );
    for (line, answer) in [
        (
            "bottoken revoke 6",
            "You have no bot token 6: bottoken list numbers them.\r\n> ",
        ),
        (
            "bottoken revoke x",
            "Usage: bottoken revoke N (N from bottoken list).\r\n> ",
        ),
        (
            "bottoken renew",
            "Usage: bottoken new, bottoken list, bottoken revoke N.\r\n> ",
        ),
    ] {
        ann.send(line).await;
        assert_eq!(ann.read_until("> ").await, answer, "{line}");
    }
    ann.send("bottoken revoke 1").await;
    assert_eq!(
        ann.read_until("> ").await,
        format!("Bot token 1 revoked ({prefix}...): no bot logs in with it any more.\r\n> ")
    );
    assert!(!store.bot_token_matches("ann", hash.as_str()).await.unwrap());
    ann.send("bottoken list").await;
    let listed = ann.read_until("> ").await;
    assert_eq!(listed.matches("...  made ").count(), 4, "{listed:?}");
    assert!(!listed.contains(&format!(" {prefix}...")), "{listed:?}");
    store.close().await;

    // A guest's name, and an unregistered one, hold no tokens.
    let mut guest = Client::connect(server.addr).await;
    let mut bo = named(&server, "bo").await;
    for client in [&mut guest, &mut bo] {
        client.send("bottoken new").await;
        assert_eq!(
            client.read_until("> ").await,
            "Bot tokens are for registered names: name NAME, then register, first.\r\n> "
        );
    }
    server.shutdown().await;
}
