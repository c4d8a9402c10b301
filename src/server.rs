//! The server: what `arcade serve` is told ([`Options`]), binding, starting (the data
//! directory, the levels, the store, the bus, the web page), and shutting down.
//!
//! The accept loop and the limits each connection meets are
//! [`crate::net::listener`]'s. Shutdown is a value (a future passed to [`run`]) so that
//! tests drive it with a oneshot and the binary with Ctrl-C / SIGTERM: the listener
//! stops, every session is told `Server shutting down.` and given a short grace, then
//! the recorder writes what is left and the store closes.

use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, TcpSocket};
use tokio::sync::{mpsc, Semaphore};
use tracing::{error, info, warn};

use crate::catalog::levels::{LayoutError, Levels};
use crate::catalog::saves;
use crate::catalog::table::{Context, Contexts};
use crate::cluster::auth::BusAuth;
use crate::cluster::url::BusUrl;
use crate::net::idle::Timeouts;
use crate::net::listener::{Gate, Listener, Shared, Telnet};
use crate::net::shutdown::ShutdownSignal;
use crate::players::accounts::PlayerName;
use crate::players::registry::Registry;
use crate::seat::Services;
use crate::store::{DbUrl, Store, StoreError, UrlParser};

/// The listen backlog: a whole class (or a load test) connecting in the same second
/// must not see refused connections.
const BACKLOG: u32 = 4096;

/// File descriptors kept back from `--max-sessions` for the listener, level files,
/// saves and logging.
const RESERVED_FDS: u64 = 64;

/// How long shutdown waits for sessions to say goodbye before giving up on them.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

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

