-- Ladders (SPEC section 12): an admin opens one on a game, a range of seeds, a time per
-- move and a deadline; every entrant, bot or person, plays every seed once, each seed
-- a game of its own with its own recording. Ladders are never deleted (closing one
-- sets `closed_at`), so their results and baselines need no ON DELETE CASCADE.
-- Times are Unix milliseconds; seeds are within a signed 64-bit integer (the server
-- refuses larger ones before they reach the store).

-- A ladder. `move_ms`: the time per move (NULL: none); `deadline`: when it closes by
-- itself (NULL: when an admin closes it); `humans`: whether people may enter besides
-- bots; `closed_at`: NULL while it is open.
CREATE TABLE ladders (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    game       TEXT NOT NULL,
    first_seed INTEGER NOT NULL,
    last_seed  INTEGER NOT NULL,
    move_ms    INTEGER,
    deadline   INTEGER,
    humans     INTEGER NOT NULL,
    opened_by  TEXT NOT NULL,
    opened_at  INTEGER NOT NULL,
    closed_at  INTEGER,
    CHECK (first_seed <= last_seed)
);

-- One seed played by one entrant: once (the UNIQUE constraint). `recording_id`: the
-- seed's game (NULL: none was recorded, as for a seed forfeited before its first move).
-- verified: NULL until the server has replayed the recording, then 1 (same end: on the
-- ladder's table) or 0 (kept out). A forfeit (the time per move overrun) needs no
-- replay: it stays NULL and is never pending.
CREATE TABLE ladder_results (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    ladder_id    INTEGER NOT NULL REFERENCES ladders (id),
    player       TEXT NOT NULL,
    player_key   TEXT NOT NULL,
    bot          INTEGER NOT NULL,
    seed         INTEGER NOT NULL,
    recording_id INTEGER,
    score        INTEGER NOT NULL,
    moves        INTEGER NOT NULL,
    outcome      TEXT NOT NULL,
    forfeit      INTEGER NOT NULL,
    finished_at  INTEGER NOT NULL,
    verified     INTEGER,
    UNIQUE (ladder_id, player_key, seed)
);
CREATE INDEX ladder_results_pending ON ladder_results (id)
    WHERE verified IS NULL AND NOT forfeit AND recording_id IS NOT NULL;

-- What a built-in agent scored on one seed of a ladder: what the table compares with.
CREATE TABLE ladder_baselines (
    ladder_id INTEGER NOT NULL REFERENCES ladders (id),
    seed      INTEGER NOT NULL,
    agent     TEXT NOT NULL,
    score     INTEGER NOT NULL,
    PRIMARY KEY (ladder_id, seed, agent)
) WITHOUT ROWID;
