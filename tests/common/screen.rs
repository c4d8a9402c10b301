//! A terminal the test can type into and read: a tmux server of its own (`-L`) with
//! one window running a command (Debian's `telnet`, OpenSSH's `ssh`), for the tests
//! of single keys, colour and SSH in a real terminal.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// One tmux server and its window.
pub struct Screen {
    tmux: PathBuf,
    socket: String,
}

impl Screen {
    /// A 100 by 40 window running `command` (a shell line), on a tmux server named
    /// after the test (`name`) and this process.
    pub fn open(tmux: &Path, name: &str, command: &str) -> Screen {
        let socket = format!("arcade-test-{}-{name}", std::process::id());
        let screen = Screen {
            tmux: tmux.to_path_buf(),
            socket,
        };
        screen.tmux(&[
            "new-session",
            "-d",
            "-s",
            "t",
            "-x",
            "100",
            "-y",
            "40",
            command,
        ]);
        screen
    }

    /// Run a tmux command on this server; what it printed.
    pub fn tmux(&self, args: &[&str]) -> String {
        let output = Command::new(&self.tmux)
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .expect("run tmux");
        assert!(
            output.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// Press keys (tmux's names: `Enter`, `Up`, `BSpace`, or text).
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "t"];
        args.extend_from_slice(keys);
        self.tmux(&args);
    }

    /// Type `text` as it is (no key names).
    pub fn type_text(&self, text: &str) {
        self.tmux(&["send-keys", "-t", "t", "-l", text]);
    }

    /// The screen as text.
    pub fn text(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-t", "t"])
    }

    /// The screen with its colours, as escape sequences.
    pub fn colours(&self) -> String {
        self.tmux(&["capture-pane", "-e", "-p", "-t", "t"])
    }

    /// Wait until the screen shows `wanted`; the screen.
    pub fn wait_for(&self, wanted: &str) -> String {
        self.wait_until(wanted, |text| text.contains(wanted))
    }

    /// Wait until `done` holds for the screen (`what` names it in the failure); the
    /// screen.
    pub fn wait_until(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let text = self.text();
            if done(&text) {
                return text;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "no {what} on the screen:\n{text}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Keep the screen under `target/screenshots/NAME.txt` and `.ans`.
    pub fn save(&self, name: &str) {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
        std::fs::create_dir_all(&dir).expect("a screenshots folder");
        std::fs::write(dir.join(format!("{name}.txt")), self.text()).expect("save a screenshot");
        std::fs::write(dir.join(format!("{name}.ans")), self.colours()).expect("save a screenshot");
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        let _ = Command::new(&self.tmux)
            .args(["-L", &self.socket, "kill-server"])
            .output();
    }
}
