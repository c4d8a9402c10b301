//! A new student's first ten minutes (issue 30), over TCP as `nc` shows them: the
//! banner, a guest's first game, a name, every game with `help` and `/leave`, the
//! lobby's lists, a race, and a classmate watching. Every line fits 80 columns (on the
//! student's screen, where the typed line follows the prompt), every `help` answers
//! with help, and what is said once is said once.

mod common;

use arcade::server::Options;
use common::{Client, TestServer, BACK_OUT, TO_THE_GOLD};

/// The hint a player past sections 1-6 gets on entering a game.
const IN_GAMES: &str = "/help lists this game's commands, /leave goes back to the lobby.";

/// A guest's word about results, told once.
const GUEST_RESULT: &str = "Guests' results are not kept: type name NAME before your next game.";

/// A student at a terminal: what the server sent and what was typed, as the screen
/// shows it (`nc` echoes the typed line after the prompt).
struct Student {
    client: Client,
    screen: String,
}

impl Student {
    async fn connect(server: &TestServer) -> Student {
        let mut client = Client::connect_raw(server.addr).await;
        let banner = client.read_text_until("> ").await;
        Student {
            client,
            screen: banner,
        }
    }

    /// Type `line` and read up to `marker`; the answer.
    async fn type_line(&mut self, line: &str, marker: &str) -> String {
        self.client.send(line).await;
        let answer = self.client.read_text_until(marker).await;
        self.screen.push_str(line);
        self.screen.push_str("\r\n");
        self.screen.push_str(&answer);
        answer
    }

    /// Read up to `marker` without typing (a message, a watched frame).
    async fn wait_for(&mut self, marker: &str) -> String {
        let text = self.client.read_text_until(marker).await;
        self.screen.push_str(&text);
        text
    }

    /// Every line on the screen so far fits 80 columns.
    fn assert_fits(&self, who: &str) {
        for line in self.screen.split("\r\n") {
            assert!(
                line.chars().count() <= 80,
                "{who}: {} columns: {line:?}",
                line.chars().count()
            );
        }
    }
}

/// `help` typed in a game, without the `/`, by a player past the basics: help.
fn assert_is_help(help: &str, game: &str) {
    assert!(
        help.starts_with("Player commands, with a / first in a game:\r\n"),
        "{game}: {help}"
    );
    assert!(help.contains("This game's commands:\r\n"), "{game}: {help}");
    assert!(help.contains("/leave"), "{game}: {help}");
    assert!(help.ends_with("Enter command: "), "{game}: {help}");
}

