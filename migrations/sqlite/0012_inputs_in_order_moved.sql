-- `inputs` in the order its rows were moved, with an index by recording (issue 29; see
-- docs/decisions.md, "The inputs' log"). Kept in recording order (0002, WITHOUT
-- ROWID), each move of 10,000 players' lines rewrote the last page of every
-- recording, and more pages as the table outgrew SQLite's cache: a move cost 0.2 s in
-- a fresh file and 1.0 s after ten minutes. A table with a row number appends the
-- rows a move writes (one a recording, its logged batches joined) at its end, and
-- what is placed by recording is the index's entry, a few bytes a recording a move.
-- The same name, columns and unique key as before: a server of the version before
-- this one, still running beside this one during an upgrade that fails (SPEC
-- section 11), reads and writes it with its own statements, and reads a joined row
-- as one batch numbered by its first line, which is what it is.
CREATE TABLE inputs_in_order_moved (
    recording_id INTEGER NOT NULL,
    batch        INTEGER NOT NULL,
    lines        TEXT NOT NULL
);
INSERT INTO inputs_in_order_moved (recording_id, batch, lines)
    SELECT recording_id, batch, lines FROM inputs ORDER BY recording_id, batch;
DROP TABLE inputs;
ALTER TABLE inputs_in_order_moved RENAME TO inputs;
CREATE UNIQUE INDEX inputs_by_recording ON inputs (recording_id, batch);
