//! The name of a saved game: checked once, where the player types it, and carried as a
//! type from then on, so that nothing else has to check it again before it comes near
//! a path.

/// The most characters a save name may have.
pub const MAX_SAVE_NAME: usize = 32;

/// A name `save NAME` accepts and `play GAME NAME` looks up: 1 to 32 ASCII letters,
/// digits, `-` or `_`, kept in lower case so that it matches the level catalog's
/// case-insensitive names on any file system. Nothing else can come near a path, so a
/// save never leaves the data directory.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SaveName(String);

/// A name that is not a valid [`SaveName`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Cannot save as {0:?}: use 1 to {MAX_SAVE_NAME} letters, digits, '-' or '_'.")]
pub struct BadSaveName(pub String);

impl SaveName {
    /// Check `name` against the save alphabet.
    ///
    /// # Errors
    /// [`BadSaveName`] for an empty name, one longer than 32, or any other character.
    pub fn parse(name: &str) -> Result<SaveName, BadSaveName> {
        let valid = !name.is_empty()
            && name.len() <= MAX_SAVE_NAME
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if valid {
            Ok(SaveName(name.to_ascii_lowercase()))
        } else {
            Err(BadSaveName(name.to_string()))
        }
    }

    /// The name, in lower case.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The name, in lower case, as an owned string.
    pub fn into_string(self) -> String {
        self.0
    }
}

impl std::fmt::Display for SaveName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(SaveName::parse("Cave-1_B").unwrap().as_str(), "cave-1_b");
        assert!(SaveName::parse(&"x".repeat(32)).is_ok());
        for bad in ["", "../etc", "a b", "a.txt", "é", &"x".repeat(33)] {
            assert!(SaveName::parse(bad).is_err(), "{bad:?}");
        }
    }
}
