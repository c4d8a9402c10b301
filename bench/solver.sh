#!/usr/bin/env bash
# The Sokoban solver's figures (docs/BENCHMARKS.md, "Sokoban solver (issue 33)"):
# builds the release binary and runs `arcade check-levels --solve --time $TIME` on
# Microban (155 levels) and on Star Pusher's 201 levels, one thread, levels in order.
# Prints each collection's summary line, the total and median time of the solved
# levels, and the peak memory (max RSS, from /usr/bin/time -v).
#
#   bench/solver.sh                 # 10 s per level: up to ~26 + ~34 minutes
#   TIME=2s bench/solver.sh         # a quick look
#   LEVELS=../shared/data/levels bench/solver.sh
#
# Results (each level's line, time's report) stay in $OUT (printed at the end).
set -euo pipefail
cd "$(dirname "$0")/.."
TIME=${TIME:-10s}
LEVELS=${LEVELS:-../shared/data/levels}
OUT=${OUT:-$(mktemp -d /tmp/arcade-solver.XXXXXX)}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
cargo build --release --bin arcade >&2
ARCADE=$CARGO_TARGET_DIR/release/arcade
TIMER=/usr/bin/time
[ -x "$TIMER" ] || { echo "needs /usr/bin/time (GNU time) for the peak memory" >&2; exit 1; }
for file in microban_155.xsb starPusherLevels.txt; do
    name=${file%%.*}
    # check-levels exits 1 only for a level proven unsolvable: report, do not stop.
    "$TIMER" -v "$ARCADE" check-levels --solve --time "$TIME" "$LEVELS/$file" \
        > "$OUT/$name.txt" 2> "$OUT/$name.time" || true
    tail -n 1 "$OUT/$name.txt"
    grep -o '([0-9.]* s)$' "$OUT/$name.txt" | tr -d '(s) ' | sort -g | awk -v name="$name" '
        { t[NR] = $1; sum += $1 }
        END { if (NR) printf "%s: solved levels took %.1f s in total, median %.2f s\n", name, sum, t[int((NR + 1) / 2)] }'
    awk -v name="$name" '/Maximum resident/ { printf "%s: peak memory %.0f MiB\n", name, $NF / 1024 }' "$OUT/$name.time"
done
echo "results in $OUT"