/// Bind the listening socket with a deep backlog.
///
/// # Errors
/// The address is in use or not ours to bind.
pub fn bind(address: SocketAddr) -> std::io::Result<TcpListener> {
    let socket = if address.is_ipv4() {
        TcpSocket::new_v4()?
    } else {
        TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    socket.bind(address)?;
    socket.listen(BACKLOG)
}

/// Raise the soft open-file limit as far as the hard limit allows and return how many
/// sessions fit in it.
pub fn session_capacity() -> usize {
    // Where the limit cannot be read or raised, assume the common default.
    let limit = rlimit::increase_nofile_limit(u64::MAX).unwrap_or(1024);
    let capacity = limit.saturating_sub(RESERVED_FDS).max(1);
    usize::try_from(capacity).unwrap_or(usize::MAX)
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// `--levels` names no usable levels directory.
    #[error("--levels {0}")]
    Levels(#[from] LayoutError),
    /// The data directory cannot be made.
    #[error("--data-dir {path}: cannot create it: {source}")]
    DataDir {
        /// The directory.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The data directory exists but this user cannot write in it (a host folder
    /// bind-mounted into the container, owned by root).
    #[error("--data-dir {path}: cannot write in it ({source}). {fix}")]
    DataDirNotWritable {
        /// The directory.
        path: String,
        /// Why.
        source: std::io::Error,
        /// What to do about it.
        fix: String,
    },
    /// The database cannot be opened.
    #[error("{0}")]
    Store(#[from] StoreError),
    /// The bus cannot be used.
    #[error("{0}")]
    Bus(#[from] crate::cluster::bus::BusError),
    /// Another server uses the data directory.
    #[error("{0}")]
    Locked(#[from] crate::data_dir::LockError),
    /// An `--admin` name is no possible name.
    #[error("--admin: {0}")]
    BadAdmin(#[from] crate::admin::AccountError),
    /// `--bus` without a store the instances share.
    #[error("--bus needs --db postgres://...: the instances on one bus must share their players' accounts and games")]
    BusWithoutSharedStore,
    /// The SSH port cannot start.
    #[error("--ssh-port: {0}")]
    Ssh(#[from] crate::net::ssh::SshError),
}

/// The sockets a server listens on: telnet's, and the web page's and SSH's when on.
#[derive(Debug)]
pub struct Listeners {
    /// The telnet (and `nc`) port.
    pub telnet: TcpListener,
    /// The web page's (`--http-port`).
    pub web: Option<TcpListener>,
    /// SSH's (`--ssh-port`).
    pub ssh: Option<TcpListener>,
}

/// Run the server on `listener` (and its web page on `web`, if given) until
/// `shutdown` completes, then tell every session `Server shutting down.`, close them
/// and return.
///
/// # Errors
/// [`StartError`] when the server cannot start; it then never accepts.
pub async fn run(
    listener: TcpListener,
    web: Option<TcpListener>,
    options: Options,
    shutdown: impl Future,
) -> Result<(), StartError> {
    run_with(listener, web, options, Registry::new(), shutdown).await
}

/// Rings every session's shutdown bell when dropped ([`run_with`]).
struct TellSessionsOnDrop(Registry);

impl Drop for TellSessionsOnDrop {
    fn drop(&mut self) {
        self.0.shut_down();
    }
}

/// [`run`], with sessions registered in `registry`, so that the caller can reach them.
///
/// # Errors
/// [`StartError`] when the server cannot start; it then never accepts.
pub async fn run_with(
    listener: TcpListener,
    web: Option<TcpListener>,
    options: Options,
    registry: Registry,
    shutdown: impl Future,
) -> Result<(), StartError> {
    let ssh = options.ssh_address().map(|address| {
        bind(address).map_err(|source| crate::net::ssh::SshError::Bind { address, source })
    });
    let listeners = Listeners {
        telnet: listener,
        web,
        ssh: ssh.transpose()?,
    };
    serve(listeners, options, registry, shutdown).await
}

/// [`run_with`] on sockets bound already (tests bind port 0 and read the addresses);
/// its errors are [`run`]'s.
pub async fn serve(
    listeners: Listeners,
    options: Options,
    registry: Registry,
    shutdown: impl Future,
) -> Result<(), StartError> {
    let Listeners {
        telnet: listener,
        web,
        ssh,
    } = listeners;
    // However this returns or is dropped (a cancelled or aborted server task
    // included), every session is told to shut down, as at the end of a clean
    // shutdown below (telling them twice is harmless).
    let _sessions_told = TellSessionsOnDrop(registry.clone());
    let admins = options
        .admin
        .iter()
        .map(|name| crate::admin::parse_name(name))
        .collect::<Result<Vec<_>, _>>()?;
    let levels = prepare(options.levels.clone(), options.data_dir.clone()).await?;
    // Held until the server returns: a second server on this directory refuses to start.
    let lock = crate::data_dir::DataDirLock::take(&options.data_dir)?;
    info!(lock = %lock.path().display(), "data directory locked");
    let url = options
        .db
        .clone()
        .unwrap_or_else(|| DbUrl::in_data_dir(&options.data_dir));
    let store = Store::open(&url).await?;
    // An instance's number means something only where there can be several: on a
    // shared store (PostgreSQL), where the instances number themselves and the bus
    // names them by it. On SQLite, one server per file, it is a random number: left
    // out of the log.
    if store.is_shared() {
        info!(db = %url, instance = store.instance(), "store open");
    } else {
        info!(db = %url, "store open");
    }
    let context = Arc::new(Context {
        levels,
        data_dir: options.data_dir.clone(),
    });
    let contexts = Contexts::new(Arc::clone(&context), options.levels.clone());
    let services = Services::start(
        registry.clone(),
        store.clone(),
        contexts.clone(),
        crate::records::recorder::Retention {
            keep: options.keep_recordings,
            guests: options.keep_guest_recordings,
        },
        crate::players::throttle::LoginThrottle::with_limits(
            crate::players::throttle::LOGINS_PER_ADDRESS,
            options.registrations_per_hour,
        ),
    )
    .await?
    .with_admins(admins.iter().map(PlayerName::as_str))
    .with_web(web.is_some())
    .with_coach(crate::coach::Coach::new(options.allow_solutions))
    .with_detect_readers(options.detect_readers);
    let bus = match &options.bus {
        Some(bus_url) => {
            if !store.is_shared() {
                return Err(StartError::BusWithoutSharedStore);
            }
            let instance = u64::try_from(store.instance()).unwrap_or(0);
            Some(
                crate::cluster::bus::Bus::start(
                    bus_url,
                    &options.bus_auth,
                    instance,
                    registry.clone(),
                    Arc::clone(&services.metrics),
                )
                .await?,
            )
        }
        None => None,
    };
    let services = services.with_bus(bus.clone());
    if !admins.is_empty() {
        let names: Vec<&str> = admins.iter().map(PlayerName::as_str).collect();
        info!(admins = %names.join(", "), "admins (once logged in with their password)");
        warn_of_admins_without_password(&store, &admins, &options).await;
    }
    let reloads = tokio::spawn(reload_on_hangup(contexts));
    let recorder = services.recorder.clone();
    let disk_watch = crate::records::disk::DiskWatch {
        data_dir: options.data_dir.clone(),
        database_dir: match &url {
            DbUrl::Sqlite(file) => file.parent().map(std::path::Path::to_path_buf),
            DbUrl::Memory | DbUrl::Postgres(_) => None,
        },
        warn_below: options.disk_warn_below,
        stop_below: options.disk_stop_below,
    }
    .start(recorder.clone(), Arc::clone(&services.metrics));
    let stop_web = tokio_util::sync::CancellationToken::new();
    let web_timeouts = crate::web::Timeouts {
        idle: options.http_idle_timeout,
    };
    let web = web.map(|web| {
        tokio::spawn(crate::web::serve(
            web,
            services.clone(),
            web_timeouts,
            crate::net::proxy::Proxies::new(options.proxy_from.clone()),
            stop_web.clone(),
        ))
    });
    // The web page's connections come out of the same file descriptors.
    let capacity = session_capacity().saturating_sub(if web.is_some() {
        crate::web::MAX_CONNECTIONS + crate::web::RESERVED
    } else {
        0
    });
    let max_sessions = if options.max_sessions > capacity {
        warn!(
            requested = options.max_sessions,
            allowed = capacity,
            "--max-sessions capped by the open-file limit"
        );
        capacity
    } else {
        options.max_sessions
    };
    let shared = Arc::new(Shared {
        context,
        timeouts: Timeouts {
            idle: options.idle_timeout,
            login: options.login_timeout,
        },
        max_per_address: usize::try_from(options.max_per_address).unwrap_or(usize::MAX),
        registry,
        services,
    });
    let notify_shutdown = ShutdownSignal::new();
    let (done_tx, mut done_rx) = mpsc::channel::<()>(1);
    let gate = Gate {
        limit: Arc::new(Semaphore::new(max_sessions)),
        shared,
        done_tx,
    };
    let proxy = || {
        options
            .proxy_protocol
            .then(|| crate::net::proxy::Proxies::new(options.proxy_from.clone()))
    };
    // The SSH port: the same gate (one --max-sessions for both ports), its own door.
    let mut ssh =
        crate::net::ssh::SshPort::start(ssh, &options.ssh_host_key_file(), &gate, proxy())?;
    let mut listener = Listener {
        listener,
        door: Telnet,
        gate,
        proxy: proxy(),
        notify_shutdown,
    };
    if let Ok(address) = listener.listener.local_addr() {
        info!(%address, max_sessions, "listening");
    }
    if let Some(proxies) = &listener.proxy {
        info!(
            from = %proxies.describe(),
            "--proxy-protocol: every connection must come from a proxy and start with a PROXY protocol v2 header"
        );
    }
    tokio::select! {
        () = listener.accept_loop() => {}
        () = ssh.accept_loop() => {}
        _ = shutdown => info!("shutting down"),
    }
    ssh.stop();
    let Listener {
        listener,
        notify_shutdown,
        gate,
        ..
    } = listener;
    // Stop accepting first, so that nobody queues in the backlog during the grace.
    drop(listener);
    // Firing the signal ends every wait for a PROXY header, and the registry rings
    // every session's shutdown bell (and that of each one registered from now on);
    // each session holds a clone of the gate's `done_tx`, so `recv` returns None once
    // the last one has finished.
    notify_shutdown.fire();
    gate.shared.registry.shut_down();
    drop(gate);
    if tokio::time::timeout(SHUTDOWN_GRACE, done_rx.recv())
        .await
        .is_err()
    {
        warn!("some sessions did not close in time");
    }
    reloads.abort();
    disk_watch.abort();
    stop_web.cancel();
    if let Some(web) = web {
        let abort = web.abort_handle();
        if tokio::time::timeout(SHUTDOWN_GRACE, web).await.is_err() {
            warn!("the web page did not stop in time");
            abort.abort();
        }
    }
    if let Some(bus) = bus {
        bus.stop().await;
    }
    // The games of the sessions just closed are written before the store closes.
    if !recorder.flush(SHUTDOWN_GRACE).await {
        warn!("recordings not written at shutdown: the database does not answer");
    }
    store.close().await;
    // Only now may another server take the data directory.
    drop(lock);
    Ok(())
}

/// Whether the server can write in `data_dir`: a temporary file made and removed. A
/// directory that exists but is not ours (a host folder mounted into a container) is
/// found at start, with how to fix it, not at the first save.
/// Say in the log how to set the password of each admin who has none yet: until it is
/// set, nobody can log in with that name.
async fn warn_of_admins_without_password(store: &Store, admins: &[PlayerName], options: &Options) {
    let place = match &options.db {
        Some(_) => String::from("--db \"$ARCADE_DB\""),
        None => format!("--data-dir {}", options.data_dir.display()),
    };
    for admin in admins {
        if let Ok(None) = store.account(&admin.key()).await {
            warn!(
                admin = %admin,
                "the admin {admin} has no password yet, so nobody can log in with that name: \
                 set it with `arcade admin set-password {admin} {place}`"
            );
        }
    }
}

/// On a blocking thread (a disk may be slow): make the data directory, remove what
/// saves interrupted by a crash left in it, then load the levels; log what came from
/// where and every problem.
async fn prepare(extra: Option<PathBuf>, data_dir: PathBuf) -> Result<Levels, StartError> {
    let loaded = tokio::task::spawn_blocking(move || {
        std::fs::create_dir_all(&data_dir).map_err(|source| StartError::DataDir {
            path: data_dir.display().to_string(),
            source,
        })?;
        crate::data_dir::check_writable(&data_dir).map_err(|not| {
            StartError::DataDirNotWritable {
                path: data_dir.display().to_string(),
                source: not.source,
                fix: not.fix,
            }
        })?;
        let removed = saves::tidy_at_start(&data_dir);
        if removed > 0 {
            info!(removed, data_dir = %data_dir.display(), "removed temporary files left by interrupted saves");
        }
        Ok::<_, StartError>(Levels::load_checked(extra.as_deref())?)
    })
    .await;
    let (levels, problems) = match loaded {
        Ok(result) => result?,
        // Loading panicked (a bug): start with what is built in rather than not at all.
        Err(error) => {
            error!(%error, "loading the levels failed; using the built-in levels only");
            Levels::built_in()
        }
    };
    for source in &levels.sources {
        info!(
            game = source.kind,
            from = %source.from,
            files = source.files,
            skipped = source.skipped,
            "levels loaded"
        );
    }
    for problem in &problems {
        warn!(%problem, "level skipped");
    }
    if let Some(dir) = &levels.unfilled {
        warn!(
            levels = %dir.display(),
            "the levels folder is empty: serving the built-in levels until it is filled (then reload, or SIGHUP)"
        );
    }
    Ok(levels)
}

/// Reload the levels on every SIGHUP, off the event loop, as an admin's `reload` does:
/// games in progress keep theirs, new games get the new files, problems are logged.
async fn reload_on_hangup(contexts: Contexts) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut hangups = match signal(SignalKind::hangup()) {
            Ok(hangups) => hangups,
            Err(error) => {
                warn!(%error, "cannot listen for SIGHUP: levels reload only with the reload command");
                return;
            }
        };
        while hangups.recv().await.is_some() {
            info!("SIGHUP: reloading the levels");
            let contexts = contexts.clone();
            if tokio::task::spawn_blocking(move || contexts.reload())
                .await
                .is_err()
            {
                error!("reloading the levels failed (a bug); the levels in use stay");
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = contexts;
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
