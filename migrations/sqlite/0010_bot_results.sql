-- A result reached by a bot (SPEC section 12: `bot NAME`) is marked, so that the
-- leaderboards rank bots apart from people (`top bots GAME [LEVEL]` shows theirs).
-- FALSE for results made before this version (bots did not exist).
ALTER TABLE results ADD COLUMN bot BOOLEAN NOT NULL DEFAULT FALSE;