#[tokio::test]
async fn a_new_students_first_ten_minutes_read_well_in_80_columns() {
    let server = TestServer::start_with(Options {
        admin: vec![String::from("teacher")],
        ..Options::default()
    })
    .await;
    let mut ann = Student::connect(&server).await;
    assert!(ann.screen.contains("/help"), "{}", ann.screen);
    assert!(ann.screen.contains("/leave"), "{}", ann.screen);
    assert!(ann.screen.contains("name NAME"), "{}", ann.screen);

    // As a guest: a look around, then the wumpus world won. The result is not kept,
    // and ann is told so once.
    let who = ann.type_line("who", "> ").await;
    assert!(who.starts_with("1 player online:\r\n"), "{who}");
    let started = ann.type_line("play wumpus", "Enter command: ").await;
    assert!(started.starts_with(&format!("{IN_GAMES}\r\n")), "{started}");
    for line in TO_THE_GOLD.iter().chain(BACK_OUT) {
        ann.type_line(line, "Enter command: ").await;
    }
    let out = ann.type_line("climb", "> ").await;
    assert!(out.starts_with("You are out with the gold.\r\n"), "{out}");
    assert!(out.ends_with(&format!("{GUEST_RESULT}\r\n> ")), "{out}");

    // A name, then every game: the hint on entering each the first time (wumpus was
    // entered already), `help` is help, `/leave` leaves.
    ann.type_line("name ann", "> ").await;
    for (game, moves) in [
        ("sokoban", &["d1", "w1"][..]),
        ("starpusher", &["d", "help"][..]),
        ("2048 seed=12345678901234567890", &["a", "w"][..]),
        ("wumpus", &["turn left", "move forward"][..]),
    ] {
        let started = ann
            .type_line(&format!("play {game}"), "Enter command: ")
            .await;
        assert_eq!(
            started.starts_with(&format!("{IN_GAMES}\r\n")),
            game != "wumpus",
            "{game}: {started}"
        );
        assert_is_help(&ann.type_line("help", "Enter command: ").await, game);
        assert_is_help(&ann.type_line("/help", "Enter command: ").await, game);
        for line in moves {
            ann.type_line(line, "Enter command: ").await;
        }
        let left = ann.type_line("/leave", "> ").await;
        assert!(!left.contains(GUEST_RESULT), "{game}: {left}");
    }

    // The lobby's lists.
    for line in ["who", "help", "levels", "top", "stats", "recordings", "set"] {
        ann.type_line(line, "> ").await;
    }
    let recordings = ann.type_line("recordings", "> ").await;
    // The games just left are listed as left, with their lines: not `playing`.
    assert!(!recordings.contains("playing"), "{recordings}");
    assert!(recordings.contains("12345678901234567890"), "{recordings}");
    let top = ann.type_line("top", "> ").await;
    // A guest's result counts nowhere; ann's 2048 (left with /leave) does.
    assert!(!top.contains("wumpus"), "{top}");

    // A classmate watches ann's 2048: each frame starts a line of its own.
    let mut bob = Student::connect(&server).await;
    bob.type_line("name bob", "> ").await;
    ann.type_line("play 2048 seed=12345678901234567890", "Enter command: ")
        .await;
    let watching = bob.type_line("watch ann", "Enter command: ").await;
    assert!(watching.starts_with("You are watching ann."), "{watching}");
    for key in ["a", "d", "w"] {
        ann.type_line(key, "Enter command: ").await;
        let frame = bob.wait_for("Enter command: ").await;
        assert!(frame.starts_with("\r\n"), "{frame:?}");
    }
    for line in bob.screen.split("\r\n") {
        assert!(
            !line.contains("Enter command: ") || line.ends_with("Enter command: "),
            "a frame glued to a prompt: {line:?}"
        );
    }
    ann.type_line("/leave", "> ").await;
    bob.wait_for("ann left the game.\r\n> ").await;
    bob.type_line("who", "> ").await;

    // A race with a 20-digit seed, for everyone in the lobby: the invitation and the
    // race's lines fit.
    let mut teacher = Client::connect(server.addr).await;
    server.set_password("teacher", "teacher-secret").await;
    teacher.send("name teacher").await;
    teacher.read_text_until("Password: ").await;
    teacher.send("teacher-secret").await;
    teacher.read_text_until("> ").await;
    teacher
        .send("race 2048 seed=12345678901234567890 time=5m all")
        .await;
    let opened = teacher.read_text_until("> ").await;
    assert!(
        opened.contains("2 players in the lobby were invited"),
        "{opened}"
    );
    for student in [&mut ann, &mut bob] {
        let invited = student.wait_for("> ").await;
        assert!(invited.contains("type join 1."), "{invited}");
        student.type_line("join 1", "> ").await;
        student.type_line("who", "> ").await;
    }
    teacher.send("start").await;
    // ann has been in a 2048 game this session, bob has not.
    for (student, told) in [(&mut ann, false), (&mut bob, true)] {
        let go = student.wait_for("Enter command: ").await;
        assert!(go.contains("Race 1: go!\r\n"), "{go}");
        assert_eq!(go.contains(IN_GAMES), told, "{go}");
    }
    ann.type_line("a", "Enter command: ").await;
    ann.type_line("/standings", "Enter command: ").await;
    bob.type_line("/who", "Enter command: ").await;
    for student in [&mut ann, &mut bob] {
        student.type_line("/leave", "> ").await;
        student.type_line("quit", "Goodbye.\r\n").await;
    }

    ann.assert_fits("ann");
    bob.assert_fits("bob");
    for line in opened.split("\r\n") {
        assert!(line.chars().count() <= 80, "{line:?}");
    }
    server.shutdown().await;
}
