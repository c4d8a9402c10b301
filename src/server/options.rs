//! What `arcade serve` is told: every flag and `ARCADE_*` variable, their defaults and
//! the checks of their values, apart from what the server does with them.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use crate::cluster::auth::BusAuth;
use crate::cluster::url::BusUrl;
use crate::store::{DbUrl, UrlParser};

/// Everything `arcade serve` can be told, from flags or `ARCADE_*` variables.
#[derive(Debug, Clone, clap::Args)]
pub struct Options {
    /// Address to listen on.
    #[arg(long, env = "ARCADE_BIND", default_value_t = IpAddr::V4(Ipv4Addr::UNSPECIFIED))]
    pub bind: IpAddr,
    /// TCP port to listen on (0 picks a free one).
    #[arg(long, env = "ARCADE_PORT", default_value_t = 4000)]
    pub port: u16,
    /// A directory laid out like levels/ whose files add to or replace the built-in ones.
    #[arg(long, env = "ARCADE_LEVELS")]
    pub levels: Option<PathBuf>,
    /// Where saved games are written (created on demand).
    #[arg(long, env = "ARCADE_DATA_DIR", default_value = "./data")]
    pub data_dir: PathBuf,
    /// The most sessions at once; capped by the process's open-file limit.
    #[arg(long, env = "ARCADE_MAX_SESSIONS", default_value_t = 10_000)]
    pub max_sessions: usize,
    /// Close a session after this long without input (warned shortly before), e.g. 30m, 45s.
    #[arg(long, env = "ARCADE_IDLE_TIMEOUT", default_value = "30m", value_parser = parse_timeout)]
    pub idle_timeout: Duration,
    /// The most sessions from one client address at once (a class behind one school
    /// NAT fits in the default).
    #[arg(long, env = "ARCADE_MAX_PER_ADDRESS", default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_per_address: u32,
    /// The database for accounts, results, recordings and unfinished games
    /// (sqlite://PATH, or postgres://USER:PASSWORD@HOST:PORT/DATABASE shared by several
    /// instances) [default: sqlite://DATA-DIR/arcade.db].
    #[arg(long, env = "ARCADE_DB", value_parser = UrlParser::<DbUrl>::new())]
    pub db: Option<DbUrl>,
    /// Close a connection that has not sent one whole line this long after connecting.
    #[arg(long, env = "ARCADE_LOGIN_TIMEOUT", default_value = "60s", value_parser = parse_timeout)]
    pub login_timeout: Duration,
    /// How long registered players' games without a result are kept, e.g. 90d, 12h;
    /// their results and the recordings behind them are kept for good.
    #[arg(long, env = "ARCADE_KEEP_RECORDINGS", default_value = "90d", value_parser = parse_keep)]
    pub keep_recordings: Duration,
    /// Names one client address may register in an hour (a class behind one address
    /// registers in its first minutes: room for it).
    #[arg(long, env = "ARCADE_REGISTRATIONS_PER_HOUR", default_value_t = crate::players::throttle::REGISTRATIONS_PER_ADDRESS)]
    pub registrations_per_hour: u32,
    /// How long guests' (and other unregistered names') games are kept, e.g. 7d
    /// (never longer than --keep-recordings).
    #[arg(long, env = "ARCADE_KEEP_GUEST_RECORDINGS", default_value = "7d", value_parser = parse_keep)]
    pub keep_guest_recordings: Duration,
    /// Warn in the log when the data directory's disk has less free space than this
    /// (K, M, G, T: binary units), e.g. 512M.
    #[arg(long, env = "ARCADE_DISK_WARN_BELOW", default_value = "512M", value_parser = crate::records::disk::parse_size)]
    pub disk_warn_below: u64,
    /// Stop recording games while the database's disk has less free space than this
    /// (players are told; 0: never), e.g. 64M.
    #[arg(long, env = "ARCADE_DISK_STOP_BELOW", default_value = "64M", value_parser = crate::records::disk::parse_size)]
    pub disk_stop_below: u64,
    /// A registered name with admin rights once logged in (broadcast, kick, reload,
    /// race ... all); repeat it for more (ARCADE_ADMINS: names separated by commas).
    #[arg(
        long = "admin",
        env = "ARCADE_ADMINS",
        value_delimiter = ',',
        value_name = "NAME"
    )]
    pub admin: Vec<String>,
    /// Serve the teacher's web page (live sessions, boards, leaderboards, results,
    /// recordings, /metrics, /healthz) on this TCP port; off unless given.
    #[arg(long, env = "ARCADE_HTTP_PORT")]
    pub http_port: Option<u16>,
    /// Address the web page listens on [default: the --bind address].
    #[arg(long, env = "ARCADE_HTTP_BIND")]
    pub http_bind: Option<IpAddr>,
    /// Close a web page connection that sends no whole request, or takes no byte of
    /// an answer, for this long (live streams that are read stay open), e.g. 30s.
    #[arg(long, env = "ARCADE_HTTP_IDLE_TIMEOUT", default_value = "30s", value_parser = parse_timeout)]
    pub http_idle_timeout: Duration,
    /// Behind HAProxy (`send-proxy-v2`): read the PROXY protocol v2 header before each
    /// connection and take the client's address from it, for the log and the limits; a
    /// connection without a valid header is closed.
    #[arg(long, env = "ARCADE_PROXY_PROTOCOL")]
    pub proxy_protocol: bool,
    /// With --proxy-protocol: a network the proxies connect from, as ADDR/BITS
    /// (repeatable; ARCADE_PROXY_FROM: separated by commas); a connection from
    /// anywhere else is closed, so that no client can claim another's address.
    /// [default: 127.0.0.0/8 and ::1/128]
    #[arg(
        long = "proxy-from",
        env = "ARCADE_PROXY_FROM",
        value_delimiter = ',',
        value_name = "ADDR/BITS"
    )]
    pub proxy_from: Vec<ipnet::IpNet>,
    /// Several instances (SPEC section 11): carry presence, chat, watching, races and
    /// kicks to the other instances through this NATS server (nats://HOST:PORT, or
    /// tls://; credentials in it or in the --bus-* options). Needs --db postgres://...,
    /// the store the instances share.
    #[arg(long, env = "ARCADE_BUS", value_parser = UrlParser::<BusUrl>::new())]
    pub bus: Option<BusUrl>,
    /// The bus's credentials and TLS (`--bus-user`, `--bus-token`...).
    #[command(flatten)]
    pub bus_auth: BusAuth,
    /// Ask every connection for its terminal type before the banner (telnet TTYPE),
    /// and give reader mode to a client whose MTTS answer says it uses a screen reader
    /// (SPEC section 10). A client that does not answer (nc, a script) sees three
    /// telnet bytes before the banner and the banner up to 250 ms later.
    #[arg(long, env = "ARCADE_DETECT_READERS")]
    pub detect_readers: bool,
    /// Let `/solve` play the solver's solution out in Sokoban and Star Pusher (without
    /// it `/solve` only says how many pushes are left; SPEC section 13).
    #[arg(long, env = "ARCADE_ALLOW_SOLUTIONS")]
    pub allow_solutions: bool,
    /// Serve the lobby over SSH on this port too (SPEC section 11); off unless set.
    /// The host key is made in the data directory on first start.
    #[arg(long, env = "ARCADE_SSH_PORT")]
    pub ssh_port: Option<u16>,
    /// The SSH host key's file (default: `ssh_host_ed25519_key` in the data
    /// directory), made there on first start when missing. Instances behind one
    /// address (HAProxy) give the same file, so that players see one host key.
    #[arg(long, env = "ARCADE_SSH_HOST_KEY", value_name = "FILE")]
    pub ssh_host_key: Option<PathBuf>,
}

