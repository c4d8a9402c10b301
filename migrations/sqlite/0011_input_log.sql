-- Input lines as the recorder writes them, in the order written (issue 29; see
-- docs/decisions.md, "The inputs' log"). `inputs` is kept in recording order, so a
-- second of 10,000 players' lines put there dirtied a page per recording playing, and
-- more as the table grew; appended here they fill a few pages at the table's end. The
-- writer moves them to `inputs` every minute or 200,000 rows, and when it starts (what
-- a crash left); readers read both. Same columns as `inputs`, no key: a batch written
-- twice (a commit whose answer was lost) is one row in `inputs` after the move.
CREATE TABLE input_log (
    recording_id INTEGER NOT NULL,
    batch        INTEGER NOT NULL,
    lines        TEXT NOT NULL
);
