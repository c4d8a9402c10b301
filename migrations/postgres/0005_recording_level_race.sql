-- The same meaning as migrations/sqlite/0004_recording_level_race.sql: a recording's
-- leaderboard level and the race it was played in (NULL before this version, and
-- outside a race).
ALTER TABLE recordings ADD COLUMN level TEXT;
ALTER TABLE recordings ADD COLUMN race BIGINT;
CREATE INDEX recordings_by_game ON recordings (game, level, id);
