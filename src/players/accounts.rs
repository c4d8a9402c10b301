//! Players' names, passwords and settings (SPEC section 7), and what keeps other
//! players' terminals safe from what a player types.
//!
//! - [`PlayerName`]: 2 to 16 letters, digits, `-` or `_`, unique ignoring case.
//!   Guests are `guest-N`; no one may choose a name starting with `guest-`, so a
//!   guest's name never collides with a chosen or registered one.
//! - Passwords are hashed with Argon2id (RustCrypto `argon2`, its recommended
//!   parameters and a random salt) on the hashing threads
//!   ([`super::hashing::Hasher`]), never logged, and compared by the hash's own
//!   verification. [`super::throttle`] limits the attempts.
//! - [`clean_text`]: what one player sends another has no control characters, so no
//!   escape sequence can reach another terminal, and is at most [`MAX_CHAT`]
//!   characters long.

use std::sync::Arc;

use argon2::{Argon2, PasswordHasher as _, PasswordVerifier as _};

/// The longest name.
pub const MAX_NAME: usize = 16;

/// What a guest's name starts with.
pub const GUEST_PREFIX: &str = "guest-";

/// The longest line of chat, in characters.
pub const MAX_CHAT: usize = 300;

/// The shortest password accepted.
pub const MIN_PASSWORD: usize = 6;

/// The longest password accepted (Argon2 takes any length; this bounds the work).
pub const MAX_PASSWORD: usize = 128;

/// A player's name: checked once, carried as a type. Shared rather than copied: the
/// seat, the registry and the places a player is shown in each hold it, and with
/// thousands of idle players each copy was an allocation (issue 29).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PlayerName(Arc<str>);

/// Why a name cannot be taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum BadName {
    /// Outside the alphabet or the length.
    #[error("A name is 2 to {MAX_NAME} letters, digits, '-' or '_'.")]
    Form,
    /// Starts like a guest's name.
    #[error("Names starting with guest- are for guests: choose another.")]
    Guest,
}

/// As its text: an upgrade hands names to the new process (SPEC section 11).
impl serde::Serialize for PlayerName {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

/// Checked like a name from another instance: a chosen name's form, or a guest's.
impl<'de> serde::Deserialize<'de> for PlayerName {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        PlayerName::from_peer(&text)
            .ok_or_else(|| serde::de::Error::custom(format!("not a player's name: {text:?}")))
    }
}

impl PlayerName {
    /// Check a name a player typed.
    ///
    /// # Errors
    /// [`BadName`] saying what a name may be.
    pub fn parse(text: &str) -> Result<PlayerName, BadName> {
        if !PlayerName::has_form(text) {
            return Err(BadName::Form);
        }
        if text.to_ascii_lowercase().starts_with(GUEST_PREFIX) {
            return Err(BadName::Guest);
        }
        Ok(PlayerName(Arc::from(text)))
    }

    /// Whether `text` has the form of a name, a guest's included: 2 to 16 letters,
    /// digits, `-` or `_`. What a command that looks a player up accepts.
    pub fn has_form(text: &str) -> bool {
        (2..=MAX_NAME).contains(&text.len())
            && text
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    }

    /// A name another instance reports (`--bus`): a chosen name, or a guest's. Checked
    /// like a typed one, so that nothing from the bus reaches a terminal unchecked.
    pub fn from_peer(text: &str) -> Option<PlayerName> {
        if let Ok(name) = PlayerName::parse(text) {
            return Some(name);
        }
        let digits = text.strip_prefix(GUEST_PREFIX)?;
        (!digits.is_empty() && digits.len() <= 20 && digits.bytes().all(|b| b.is_ascii_digit()))
            .then(|| PlayerName(Arc::from(text)))
    }

    /// The guest name of session number `n`.
    pub fn guest(n: u64) -> PlayerName {
        PlayerName(Arc::from(format!("{GUEST_PREFIX}{n}")))
    }

    /// The name as chosen.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The name itself, shared.
    pub fn shared(&self) -> Arc<str> {
        Arc::clone(&self.0)
    }

