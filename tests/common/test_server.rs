//! A server running inside the test on 127.0.0.1 and port 0, with a temporary data
//! directory: arcade's tests and the load tester's (which include this file by path,
//! since tests/common's other helpers need programs and crates the load tester's tests
//! do not).

use std::net::{Ipv4Addr, SocketAddr};
use std::path::Path;
use std::time::Duration;

use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use arcade::players::registry::Registry;
use arcade::server::{self, Options};

/// How long a client waits for an expected reply before the test fails.
pub const TIMEOUT: Duration = Duration::from_secs(10);

/// A server running inside the test on 127.0.0.1, port 0.
pub struct TestServer {
    pub addr: SocketAddr,
    /// The web page's address, when the options have an `http_port`.
    pub web_addr: Option<SocketAddr>,
    /// The SSH port's address, when the options have an `ssh_port`.
    pub ssh_addr: Option<SocketAddr>,
    /// The server's sessions, to reach them as the rest of the server would.
    pub registry: Registry,
    /// Its database.
    pub db: arcade::store::DbUrl,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<Result<(), server::StartError>>>,
    data: tempfile::TempDir,
}

impl TestServer {
    /// Built-in levels, a temporary data directory, default limits.
    pub async fn start() -> TestServer {
        TestServer::start_with(Options::default()).await
    }

    /// The given options, except that it listens on 127.0.0.1:0 and, unless the options
    /// name a data directory other than the default, writes to a temporary one.
    pub async fn start_with(mut options: Options) -> TestServer {
        let data = tempfile::tempdir().expect("temporary data directory");
        if options.data_dir == Options::default().data_dir {
            options.data_dir = data.path().to_path_buf();
        }
        let listener = server::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0))).expect("bind");
        let addr = listener.local_addr().expect("local address");
        // The web page, when the options ask for it: on a free port of its own.
        let web = options.http_port.map(|_| {
            server::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0))).expect("bind the web page")
        });
        let web_addr = web
            .as_ref()
            .map(|web| web.local_addr().expect("web page's address"));
        // SSH, when the options ask for it: on a free port of its own.
        let ssh = options.ssh_port.map(|_| {
            server::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0))).expect("bind the SSH port")
        });
        let ssh_addr = ssh
            .as_ref()
            .map(|ssh| ssh.local_addr().expect("SSH port's address"));
        let db = options
            .db
            .clone()
            .unwrap_or_else(|| arcade::store::DbUrl::in_data_dir(&options.data_dir));
        let (stop, stopped) = oneshot::channel::<()>();
        let registry = Registry::new();
        let task = tokio::spawn(server::serve(
            server::Listeners {
                telnet: listener,
                web,
                ssh,
            },
            options,
            registry.clone(),
            stopped,
        ));
        TestServer {
            addr,
            web_addr,
            ssh_addr,
            db,
            registry,
            stop: Some(stop),
            task: Some(task),
            data,
        }
    }

    /// Where this server saves games.
    pub fn data_dir(&self) -> &Path {
        self.data.path()
    }

    /// Set `name`'s password out of band, as `arcade admin set-password` does (the
    /// only way an `--admin` name gets one).
    pub async fn set_password(&self, name: &str, password: &str) {
        let name = arcade::admin::parse_name(name).expect("a possible name");
        arcade::admin::set_password(&self.db, &name, password)
            .await
            .expect("the password is set");
    }

    /// Stop the server as Ctrl-C would and wait until it has finished.
    pub async fn shutdown(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            tokio::time::timeout(TIMEOUT, task)
                .await
                .expect("server stops in time")
                .expect("server task does not panic")
                .expect("server started");
        }
    }
}
