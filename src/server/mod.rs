//! The server: what `arcade serve` is told ([`Options`]), binding, starting (the data
//! directory, the levels, the store, the bus, the web page), and shutting down.
//!
//! The accept loop and the limits each connection meets are
//! [`crate::net::listener`]'s. Shutdown is a value (a future passed to [`run`]) so that
//! tests drive it with a oneshot and the binary with Ctrl-C / SIGTERM: the listener
//! stops, every session is told `Server shutting down.` and given a short grace, then
//! the recorder writes what is left and the store closes. An upgrade asked for
//! meanwhile (SPEC section 11) is carried out by the same loop: the sockets go to a new
//! process ([`crate::upgrade`]), and once it serves this one stops the same way.

use std::future::Future;
use std::net::SocketAddr;
use std::os::fd::AsFd as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, TcpSocket};
use tokio::sync::{mpsc, Semaphore};
use tracing::{error, info, warn};

use crate::catalog::levels::{LayoutError, Levels};
use crate::catalog::saves;
use crate::catalog::table::{Context, Contexts};
use crate::net::idle::Timeouts;
use crate::net::listener::{Gate, Listener, Shared, Telnet};
use crate::net::shutdown::ShutdownSignal;
use crate::players::accounts::PlayerName;
use crate::players::registry::Registry;
use crate::seat::Services;
use crate::store::{DbUrl, Store, StoreError};
use crate::upgrade::control::{self, Request};
use crate::upgrade::hand_over::{Held, Upgrader};
use crate::upgrade::wire::Socket;

mod moved_in;
pub use moved_in::taken_over;
mod options;
mod roll_call;
pub use options::Options;

/// The listen backlog: a whole class (or a load test) connecting in the same second
/// must not see refused connections.
const BACKLOG: u32 = 4096;

/// File descriptors kept back from `--max-sessions` for the listener, level files,
/// saves and logging.
const RESERVED_FDS: u64 = 64;

/// How long shutdown waits for sessions to say goodbye before giving up on them.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

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
    /// The sessions an old server handed over cannot be taken (SPEC section 11).
    #[error("cannot take the sessions over: {0}")]
    Sessions(String),
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
    serve_with(listeners, options, registry, shutdown, Upgrades::default()).await
}

/// What a server can do about upgrades (SPEC section 11). Servers that tests start in
/// their own process have none: `upgrade` is refused there.
#[derive(Debug, Default)]
pub struct Upgrades {
    /// Starts the new server when an upgrade is asked for.
    pub upgrader: Option<Arc<Upgrader>>,
    /// The control socket handed over by the old server, if this one took over.
    pub control: Option<std::os::unix::net::UnixListener>,
    /// The data directory's lock handed over by the old server, if this one took over.
    pub lock: Option<std::fs::File>,
    /// Told once the server accepts connections.
    pub started: Option<tokio::sync::oneshot::Sender<()>>,
    /// The sessions handed over by the old server, if this one took over: each one's
    /// state and socket.
    pub moved: Vec<(Vec<u8>, std::os::fd::OwnedFd)>,
    /// What they share (the races), as the old server wrote it.
    pub shared: serde_json::Value,
    /// Taking over: told whether the old server let go, after this one said it is
    /// ready; nothing is served before.
    pub go: Option<tokio::sync::oneshot::Receiver<bool>>,
}

