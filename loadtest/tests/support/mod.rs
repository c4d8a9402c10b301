//! The server the load tester's tests run against: arcade's own, started inside the
//! test on 127.0.0.1 and port 0 (the same as arcade's tests/common `TestServer`, of
//! which this crate needs only the start and the stop).

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use arcade::players::registry::Registry;
use arcade::server::{self, Options};

/// How long the server may take to stop before the test fails.
const TIMEOUT: Duration = Duration::from_secs(10);

/// A server running inside the test on 127.0.0.1, port 0.
pub struct TestServer {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<Result<(), server::StartError>>>,
    /// Removed when the server is dropped.
    _data: tempfile::TempDir,
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
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(server::run_with(
            listener,
            None,
            options,
            Registry::new(),
            stopped,
        ));
        TestServer {
            addr,
            stop: Some(stop),
            task: Some(task),
            _data: data,
        }
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
