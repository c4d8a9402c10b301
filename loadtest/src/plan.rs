//! The fixed facts of one run that its sessions share ([`Plan`]) and how they send
//! commands ([`Mode`]).

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use tokio::time::Instant;

use crate::racing::Racing;
use crate::script::{Restart, Script};
use crate::social::{self, Watched};

/// How sessions send commands.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Mode {
    /// One command every this long.
    Open(Duration),
    /// The next command on each reply.
    Closed,
    /// No commands.
    Idle,
    /// In the lobby, each session one line of chat every this long.
    Chat(Duration),
    /// Bots (`--bots`), each action sent when the last state came.
    Bots,
}

impl Mode {
    /// The report's `mode`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Mode::Open(_) => "open",
            Mode::Closed => "closed",
            Mode::Idle => "idle",
            Mode::Chat(_) => "chat",
            Mode::Bots => "bots",
        }
    }
}

/// The fixed facts of one run, shared by its sessions.
#[derive(Debug)]
pub(crate) struct Plan {
    pub(crate) target: SocketAddr,
    pub(crate) sources: Vec<Ipv4Addr>,
    /// `--ssh`: connect by SSH rather than telnet.
    pub(crate) ssh: bool,
    pub(crate) script: Script,
    /// `--setup`: lines each game session sends in the lobby before the lobby line.
    pub(crate) setup: Box<[String]>,
    /// `--restart-every`, with the game's exit line.
    pub(crate) restart: Option<Restart>,
    pub(crate) mode: Mode,
    pub(crate) timeout: Duration,
    /// The sessions of `--sessions`: the players.
    pub(crate) sessions: usize,
    /// Sessions watching the players, numbered after them.
    pub(crate) watchers: usize,
    /// When sessions take names: the run's tag for them.
    pub(crate) names: Option<String>,
    /// For each player when there are watchers (else empty): what they share.
    pub(crate) watched: Box<[Watched]>,
    /// With `--race`: the races and what their racers share.
    pub(crate) race: Option<Racing>,
    pub(crate) start: Instant,
    pub(crate) ramp: Duration,
    pub(crate) measure_start: Instant,
    pub(crate) end: Instant,
}

impl Plan {
    /// Every session: players and watchers.
    pub(crate) fn total(&self) -> usize {
        self.sessions + self.watchers
    }

    /// When session `index` connects: evenly over the ramp, players first.
    pub(crate) fn connect_at(&self, index: usize) -> Instant {
        let fraction = index as f64 / self.total() as f64;
        self.start + self.ramp.mul_f64(fraction)
    }

    /// The name session `index` takes, if sessions take names.
    pub(crate) fn name(&self, index: usize) -> Option<String> {
        self.names.as_deref().map(|tag| social::name(tag, index))
    }

    /// When the chat schedule begins: once every session has had its turn to connect.
    pub(crate) fn chat_start(&self) -> Instant {
        self.start + self.ramp
    }

    /// Microseconds from the run's start to `at`: the clock every session shares.
    pub(crate) fn micros(&self, at: Instant) -> u64 {
        u64::try_from(at.saturating_duration_since(self.start).as_micros()).unwrap_or(u64::MAX)
    }

    /// The instant `micros` after the run's start.
    pub(crate) fn at_micros(&self, micros: u64) -> Instant {
        self.start + Duration::from_micros(micros)
    }

    /// After the measured window: how long sessions wait at most for deliveries still
    /// on their way.
    pub(crate) fn drain_deadline(&self) -> Instant {
        self.end + self.timeout
    }

    /// The source address of session `index`, if connections are spread.
    pub(crate) fn source(&self, index: usize) -> Option<Ipv4Addr> {
        (!self.sources.is_empty()).then(|| self.sources[index % self.sources.len()])
    }

    /// Whether a command due at `due` falls in the measured window.
    pub(crate) fn is_measured(&self, due: Instant) -> bool {
        due >= self.measure_start && due < self.end
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::connection;

    #[test]
    fn connects_are_spread_over_the_ramp_and_sources() {
        let start = Instant::now();
        let plan = Plan {
            target: SocketAddr::from((Ipv4Addr::LOCALHOST, 4000)),
            sources: connection::sources(SocketAddr::from((Ipv4Addr::LOCALHOST, 4000)), 2),
            ssh: false,
            script: Script::default(),
            setup: Box::default(),
            restart: None,
            mode: Mode::Closed,
            timeout: Duration::from_secs(1),
            sessions: 3,
            watchers: 1,
            names: Some(String::from("abcd")),
            watched: Box::default(),
            race: None,
            start,
            ramp: Duration::from_secs(4),
            measure_start: start + Duration::from_secs(5),
            end: start + Duration::from_secs(6),
        };
        assert_eq!(plan.connect_at(0), start);
        assert_eq!(plan.connect_at(3), start + Duration::from_secs(3));
        assert_eq!(plan.source(0), Some(Ipv4Addr::new(127, 0, 0, 1)));
        assert_eq!(plan.source(3), Some(Ipv4Addr::new(127, 0, 0, 2)));
        assert!(!plan.is_measured(start + Duration::from_millis(4999)));
        assert!(plan.is_measured(start + Duration::from_secs(5)));
        assert!(!plan.is_measured(start + Duration::from_secs(6)));
        assert_eq!(plan.name(3).as_deref(), Some("ltabcd-3"));
        assert_eq!(
            plan.at_micros(plan.micros(start + Duration::from_millis(1500))),
            start + Duration::from_millis(1500)
        );
    }
}
