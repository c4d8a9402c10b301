//! `arcade-minimal`: the ceiling the benchmarks compare arcade with.
//!
//! A tokio server that does as little as a server of this protocol can: on connect it
//! sends a banner ending with the lobby prompt, and it answers every input line with a
//! fixed board the size of classic Sokoban's plus the game prompt. No lobby, no game,
//! no telnet codec, no limits, no timers. `arcade loadtest` runs against it unchanged,
//! so the ratio arcade / minimal in one run is the cost of everything arcade does.
//!
//! For the social loads (`arcade loadtest --names`, `--chat`, `--watchers`) it also
//! does the least that the players' commands of SPEC section 7 need:
//!
//! - `name X` is answered `You are now X.` and the name remembered (a later `name X`
//!   elsewhere simply takes it over);
//! - `say TEXT` from X is answered `[X] TEXT` and `\r\n[X] TEXT\r\n> ` is written to
//!   every other connection that has used one of these three commands;
//! - `watch Y` is answered `You are watching Y. Type anything to stop.` and the board,
//!   and from then on every reply Y gets is written to the watcher too, until the
//!   watcher sends any line (`You stop watching Y.`);
//! - `set OPTION VALUE` (the load tester's `--setup`, e.g. `set warnings on`) is
//!   answered `OPTION is VALUE.` and the lobby prompt, and changes nothing.
//!
//! That broadcast does no rate limiting, no escaping and has no bounds: a line goes
//! out as it came, to a queue per connection that grows as long as its client does not
//! read. A connection only joins the broadcast at its first such command, with a
//! channel and a place in one shared map (a static, so that no connection holds a
//! handle to it before); until then it costs what it did before plus a look at the
//! first byte of each line, and its task is no bigger (what a player needs lives in a
//! box made at that first command). So the rows of the benchmark that do not use these
//! commands see the same server. Lines are looked at as they arrive in one read (no
//! line buffering): the load tester writes each line at once.
//!
//! Usage: `arcade-minimal [PORT]` (default 4001; 0 for any free port), listening on
//! 127.0.0.1; it says on stderr where it listens.

use std::collections::HashMap;
use std::net::{Ipv4Addr, SocketAddr};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard, PoisonError};

use bytes::Bytes;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::mpsc;

/// Sent on connect; ends with the lobby prompt like arcade's banner.
const BANNER: &[u8] = b"Welcome to arcade-minimal!\r\nEvery line gets the same board.\r\n> ";

/// The classic Sokoban board after a move, with the prompt: the same bytes arcade
/// sends for the load test's moves.
const REPLY: &[u8] =
    b"#######\r\n#.....#\r\n#...+.#\r\n##..+.#\r\n#--.#P#\r\n#######\r\nEnter command: ";

/// The lobby prompt, after the answers to the players' commands.
const PROMPT: &[u8] = b"> ";

/// The read buffer, inside each connection's task: lines are short.
const READ_BUFFER: usize = 256;

fn main() -> ExitCode {
    let port = match std::env::args().nth(1).map(|arg| arg.parse::<u16>()) {
        None => 4001,
        Some(Ok(port)) => port,
        Some(Err(error)) => {
            eprintln!("arcade-minimal: the port must be a number: {error}");
            return ExitCode::FAILURE;
        }
    };
    // As many connections as arcade may hold.
    let _ = arcade::server::session_capacity();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("arcade-minimal: cannot start the runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async move {
        let address = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        // Same listen backlog as arcade.
        let listener = match arcade::server::bind(address) {
            Ok(listener) => listener,
            Err(error) => {
                eprintln!("arcade-minimal: cannot listen on {address}: {error}");
                return ExitCode::FAILURE;
            }
        };
        // The address bound, so that a caller who asked for port 0 learns the port.
        let bound = listener.local_addr().unwrap_or(address);
        eprintln!("arcade-minimal: listening on {bound}");
        loop {
            match listener.accept().await {
                Ok((stream, _)) => {
                    tokio::spawn(serve(stream));
                }
                Err(error) => {
                    eprintln!("arcade-minimal: accept: {error}");
                    tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                }
            }
        }
    })
}

