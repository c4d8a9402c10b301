//! How an instance proves itself to the bus's NATS server (`--bus-*`): a user and
//! password, a token, an nkey, a credentials file, and TLS with a private CA. The
//! secrets come from options or their `ARCADE_BUS_*` variables (a variable keeps them
//! off the command line, which every user of the machine can read), or from the
//! `--bus` URL itself; they are never shown, in `--help` or in a log.
//!
//! Without credentials anyone who reaches the NATS port can speak as an instance:
//! see docs/operating.md ("The bus").

use std::fmt;
use std::path::{Path, PathBuf};

use async_nats::ConnectOptions;

use crate::cluster::url::BusUrl;

/// The `--bus-*` options: the credentials and TLS of the bus.
#[derive(Clone, Default, clap::Args)]
pub struct BusAuth {
    /// The bus's user, with --bus-password (or give both in --bus:
    /// nats://USER:PASSWORD@HOST:PORT).
    #[arg(
        long,
        env = "ARCADE_BUS_USER",
        value_name = "NAME",
        requires = "bus_password"
    )]
    pub bus_user: Option<String>,
    /// The bus user's password; best given as ARCADE_BUS_PASSWORD.
    #[arg(
        long,
        env = "ARCADE_BUS_PASSWORD",
        value_name = "PASSWORD",
        hide_env_values = true,
        requires = "bus_user"
    )]
    pub bus_password: Option<String>,
    /// A token the bus's NATS server expects (its `authorization { token }`); best
    /// given as ARCADE_BUS_TOKEN.
    #[arg(
        long,
        env = "ARCADE_BUS_TOKEN",
        value_name = "TOKEN",
        hide_env_values = true
    )]
    pub bus_token: Option<String>,
    /// A file holding an nkey seed (`SU...`, as `nk -gen user` writes) whose public
    /// key the NATS server lists.
    #[arg(long, env = "ARCADE_BUS_NKEY", value_name = "FILE")]
    pub bus_nkey: Option<PathBuf>,
    /// A NATS credentials file (a user's JWT and seed, as `nsc` writes them).
    #[arg(long, env = "ARCADE_BUS_CREDS", value_name = "FILE")]
    pub bus_creds: Option<PathBuf>,
    /// The CA that signed the NATS server's certificate, as a PEM file (a private
    /// CA); TLS is then required, as with a tls:// URL.
    #[arg(long, env = "ARCADE_BUS_CA", value_name = "FILE")]
    pub bus_ca: Option<PathBuf>,
}

// By hand: the derived one would print the password and the token.
impl fmt::Debug for BusAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hidden = |secret: &Option<String>| secret.as_ref().map(|_| "***");
        f.debug_struct("BusAuth")
            .field("bus_user", &self.bus_user)
            .field("bus_password", &hidden(&self.bus_password))
            .field("bus_token", &hidden(&self.bus_token))
            .field("bus_nkey", &self.bus_nkey)
            .field("bus_creds", &self.bus_creds)
            .field("bus_ca", &self.bus_ca)
            .finish()
    }
}

/// A file named by a `--bus-*` option that cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("{option} {path}: cannot read it: {reason}")]
pub struct BusFileError {
    /// The option.
    pub option: &'static str,
    /// The file.
    pub path: String,
    /// Why.
    pub reason: String,
}

impl BusFileError {
    fn new(option: &'static str, path: &Path, reason: impl fmt::Display) -> BusFileError {
        BusFileError {
            option,
            path: path.display().to_string(),
            reason: reason.to_string(),
        }
    }
}

impl BusAuth {
    /// Whether the bus is reached with credentials of some kind (then only who holds
    /// them can speak on it).
    pub fn given(&self, url: &BusUrl) -> bool {
        self.bus_user.is_some()
            || self.bus_token.is_some()
            || self.bus_nkey.is_some()
            || self.bus_creds.is_some()
            || url.user().is_some()
            || url.token().is_some()
    }

    /// async-nats's options for `url` with these credentials (an option's over the
    /// URL's), the files they name read now, so that a wrong path stops the start.
    ///
    /// # Errors
    /// [`BusFileError`] when a file cannot be read (or holds no seed).
    pub async fn options(&self, url: &BusUrl) -> Result<ConnectOptions, BusFileError> {
        let mut options = match &self.bus_creds {
            Some(path) => ConnectOptions::with_credentials_file(path)
                .await
                .map_err(|error| BusFileError::new("--bus-creds", path, error))?,
            None => ConnectOptions::new(),
        };
        if let Some(path) = &self.bus_nkey {
            let seed = tokio::fs::read_to_string(path)
                .await
                .map_err(|error| BusFileError::new("--bus-nkey", path, error))?;
            // The seed alone, or among comments as `nk` and `nsc` write it.
            let seed = seed
                .lines()
                .map(str::trim)
                .find(|line| line.starts_with('S') && !line.contains(' '))
                .ok_or_else(|| {
                    BusFileError::new("--bus-nkey", path, "no nkey seed (SU...) in it")
                })?;
            options = options.nkey(seed.to_string());
        }
        let user = match (&self.bus_user, &self.bus_password) {
            (Some(user), Some(password)) => Some((user.as_str(), password.as_str())),
            _ => url.user(),
        };
        if let Some((user, password)) = user {
            options = options.user_and_password(user.to_string(), password.to_string());
        }
        if let Some(token) = self.bus_token.as_deref().or(url.token()) {
            options = options.token(token.to_string());
        }
        if let Some(path) = &self.bus_ca {
            // async-nats reads it only when it connects: read here, so that a wrong
            // path is told at the start, not as a TLS error in the log.
            tokio::fs::read(path)
                .await
                .map_err(|error| BusFileError::new("--bus-ca", path, error))?;
            options = options
                .add_root_certificates(path.clone())
                .require_tls(true);
        }
        if url.wants_tls() {
            options = options.require_tls(true);
        }
        Ok(options)
    }
}
