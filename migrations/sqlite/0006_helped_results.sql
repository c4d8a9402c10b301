-- A result reached after the player asked for help (`/hint`, `/solve`: SPEC section
-- 13) is marked, so that the leaderboards rank honest results first and the teacher's
-- CSV shows it. The replay that checks a result checks the mark too: it is read from
-- the recording's own lines. FALSE for results made before this version.
ALTER TABLE results ADD COLUMN helped BOOLEAN NOT NULL DEFAULT FALSE;
