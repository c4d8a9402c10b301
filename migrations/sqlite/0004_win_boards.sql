-- 2048 per win value (issue 30): a game played to another win value than 2048 has a
-- leaderboard of its own, its level `size=4 win=64`; `size=4` alone is the board of
-- the default, 2048. Results written before were keyed by the size alone: this moves
-- each to the board of the win value in its arguments (`win=N` among the words, in
-- any case, leading zeros dropped as the game reads them).
UPDATE results
SET level = level || ' win=' || ltrim(
    substr(
        substr(' ' || lower(args) || ' ', instr(' ' || lower(args) || ' ', ' win=') + 5),
        1,
        instr(substr(' ' || lower(args) || ' ', instr(' ' || lower(args) || ' ', ' win=') + 5), ' ') - 1
    ),
    '0'
)
WHERE game = '2048'
  AND level NOT LIKE '% win=%'
  AND instr(' ' || lower(args) || ' ', ' win=') > 0
  AND ltrim(
    substr(
        substr(' ' || lower(args) || ' ', instr(' ' || lower(args) || ' ', ' win=') + 5),
        1,
        instr(substr(' ' || lower(args) || ' ', instr(' ' || lower(args) || ' ', ' win=') + 5), ' ') - 1
    ),
    '0'
  ) <> '2048';