/// [`serve`], with `upgrades`.
///
/// # Errors
/// [`run`]'s.
pub async fn serve_with(
    listeners: Listeners,
    options: Options,
    registry: Registry,
    shutdown: impl Future,
    mut upgrades: Upgrades,
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
    // Handed the lock: an old process serves on, and its games are open because they
    // move here.
    let taking_over = upgrades.lock.is_some();
    let lock = match upgrades.lock.take() {
        Some(file) => crate::data_dir::DataDirLock::handed(file, &options.data_dir),
        None => crate::data_dir::DataDirLock::take(&options.data_dir)?,
    };
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
    if !taking_over {
        crate::records::recorder::close_left_open(&store).await?;
    }
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
    // Copies of every socket, for a new server to take over (SPEC section 11).
    let mut held = Held::new();
    let kept = held
        .keep(Socket::Telnet, listener.as_fd())
        .and_then(|()| held.keep(Socket::Lock, lock.file().as_fd()))
        .and_then(|()| {
            web.as_ref()
                .map_or(Ok(()), |web| held.keep(Socket::Web, web.as_fd()))
        })
        .and_then(|()| {
            ssh.as_ref()
                .map_or(Ok(()), |ssh| held.keep(Socket::Ssh, ssh.as_fd()))
        });
    if let Err(error) = kept {
        warn!(%error, "cannot keep copies of the sockets: upgrades are refused");
        upgrades.upgrader = None;
    }
    let (requests, mut asked) = mpsc::channel::<Request>(4);
    // Stopped with the loop below: after a hand-over the new server answers there.
    let upgrade_listeners = if upgrades.upgrader.is_some() {
        listen_for_upgrades(&options, upgrades.control.take(), &mut held, &requests)
    } else {
        Vec::new()
    };
    let services = services.with_upgrades(requests);
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
    // What the old server's sessions share, if this one took over: the races, and the
    // admins logged in to the page (who stay logged in).
    let handed = roll_call::Shared::read(std::mem::take(&mut upgrades.shared))
        .map_err(StartError::Sessions)?;
    let web_logins = Arc::new(crate::web::logins::Logins::unpack(handed.web_logins));
    registry.bans().unpack(handed.bans);
    let web_timeouts = crate::web::Timeouts {
        idle: options.http_idle_timeout,
    };
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
    // The sessions handed over, made again before this server says it serves: if one
    // cannot be, the old server keeps them all.
    let taking_in = std::time::Instant::now();
    let moved = moved_in::take_in(
        std::mem::take(&mut upgrades.moved),
        handed.races,
        &listener.gate,
    )
    .await
    .map_err(StartError::Sessions)?;
    if !moved.is_empty() {
        info!(
            sessions = moved.len(),
            took = ?taking_in.elapsed(),
            "sessions taken over from the old server"
        );
    }
    if let Some(started) = upgrades.started.take() {
        let _ = started.send(());
    }
    // Taking over: nothing is served until the old server lets go (it may still keep
    // the sessions, and the page's admins act on one process).
    if let Some(go) = upgrades.go.take() {
        if go.await != Ok(true) {
            moved
                .into_iter()
                .for_each(crate::net::session::Moved::abandon);
            return Err(StartError::Sessions(String::from(
                "the old server did not let go, and keeps the sessions",
            )));
        }
    }
    let web = web.map(|web| {
        tokio::spawn(crate::web::serve(
            web,
            listener.gate.shared.services.clone(),
            Arc::clone(&web_logins),
            web_timeouts,
            crate::net::proxy::Proxies::new(options.proxy_from.clone()),
            stop_web.clone(),
        ))
    });
    for session in moved {
        session.start();
    }
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            () = listener.accept_loop() => break,
            () = ssh.accept_loop() => break,
            _ = &mut shutdown => {
                info!("shutting down");
                break;
            }
            Some(request) = asked.recv() => {
                // The accept loops are not polled meanwhile: new connections wait in
                // the backlog, for this server or the new one.
                let answer = match &upgrades.upgrader {
                    Some(upgrader) => roll_call::upgrade(upgrader, &held, &listener.gate.shared.services, &web_logins).await,
                    None => Err(String::from("this server was not started by arcade serve")),
                };
                match answer {
                    Ok(new) => {
                        info!(by = %request.by, new = new.pid, version = %new.version, "upgraded: the new server serves");
                        let _ = request.answer.send(format!(
                            "upgraded: process {} ({}) serves now; this one lets go",
                            new.pid, new.version
                        ));
                        break;
                    }
                    Err(why) => {
                        warn!(by = %request.by, %why, "upgrade failed: this server goes on");
                        let _ = request.answer.send(format!("upgrade failed: {why}"));
                    }
                }
            }
        }
    }
    ssh.stop();
    for task in upgrade_listeners {
        task.abort();
    }
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

/// The control socket (handed over, or made now) and SIGUSR2, each turning into an
/// upgrade request on `requests`: their tasks. Without a control socket (a data
/// directory whose path is too long for one) SIGUSR2 and the admin's `upgrade` still
/// work.
fn listen_for_upgrades(
    options: &Options,
    handed: Option<std::os::unix::net::UnixListener>,
    held: &mut Held,
    requests: &mpsc::Sender<Request>,
) -> Vec<tokio::task::JoinHandle<()>> {
    let mut tasks = Vec::new();
    let control = handed.map_or_else(|| control::bind(&options.data_dir), Ok);
    let listening = control.and_then(|control| {
        control.set_nonblocking(true)?;
        held.keep(Socket::Control, control.as_fd())?;
        tokio::net::UnixListener::from_std(control)
    });
    match listening {
        Ok(control) => tasks.push(tokio::spawn(control::serve(control, requests.clone()))),
        Err(error) => warn!(
            %error,
            "no control socket: arcade upgrade cannot reach this server (SIGUSR2 and the admin's upgrade still can)"
        ),
    }
    let requests = requests.clone();
    tasks.push(tokio::spawn(async move {
        use tokio::signal::unix::{signal, SignalKind};
        let Ok(mut signals) = signal(SignalKind::user_defined2()) else {
            return;
        };
        while signals.recv().await.is_some() {
            let answer = control::ask(&requests, "SIGUSR2").await;
            info!(%answer, "SIGUSR2");
        }
    }));
    tasks
}
