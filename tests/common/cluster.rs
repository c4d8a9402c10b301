//! Several arcade instances as real processes, for the tests of issue 20: [`Instance`]
//! (`arcade serve --proxy-protocol` with its web page, killed with SIGKILL and started
//! again on the same ports), [`Proxy`] (HAProxy from docker/haproxy.cfg, the file
//! compose uses, with loopback addresses in its variables) and [`Nats`] (nats-server,
//! stopped and started again on the same port).
//!
//! Each owns its process and kills it when dropped, failed test or not. Every address
//! is on 127.0.0.1. Ports are found free by binding port 0 and letting go: the
//! instances and nats-server must come back on the same ports after a kill, and HAProxy
//! must be told them before they start, so none of them can pick its own.
//!
//! The `start` functions return `None`, after printing `skipped: ...`, when the program
//! is missing (under `CI=true` they fail instead, see [`super::program`]).

use std::fs::File;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpStream, UnixStream};
use tokio::time::Instant;

use super::Client;

/// How long a process has to start listening (an instance runs its migrations first,
/// on PostgreSQL when given `--db postgres://...`).
pub const START_TIMEOUT: Duration = Duration::from_secs(30);

/// How long HAProxy has to see an instance go down or come up: checks every second,
/// two failures to go down, one success to come up, with room for a loaded machine.
pub const CHECK_TIMEOUT: Duration = Duration::from_secs(15);

/// How often the waits below look again.
const POLL: Duration = Duration::from_millis(50);

/// A port of 127.0.0.1 that was free a moment ago. Whoever binds it next may fail if
/// someone took it since: unlikely, and the test then fails saying so.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

