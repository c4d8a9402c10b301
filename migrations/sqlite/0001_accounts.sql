-- Registered players: a name protected by a password (SPEC section 7).
-- name_key is the name in lower case: names are unique ignoring case.
CREATE TABLE accounts (
    name_key      TEXT PRIMARY KEY NOT NULL,
    name          TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    -- The player's settings (section 10), as `chat=on keys=off ...`: new settings need
    -- no new column.
    settings      TEXT NOT NULL DEFAULT '',
    created_at    INTEGER NOT NULL
);
