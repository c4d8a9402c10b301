//! The server's SSH host key (SPEC section 11): Ed25519, made on first start in the
//! data directory as `ssh_host_ed25519_key`, or in the file `--ssh-host-key` names
//! (mode 0600, OpenSSH's private key format), and kept, so that players' `known_hosts` stay right across restarts; its SHA256
//! fingerprint, as `ssh-keygen -lf` prints it, for the teacher to put on the board.

use std::io::Write as _;
use std::path::Path;

use russh::keys::ssh_key::private::Ed25519Keypair;
use russh::keys::ssh_key::LineEnding;
use russh::keys::{Algorithm, HashAlg, PrivateKey};

/// The host key's file in the data directory (OpenSSH's name for it).
pub const HOST_KEY_FILE: &str = "ssh_host_ed25519_key";

/// Why the host key could not be had.
#[derive(Debug, thiserror::Error)]
pub enum HostKeyError {
    /// The file is there but unreadable or not a key.
    #[error("{path}: cannot read the SSH host key ({reason}). Restore the file from a backup, or remove it to make a new key (players' ssh will then warn that the host key changed)")]
    Read {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
    /// The key is not Ed25519.
    #[error("{path}: the SSH host key is {algorithm}, not Ed25519: remove the file to make an Ed25519 key")]
    NotEd25519 {
        /// The file.
        path: String,
        /// What it is.
        algorithm: String,
    },
    /// A new key could not be written.
    #[error("{path}: cannot write a new SSH host key ({reason}): check that the data directory is writable")]
    Write {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
}

/// The host key in the file `path`: read, or made and written (mode 0600) on first
/// start. Several instances given one file on a shared folder all read the key the
/// first of them made.
///
/// # Errors
/// [`HostKeyError`], saying what to do.
pub fn load_or_create(path: &Path) -> Result<PrivateKey, HostKeyError> {
    let shown = path.display().to_string();
    match std::fs::read_to_string(path) {
        Ok(text) => {
            let key =
                PrivateKey::from_openssh(text.as_bytes()).map_err(|error| HostKeyError::Read {
                    path: shown.clone(),
                    reason: error.to_string(),
                })?;
            if key.algorithm() != Algorithm::Ed25519 {
                return Err(HostKeyError::NotEd25519 {
                    path: shown,
                    algorithm: key.algorithm().to_string(),
                });
            }
            warn_if_readable_by_others(path);
            Ok(key)
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => create(path),
        Err(error) => Err(HostKeyError::Read {
            path: shown,
            reason: error.to_string(),
        }),
    }
}

/// The fingerprint `ssh-keygen -lf` prints for `key` (`SHA256:...`).
pub fn fingerprint(key: &PrivateKey) -> String {
    key.public_key().fingerprint(HashAlg::Sha256).to_string()
}

/// The public half in the one-line form (`ssh-ed25519 AAAA...`), for a `known_hosts`
/// line.
pub fn public_line(key: &PrivateKey) -> String {
    key.public_key()
        .to_openssh()
        .unwrap_or_else(|_| String::from("ssh-ed25519"))
}

/// Make a key and write it to `path`: to a temporary file of mode 0600 in the same
/// directory first, then renamed, so that a crash never leaves half a key, and never
/// over a key another process wrote meanwhile.
fn create(path: &Path) -> Result<PrivateKey, HostKeyError> {
    let failed = |reason: String| HostKeyError::Write {
        path: path.display().to_string(),
        reason,
    };
    // The folder the file goes in: the current one for a bare file name.
    let folder = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    // rand's thread generator is a CSPRNG seeded by the operating system.
    let seed: [u8; 32] = rand::random();
    let mut key = PrivateKey::from(Ed25519Keypair::from_seed(&seed));
    key.set_comment("arcade host key");
    let text = key
        .to_openssh(LineEnding::LF)
        .map_err(|error| failed(error.to_string()))?;
    // tempfile makes its files with mode 0600.
    let mut file =
        tempfile::NamedTempFile::new_in(folder).map_err(|error| failed(error.to_string()))?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.as_file().sync_all())
        .map_err(|error| failed(error.to_string()))?;
    match file.persist_noclobber(path) {
        Ok(_) => {
            tracing::info!(file = %path.display(), "SSH host key made");
            Ok(key)
        }
        // Another server made it a moment ago (two starting at once): theirs is read.
        Err(error) if error.error.kind() == std::io::ErrorKind::AlreadyExists => {
            load_or_create(path)
        }
        Err(error) => Err(failed(error.error.to_string())),
    }
}

/// A host key others can read is a key others can copy: said in the log.
fn warn_if_readable_by_others(path: &Path) {
    use std::os::unix::fs::PermissionsExt as _;
    if let Ok(meta) = std::fs::metadata(path) {
        let mode = meta.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            tracing::warn!(file = %path.display(), mode = format!("{mode:o}"), "the SSH host key can be read by others: chmod 600 it");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt as _;

    #[test]
    fn the_key_is_made_once_with_mode_0600_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(HOST_KEY_FILE);
        let made = load_or_create(&path).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "mode {mode:o}");
        assert_eq!(made.algorithm(), Algorithm::Ed25519);
        let again = load_or_create(&path).unwrap();
        assert_eq!(fingerprint(&made), fingerprint(&again));
        assert!(fingerprint(&made).starts_with("SHA256:"));
        assert!(public_line(&made).starts_with("ssh-ed25519 AAAA"));
    }

    #[test]
    fn a_damaged_key_is_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(HOST_KEY_FILE);
        std::fs::write(&path, "not a key").unwrap();
        let error = load_or_create(&path).unwrap_err();
        assert!(matches!(error, HostKeyError::Read { .. }), "{error}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "not a key");
    }
}