/// `path`'s contents, or nothing if it cannot be read (for failure messages).
fn read_log(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// Kill `child` with SIGKILL (what `Child::kill` sends) and reap it.
fn kill_and_reap(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// One `arcade serve --proxy-protocol` process on 127.0.0.1, its game and web ports
/// chosen once and kept across [`Instance::restart`], its data directory temporary.
pub struct Instance {
    args: Vec<String>,
    game: SocketAddr,
    http: SocketAddr,
    data: tempfile::TempDir,
    log: PathBuf,
    child: Option<Child>,
}

impl Instance {
    /// Start `arcade serve --bind 127.0.0.1 --port GAME --http-port HTTP --data-dir DIR
    /// --proxy-protocol` with `args` added (`--db postgres://...`, `--bus nats://...`)
    /// and wait until both ports listen. Without `--db` the store is SQLite in the
    /// instance's own data directory. Panics, with the log, if it exits instead.
    pub async fn start(args: &[&str]) -> Instance {
        let data = tempfile::tempdir().expect("a temporary data directory");
        let log = data.path().join("arcade.log");
        let mut instance = Instance {
            args: args.iter().map(|arg| (*arg).to_string()).collect(),
            game: SocketAddr::from((Ipv4Addr::LOCALHOST, free_port())),
            http: SocketAddr::from((Ipv4Addr::LOCALHOST, free_port())),
            data,
            log,
            child: None,
        };
        instance.spawn().await;
        instance
    }

    /// Start the process (after [`Instance::start`] or a kill) and wait until it listens.
    async fn spawn(&mut self) {
        // The log is appended to across restarts, so that a failure shows all of it.
        let already = std::fs::metadata(&self.log).map_or(0, |meta| meta.len() as usize);
        let output = File::options()
            .create(true)
            .append(true)
            .open(&self.log)
            .expect("the instance's log");
        let mut child = Command::new(env!("CARGO_BIN_EXE_arcade"))
            .arg("serve")
            .args(["--bind", "127.0.0.1", "--port"])
            .arg(self.game.port().to_string())
            .arg("--http-port")
            .arg(self.http.port().to_string())
            .arg("--data-dir")
            .arg(self.data.path())
            .arg("--proxy-protocol")
            .args(&self.args)
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(output)
            .spawn()
            .expect("start arcade serve");
        // Both listeners log their address once bound: the game's in `listening`, the
        // web page's in `web page listening`.
        let wanted = [
            format!("address={}", self.game),
            format!("address={}", self.http),
        ];
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            let log = read_log(&self.log);
            let since = log.get(already..).unwrap_or_default();
            if wanted
                .iter()
                .all(|address| since.contains(address.as_str()))
            {
                break;
            }
            if let Ok(Some(status)) = child.try_wait() {
                panic!("arcade exited with {status} before listening; its log:\n{log}");
            }
            if Instant::now() > deadline {
                kill_and_reap(&mut child);
                panic!("arcade did not listen within {START_TIMEOUT:?}; its log:\n{log}");
            }
            tokio::time::sleep(POLL).await;
        }
        self.child = Some(child);
    }

    /// Its game port's address: for HAProxy only (with `--proxy-protocol` a connection
    /// must start with a PROXY header; [`Instance::client`] sends one).
    pub fn addr(&self) -> SocketAddr {
        self.game
    }

    /// Its web page's address (`/healthz`, `/metrics`, the teacher's page).
    pub fn http_addr(&self) -> SocketAddr {
        self.http
    }

    /// Its data directory (the same across restarts).
    pub fn data_dir(&self) -> &Path {
        self.data.path()
    }

    /// Its process id while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Everything it has logged (stderr, `RUST_LOG=info`), over all its runs.
    pub fn log(&self) -> String {
        read_log(&self.log)
    }

    /// Kill it with SIGKILL (`kill -9`: no goodbye, nothing flushed) and reap it. Does
    /// nothing if it is not running.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            kill_and_reap(&mut child);
        }
    }

    /// Stop it with SIGTERM (what `docker stop` sends: after an upgrade the first
    /// process passes it on to the server it handed over to) and wait until it exits:
    /// its exit code.
    pub fn terminate(&mut self) -> Option<i32> {
        let mut child = self.child.take()?;
        let pid = rustix::process::Pid::from_child(&child);
        rustix::process::kill_process(pid, rustix::process::Signal::TERM).expect("SIGTERM");
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if let Some(status) = child.try_wait().expect("wait") {
                return status.code();
            }
            if Instant::now() > deadline {
                kill_and_reap(&mut child);
                panic!("arcade did not stop; its log:\n{}", self.log());
            }
            std::thread::sleep(POLL);
        }
    }

    /// Kill it if it runs, then start it again on the same ports, data directory and
    /// arguments, and wait until it listens.
    pub async fn restart(&mut self) {
        self.kill();
        self.spawn().await;
    }

    /// A session straight to this instance, bypassing HAProxy: the PROXY v2 header
    /// HAProxy would send (client 127.0.0.1), then the banner read up to the prompt.
    /// For asking one instance its own `who`.
    pub async fn client(&self) -> Client {
        use ppp::v2::{Builder, Command as ProxyCommand, IPv4, Protocol, Version};
        let source = TcpStream::connect(self.game).await.expect("connect");
        let local = source.local_addr().expect("local address");
        let header = Builder::with_addresses(
            Version::Two | ProxyCommand::Proxy,
            Protocol::Stream,
            IPv4::new(
                Ipv4Addr::LOCALHOST,
                Ipv4Addr::LOCALHOST,
                local.port(),
                self.game.port(),
            ),
        )
        .build()
        .expect("a PROXY v2 header");
        let mut client = Client::from_stream(source);
        client.send_raw(&header).await;
        let banner = client.read_until("> ").await;
        assert!(banner.starts_with("Welcome to arcade!"), "{banner:?}");
        client
    }

    /// GET `path` from its web page (HTTP/1.0, so the server closes after the
    /// answer): the status code and the body.
    pub async fn http_get(&self, path: &str) -> (u16, String) {
        let mut stream = TcpStream::connect(self.http)
            .await
            .expect("connect to the web page");
        stream
            .write_all(format!("GET {path} HTTP/1.0\r\nHost: localhost\r\n\r\n").as_bytes())
            .await
            .expect("send the request");
        let mut answer = Vec::new();
        tokio::time::timeout(super::TIMEOUT, stream.read_to_end(&mut answer))
            .await
            .expect("the web page answers in time")
            .expect("read the answer");
        let answer = String::from_utf8_lossy(&answer).into_owned();
        let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
        let status = head
            .split_whitespace()
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or_else(|| panic!("no status line in {head:?}"));
        (status, body.to_string())
    }

    /// How many sessions it has open now: the sum of its `arcade_sessions` gauges
    /// (every place and game) on `/metrics`.
    pub async fn sessions(&self) -> u64 {
        let (status, metrics) = self.http_get("/metrics").await;
        assert_eq!(status, 200, "{metrics}");
        metrics
            .lines()
            .filter(|line| {
                line.starts_with("arcade_sessions{") || line.starts_with("arcade_sessions ")
            })
            .filter_map(|line| line.rsplit(' ').next())
            .map(|value| value.parse::<f64>().expect("a gauge's value") as u64)
            .sum()
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        self.kill();
    }
}

