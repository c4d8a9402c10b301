-- Public keys a registered player added for SSH logins (SPEC section 11, `sshkey`).
-- One row per key; `key` is the OpenSSH one-line form (type, base64 and comment) as
-- the server wrote it back after parsing, `fingerprint` its SHA256 fingerprint (one
-- key once per player). The keys go with their account.
CREATE TABLE ssh_keys (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    name_key    TEXT NOT NULL REFERENCES accounts (name_key) ON DELETE CASCADE,
    key         TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    added_at    INTEGER NOT NULL,
    UNIQUE (name_key, fingerprint)
);
