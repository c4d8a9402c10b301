//! Frames with file descriptors over a Unix socket (SCM_RIGHTS), through rustix's
//! safe `sendmsg` and `recvmsg`: the descriptors arrive as `OwnedFd`s, so nothing here
//! is `unsafe`.
//!
//! A frame is a 4-byte big-endian length and that many bytes (JSON, see `wire.rs`);
//! its descriptors ride with the frame's first bytes, at most [`MAX_FDS`] a frame.
//! Blocking calls on a blocking socket: the hand-over runs on a blocking thread.

use std::io::{self, IoSlice, IoSliceMut, Read as _, Write as _};
use std::mem::MaybeUninit;
use std::os::fd::{BorrowedFd, OwnedFd};
use std::os::unix::net::UnixStream;

use rustix::net::{
    RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, SendAncillaryBuffer,
    SendAncillaryMessage, SendFlags,
};

/// The most descriptors one frame carries (the kernel's own limit is 253).
pub const MAX_FDS: usize = 200;

/// The longest frame: a hand-over's state for thousands of sessions fits.
pub const MAX_FRAME: usize = 256 * 1024 * 1024;

/// Send `bytes` as one frame, with `fds`.
///
/// # Errors
/// The socket's, or `InvalidInput` for more than [`MAX_FDS`] descriptors or a frame
/// over [`MAX_FRAME`].
pub fn send(stream: &mut UnixStream, bytes: &[u8], fds: &[BorrowedFd<'_>]) -> io::Result<()> {
    if fds.len() > MAX_FDS || bytes.len() > MAX_FRAME {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "a hand-over frame too large",
        ));
    }
    let length = u32::try_from(bytes.len())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "frame too long"))?
        .to_be_bytes();
    let mut space = vec![MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(MAX_FDS))];
    let mut control = SendAncillaryBuffer::new(&mut space);
    if !fds.is_empty() && !control.push(SendAncillaryMessage::ScmRights(fds)) {
        return Err(io::Error::other("no room for the descriptors"));
    }
    // The length goes with the descriptors; the rest is an ordinary write.
    let sent = rustix::net::sendmsg(
        &*stream,
        &[IoSlice::new(&length)],
        &mut control,
        SendFlags::empty(),
    )?;
    if sent < length.len() {
        stream.write_all(&length[sent..])?;
    }
    stream.write_all(bytes)?;
    stream.flush()
}

/// Receive one frame: its bytes and its descriptors.
///
/// # Errors
/// The socket's; `UnexpectedEof` when the other side closed before a whole frame;
/// `InvalidData` for a frame over [`MAX_FRAME`].
pub fn receive(stream: &mut UnixStream) -> io::Result<(Vec<u8>, Vec<OwnedFd>)> {
    let mut length = [0u8; 4];
    let mut space = vec![MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(MAX_FDS))];
    let mut control = RecvAncillaryBuffer::new(&mut space);
    let received = rustix::net::recvmsg(
        &*stream,
        &mut [IoSliceMut::new(&mut length)],
        &mut control,
        RecvFlags::CMSG_CLOEXEC,
    )?;
    let mut fds = Vec::new();
    for message in control.drain() {
        if let RecvAncillaryMessage::ScmRights(rights) = message {
            fds.extend(rights);
        }
    }
    if received.bytes == 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the other process closed the hand-over",
        ));
    }
    if received.bytes < length.len() {
        stream.read_exact(&mut length[received.bytes..])?;
    }
    let length = usize::try_from(u32::from_be_bytes(length)).unwrap_or(usize::MAX);
    if length > MAX_FRAME {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "a hand-over frame longer than any arcade sends",
        ));
    }
    let mut bytes = vec![0u8; length];
    stream.read_exact(&mut bytes)?;
    Ok((bytes, fds))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsFd;

    #[test]
    fn a_frame_carries_its_bytes_and_working_descriptors() {
        let (mut left, mut right) = UnixStream::pair().unwrap();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let file = tempfile::tempfile().unwrap();
        send(
            &mut left,
            b"{\"hello\":1}",
            &[listener.as_fd(), file.as_fd()],
        )
        .unwrap();
        send(&mut left, b"second", &[]).unwrap();
        let (bytes, fds) = receive(&mut right).unwrap();
        assert_eq!(bytes, b"{\"hello\":1}");
        assert_eq!(fds.len(), 2);
        // The received listener is the same socket: a client reaches it through it.
        let mut fds = fds.into_iter();
        let taken = std::net::TcpListener::from(fds.next().unwrap());
        drop(listener);
        let _client = std::net::TcpStream::connect(address).unwrap();
        let (_, _) = taken.accept().unwrap();
        let (bytes, fds) = receive(&mut right).unwrap();
        assert_eq!((bytes.as_slice(), fds.len()), (&b"second"[..], 0));
        // The other side gone: an end, not a hang or an empty frame.
        drop(left);
        let error = receive(&mut right).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::UnexpectedEof);
    }

    #[test]
    fn a_length_over_the_limit_is_refused_before_reading_it() {
        let (mut left, mut right) = UnixStream::pair().unwrap();
        left.write_all(&u32::MAX.to_be_bytes()).unwrap();
        let error = receive(&mut right).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::InvalidData);
    }
}