/// One server of HAProxy's `arcade` backend as its stats say (`show stat`).
#[derive(Debug, Clone)]
pub struct Backend {
    /// `arcade-1`, `arcade-2` or `arcade-3`: the order of the instances given to
    /// [`Proxy::start`].
    pub name: String,
    /// HAProxy's word: `UP`, `DOWN`, `UP 1/2` (one failed check, going down), `MAINT`.
    pub status: String,
    /// The last check's result: `L7OK` (answered `ok`), `L4CON` (refused), `INI`...
    pub check: String,
    /// Connections HAProxy has open to it now.
    pub sessions: u64,
}

impl Backend {
    /// Up, and its last check passed (at start HAProxy counts a server up before its
    /// first check; that does not count here).
    pub fn is_up(&self) -> bool {
        self.status == "UP" && self.check.starts_with("L7OK")
    }

    /// Marked down (its checks failed `fall` times), or never resolvable.
    pub fn is_down(&self) -> bool {
        self.status.starts_with("DOWN") || self.status.starts_with("MAINT")
    }
}

/// HAProxy in the foreground on docker/haproxy.cfg, in front of up to three instances.
pub struct Proxy {
    child: Child,
    addr: SocketAddr,
    ssh: Option<SocketAddr>,
    socket: PathBuf,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

/// docker/haproxy.cfg: the same file compose mounts.
pub fn haproxy_config() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docker/haproxy.cfg")
}

impl Proxy {
    /// HAProxy on a free port of 127.0.0.1 in front of `instances` (one to three:
    /// `arcade-1` is the first, and so on; a missing one points at a closed port and
    /// stays down), its admin socket in a temporary directory. Returns once HAProxy
    /// answers on that socket, before any check has run: [`Proxy::wait_up`] next.
    /// `None` (`skipped: ...`) without haproxy.
    pub async fn start(instances: &[&Instance]) -> Option<Proxy> {
        let backends: Vec<(SocketAddr, u16)> = instances
            .iter()
            .map(|instance| (instance.addr(), instance.http_addr().port()))
            .collect();
        Proxy::start_for(&backends).await
    }

    /// [`Proxy::start`] for backends given as (game address, web page port).
    pub async fn start_for(backends: &[(SocketAddr, u16)]) -> Option<Proxy> {
        Proxy::start_with_ssh(backends, &[]).await
    }