/// What the connections that used a player command share.
#[derive(Default)]
struct Shared {
    /// Numbers connections in the broadcast, to tell them apart.
    next_id: AtomicU64,
    /// One lock for all: a load touches it per line of chat, not per command.
    peers: Mutex<Peers>,
}

/// The one [`Shared`] of the server.
static SHARED: LazyLock<Shared> = LazyLock::new(Shared::default);

/// Every connection in the broadcast, and the named ones by name.
#[derive(Default)]
struct Peers {
    /// Where each connection's broadcast bytes go, by its number.
    all: HashMap<u64, Tx>,
    /// The connections with a name, for `watch NAME`.
    names: HashMap<Vec<u8>, Arc<Peer>>,
}

/// Where a connection's broadcast bytes go: its own task writes them.
type Tx = mpsc::UnboundedSender<Bytes>;

/// One connection in the broadcast.
struct Peer {
    /// Its number.
    id: u64,
    /// Its own channel: what watching it needs to reach it.
    tx: Tx,
    /// Those watching it, with their ids: each of its replies goes to them too.
    watchers: Mutex<Vec<(u64, Tx)>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every change under these locks is one insert, remove or push: a panic cannot
    // leave them half done.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Banner, then one reply per line feed received, until the client goes; at the first
/// player command, the rest of the connection's life in [`serve_player`].
async fn serve(mut stream: TcpStream) {
    let _ = stream.set_nodelay(true);
    if stream.write_all(BANNER).await.is_err() {
        return;
    }
    let mut buffer = [0u8; READ_BUFFER];
    loop {
        let read = match stream.read(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(read) => read,
        };
        let mut start = 0;
        for (at, _) in buffer[..read]
            .iter()
            .enumerate()
            .filter(|(_, &byte)| byte == b'\n')
        {
            if is_player_command(&buffer[start..at]) {
                let rest = buffer[start..read].to_vec();
                // Boxed, so that its state does not enlarge every connection's task.
                return Box::pin(serve_player(stream, rest)).await;
            }
            if stream.write_all(REPLY).await.is_err() {
                return;
            }
            start = at + 1;
        }
    }
}

/// Whether `line` is `name`, `say`, `watch` or `set` with an argument. The first byte
/// and a length check turn away the load's game commands (`w1`, `s2`) at once.
fn is_player_command(line: &[u8]) -> bool {
    matches!(line.first(), Some(b'n' | b's' | b'w'))
        && (line.starts_with(b"name ")
            || line.starts_with(b"say ")
            || line.starts_with(b"watch ")
            || line.starts_with(b"set "))
}

/// A connection in the broadcast: reads lines and writes what others send it, from
/// the bytes already read (`pending`) on.
async fn serve_player(mut stream: TcpStream, pending: Vec<u8>) {
    let shared = &*SHARED;
    let (tx, mut rx) = mpsc::unbounded_channel();
    let id = shared.next_id.fetch_add(1, Ordering::Relaxed);
    let me = Arc::new(Peer {
        id,
        tx: tx.clone(),
        watchers: Mutex::new(Vec::new()),
    });
    lock(&shared.peers).all.insert(id, tx);
    let mut player = Player {
        me,
        shared,
        name: None,
        watching: None,
    };
    if player.lines(&mut stream, &pending).await.is_ok() {
        let mut buffer = [0u8; READ_BUFFER];
        loop {
            tokio::select! {
                read = stream.read(&mut buffer) => {
                    let read = match read {
                        Ok(0) | Err(_) => break,
                        Ok(read) => read,
                    };
                    if player.lines(&mut stream, &buffer[..read]).await.is_err() {
                        break;
                    }
                }
                Some(bytes) = rx.recv() => {
                    if stream.write_all(&bytes).await.is_err() {
                        break;
                    }
                }
            }
        }
    }
    player.leave();
}

/// The state of a connection in the broadcast.
struct Player {
    /// Its own entry, shared with whoever watches it.
    me: Arc<Peer>,
    shared: &'static Shared,
    /// The name it took, if any (chat from a connection without one says `guest`).
    name: Option<Vec<u8>>,
    /// The player it watches.
    watching: Option<(Vec<u8>, Arc<Peer>)>,
}

impl Player {
    /// Answer every line ending in `bytes`.
    async fn lines(&mut self, stream: &mut TcpStream, bytes: &[u8]) -> std::io::Result<()> {
        let mut start = 0;
        for (at, _) in bytes.iter().enumerate().filter(|(_, &byte)| byte == b'\n') {
            let line = &bytes[start..at];
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let reply = self.line(line);
            stream.write_all(&reply).await?;
            start = at + 1;
        }
        Ok(())
    }

