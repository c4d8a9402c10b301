//! What a session needs of the stream it runs on: a TCP socket with telnet or `nc` on
//! the other end, or an SSH channel (SPEC section 11).
//!
//! The session is generic over its stream rather than holding a boxed one: the telnet
//! path is the hot path, and a `TcpStream` keeps its cheap non-blocking calls
//! (`try_write`, `try_read`) and adds nothing to an idle session's future. What an SSH
//! channel knows beyond bytes (that there is no telnet, its pty, its window) is asked
//! through the same trait, answered once for a `TcpStream`.

use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

use crate::seat::Found;

/// How the other end of a stream talks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Terminal {
    /// A telnet client, `nc` or a script: telnet commands are read and may be sent.
    Telnet,
    /// No telnet and no terminal (`ssh -T`, or a command): plain lines, as with `nc`.
    Plain,
    /// A terminal with no telnet (an SSH pty): keys and colour from the start.
    Pty,
}

/// A stream a session can run on.
pub trait Transport: AsyncRead + AsyncWrite + Unpin + Send {
    /// As much of `bytes` as the stream takes now, without waiting: how much that was.
    fn write_now(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let mut cx = Context::from_waker(Waker::noop());
        match Pin::new(self).poll_write(&mut cx, bytes) {
            Poll::Ready(result) => result,
            Poll::Pending => Ok(0),
        }
    }

    /// Read and drop what the client sent and the session never read, a bounded
    /// amount, before the stream closes. Only a socket needs it (see `TcpStream`'s).
    fn discard_unread(&mut self) {}

    /// How the other end talks.
    fn terminal(&self) -> Terminal {
        Terminal::Telnet
    }

    /// The window's columns and rows, when the stream itself knows them (an SSH
    /// pty's, kept up to date by its `window-change` requests).
    fn window(&self) -> Option<(u16, u16)> {
        None
    }

    /// Whether the session runs one command and ends (an SSH exec request): it ends
    /// once the command is done and the player is back at the lobby's prompt.
    fn one_command(&self) -> bool {
        false
    }

    /// Whether [`Transport::arrival`] has someone to give.
    fn arrives(&self) -> bool {
        false
    }

    /// Who the player is before the first line, when the stream already knows (an
    /// SSH login): handed to the seat once, right after the banner.
    fn arrival(&mut self) -> Option<Found> {
        None
    }

    /// The socket itself, when the session can move to a new server process with it
    /// (SPEC section 11): a TCP socket can, an SSH channel cannot (its encryption
    /// lives in this process).
    fn socket(&self) -> Option<std::os::fd::BorrowedFd<'_>> {
        None
    }
}

impl Transport for TcpStream {
    fn socket(&self) -> Option<std::os::fd::BorrowedFd<'_>> {
        Some(std::os::fd::AsFd::as_fd(self))
    }

    /// `try_write`: one `send`, no poll of the reactor.
    fn write_now(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        match self.try_write(bytes) {
            Ok(written) => Ok(written),
            Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => Ok(0),
            Err(error) => Err(error),
        }
    }

    /// A socket closed with unread input is reset, and a reset can discard the last
    /// words before the client has read them.
    fn discard_unread(&mut self) {
        let mut sink = [0u8; 1024];
        // Bounded: a client cannot keep the session here by sending faster than this.
        for _ in 0..64 {
            match self.try_read(&mut sink) {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    }
}
