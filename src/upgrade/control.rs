//! The control socket `arcade upgrade` talks to: a Unix socket in the data directory
//! ([`CONTROL_SOCKET`], mode 0600, so only the server's own user can reach it). A
//! client writes `upgrade` and reads the server's answer until it closes: one line,
//! `upgraded: ...` or `upgrade failed: ...`.
//!
//! Requests from here, from SIGUSR2 and from the admin command `upgrade` all go to the
//! server's loop as [`Request`]s, which it carries out one at a time.

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _};
use tokio::net::UnixListener;
use tokio::sync::{mpsc, oneshot};

/// The control socket's name in the data directory.
pub const CONTROL_SOCKET: &str = "arcade.sock";

/// How long `arcade upgrade` waits for the answer: the new process starts, opens the
/// store and takes every session in that time.
pub const ANSWER_WAIT: Duration = Duration::from_secs(180);

/// An upgrade asked for, and where its answer goes.
#[derive(Debug)]
pub struct Request {
    /// Who asked, for the log (`arcade upgrade`, `SIGUSR2`, an admin's name).
    pub by: String,
    /// The answer: `upgraded: ...` or `upgrade failed: ...`.
    pub answer: oneshot::Sender<String>,
}

/// The sending side of the server's requests, cheap to clone.
pub type Requests = mpsc::Sender<Request>;

/// Ask for an upgrade through `requests` on behalf of `by`; the answer.
pub async fn ask(requests: &Requests, by: &str) -> String {
    match send(requests, by).await {
        Ok(answered) => answer(answered).await,
        Err(refused) => refused,
    }
}

/// Send the request through `requests` on behalf of `by`: where its answer comes, or
/// why it cannot be asked.
///
/// # Errors
/// `upgrade failed: ...` when the server is stopping.
pub async fn send(requests: &Requests, by: &str) -> Result<oneshot::Receiver<String>, String> {
    let (answer, answered) = oneshot::channel();
    let request = Request {
        by: by.to_string(),
        answer,
    };
    if requests.send(request).await.is_err() {
        return Err(String::from("upgrade failed: the server is stopping"));
    }
    Ok(answered)
}

/// The answer to a request sent.
pub async fn answer(answered: oneshot::Receiver<String>) -> String {
    answered
        .await
        .unwrap_or_else(|_| String::from("upgrade failed: the server stopped before answering"))
}

/// The control socket's path for `data_dir`.
pub fn path(data_dir: &Path) -> PathBuf {
    data_dir.join(CONTROL_SOCKET)
}

/// Listen on the control socket of `data_dir`. A file left there by a server that
/// died is removed first; the data directory's lock, taken before this, says no
/// other server is using the directory.
///
/// # Errors
/// When the socket cannot be made (a path too long for a Unix socket among them).
pub fn bind(data_dir: &Path) -> std::io::Result<std::os::unix::net::UnixListener> {
    use std::os::unix::fs::PermissionsExt as _;
    let path = path(data_dir);
    match std::fs::remove_file(&path) {
        Ok(()) => {}
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
        Err(error) => return Err(error),
    }
    let listener = std::os::unix::net::UnixListener::bind(&path)?;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
    Ok(listener)
}

/// Serve the control socket: each connection's `upgrade` becomes a [`Request`].
pub async fn serve(listener: UnixListener, requests: Requests) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        let requests = requests.clone();
        tokio::spawn(async move {
            let (read, mut write) = stream.into_split();
            let mut line = String::new();
            // A request is one short line: no more is read.
            let mut reader = tokio::io::BufReader::new(tokio::io::AsyncReadExt::take(read, 64));
            let answer = match reader.read_line(&mut line).await {
                Ok(_) if line.trim() == "upgrade" => ask(&requests, "arcade upgrade").await,
                Ok(_) => String::from("unknown request: the control socket knows `upgrade`"),
                Err(error) => format!("cannot read the request: {error}"),
            };
            let _ = write.write_all(format!("{answer}\n").as_bytes()).await;
        });
    }
}

/// Why `arcade upgrade` got no answer.
#[derive(Debug, thiserror::Error)]
pub enum ControlError {
    /// Nothing listens.
    #[error(
        "cannot reach the server through {path}: {source} (is it running, with this --data-dir, as this user?)"
    )]
    Connect {
        /// The socket.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The server did not answer.
    #[error("the server did not answer through {path}: {source}")]
    Answer {
        /// The socket.
        path: String,
        /// Why.
        source: std::io::Error,
    },
}

/// `arcade upgrade`: ask the server of `data_dir` for an upgrade; its answer.
///
/// # Errors
/// [`ControlError`] when the server cannot be reached or does not answer.
pub fn request_upgrade(data_dir: &Path) -> Result<String, ControlError> {
    let path = path(data_dir);
    let shown = path.display().to_string();
    let mut stream =
        std::os::unix::net::UnixStream::connect(&path).map_err(|source| ControlError::Connect {
            path: shown.clone(),
            source,
        })?;
    let answer_error = |source| ControlError::Answer {
        path: shown.clone(),
        source,
    };
    stream
        .set_read_timeout(Some(ANSWER_WAIT))
        .and_then(|()| stream.write_all(b"upgrade\n"))
        .map_err(answer_error)?;
    let mut answer = String::new();
    BufReader::new(stream)
        .read_line(&mut answer)
        .map_err(answer_error)?;
    if answer.is_empty() {
        return Err(answer_error(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            "closed without an answer",
        )));
    }
    Ok(answer.trim_end().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_request_through_the_socket_is_answered() {
        let dir = tempfile::tempdir().unwrap();
        let listener = UnixListener::from_std({
            let listener = bind(dir.path()).unwrap();
            listener.set_nonblocking(true).unwrap();
            listener
        })
        .unwrap();
        let (requests, mut asked) = mpsc::channel(1);
        tokio::spawn(serve(listener, requests));
        tokio::spawn(async move {
            while let Some(request) = asked.recv().await {
                let _ = request
                    .answer
                    .send(format!("upgraded: asked by {}", request.by));
            }
        });
        let data_dir = dir.path().to_path_buf();
        let answer = tokio::task::spawn_blocking(move || request_upgrade(&data_dir))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(answer, "upgraded: asked by arcade upgrade");
        // Only the owner may ask.
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(path(dir.path()))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        // Nobody listening: said so, with the path.
        let other = tempfile::tempdir().unwrap();
        let error = request_upgrade(other.path()).unwrap_err();
        assert!(error.to_string().contains("arcade.sock"), "{error}");
    }
}
