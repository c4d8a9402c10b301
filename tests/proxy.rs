//! `--proxy-protocol` behind a real HAProxy (`send-proxy-v2`, with its health checks):
//! the server sees each client's own address, so `--max-per-address` counts clients,
//! not the proxy; a connection that did not come through the proxy is closed without a
//! banner.

mod common;

use std::net::{Ipv4Addr, SocketAddr};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpSocket, TcpStream};

use arcade::net::listener::TOO_MANY_FROM_ADDRESS;
use arcade::server::Options;
use common::{Client, TestServer, TIMEOUT};

/// HAProxy in the foreground, killed when dropped, failed test or not.
struct Haproxy {
    child: Child,
    addr: SocketAddr,
    log: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

impl Haproxy {
    /// HAProxy in TCP mode on a free port of 127.0.0.1, relaying to `server` with a
    /// PROXY v2 header, and checking it (with a LOCAL header) every 100 ms, one failed
    /// check enough to mark it down.
    fn start(program: &Path, server: SocketAddr) -> Haproxy {
        let dir = tempfile::tempdir().expect("a temporary directory");
        // A port free a moment ago; HAProxy fails to start, and the test with it, in
        // the unlikely case that someone took it since.
        let addr = std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .and_then(|listener| listener.local_addr())
            .expect("a free port");
        let config = format!(
            "global\n\
             \x20   maxconn 100\n\
             defaults\n\
             \x20   mode tcp\n\
             \x20   timeout connect 5s\n\
             \x20   timeout client 60s\n\
             \x20   timeout server 60s\n\
             frontend game\n\
             \x20   bind {addr}\n\
             \x20   default_backend arcade\n\
             backend arcade\n\
             \x20   server arcade {server} send-proxy-v2 check inter 100ms fall 1\n"
        );
        let path = dir.path().join("haproxy.cfg");
        std::fs::write(&path, config).expect("write the configuration");
        let log = dir.path().join("haproxy.log");
        let output = std::fs::File::create(&log).expect("HAProxy's log");
        let errors = output.try_clone().expect("HAProxy's log");
        let child = Command::new(program)
            .arg("-f")
            .arg(&path)
            .arg("-db")
            .stdin(Stdio::null())
            .stdout(output)
            .stderr(errors)
            .spawn()
            .expect("start haproxy");
        Haproxy {
            child,
            addr,
            log,
            _dir: dir,
        }
    }

