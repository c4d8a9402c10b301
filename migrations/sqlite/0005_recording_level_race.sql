-- The teacher's web page lists recordings by level and the results CSV names each
-- result's race: a recording keeps its leaderboard's level (as `top GAME LEVEL`
-- names it) and the race it was played in (its number on the instance that ran it;
-- numbers start again at 1 when the server does). NULL for recordings made before
-- this version (no level) and for games outside a race.
ALTER TABLE recordings ADD COLUMN level TEXT;
ALTER TABLE recordings ADD COLUMN race INTEGER;
CREATE INDEX recordings_by_game ON recordings (game, level, id);
