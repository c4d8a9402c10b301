-- Recordings, results and unfinished games (SPEC section 8).

-- A game as it started; its inputs are in `inputs`. The server gives the ids.
-- state: 'open' (being played), 'ended', 'unfinished' (a registered player's game that
-- lost its connection: resume plays it on), 'discarded' (the player started another).
CREATE TABLE recordings (
    id          INTEGER PRIMARY KEY NOT NULL,
    player      TEXT NOT NULL,
    player_key  TEXT NOT NULL,
    registered  INTEGER NOT NULL,
    game        TEXT NOT NULL,
    args        TEXT NOT NULL,
    memory      TEXT NOT NULL DEFAULT '',
    world       TEXT,
    started_at  INTEGER NOT NULL,
    state       TEXT NOT NULL,
    inputs      INTEGER NOT NULL DEFAULT 0,
    duration_ms INTEGER NOT NULL DEFAULT 0,
    outcome     TEXT
);
CREATE INDEX recordings_by_player ON recordings (player_key, id);
CREATE INDEX recordings_by_state ON recordings (state, player_key);
CREATE INDEX recordings_by_age ON recordings (started_at);

-- Input lines in batches: `MS LINE` per line (src/recording.rs); a batch is numbered by
-- its first line in the recording, from 0.
CREATE TABLE inputs (
    recording_id INTEGER NOT NULL,
    batch        INTEGER NOT NULL,
    lines        TEXT NOT NULL,
    PRIMARY KEY (recording_id, batch)
) WITHOUT ROWID;

-- A level solved or a game ended by its rules, by a named player. `upto`: the inputs
-- of the recording that reach it. verified: NULL until the server has replayed the
-- recording, then 1 (same end: on the leaderboards) or 0 (kept out).
CREATE TABLE results (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    recording_id INTEGER NOT NULL,
    upto         INTEGER NOT NULL,
    player       TEXT NOT NULL,
    player_key   TEXT NOT NULL,
    registered   INTEGER NOT NULL,
    game         TEXT NOT NULL,
    level        TEXT NOT NULL,
    args         TEXT NOT NULL,
    outcome      TEXT NOT NULL,
    moves        INTEGER NOT NULL,
    pushes       INTEGER NOT NULL,
    score        INTEGER NOT NULL,
    largest_tile INTEGER NOT NULL,
    gold         INTEGER NOT NULL,
    duration_ms  INTEGER NOT NULL,
    finished_at  INTEGER NOT NULL,
    verified     INTEGER
);
CREATE INDEX results_by_board ON results (game, level, verified);
CREATE INDEX results_by_player ON results (player_key);
CREATE INDEX results_by_recording ON results (recording_id);
CREATE INDEX results_pending ON results (id) WHERE verified IS NULL;
