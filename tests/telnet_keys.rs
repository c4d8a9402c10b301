//! Single keys, arrow keys, line editing and colour in a real terminal: Debian's
//! `telnet` client running inside `tmux` (a terminal the test can type into and read
//! the screen of), against a server started by the test. Each screen checked is also
//! saved under `target/screenshots/` (plain text, and `.ans` with its colours: `cat` it
//! in a terminal), so that anyone can look at what a student sees.
//!
//! Both are real programs: without one the test prints `skipped: ...`, under
//! `CI=true` it fails (`.ci/run` installs Debian's `telnet` and `tmux`).

mod common;

use common::screen::Screen;
use common::TestServer;

#[tokio::test(flavor = "multi_thread")]
async fn a_student_on_telnet_plays_with_single_keys_arrows_and_colour() {
    let (Some(telnet), Some(tmux)) = (
        common::program("telnet", "telnet"),
        common::program("tmux", "tmux"),
    ) else {
        return;
    };
    let server = TestServer::start().await;
    let addr = server.addr;
    tokio::task::spawn_blocking(move || {
        let command = format!("{} {} {}", telnet.display(), addr.ip(), addr.port());
        let screen = Screen::open(&tmux, "keys", &command);
        screen.wait_for("Welcome to arcade!");
        screen.keys(&["set keys on", "Enter"]);
        let text = screen.wait_for("Single keys are on.");
        // One answer: the client's, not a word before it that it may contradict.
        assert!(!text.contains("asking your client"), "{text}");

        // 2048: one key, no Enter, moves the board.
        screen.keys(&["play 2048 seed=1", "Enter"]);
        screen.wait_for("Step: 0");
        screen.type_text("a");
        screen.wait_for("Step: 1");
        screen.keys(&["Down"]);
        screen.wait_for("Step: 2");
        screen.save("2048-keys");
        screen.type_text("q");
        screen.wait_for("Bye!");

        // Star Pusher: an arrow key moves the player.
        screen.keys(&["play starpusher arcade 3", "Enter"]);
        screen.wait_for("Moves: 0  Pushes: 0");
        screen.keys(&["Up"]);
        screen.wait_for("Moves: 1  Pushes: 1");
        // Help follows the mode: `d3` cannot be typed when `d` acts at once.
        screen.keys(&["help", "Enter"]);
        let text = screen.wait_for("walk or push one step at once");
        assert!(!text.contains("d3 walks three steps"), "{text}");
        assert!(text.contains("D3 walks three"), "{text}");
        screen.keys(&["exit", "Enter"]);
        screen.wait_for("Bye!");

        // Backspace edits a lobby command and a /say.
        screen.keys(&["name tiy", "BSpace", "m", "Enter"]);
        screen.wait_for("You are now tim.");
        screen.keys(&["say hellx", "BSpace", "o", "Enter"]);
        screen.wait_for("[tim] hello");

        // The password prompt shows nothing of the password.
        screen.keys(&["register", "Enter"]);
        screen.wait_for("Choose a password:");
        screen.keys(&["pw-sekrit-1", "Enter"]);
        screen.wait_for("Type it again:");
        screen.keys(&["pw-sekrit-1", "Enter"]);
        let text = screen.wait_for("tim is registered");
        assert!(!text.contains("pw-sekrit"), "{text}");

        // Colour: boards drawn in place, in colour.
        screen.keys(&["set color on", "Enter"]);
        screen.wait_for("Colour is on");
        screen.keys(&["play 2048 seed=1", "Enter"]);
        let text = screen.wait_for("Step: 0");
        assert!(
            text.starts_with('┌'),
            "the board is drawn at the top of the screen:\n{text}"
        );
        let colours = screen.colours();
        assert!(colours.contains("\u{1b}["), "no colour on the screen");
        // The first tiles (2 or 4) are blocks of light colour, dark numbers on them.
        assert!(
            colours.contains("48;5;255") || colours.contains("48;5;230"),
            "no tile background on the screen:\n{colours:?}"
        );
        screen.save("2048-colour");
        screen.type_text("q");
        screen.wait_for("Bye!");
        screen.keys(&["play starpusher arcade 3", "Enter"]);
        screen.wait_for("Moves: 0");
        // Walls are blue blocks, with a white glyph on them.
        let colours = screen.colours();
        assert!(
            colours.contains("48;5;25m") || colours.contains("48;5;25;"),
            "no wall background on the screen:\n{colours:?}"
        );
        screen.save("starpusher-colour");
        screen.keys(&["exit", "Enter"]);
        screen.keys(&["play sokoban", "Enter"]);
        screen.wait_for("Welcome to Sokoban!");
        screen.save("sokoban-colour");
    })
    .await
    .expect("the screen test");
    server.shutdown().await;
}