    /// The name in lower case, shared: the name itself when it is in lower case
    /// already (every guest's), so that the registry's map of names holds no copy.
    pub fn shared_key(&self) -> Arc<str> {
        if self.0.bytes().any(|b| b.is_ascii_uppercase()) {
            Arc::from(self.key())
        } else {
            Arc::clone(&self.0)
        }
    }

    /// The name in lower case: what is unique.
    pub fn key(&self) -> String {
        self.0.to_ascii_lowercase()
    }

    /// Whether this is a guest's name.
    pub fn is_guest(&self) -> bool {
        self.0.starts_with(GUEST_PREFIX)
    }
}

impl std::fmt::Display for PlayerName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// `text` with every control character removed (so that no escape sequence can be
/// formed) and runs of white space made one space ([`crate::text::collapsed`]), at
/// most [`MAX_CHAT`] characters.
/// `Err` with the cleaned text's length when it is longer than that.
pub fn clean_text(text: &str) -> Result<String, usize> {
    let cleaned = crate::text::collapsed(text);
    let length = cleaned.chars().count();
    if length > MAX_CHAT {
        return Err(length);
    }
    Ok(cleaned)
}

/// What an admin is told once `name`'s account is deleted (`unregister`, `arcade
/// accounts delete`): its results and recordings stay.
pub fn unregistered(name: &PlayerName) -> String {
    format!("{name} is unregistered: the name is free again.")
}

/// A player's settings (SPEC section 10); registered players keep them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Settings {
    /// Hear `say` from others.
    pub chat: bool,
    /// Single keys and the server's line editing (SPEC section 10).
    pub keys: bool,
    /// ANSI colours and boards drawn in place.
    pub color: bool,
    /// A line after each push that makes a Sokoban level unsolvable (SPEC section 13).
    pub warnings: bool,
    /// Screen readers: boards described in words, never drawn (SPEC section 10).
    pub reader: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            chat: true,
            keys: false,
            color: false,
            warnings: false,
            reader: false,
        }
    }
}

/// A setting that `set` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting {
    /// `chat`.
    Chat,
    /// `keys`.
    Keys,
    /// `color`.
    Color,
    /// `warnings`.
    Warnings,
    /// `reader`.
    Reader,
}

impl Setting {
    /// Every setting, in the order `set` lists them.
    pub const ALL: &'static [Setting] = &[
        Setting::Chat,
        Setting::Keys,
        Setting::Color,
        Setting::Warnings,
        Setting::Reader,
    ];

    /// The setting called `word` (any case).
    pub fn from_name(word: &str) -> Option<Setting> {
        Setting::ALL
            .iter()
            .copied()
            .find(|setting| setting.name().eq_ignore_ascii_case(word))
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Setting::Chat => "chat",
            Setting::Keys => "keys",
            Setting::Color => "color",
            Setting::Warnings => "warnings",
            Setting::Reader => "reader",
        }
    }
}

impl Settings {
    /// The value of `setting`.
    pub fn get(&self, setting: Setting) -> bool {
        match setting {
            Setting::Chat => self.chat,
            Setting::Keys => self.keys,
            Setting::Color => self.color,
            Setting::Warnings => self.warnings,
            Setting::Reader => self.reader,
        }
    }

    /// Change `setting`.
    pub fn set(&mut self, setting: Setting, on: bool) {
        match setting {
            Setting::Chat => self.chat = on,
            Setting::Keys => self.keys = on,
            Setting::Color => self.color = on,
            Setting::Warnings => self.warnings = on,
            Setting::Reader => self.reader = on,
        }
    }

    /// As the store keeps them: `chat=on`. Settings the store has that this version
    /// does not know are ignored when read.
    pub fn to_stored(&self) -> String {
        let words: Vec<String> = Setting::ALL
            .iter()
            .map(|setting| format!("{}={}", setting.name(), on_off(self.get(*setting))))
            .collect();
        words.join(" ")
    }