    /// [`Proxy::start_for`], and when `ssh` names each backend's SSH port (in the same
    /// order), the configuration's SSH frontend on a free port of its own.
    pub async fn start_with_ssh(
        backends: &[(SocketAddr, u16)],
        ssh: &[SocketAddr],
    ) -> Option<Proxy> {
        assert!(
            (1..=3).contains(&backends.len()),
            "docker/haproxy.cfg has three servers; given {}",
            backends.len()
        );
        let program = super::program("haproxy", "haproxy")?;
        let dir = tempfile::tempdir().expect("a temporary directory");
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, free_port()));
        let socket = dir.path().join("haproxy.sock");
        let log = dir.path().join("haproxy.log");
        let output = File::create(&log).expect("HAProxy's log");
        let mut command = Command::new(program);
        command
            .arg("-db")
            .arg("-f")
            .arg(haproxy_config())
            .env("ARCADE_PROXY_BIND", addr.to_string())
            .env("HAPROXY_STATS_SOCKET", &socket)
            .stdin(Stdio::null())
            .stdout(output.try_clone().expect("HAProxy's log"))
            .stderr(output);
        for slot in 0..3 {
            let (game, http) = backends.get(slot).copied().unwrap_or_else(|| {
                let closed = free_port();
                (SocketAddr::from((Ipv4Addr::LOCALHOST, closed)), closed)
            });
            let n = slot + 1;
            command
                .env(format!("ARCADE_{n}"), game.to_string())
                .env(format!("ARCADE_{n}_HTTP_PORT"), http.to_string());
        }
        let ssh_addr = (!ssh.is_empty()).then(|| {
            let bind = SocketAddr::from((Ipv4Addr::LOCALHOST, free_port()));
            command.env("ARCADE_PROXY_SSH_BIND", bind.to_string());
            for slot in 0..3 {
                let backend = ssh
                    .get(slot)
                    .copied()
                    .unwrap_or_else(|| SocketAddr::from((Ipv4Addr::LOCALHOST, free_port())));
                command.env(format!("ARCADE_{}_SSH", slot + 1), backend.to_string());
            }
            bind
        });
        let child = command.spawn().expect("start haproxy");
        let mut proxy = Proxy {
            child,
            addr,
            ssh: ssh_addr,
            socket,
            log,
            _dir: dir,
        };
        let deadline = Instant::now() + START_TIMEOUT;
        while proxy.try_stats().await.is_none() {
            if let Ok(Some(status)) = proxy.child.try_wait() {
                panic!("haproxy exited with {status}; its log:\n{}", proxy.log());
            }
            assert!(
                Instant::now() < deadline,
                "haproxy's admin socket did not answer within {START_TIMEOUT:?}; its log:\n{}",
                proxy.log()
            );
            tokio::time::sleep(POLL).await;
        }
        Some(proxy)
    }

    /// Where players connect.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Where players connect by SSH, when it was started with SSH backends.
    pub fn ssh_addr(&self) -> Option<SocketAddr> {
        self.ssh
    }

    /// A new player through HAProxy, banner read up to the lobby prompt.
    pub async fn client(&self) -> Client {
        Client::connect(self.addr).await
    }

    /// What HAProxy has logged (its warnings and one line per finished connection).
    pub fn log(&self) -> String {
        read_log(&self.log)
    }

    /// `show stat` on the admin socket, or `None` if it does not answer (yet).
    async fn try_stats(&self) -> Option<String> {
        let mut stream = UnixStream::connect(&self.socket).await.ok()?;
        stream.write_all(b"show stat\n").await.ok()?;
        let mut answer = String::new();
        tokio::time::timeout(super::TIMEOUT, stream.read_to_string(&mut answer))
            .await
            .ok()?
            .ok()?;
        answer.starts_with("# pxname").then_some(answer)
    }

    /// The `arcade` backend's three servers, in order, as HAProxy sees them now.
    pub async fn backends(&self) -> Vec<Backend> {
        self.backends_of("arcade").await
    }

    /// The `arcade-ssh` backend's three servers as [`Proxy::backends`], or none when
    /// started without SSH.
    pub async fn ssh_backends(&self) -> Vec<Backend> {
        match self.ssh {
            Some(_) => self.backends_of("arcade-ssh").await,
            None => Vec::new(),
        }
    }

    /// The servers of the backend `name`, in order.
    async fn backends_of(&self, name: &str) -> Vec<Backend> {
        let stats = self.try_stats().await.unwrap_or_else(|| {
            panic!(
                "haproxy's admin socket does not answer; its log:\n{}",
                self.log()
            )
        });
        let mut lines = stats.lines();
        let header: Vec<&str> = lines
            .next()
            .and_then(|line| line.strip_prefix("# "))
            .expect("show stat's header")
            .split(',')
            .collect();
        let column = |name: &str| {
            header
                .iter()
                .position(|field| *field == name)
                .unwrap_or_else(|| panic!("no {name} column in {header:?}"))
        };
        let (proxy, server, status, check, sessions) = (
            column("pxname"),
            column("svname"),
            column("status"),
            column("check_status"),
            column("scur"),
        );
        lines
            .map(|line| line.split(',').collect::<Vec<_>>())
            .filter(|fields| {
                fields.get(proxy) == Some(&name)
                    && !matches!(fields.get(server), Some(&"BACKEND") | None)
            })
            .map(|fields| Backend {
                name: fields[server].to_string(),
                status: fields[status].to_string(),
                check: fields[check].to_string(),
                sessions: fields[sessions].parse().unwrap_or(0),
            })
            .collect()
    }

    /// Wait until HAProxy's checks say exactly `up` (by position: `arcade-1` first),
    /// each server either [`Backend::is_up`] or [`Backend::is_down`]; the servers as
    /// they then are. Panics after [`CHECK_TIMEOUT`] with what HAProxy says.
    /// With SSH, its backend's servers must say the same.
    pub async fn wait_for(&self, up: &[bool]) -> Vec<Backend> {
        let deadline = Instant::now() + CHECK_TIMEOUT;
        let matches = |backends: &[Backend]| {
            backends.len() >= up.len()
                && up.iter().zip(backends).all(|(&want, backend)| {
                    if want {
                        backend.is_up()
                    } else {
                        backend.is_down()
                    }
                })
        };
        loop {
            let backends = self.backends().await;
            let ssh = self.ssh_backends().await;
            if matches(&backends) && (self.ssh.is_none() || matches(&ssh)) {
                return backends;
            }
            assert!(
                Instant::now() < deadline,
                "haproxy does not see {up:?} within {CHECK_TIMEOUT:?}: {backends:#?}\nits log:\n{}",
                self.log()
            );
            tokio::time::sleep(POLL).await;
        }
    }

    /// Wait until exactly `count` servers are up (any of them); the servers then.
    pub async fn wait_up(&self, count: usize) -> Vec<Backend> {
        let deadline = Instant::now() + CHECK_TIMEOUT;
        loop {
            let backends = self.backends().await;
            let up = backends.iter().filter(|backend| backend.is_up()).count();
            let settled = backends
                .iter()
                .all(|backend| backend.is_up() || backend.is_down());
            if up == count && settled {
                return backends;
            }
            assert!(
                Instant::now() < deadline,
                "haproxy does not see {count} up within {CHECK_TIMEOUT:?}: {backends:#?}\nits log:\n{}",
                self.log()
            );
            tokio::time::sleep(POLL).await;
        }
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        kill_and_reap(&mut self.child);
    }
}

