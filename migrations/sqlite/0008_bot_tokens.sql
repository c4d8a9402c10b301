-- Tokens a registered player made for their bot programs (SPEC section 12, `bottoken`):
-- `bot NAME TOKEN` logs the bot in without the password. One row per token; only the
-- token's SHA-256 hash is kept (64 lowercase hex digits), never the token, and
-- `prefix` (`arcbot_` and its first hex digits) is what `bottoken list` shows of it.
-- Times are Unix milliseconds; `last_used_at` is NULL until a bot logs in with it.
-- The tokens go with their account.
CREATE TABLE bot_tokens (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    name_key     TEXT NOT NULL REFERENCES accounts (name_key) ON DELETE CASCADE,
    token_hash   TEXT NOT NULL,
    prefix       TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER,
    UNIQUE (name_key, token_hash)
);
