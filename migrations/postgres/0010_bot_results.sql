-- The same meaning as migrations/sqlite/0010_bot_results.sql: a bot's result is
-- marked, so that the leaderboards rank bots apart from people.
ALTER TABLE results ADD COLUMN bot BOOLEAN NOT NULL DEFAULT FALSE;
