-- Several instances share this database (SPEC section 11).

-- Each running instance: its id names it (on the bus too); it renews heartbeat_at
-- every second. An instance whose heartbeat is a few seconds old is gone: its open
-- recordings may be closed by the others, and the next instance to start takes its
-- id (closing them first), so that ids stay small. Times are the database's clock, in Unix
-- milliseconds, so the instances' clocks need not agree.
CREATE TABLE instances (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    started_at   BIGINT NOT NULL,
    heartbeat_at BIGINT NOT NULL
);

-- The instance that has an open recording (NULL when none has).
ALTER TABLE recordings ADD COLUMN instance BIGINT;
CREATE INDEX recordings_open ON recordings (instance) WHERE state = 'open';

-- Recording ids in blocks of 10,000 (src/store.rs RECORDING_ID_BLOCK): an instance
-- numbers its recordings from its block without asking the database each time.
CREATE SEQUENCE recording_ids START WITH 1 INCREMENT BY 10000;

-- One result per recording and input count (a game gives at most one result per
-- input line): a batch written again after a commit whose answer was lost (the
-- database restarted) adds nothing twice.
CREATE UNIQUE INDEX results_once ON results (recording_id, upto);
