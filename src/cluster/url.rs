//! Where the bus is: the `--bus` URL, parsed and checked before anything connects,
//! its credentials taken out of it and the URL shown with them masked.
//!
//! async-nats ignores a user, password or token written in the URL (it connects
//! without them, and NATS refuses it), so they are read here and handed to it as
//! options; the URLs it is given carry none. The URL is shown everywhere (logs,
//! errors) through [`crate::store::masked_url`], the same masking as `--db`'s.

use std::fmt;
use std::str::FromStr;

use async_nats::ServerAddr;
use percent_encoding::percent_decode_str;

/// Where the bus is, from `--bus`: one or more NATS servers (`nats://HOST:PORT`, or
/// `tls://HOST:PORT` for TLS), with the credentials of their URL, if any.
#[derive(Clone)]
pub struct BusUrl {
    /// The servers, credentials taken out.
    servers: Vec<ServerAddr>,
    /// `nats://USER:PASSWORD@...`, percent-decoded.
    user: Option<(String, String)>,
    /// `nats://TOKEN@...`, percent-decoded.
    token: Option<String>,
    /// The URL as given, its secrets masked.
    shown: String,
}

/// A `--bus` value the server cannot use (its secrets, if it had any, masked).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "--bus {0}: use nats://HOST:PORT, or tls://HOST:PORT for TLS (several separated by \
     commas; credentials as nats://USER:PASSWORD@HOST:PORT or nats://TOKEN@HOST:PORT, \
     the same on every server, or the --bus-* options)"
)]
pub struct BadBusUrl(pub String);

/// What a server's URL said of the credentials: a user and password, or a token.
#[derive(Clone, PartialEq, Eq)]
enum Given {
    User(String, String),
    Token(String),
}

/// `text` percent-decoded (a URL writes `@`, `:` or `,` in a password as `%40`...).
fn decoded(text: &str) -> Option<String> {
    percent_decode_str(text)
        .decode_utf8()
        .ok()
        .map(|text| text.into_owned())
}

impl FromStr for BusUrl {
    type Err = BadBusUrl;

    fn from_str(text: &str) -> Result<BusUrl, BadBusUrl> {
        let bad = || BadBusUrl(crate::store::masked_url(text));
        let mut servers = Vec::new();
        let mut given: Option<Given> = None;
        for server in text.split(',').map(str::trim) {
            let lower = server.to_ascii_lowercase();
            if !(lower.starts_with("nats://") || lower.starts_with("tls://")) {
                return Err(bad());
            }
            let address = ServerAddr::from_str(server).map_err(|_| bad())?;
            if address.host().is_empty() {
                return Err(bad());
            }
            let here = match (address.username(), address.password()) {
                (Some(user), Some(password)) => Some(Given::User(
                    decoded(user).ok_or_else(bad)?,
                    decoded(password).ok_or_else(bad)?,
                )),
                (Some(token), None) => Some(Given::Token(decoded(token).ok_or_else(bad)?)),
                _ => None,
            };
            match (&given, here) {
                (_, None) => {}
                (None, here) => given = here,
                // Two servers of one bus with different credentials: a mistake.
                (Some(before), Some(here)) if *before != here => return Err(bad()),
                (Some(_), Some(_)) => {}
            }
            let mut url = address.into_inner();
            url.set_username("").map_err(|()| bad())?;
            url.set_password(None).map_err(|()| bad())?;
            servers.push(ServerAddr::from_url(url).map_err(|_| bad())?);
        }
        let (user, token) = match given {
            Some(Given::User(user, password)) => (Some((user, password)), None),
            Some(Given::Token(token)) => (None, Some(token)),
            None => (None, None),
        };
        Ok(BusUrl {
            servers,
            user,
            token,
            shown: crate::store::masked_url(text),
        })
    }
}

impl BusUrl {
    /// The servers to connect to, without credentials.
    pub fn servers(&self) -> Vec<ServerAddr> {
        self.servers.clone()
    }

    /// The user and password the URL gave, if it did.
    pub fn user(&self) -> Option<(&str, &str)> {
        self.user
            .as_ref()
            .map(|(user, password)| (user.as_str(), password.as_str()))
    }

    /// The token the URL gave, if it did.
    pub fn token(&self) -> Option<&str> {
        self.token.as_deref()
    }

    /// Whether a server is reached over TLS (`tls://`).
    pub fn wants_tls(&self) -> bool {
        self.servers.iter().any(ServerAddr::tls_required)
    }
}

impl fmt::Display for BusUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.shown)
    }
}

// By hand: the derived one would print the password.
impl fmt::Debug for BusUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BusUrl({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_nats_urls_are_taken() {
        for bad in [
            "",
            "http://x",
            "nats://",
            "localhost:4222",
            "nats://h:1,http://h:2",
            "nats://a:b@h:1,nats://c:d@h:2",
        ] {
            assert!(bad.parse::<BusUrl>().is_err(), "{bad}");
        }
        let url: BusUrl = "nats://h1:4222, tls://h2:4222".parse().unwrap();
        assert_eq!(url.servers().len(), 2);
        assert!(url.wants_tls());
        assert!(url.user().is_none() && url.token().is_none());
    }

    #[test]
    fn credentials_come_out_of_the_url_and_never_show() {
        let url: BusUrl = "nats://arcade:p%40ss%2Cw0rd@h1:4222,nats://h2:4222"
            .parse()
            .unwrap();
        assert_eq!(url.user(), Some(("arcade", "p@ss,w0rd")));
        for server in url.servers() {
            assert!(!server.has_user_pass(), "{server:?}");
        }
        assert_eq!(url.to_string(), "nats://arcade:***@h1:4222,nats://h2:4222");
        assert!(!format!("{url:?}").contains("w0rd"));

        let url: BusUrl = "nats://s3cret@h:4222".parse().unwrap();
        assert_eq!(url.token(), Some("s3cret"));
        assert_eq!(url.to_string(), "nats://***@h:4222");

        let error = "nats://u:s3cret@".parse::<BusUrl>().unwrap_err();
        assert!(!error.to_string().contains("s3cret"), "{error}");
    }
}
