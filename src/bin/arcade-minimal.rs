//! `arcade-minimal`: the ceiling the benchmarks compare arcade with.
//!
//! A tokio server that does as little as a server of this protocol can: on connect it
//! sends a banner ending with the lobby prompt, and it answers every input line with a
//! fixed board the size of classic Sokoban's plus the game prompt. No lobby, no game,
//! no telnet codec, no limits, no timers. `arcade loadtest` runs against it unchanged,
//! so the ratio arcade / minimal in one run is the cost of everything arcade does.
//!
//! Usage: `arcade-minimal [PORT]` (default 4001), listening on 127.0.0.1.

use std::net::{Ipv4Addr, SocketAddr};
use std::process::ExitCode;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Sent on connect; ends with the lobby prompt like arcade's banner.
const BANNER: &[u8] = b"Welcome to arcade-minimal!\r\nEvery line gets the same board.\r\n> ";

/// The classic Sokoban board after a move, with the prompt: the same bytes arcade
/// sends for the load test's moves.
const REPLY: &[u8] =
    b"#######\r\n#.....#\r\n#...+.#\r\n##..+.#\r\n#--.#P#\r\n#######\r\nEnter command: ";

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
        eprintln!("arcade-minimal: listening on {address}");
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

/// Banner, then one reply per line feed received, until the client goes.
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
        let lines = buffer[..read].iter().filter(|&&b| b == b'\n').count();
        for _ in 0..lines {
            if stream.write_all(REPLY).await.is_err() {
                return;
            }
        }
    }
}