    /// Read what [`Settings::to_stored`] wrote; anything unknown keeps its default.
    pub fn from_stored(text: &str) -> Settings {
        let mut settings = Settings::default();
        for word in text.split_whitespace() {
            let Some((name, value)) = word.split_once('=') else {
                continue;
            };
            if let (Some(setting), Some(on)) = (Setting::from_name(name), parse_on_off(value)) {
                settings.set(setting, on);
            }
        }
        // Colour is noise to a screen reader: reader mode keeps it off (SPEC 10).
        if settings.reader {
            settings.color = false;
        }
        settings
    }
}

/// `on` or `off`.
pub fn on_off(on: bool) -> &'static str {
    if on {
        "on"
    } else {
        "off"
    }
}

/// `on` or `off` (any case).
pub fn parse_on_off(word: &str) -> Option<bool> {
    if word.eq_ignore_ascii_case("on") {
        Some(true)
    } else if word.eq_ignore_ascii_case("off") {
        Some(false)
    } else {
        None
    }
}

/// Why a password could not be hashed or checked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the password could not be hashed: {0}")]
pub struct HashError(String);

/// The Argon2id hash of `password`, in PHC format. Slow on purpose: call it on a
/// blocking thread.
///
/// # Errors
/// [`HashError`] if the system's random generator fails.
pub fn hash_password(password: &str) -> Result<String, HashError> {
    Argon2::default()
        .hash_password(password.as_bytes())
        .map(|hash| hash.to_string())
        .map_err(|error| HashError(error.to_string()))
}

/// Whether `password` matches `hash` (a damaged hash matches nothing). Slow on
/// purpose: call it on a blocking thread.
pub fn verify_password(password: &str, hash: &str) -> bool {
    Argon2::default()
        .verify_password(password.as_bytes(), hash)
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(PlayerName::parse("Ann_2-b").unwrap().key(), "ann_2-b");
        assert_eq!(PlayerName::parse("Ann").unwrap().as_str(), "Ann");
        for bad in [
            "a",
            "",
            "seventeen-chars-x",
            "a b",
            "é1",
            "ann!",
            "\u{1b}[2J",
        ] {
            assert_eq!(PlayerName::parse(bad), Err(BadName::Form), "{bad:?}");
        }
        assert_eq!(PlayerName::parse("Guest-7"), Err(BadName::Guest));
        assert!(PlayerName::guest(7).is_guest());
        assert_eq!(PlayerName::guest(7).as_str(), "guest-7");
    }

    #[test]
    fn text_loses_control_characters_and_is_capped() {
        assert_eq!(
            clean_text(" hi \u{1b}[31mred\u{7}\r\u{9b}2J "),
            Ok(String::from("hi [31mred 2J"))
        );
        assert_eq!(
            clean_text(&"é".repeat(MAX_CHAT)).map(|t| t.chars().count()),
            Ok(MAX_CHAT)
        );
        assert_eq!(clean_text(&"x".repeat(MAX_CHAT + 1)), Err(MAX_CHAT + 1));
    }

    #[test]
    fn settings_round_trip_and_ignore_the_unknown() {
        let mut settings = Settings::default();
        assert!(settings.chat);
        settings.set(Setting::Chat, false);
        assert_eq!(
            settings.to_stored(),
            "chat=off keys=off color=off warnings=off reader=off"
        );
        settings.set(Setting::Keys, true);
        assert_eq!(
            Settings::from_stored("chat=off keys=on junk sound=on"),
            settings
        );
        assert_eq!(Settings::from_stored(&settings.to_stored()), settings);
        assert_eq!(Settings::from_stored(""), Settings::default());
        assert_eq!(Setting::from_name("CHAT"), Some(Setting::Chat));
        assert_eq!(parse_on_off("Off"), Some(false));
        assert_eq!(parse_on_off("maybe"), None);
    }

    #[test]
    fn passwords_hash_with_argon2id_and_verify() {
        let hash = hash_password("correct horse").unwrap();
        assert!(hash.starts_with("$argon2id$"), "{hash}");
        assert!(!hash.contains("correct horse"));
        assert!(verify_password("correct horse", &hash));
        assert!(!verify_password("correct hors", &hash));
        assert!(!verify_password("correct horse", "not a hash"));
        // A fresh salt each time.
        assert_ne!(hash, hash_password("correct horse").unwrap());
    }
}
