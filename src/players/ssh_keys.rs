//! A player's public key for SSH logins (SPEC section 11, `sshkey add KEY`): the text
//! a player pastes, checked and put in the OpenSSH one-line form the store keeps, with
//! the fingerprint `sshkey list` shows and `ssh-keygen -l` prints for the same key.

use russh::keys::{HashAlg, PublicKey};

/// The most keys one player may add.
pub const MAX_KEYS: usize = 10;

/// The longest key line taken (an RSA key of 16,384 bits is about 2,800 bytes): the
/// line limit of the session is lower anyway.
const MAX_KEY_TEXT: usize = 4096;

/// The longest comment kept; longer ones are cut.
const MAX_COMMENT: usize = 64;

/// A public key a player may log in with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorizedKey {
    /// The OpenSSH one-line form: type, base64 and comment (if any).
    pub line: String,
    /// `SHA256:...`.
    pub fingerprint: String,
    /// The key's type, as OpenSSH names it (`ssh-ed25519`, `ssh-rsa`, ...).
    pub kind: String,
    /// The comment, printable ASCII only, possibly empty.
    pub comment: String,
}

/// Why a key's text was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadKey {
    /// Nothing was given.
    #[error("Usage: sshkey add KEY, with KEY the whole line of your .pub file (ssh-ed25519 AAAA... you@host).")]
    Missing,
    /// Too long to be a key.
    #[error("That is too long for a public key: paste the one line of your .pub file.")]
    TooLong,
    /// A private key was pasted.
    #[error("That is a private key: keep it secret, and paste the .pub file's line instead.")]
    Private,
    /// Not a public key OpenSSH writes.
    #[error("That is not a public key: paste the whole line of your .pub file (ssh-ed25519 AAAA... you@host).")]
    NotAKey,
}

impl AuthorizedKey {
    /// Read `text`, the line of a `.pub` file (an `authorized_keys` line without
    /// options).
    ///
    /// # Errors
    /// [`BadKey`], saying what to paste instead.
    pub fn parse(text: &str) -> Result<AuthorizedKey, BadKey> {
        let text = text.trim();
        if text.is_empty() {
            return Err(BadKey::Missing);
        }
        if text.len() > MAX_KEY_TEXT {
            return Err(BadKey::TooLong);
        }
        if text.contains("PRIVATE KEY") {
            return Err(BadKey::Private);
        }
        let key = PublicKey::from_openssh(text).map_err(|_| BadKey::NotAKey)?;
        Ok(AuthorizedKey::from_key(&key))
    }

    /// The key as kept: its comment made printable and short.
    pub fn from_key(key: &PublicKey) -> AuthorizedKey {
        let comment: String = key
            .comment()
            .as_str_lossy()
            .chars()
            .filter(|c| c.is_ascii_graphic() || *c == ' ')
            .take(MAX_COMMENT)
            .collect();
        let comment = comment.trim().to_owned();
        let mut kept = key.clone();
        kept.set_comment(comment.as_str());
        let kind = key.algorithm().as_str().to_owned();
        // Writing a key just read cannot fail; should it, its base64 alone is the key.
        let line = kept.to_openssh().unwrap_or_else(|_| kind.clone());
        AuthorizedKey {
            line,
            fingerprint: key.fingerprint(HashAlg::Sha256).to_string(),
            kind,
            comment,
        }
    }

    /// Whether `offered` is this key (the comment aside).
    pub fn matches(line: &str, offered: &PublicKey) -> bool {
        PublicKey::from_openssh(line).is_ok_and(|kept| kept.key_data() == offered.key_data())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A real Ed25519 public key (made by ssh-keygen for this test).
    const ED25519: &str =
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBOAAwvffFQFlR1AsiPbRkGrG8c66mTu+xUNpahlgFC1 ann@lab";

    #[test]
    fn a_pub_line_is_kept_in_one_line_form_with_its_fingerprint() {
        let key = AuthorizedKey::parse(&format!("  {ED25519}  \n")).unwrap();
        assert_eq!(key.line, ED25519);
        assert_eq!(key.kind, "ssh-ed25519");
        assert_eq!(key.comment, "ann@lab");
        // As `ssh-keygen -lf` printed it for this key.
        assert_eq!(
            key.fingerprint,
            "SHA256:EvoSdRTlnxY3WAujYCM2yvPLze9NufJ5+6hugvW5Is4"
        );
        let offered = PublicKey::from_openssh(ED25519).unwrap();
        assert!(AuthorizedKey::matches(&key.line, &offered));
        assert!(!AuthorizedKey::matches("ssh-ed25519 AAAA", &offered));
    }

    #[test]
    fn what_is_not_a_public_key_is_refused_with_what_to_do() {
        assert_eq!(AuthorizedKey::parse(" "), Err(BadKey::Missing));
        assert_eq!(AuthorizedKey::parse("hello world"), Err(BadKey::NotAKey));
        assert_eq!(
            AuthorizedKey::parse("-----BEGIN OPENSSH PRIVATE KEY-----"),
            Err(BadKey::Private)
        );
        assert_eq!(
            AuthorizedKey::parse(&"x".repeat(5000)),
            Err(BadKey::TooLong)
        );
        let cut = &ED25519[..40];
        assert_eq!(AuthorizedKey::parse(cut), Err(BadKey::NotAKey));
    }
}
