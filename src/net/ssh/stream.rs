//! An SSH session channel as a session's stream: the channel's bytes, with what SSH
//! tells beside them (no telnet; a pty or not; the window size, which `window-change`
//! requests keep up to date; who logged in; an exec request's command, read as the
//! first line). When the session ends the client is given an exit status and the
//! channel is closed.

use std::pin::Pin;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use russh::server::{Handle, Msg};
use russh::{ChannelId, ChannelStream};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::net::session::{Terminal, Transport};
use crate::seat::Found;

/// A pty's window, columns in the high half and rows in the low; 0 before any.
#[derive(Debug, Clone, Default)]
pub struct Window(Arc<AtomicU32>);

impl Window {
    /// The client told its window's size.
    pub fn set(&self, columns: u32, rows: u32) {
        let clamp = |n: u32| u16::try_from(n).unwrap_or(u16::MAX);
        let packed = (u32::from(clamp(columns)) << 16) | u32::from(clamp(rows));
        self.0.store(packed, Ordering::Relaxed);
    }

    /// Columns and rows, once told.
    pub fn get(&self) -> Option<(u16, u16)> {
        let packed = self.0.load(Ordering::Relaxed);
        let columns = u16::try_from(packed >> 16).unwrap_or(u16::MAX);
        let rows = u16::try_from(packed & 0xffff).unwrap_or(u16::MAX);
        (columns > 0).then_some((columns, rows))
    }
}

/// An exec request: the command, then the client's input.
#[derive(Debug)]
pub struct Command {
    /// The command's line, with its line ending, not read yet.
    pub line: Bytes,
}

/// A session channel, turned into a stream when its shell or exec request came.
pub struct SshStream {
    /// Taken when the stream is dropped, to close it after the exit status.
    channel: Option<ChannelStream<Msg>>,
    id: ChannelId,
    handle: Handle,
    terminal: Terminal,
    window: Window,
    arrival: Option<Found>,
    /// An exec request's line, read before the channel's bytes.
    command: Option<Bytes>,
    /// An exec request: the session ends when its command is done.
    one_command: bool,
}

impl SshStream {
    /// The stream of channel `id` (its connection's `handle`), with or without a pty,
    /// for a player who logged in as `arrival`; `command` for an exec request.
    pub fn new(
        channel: ChannelStream<Msg>,
        id: ChannelId,
        handle: Handle,
        pty: bool,
        window: Window,
        arrival: Found,
        command: Option<Command>,
    ) -> SshStream {
        SshStream {
            channel: Some(channel),
            id,
            handle,
            terminal: if pty { Terminal::Pty } else { Terminal::Plain },
            window,
            arrival: Some(arrival),
            one_command: command.is_some(),
            command: command.map(|command| command.line),
        }
    }

    fn closed() -> std::io::Error {
        std::io::Error::new(
            std::io::ErrorKind::NotConnected,
            "the SSH channel is closed",
        )
    }
}

impl AsyncRead for SshStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        if let Some(command) = &mut self.command {
            let taken = command.len().min(buf.remaining());
            buf.put_slice(&command.split_to(taken));
            if command.is_empty() {
                self.command = None;
            }
            return Poll::Ready(Ok(()));
        }
        match &mut self.channel {
            Some(channel) => Pin::new(channel).poll_read(cx, buf),
            None => Poll::Ready(Err(Self::closed())),
        }
    }
}

impl AsyncWrite for SshStream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        match &mut self.channel {
            Some(channel) => Pin::new(channel).poll_write(cx, buf),
            None => Poll::Ready(Err(Self::closed())),
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match &mut self.channel {
            Some(channel) => Pin::new(channel).poll_flush(cx),
            None => Poll::Ready(Ok(())),
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match &mut self.channel {
            Some(channel) => Pin::new(channel).poll_shutdown(cx),
            None => Poll::Ready(Ok(())),
        }
    }
}

impl Transport for SshStream {
    fn terminal(&self) -> Terminal {
        self.terminal
    }

    fn window(&self) -> Option<(u16, u16)> {
        self.window.get()
    }

    fn arrives(&self) -> bool {
        self.arrival.is_some()
    }

    fn arrival(&mut self) -> Option<Found> {
        self.arrival.take()
    }

    fn one_command(&self) -> bool {
        self.one_command
    }
}

impl Drop for SshStream {
    /// The client is told the session's exit status (0: the server ended it as it
    /// meant to), then the channel closes, in that order on the connection's queue.
    fn drop(&mut self) {
        let Some(channel) = self.channel.take() else {
            return;
        };
        let (handle, id) = (self.handle.clone(), self.id);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = handle.exit_status_request(id, 0).await;
                let _ = handle.eof(id).await;
                drop(channel);
                let _ = handle.close(id).await;
            });
        }
    }
}