    /// The answer to one line.
    fn line(&mut self, line: &[u8]) -> Vec<u8> {
        if let Some((name, watched)) = self.watching.take() {
            lock(&watched.watchers).retain(|(id, _)| *id != self.me.id);
            return [b"You stop watching ", &name[..], b".\r\n", PROMPT].concat();
        }
        if let Some(name) = line.strip_prefix(b"name ") {
            let mut peers = lock(&self.shared.peers);
            if let Some(old) = self.name.take() {
                if peers
                    .names
                    .get(&old)
                    .is_some_and(|peer| peer.id == self.me.id)
                {
                    peers.names.remove(&old);
                }
            }
            peers.names.insert(name.to_vec(), Arc::clone(&self.me));
            self.name = Some(name.to_vec());
            return [b"You are now ", name, b".\r\n", PROMPT].concat();
        }
        if let Some(text) = line.strip_prefix(b"say ") {
            let name = self.name.as_deref().unwrap_or(b"guest");
            let said = [b"[", name, b"] ", text].concat();
            let heard = Bytes::from([b"\r\n", &said[..], b"\r\n", PROMPT].concat());
            // Sent under the lock: an unbounded send never waits, and with one
            // worker thread nothing else wants the lock meanwhile.
            for (id, tx) in &lock(&self.shared.peers).all {
                if *id != self.me.id {
                    let _ = tx.send(heard.clone());
                }
            }
            return [&said[..], b"\r\n", PROMPT].concat();
        }
        if let Some(setting) = line.strip_prefix(b"set ") {
            let mut words = setting
                .split(|&byte| byte == b' ')
                .filter(|word| !word.is_empty());
            let option = words.next().unwrap_or_default();
            let value = words.next().unwrap_or_default();
            return [option, b" is ", value, b".\r\n", PROMPT].concat();
        }
        if let Some(name) = line.strip_prefix(b"watch ") {
            let watched = lock(&self.shared.peers).names.get(name).cloned();
            let Some(watched) = watched else {
                return [b"No player called ", name, b".\r\n", PROMPT].concat();
            };
            lock(&watched.watchers).push((self.me.id, self.me.tx.clone()));
            self.watching = Some((name.to_vec(), watched));
            return [
                b"You are watching ",
                name,
                b". Type anything to stop.\r\n",
                REPLY,
            ]
            .concat();
        }
        // Every other line gets the board, and so does everyone watching.
        let watchers = lock(&self.me.watchers);
        for (_, tx) in watchers.iter() {
            let _ = tx.send(Bytes::from_static(REPLY));
        }
        REPLY.to_vec()
    }

    /// The connection is gone: out of the broadcast, the names and what it watched.
    fn leave(&mut self) {
        if let Some((_, watched)) = self.watching.take() {
            lock(&watched.watchers).retain(|(id, _)| *id != self.me.id);
        }
        let mut peers = lock(&self.shared.peers);
        peers.all.remove(&self.me.id);
        if let Some(name) = self.name.take() {
            if peers
                .names
                .get(&name)
                .is_some_and(|peer| peer.id == self.me.id)
            {
                peers.names.remove(&name);
            }
        }
    }
}