/// nats-server on a free port of 127.0.0.1 (core NATS only: no JetStream), which
/// can be stopped and started again on the same port.
pub struct Nats {
    program: PathBuf,
    args: Vec<String>,
    env: Vec<(String, String)>,
    port: u16,
    log: PathBuf,
    child: Option<Child>,
    _dir: tempfile::TempDir,
}

impl Nats {
    /// nats-server, once it accepts connections (its `INFO` line read). `None`
    /// (`skipped: ...`) without nats-server.
    pub async fn start() -> Option<Nats> {
        Nats::start_with(&[], &[]).await
    }

    /// [`Nats::start`] with `args` added to nats-server's command line (`--user U
    /// --pass P`, or `-c docker/nats.conf`: credentials every client must give) and
    /// `env` to its environment (what the configuration file reads).
    pub async fn start_with(args: &[&str], env: &[(&str, &str)]) -> Option<Nats> {
        let program = super::program("nats-server", "nats-server")?;
        let dir = tempfile::tempdir().expect("a temporary directory");
        let mut nats = Nats {
            program,
            args: args.iter().map(|arg| (*arg).to_string()).collect(),
            env: env
                .iter()
                .map(|(name, value)| ((*name).to_string(), (*value).to_string()))
                .collect(),
            port: free_port(),
            log: dir.path().join("nats-server.log"),
            child: None,
            _dir: dir,
        };
        nats.start_again().await;
        Some(nats)
    }

    /// `nats://127.0.0.1:PORT`, for `--bus`.
    pub fn url(&self) -> String {
        format!("nats://{}", self.addr())
    }

    /// Its address.
    pub fn addr(&self) -> SocketAddr {
        SocketAddr::from((Ipv4Addr::LOCALHOST, self.port))
    }

    /// Everything it has logged, over all its runs.
    pub fn log(&self) -> String {
        read_log(&self.log)
    }

    /// Kill it (SIGKILL: every client's connection drops at once) and reap it. Does
    /// nothing if it is not running.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            kill_and_reap(&mut child);
        }
    }

    /// Start it again on the same port (stopping it first if it runs) and wait until
    /// it accepts.
    pub async fn start_again(&mut self) {
        self.stop();
        let output = File::options()
            .create(true)
            .append(true)
            .open(&self.log)
            .expect("nats-server's log");
        let mut child = Command::new(&self.program)
            .args(["-a", "127.0.0.1", "-p"])
            .arg(self.port.to_string())
            .args(&self.args)
            .envs(self.env.iter().map(|(name, value)| (name, value)))
            .stdin(Stdio::null())
            .stdout(output.try_clone().expect("nats-server's log"))
            .stderr(output)
            .spawn()
            .expect("start nats-server");
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if let Ok(mut stream) = TcpStream::connect(self.addr()).await {
                let mut info = [0u8; 5];
                if let Ok(Ok(_)) =
                    tokio::time::timeout(super::TIMEOUT, stream.read_exact(&mut info)).await
                {
                    if &info == b"INFO " {
                        break;
                    }
                }
            }
            if let Ok(Some(status)) = child.try_wait() {
                panic!("nats-server exited with {status}; its log:\n{}", self.log());
            }
            if Instant::now() > deadline {
                kill_and_reap(&mut child);
                panic!(
                    "nats-server did not accept within {START_TIMEOUT:?}; its log:\n{}",
                    self.log()
                );
            }
            tokio::time::sleep(POLL).await;
        }
        self.child = Some(child);
    }

    /// Whether it runs (started and not stopped).
    pub fn is_running(&self) -> bool {
        self.child.is_some()
    }
}

impl Drop for Nats {
    fn drop(&mut self) {
        self.stop();
    }
}
