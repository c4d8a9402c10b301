//! The hand-over's messages (SPEC section 11), as JSON frames (`fds.rs`): the new
//! process says hello with the format it reads, the old one offers its sockets and
//! then sends each connected session as a frame of its own (the session's state, in
//! the session's own format, with its socket), and the new one answers with its
//! verdict once it serves.
//!
//! Every message carries [`FORMAT`]: a process refuses a format it does not read, and
//! the old one then goes on serving and says why. The descriptors of an offer come in
//! the order of its `sockets`.

use serde::{Deserialize, Serialize};

/// The hand-over's format: raised whenever a message changes meaning, so that two
/// versions that cannot understand each other refuse rather than guess.
/// 2: the offer is followed by its sessions.
pub const FORMAT: u32 = 2;

/// The server's version, as `arcade --version` prints it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// A mark a build can carry in its binary, `arcade-build:` and a tag padded with `_`
/// to 16 bytes: a copy of the binary with the tag written into it (same length) is
/// a second build that says so ([`version`]), without compiling it again. The tests
/// upgrade to such a copy.
const BUILD_MARK: &str = "arcade-build:________________";

/// This binary's version in the hand-over: [`VERSION`], with `+TAG` when its build
/// mark carries one.
pub fn version() -> String {
    // Through black_box: the mark is read from the binary as it is on disk, never
    // folded into a constant by the compiler.
    let mark = std::hint::black_box(BUILD_MARK);
    let tag = mark
        .strip_prefix("arcade-build:")
        .unwrap_or_default()
        .trim_end_matches('_');
    if tag.is_empty() {
        VERSION.to_string()
    } else {
        format!("{VERSION}+{}", crate::text::one_line(tag))
    }
}

/// New to old: who is taking over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hello {
    /// The hand-over format the new process reads.
    pub format: u32,
    /// Its version.
    pub version: String,
    /// Its process id.
    pub pid: u32,
}

impl Hello {
    /// This process's hello.
    pub fn ours() -> Hello {
        Hello {
            format: FORMAT,
            version: version(),
            pid: std::process::id(),
        }
    }
}

/// What one handed descriptor is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Socket {
    /// The telnet (and `nc`) port.
    Telnet,
    /// The web page's port.
    Web,
    /// The SSH port.
    Ssh,
    /// The control socket `arcade upgrade` talks to.
    Control,
    /// The data directory's lock file, locked.
    Lock,
}

/// Old to new: the sockets, in the order their descriptors came.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Offer {
    /// The format the old process writes.
    pub format: u32,
    /// Its version.
    pub version: String,
    /// What each descriptor is.
    pub sockets: Vec<Socket>,
    /// How many sessions follow, a frame each (its state, with its socket).
    pub sessions: usize,
    /// What the sessions share (the races), in the server's own format.
    #[serde(default)]
    pub shared: serde_json::Value,
}

/// New to old: the new process serves, or cannot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "verdict")]
pub enum Verdict {
    /// It serves on the sockets: the old one may let go.
    Ready {
        /// Its process id.
        pid: u32,
        /// Its version ([`version`]).
        #[serde(default)]
        version: String,
    },
    /// It cannot: why. It exits; the old one goes on.
    Failed {
        /// What went wrong, for the admin and the log.
        reason: String,
    },
}

/// Old to new, after [`Verdict::Ready`]: the old process lets go, and the new one
/// starts the sessions. Without it (the old one gave up meanwhile: it keeps them all)
/// the new process exits without touching them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LetGo {
    /// The format the old process writes.
    pub format: u32,
}

/// Whether a process that writes `ours` can hand over to one that says `hello`: why
/// not, in words for the admin.
pub fn refuse(hello: &Hello) -> Option<String> {
    (hello.format != FORMAT).then(|| {
        format!(
            "the new server ({}) reads hand-over format {}, this one ({}) writes format {FORMAT}: stop and start it instead",
            crate::text::one_line(&hello.version),
            hello.format,
            version()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_read_back_and_another_format_is_refused() {
        let hello = Hello::ours();
        let json = serde_json::to_vec(&hello).unwrap();
        assert_eq!(serde_json::from_slice::<Hello>(&json).unwrap(), hello);
        assert_eq!(refuse(&hello), None);
        let other = Hello {
            format: FORMAT + 1,
            version: String::from("9.9.9"),
            pid: 7,
        };
        let why = refuse(&other).expect("refused");
        assert!(why.contains("reads hand-over format 3"), "{why}");
        assert!(why.contains("9.9.9"), "{why}");
        let verdict = Verdict::Failed {
            reason: String::from("no store"),
        };
        let json = serde_json::to_string(&verdict).unwrap();
        assert_eq!(json, r#"{"verdict":"failed","reason":"no store"}"#);
        let offer = Offer {
            format: FORMAT,
            version: VERSION.to_string(),
            sockets: vec![Socket::Telnet, Socket::Lock],
            sessions: 2,
            shared: serde_json::Value::Null,
        };
        let json = serde_json::to_string(&offer).unwrap();
        assert!(json.contains(r#""sockets":["telnet","lock"]"#), "{json}");
    }
}