impl Options {
    /// Where the web page listens, if it is on.
    pub fn http_address(&self) -> Option<SocketAddr> {
        self.http_port
            .map(|port| SocketAddr::new(self.http_bind.unwrap_or(self.bind), port))
    }

    /// Where the SSH port listens, when it is on (`--ssh-port`, on `--bind`).
    pub fn ssh_address(&self) -> Option<SocketAddr> {
        self.ssh_port.map(|port| SocketAddr::new(self.bind, port))
    }

    /// The SSH host key's file: `--ssh-host-key`, or its place in the data directory.
    pub fn ssh_host_key_file(&self) -> PathBuf {
        self.ssh_host_key
            .clone()
            .unwrap_or_else(|| self.data_dir.join(crate::net::ssh::host_key::HOST_KEY_FILE))
    }
}

/// Parse `--keep-recordings`: at least a minute.
fn parse_keep(text: &str) -> Result<Duration, String> {
    let keep = humantime::parse_duration(text).map_err(|error| error.to_string())?;
    if keep < Duration::from_secs(60) {
        return Err(String::from("give a duration of at least 1m, such as 90d"));
    }
    Ok(keep)
}

/// The longest `--idle-timeout` or `--login-timeout` accepted: far beyond any class,
/// and small enough that deadlines computed from it never overflow.
const MAX_TIMEOUT: Duration = Duration::from_secs(30 * 24 * 60 * 60);

/// Parse `--idle-timeout` or `--login-timeout`: a humane duration from 1 second to 30
/// days. Zero would close every session right after the banner, so it is refused with a
/// message.
fn parse_timeout(text: &str) -> Result<Duration, String> {
    let timeout = humantime::parse_duration(text).map_err(|error| error.to_string())?;
    if timeout < Duration::from_secs(1) || timeout > MAX_TIMEOUT {
        return Err(String::from(
            "give a duration from 1s to 30d, such as 45s, 30m or 2h",
        ));
    }
    Ok(timeout)
}

impl Default for Options {
    fn default() -> Self {
        Options {
            bind: IpAddr::V4(Ipv4Addr::UNSPECIFIED),
            port: 4000,
            levels: None,
            data_dir: PathBuf::from("./data"),
            max_sessions: 10_000,
            idle_timeout: Duration::from_secs(30 * 60),
            max_per_address: 256,
            login_timeout: Duration::from_secs(60),
            db: None,
            keep_recordings: crate::records::recorder::DEFAULT_KEEP,
            registrations_per_hour: crate::players::throttle::REGISTRATIONS_PER_ADDRESS,
            keep_guest_recordings: crate::records::recorder::DEFAULT_KEEP_GUESTS,
            disk_warn_below: crate::records::disk::DEFAULT_WARN_BELOW,
            disk_stop_below: crate::records::disk::DEFAULT_STOP_BELOW,
            admin: Vec::new(),
            http_port: None,
            http_bind: None,
            http_idle_timeout: Duration::from_secs(30),
            proxy_protocol: false,
            proxy_from: Vec::new(),
            bus: None,
            bus_auth: BusAuth::default(),
            allow_solutions: false,
            detect_readers: false,
            ssh_port: None,
            ssh_host_key: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_timeout_bounds() {
        assert_eq!(parse_timeout("45s"), Ok(Duration::from_secs(45)));
        assert_eq!(parse_timeout("30m"), Ok(Duration::from_secs(1800)));
        assert_eq!(parse_timeout("30d"), Ok(MAX_TIMEOUT));
        for refused in ["0s", "500ms", "31d", "soon"] {
            assert!(parse_timeout(refused).is_err(), "{refused}");
        }
    }
}
