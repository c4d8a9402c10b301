//! Why a session fails ([`Failure`]), and what it was waiting for when it did
//! ([`Waiting`]): the reasons the report counts.

/// What a session is waiting for, to name it in failure reasons.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Waiting {
    /// The banner, up to the lobby prompt.
    Banner,
    /// The game's first board, after the lobby line.
    Game,
    /// The reply to a game command.
    Reply,
    /// The lobby, after the game's exit line (`--restart-every`).
    Exit,
    /// The reply to `name NAME`.
    Name,
    /// The reply to a `--setup` line.
    Setup,
    /// The first board of a watched game, after `watch NAME`.
    Watch,
    /// A line of chat coming back to the session that said it.
    Chat,
    /// The next frame of a watched game.
    Frame,
    /// The host's race to open, after `race 2048 ...`.
    Open,
    /// The reply to `join N`.
    Join,
    /// The race to start: the host's `start` answered, every racer's first board.
    Start,
    /// A bot's `welcome`, after `bot NAME`.
    Welcome,
    /// A bot's game to end, after `{"command": "leave"}`.
    Leave,
}

impl std::fmt::Display for Waiting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Waiting::Banner => "the banner",
            Waiting::Game => "the game to start",
            Waiting::Reply => "a reply",
            Waiting::Exit => "the lobby after the exit line",
            Waiting::Name => "the name",
            Waiting::Setup => "the reply to a setup line",
            Waiting::Watch => "watching to begin",
            Waiting::Chat => "a line of chat to come back",
            Waiting::Frame => "frames of the watched game",
            Waiting::Open => "the race to open",
            Waiting::Join => "the reply to join",
            Waiting::Start => "the race to start",
            Waiting::Welcome => "the bot's welcome",
            Waiting::Leave => "the game's last state after leave",
        })
    }
}

/// Why one session failed; its text is the reason the report counts.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Failure {
    /// The TCP connect failed.
    #[error("connect: {0}")]
    Connect(std::io::Error),
    /// The server turned the session away.
    #[error("server full")]
    ServerFull,
    /// Nothing (or no prompt) within `--timeout`.
    #[error("timed out waiting for {0}")]
    Timeout(Waiting),
    /// The server closed the connection.
    #[error("closed by the server while waiting for {waiting}{}", last_line(.last))]
    Closed {
        /// What we were waiting for.
        waiting: Waiting,
        /// The last line received, if any.
        last: String,
    },
    /// The lobby prompt came instead of the game's, or the other way round.
    #[error("got the {got} prompt while waiting for {waiting}")]
    WrongPrompt {
        /// What we were waiting for.
        waiting: Waiting,
        /// The prompt that came.
        got: String,
    },
    /// A reply grew past any board without a prompt.
    #[error("no prompt in 64 KiB while waiting for {0}")]
    TooLong(Waiting),
    /// Reading failed (e.g. reset by the server).
    #[error("read: {0}")]
    Read(std::io::Error),
    /// Writing failed.
    #[error("write: {0}")]
    Write(std::io::Error),
    /// A reply other than the one the protocol gives.
    #[error("unexpected reply while waiting for {waiting}: {got:?}")]
    Unexpected {
        /// What we were waiting for.
        waiting: Waiting,
        /// The start of what came.
        got: String,
    },
    /// The player a watcher was to watch failed before its game started.
    #[error("the watched player never started its game")]
    NoPlayer,
    /// The first board came after the player's first command, so the frames cannot
    /// be matched to the commands.
    #[error("watching began after the player's first command (the player waits for its watchers until the measured window; raise --warmup)")]
    LateWatch,
    /// A frame came that none of the player's commands can have caused.
    #[error("a frame beyond the player's commands (frame {0})")]
    StrayFrame(usize),
    /// The server sent the watcher back to the lobby while the run went on.
    #[error("the watched game ended{}", last_line(.0))]
    WatchEnded(String),
    /// The host of a racer's race failed before it opened the race, or did not open
    /// it before the measured window.
    #[error("the race's host never opened it")]
    NoRace,
}

impl Failure {
    /// The start of `reply`, as text, for [`Failure::Unexpected`].
    pub(crate) fn unexpected(waiting: Waiting, reply: &[u8]) -> Failure {
        let got = String::from_utf8_lossy(reply).chars().take(80).collect();
        Failure::Unexpected { waiting, got }
    }
}

fn last_line(last: &str) -> String {
    if last.is_empty() {
        String::new()
    } else {
        format!(" (last line: {last:?})")
    }
}
