-- The same meaning as migrations/sqlite/0006_helped_results.sql: a result reached
-- after `/hint` or `/solve` is marked (FALSE before this version).
ALTER TABLE results ADD COLUMN helped BOOLEAN NOT NULL DEFAULT FALSE;
