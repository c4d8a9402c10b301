-- Registered players: a name protected by a password (SPEC section 7). The same
-- meaning as migrations/sqlite/0001_accounts.sql.
-- name_key is the name in lower case: names are unique ignoring case.
CREATE TABLE accounts (
    name_key      TEXT PRIMARY KEY NOT NULL,
    name          TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    -- The player's settings (section 10), as `chat=on keys=off ...`.
    settings      TEXT NOT NULL DEFAULT '',
    -- Unix seconds.
    created_at    BIGINT NOT NULL
);
