-- Several instances (SPEC section 11). On SQLite there is one instance per file, so
-- only the column is added, for the same meaning as PostgreSQL's schema: the
-- instance that has an open recording (NULL when no instance has it open).
ALTER TABLE recordings ADD COLUMN instance INTEGER;

-- One result per recording and input count (a game gives at most one result per
-- input line): a batch written again after a commit whose answer was lost (the
-- database restarted) adds nothing twice.
CREATE UNIQUE INDEX results_once ON results (recording_id, upto);