    /// What HAProxy has written so far.
    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// A connection through HAProxy from `source`, retried until HAProxy listens.
    async fn connect_from(&mut self, source: [u8; 4]) -> TcpStream {
        let deadline = tokio::time::Instant::now() + TIMEOUT;
        loop {
            let socket = TcpSocket::new_v4().expect("a socket");
            socket
                .bind(SocketAddr::from((source, 0)))
                .expect("bind the client's address");
            match socket.connect(self.addr).await {
                Ok(stream) => return stream,
                Err(error) => {
                    if let Ok(Some(status)) = self.child.try_wait() {
                        panic!("haproxy exited with {status}:\n{}", self.log());
                    }
                    assert!(
                        tokio::time::Instant::now() < deadline,
                        "haproxy does not listen on {}: {error}\n{}",
                        self.addr,
                        self.log()
                    );
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
    }
}

impl Drop for Haproxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Everything `stream` receives until the server closes it, a reset counting as a
/// close (closing with the client's bytes unread resets the connection).
async fn until_closed(stream: &mut TcpStream) -> Vec<u8> {
    let mut received = Vec::new();
    let mut chunk = [0u8; 1024];
    loop {
        match tokio::time::timeout(TIMEOUT, stream.read(&mut chunk)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return received,
            Ok(Ok(read)) => received.extend_from_slice(&chunk[..read]),
            Err(_) => panic!(
                "not closed in time; received {:?}",
                String::from_utf8_lossy(&received)
            ),
        }
    }
}

#[tokio::test]
async fn behind_haproxy_each_client_is_seen_and_counted_by_its_own_address() {
    let Some(program) = common::program("haproxy", "haproxy") else {
        return;
    };
    let server = TestServer::start_with(Options {
        proxy_protocol: true,
        max_per_address: 1,
        ..Options::default()
    })
    .await;
    let mut haproxy = Haproxy::start(&program, server.addr);
    // A connection that never sends its header waits in a task of its own: everyone
    // else is let in meanwhile.
    let mut silent = TcpStream::connect(server.addr).await.expect("connect");

    // Two clients through the one proxy, from two addresses: with one session allowed
    // per address, both are let in only if the server sees their own addresses.
    let mut ann = Client::from_stream(haproxy.connect_from([127, 0, 0, 2]).await);
    let banner = ann.read_until("> ").await;
    assert!(banner.starts_with("Welcome to arcade!"), "{banner:?}");
    ann.send("name ann").await;
    assert_eq!(ann.read_until("> ").await, "You are now ann.\r\n> ");
    // Bob's first command goes out with the connection, right behind the header
    // HAProxy sends: the server reads the header and not a byte more.
    let mut bob = Client::from_stream(haproxy.connect_from([127, 0, 0, 3]).await);
    bob.send("name bob").await;
    let banner = bob.read_until("> ").await;
    assert!(banner.starts_with("Welcome to arcade!"), "{banner:?}");
    assert_eq!(bob.read_until("> ").await, "You are now bob.\r\n> ");
    ann.send("who").await;
    let who = ann.read_until("> ").await;
    for line in ["  ann ", "  bob "] {
        assert!(who.contains(line), "{line} in {who}");
    }
    let addresses: Vec<_> = server
        .registry
        .sessions()
        .into_iter()
        .map(|(_, peer)| peer.ip())
        .collect();
    for client in [[127, 0, 0, 2], [127, 0, 0, 3]] {
        assert!(
            addresses.contains(&Ipv4Addr::from(client).into()),
            "{client:?} in {addresses:?}"
        );
    }
    bob.send("play sokoban classic").await;
    assert!(bob.read_until("Enter command: ").await.contains("#######"));

    // A second client from ann's address is over that address's limit.
    let mut again = haproxy.connect_from([127, 0, 0, 2]).await;
    let refused = String::from_utf8(until_closed(&mut again).await).expect("UTF-8");
    assert!(
        refused.contains(TOO_MANY_FROM_ADDRESS) && refused.contains("at most 1"),
        "{refused:?}"
    );

    // Straight to the server, not through the proxy: no header, so no banner.
    let mut direct = TcpStream::connect(server.addr).await.expect("connect");
    direct.write_all(b"who\r\n").await.expect("send");
    assert_eq!(until_closed(&mut direct).await, b"");
    // A health check's header (LOCAL, as HAProxy sends with `check`): closed, no
    // session, even with a command behind it.
    let mut check = TcpStream::connect(server.addr).await.expect("connect");
    check
        .write_all(b"\r\n\r\n\0\r\nQUIT\n\x20\x00\x00\x00who\r\n")
        .await
        .expect("send");
    assert_eq!(until_closed(&mut check).await, b"");

    // The players were not disturbed, and HAProxy's checks, a few of them by now,
    // found the server up.
    tokio::time::sleep(Duration::from_millis(300)).await;
    ann.send("who").await;
    assert!(ann.read_until("> ").await.contains("  bob "));
    assert_eq!(server.registry.len(), 2);
    let log = haproxy.log();
    assert!(!log.contains("is DOWN"), "{log}");
    drop(haproxy);
    // Shutdown does not wait out the silent connection's header timeout, and closes it
    // without a word.
    let stopping = std::time::Instant::now();
    server.shutdown().await;
    assert!(
        stopping.elapsed() < Duration::from_secs(2),
        "{:?}",
        stopping.elapsed()
    );
    assert_eq!(until_closed(&mut silent).await, b"");
}
