//! One SSH connection's handler (russh calls it): authentication, then one session
//! channel with or without a pty, whose shell or exec request hands a stream to the
//! connection's task ([`super::connection`]), which starts the player's session on
//! it. `window-change` requests keep the window size the session reads.
//!
//! One session channel per connection: a connection is one player under the server's
//! limits (`--max-sessions`, `--max-per-address`), as a telnet connection is. Port
//! forwarding, agents, X11, subsystems and environment variables are refused.

use std::net::SocketAddr;

use russh::server::{Auth, ChannelOpenHandle, Msg, PublicKeyOffer, Session, VerifiedPublicKey};
use russh::{Channel, ChannelId, MethodKind, MethodSet};
use tokio::sync::oneshot;

use crate::codec::telnet::MAX_LINE;
use crate::seat::{Found, Services};

use super::auth::{self, Unchecked};
use super::stream::{Command, SshStream, Window};

/// One SSH connection, from its first packet until its session channel starts.
pub struct Connection {
    services: Services,
    peer: SocketAddr,
    /// Who logged in, once authenticated.
    login: Option<Found>,
    /// The session channel, until its shell or exec request.
    channel: Option<Channel<Msg>>,
    /// A pty was asked for.
    pty: bool,
    window: Window,
    /// The connection's task, told when the session's stream is ready.
    start: Option<oneshot::Sender<SshStream>>,
}

impl Connection {
    /// The handler of a connection from `peer`; the stream goes to `start`.
    pub fn new(
        services: Services,
        peer: SocketAddr,
        start: oneshot::Sender<SshStream>,
    ) -> Connection {
        Connection {
            services,
            peer,
            login: None,
            channel: None,
            pty: false,
            window: Window::default(),
            start: Some(start),
        }
    }

    /// A registered name's other ways in.
    fn password_or_key() -> Auth {
        Auth::Reject {
            proceed_with_methods: Some(MethodSet::from(
                &[MethodKind::PublicKey, MethodKind::Password][..],
            )),
            partial_success: false,
        }
    }

    /// The shell or exec request of `id`: the stream goes to the connection's task.
    fn begin(&mut self, id: ChannelId, command: Option<Command>, session: &mut Session) -> bool {
        let (Some(channel), Some(login), Some(start)) =
            (self.channel.take(), self.login.take(), self.start.take())
        else {
            return false;
        };
        if channel.id() != id {
            return false;
        }
        let stream = SshStream::new(
            channel.into_stream(),
            id,
            session.handle(),
            self.pty,
            self.window.clone(),
            login,
            command,
        );
        start.send(stream).is_ok()
    }
}

impl russh::server::Handler for Connection {
    type Error = russh::Error;

    async fn auth_none(&mut self, user: &str) -> Result<Auth, Self::Error> {
        match auth::without_password(&self.services, user).await {
            Unchecked::In(found) => {
                self.login = Some(found);
                Ok(Auth::Accept)
            }
            Unchecked::Registered => Ok(Self::password_or_key()),
        }
    }

    async fn auth_password(&mut self, user: &str, password: &str) -> Result<Auth, Self::Error> {
        match auth::with_password(&self.services, user, password, self.peer.ip()).await {
            Some(found) => {
                self.login = Some(found);
                Ok(Auth::Accept)
            }
            None => Ok(Self::password_or_key()),
        }
    }

    async fn auth_publickey_offered(
        &mut self,
        user: &str,
        offer: PublicKeyOffer<'_>,
    ) -> Result<Auth, Self::Error> {
        if auth::key_is_known(&self.services, user, offer.public_key).await {
            Ok(Auth::Accept)
        } else {
            Ok(Self::password_or_key())
        }
    }

    async fn auth_publickey(
        &mut self,
        user: &str,
        key: VerifiedPublicKey<'_>,
    ) -> Result<Auth, Self::Error> {
        match auth::with_key(&self.services, user, key.public_key).await {
            Some(found) => {
                self.login = Some(found);
                Ok(Auth::Accept)
            }
            None => Ok(Self::password_or_key()),
        }
    }

    async fn channel_open_session(
        &mut self,
        channel: Channel<Msg>,
        reply: ChannelOpenHandle,
        _session: &mut Session,
    ) -> Result<(), Self::Error> {
        // One per connection; dropping the reply refuses any other.
        if self.channel.is_none() && self.start.is_some() {
            self.channel = Some(channel);
            reply.accept().await;
        }
        Ok(())
    }

    async fn pty_request(
        &mut self,
        channel: ChannelId,
        _term: &str,
        col_width: u32,
        row_height: u32,
        _pix_width: u32,
        _pix_height: u32,
        _modes: &[(russh::Pty, u32)],
        session: &mut Session,
    ) -> Result<(), Self::Error> {
        if self.start.is_none() {
            return session.channel_failure(channel);
        }
        self.pty = true;
        self.window.set(col_width, row_height);
        session.channel_success(channel)
    }

    async fn window_change_request(
        &mut self,
        _channel: ChannelId,
        col_width: u32,
        row_height: u32,
        _pix_width: u32,
        _pix_height: u32,
        _session: &mut Session,
    ) -> Result<(), Self::Error> {
        self.window.set(col_width, row_height);
        Ok(())
    }

    async fn shell_request(
        &mut self,
        channel: ChannelId,
        session: &mut Session,
    ) -> Result<(), Self::Error> {
        session.channel_success(channel)?;
        if !self.begin(channel, None, session) {
            session.close(channel)?;
        }
        Ok(())
    }

    async fn exec_request(
        &mut self,
        channel: ChannelId,
        data: &[u8],
        session: &mut Session,
    ) -> Result<(), Self::Error> {
        // One line: what a player could type, within the line limit.
        let text = String::from_utf8_lossy(data);
        let line: String = text
            .lines()
            .next()
            .unwrap_or_default()
            .chars()
            .take(MAX_LINE)
            .collect();
        session.channel_success(channel)?;
        let command = Command {
            line: bytes::Bytes::from(format!("{}\r", line.trim())),
        };
        if !self.begin(channel, Some(command), session) {
            session.close(channel)?;
        }
        Ok(())
    }

    async fn subsystem_request(
        &mut self,
        channel: ChannelId,
        _name: &str,
        session: &mut Session,
    ) -> Result<(), Self::Error> {
        session.channel_failure(channel)
    }
}
