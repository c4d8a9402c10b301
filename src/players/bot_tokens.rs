//! A registered player's bot tokens (SPEC section 12, `bottoken new`; `bot NAME TOKEN`
//! logs a bot in without the password): how a token is made, read back from what a
//! bot sends, and hashed for the store, which keeps the hash only.
//!
//! A token is `arcbot_` and 32 lowercase hex digits: 128 bits from a generator seeded
//! by the operating system. Being that random, it needs no password stretching: a
//! plain SHA-256 keeps it safe in the database, and checking one costs the server
//! next to nothing (argon2 would be CPU any client could make it spend). The store
//! finds a token by its hash, so no comparison of secrets happens here to be timed:
//! what an index lookup's timing could tell is how much of a SHA-256 hash matched,
//! which brings no one closer to a token.

use std::fmt;

use rand::RngCore;
use sha2::{Digest, Sha256};

/// The most tokens one player may hold.
pub const MAX_TOKENS: usize = 5;

/// How every token starts: a token pasted into the wrong place is recognisable (and
/// a secret scanner can find one in a shared file).
pub const TOKEN_START: &str = "arcbot_";

/// The random part's length, in hex digits (128 bits).
const SECRET_DIGITS: usize = 32;

/// How many hex digits of the random part `bottoken list` shows to tell tokens apart
/// (16 bits: 112 stay secret).
const SHOWN_DIGITS: usize = 4;

/// A bot token, whole: a secret. Its `Debug` shows only its [`prefix`](Self::prefix),
/// so that a token never reaches a log by accident.
#[derive(Clone, PartialEq, Eq)]
pub struct BotToken(String);

/// A token's SHA-256 hash, 64 lowercase hex digits: what the store keeps and looks up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenHash(String);

/// Why a bot's text is not a token. The messages never repeat the text: it may be a
/// token mistyped, or a password.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum BadToken {
    /// Nothing was given.
    #[error(
        "No token given: a bot token is arcbot_ and 32 hex digits, as bottoken new showed it."
    )]
    Missing,
    /// It does not start as tokens do.
    #[error("That is not a bot token: a bot token starts with arcbot_ (bottoken new makes one).")]
    NotAToken,
    /// Too short or too long.
    #[error(
        "That bot token has the wrong length: it is arcbot_ and 32 hex digits; copy it whole."
    )]
    WrongLength,
    /// Something other than `0`-`9` and `a`-`f` after `arcbot_`.
    #[error("That bot token has a character it cannot have: after arcbot_ come only 0-9 and a-f.")]
    NotHex,
}

impl BotToken {
    /// A new token, from the thread's generator (ChaCha, seeded and reseeded from the
    /// operating system: the generator the admins' web logins use too).
    pub fn generate() -> BotToken {
        let mut bytes = [0u8; SECRET_DIGITS / 2];
        rand::rng().fill_bytes(&mut bytes);
        let mut text = String::with_capacity(TOKEN_START.len() + SECRET_DIGITS);
        text.push_str(TOKEN_START);
        push_hex(&mut text, &bytes);
        BotToken(text)
    }

    /// Read a token as a bot sent it (white space around it is not part of it).
    ///
    /// # Errors
    /// [`BadToken`], saying what a token looks like.
    pub fn parse(text: &str) -> Result<BotToken, BadToken> {
        let text = text.trim();
        if text.is_empty() {
            return Err(BadToken::Missing);
        }
        let Some(secret) = text.strip_prefix(TOKEN_START) else {
            return Err(BadToken::NotAToken);
        };
        if secret.len() != SECRET_DIGITS {
            return Err(BadToken::WrongLength);
        }
        if !secret
            .bytes()
            .all(|byte| matches!(byte, b'0'..=b'9' | b'a'..=b'f'))
        {
            return Err(BadToken::NotHex);
        }
        Ok(BotToken(text.to_owned()))
    }

    /// The whole token, to show its owner once (`bottoken new`).
    pub fn secret(&self) -> &str {
        &self.0
    }

    /// What may be shown of it later (`bottoken list`) and kept in the clear:
    /// `arcbot_` and the first hex digits.
    pub fn prefix(&self) -> &str {
        self.0
            .get(..TOKEN_START.len() + SHOWN_DIGITS)
            .unwrap_or(TOKEN_START)
    }

    /// Its SHA-256 hash, as the store keeps it.
    pub fn hash(&self) -> TokenHash {
        let digest = Sha256::digest(self.0.as_bytes());
        let mut hex = String::with_capacity(2 * digest.len());
        push_hex(&mut hex, &digest);
        TokenHash(hex)
    }
}

impl fmt::Debug for BotToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BotToken({}...)", self.prefix())
    }
}

impl TokenHash {
    /// The 64 hex digits.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// `bytes` in lowercase hex, after `text`.
fn push_hex(text: &mut String, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for byte in bytes {
        text.push(char::from(DIGITS[usize::from(byte >> 4)]));
        text.push(char::from(DIGITS[usize::from(byte & 0x0f)]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_token_is_arcbot_and_32_hex_digits_and_reads_back() {
        let token = BotToken::generate();
        let text = token.secret();
        assert_eq!(text.len(), 39, "{text}");
        assert!(text.starts_with("arcbot_"), "{text}");
        assert!(text[7..]
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
        assert_eq!(BotToken::parse(&format!(" {text}\r\n")), Ok(token.clone()));
        assert_eq!(token.prefix(), &text[..11]);
        // Two tokens are never the same (128 random bits each).
        assert_ne!(BotToken::generate(), BotToken::generate());
    }

    #[test]
    fn the_hash_is_sha256_in_hex() {
        let token = BotToken::parse("arcbot_00112233445566778899aabbccddeeff").unwrap();
        // `printf %s arcbot_00112233445566778899aabbccddeeff | sha256sum`.
        assert_eq!(
            token.hash().as_str(),
            "3dd4867d631357d2f994b609451d4240ec28a5cb1b89c77278f3da40953e2a79"
        );
        assert_eq!(token.prefix(), "arcbot_0011");
        let other = BotToken::parse("arcbot_00112233445566778899aabbccddeefe").unwrap();
        assert_ne!(token.hash(), other.hash());
    }

    #[test]
    fn what_is_not_a_token_is_refused_with_what_a_token_looks_like() {
        let good = "arcbot_00112233445566778899aabbccddeeff";
        assert_eq!(BotToken::parse("  "), Err(BadToken::Missing));
        assert_eq!(
            BotToken::parse("hunter2-my-password"),
            Err(BadToken::NotAToken)
        );
        assert_eq!(BotToken::parse(&good[1..]), Err(BadToken::NotAToken));
        assert_eq!(BotToken::parse(&good[..38]), Err(BadToken::WrongLength));
        assert_eq!(
            BotToken::parse(&format!("{good}0")),
            Err(BadToken::WrongLength)
        );
        assert_eq!(
            BotToken::parse(&good.to_ascii_uppercase().replace("ARCBOT_", "arcbot_")),
            Err(BadToken::NotHex)
        );
        assert_eq!(
            BotToken::parse("arcbot_00112233445566778899aabbccddeefg"),
            Err(BadToken::NotHex)
        );
        // Multi-byte characters of the right byte length are not hex either.
        assert_eq!(
            BotToken::parse("arcbot_é01122334455667788990aabbccddee"),
            Err(BadToken::NotHex)
        );
    }

    #[test]
    fn debug_never_shows_the_secret() {
        let token = BotToken::parse("arcbot_00112233445566778899aabbccddeeff").unwrap();
        let shown = format!("{token:?}");
        assert_eq!(shown, "BotToken(arcbot_0011...)");
    }
}
