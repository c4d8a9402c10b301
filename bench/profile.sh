#!/usr/bin/env bash
# Where a recorded command's CPU goes (issue 29): one release server on CPU 0 under
# row 2's load (10,000 guests in classic Sokoban at a command a second, recording on),
# `perf record -g` on it for SECONDS in the measured window, then the top of the
# profile by symbol (self time) and the loadtest's own report (server CPU per
# command). Needs perf; the servers' binaries as bench/run.sh builds them.
#
#   bench/profile.sh                                   # this build
#   ARCADE=/path/to/other/arcade OUT=/tmp/p bench/profile.sh   # another build
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=${CARGO_TARGET_DIR:-target}
ARCADE=${ARCADE:-$TARGET/release/arcade}
LOADTEST=${LOADTEST:-$TARGET/release/arcade-loadtest}
OUT=${OUT:-$(mktemp -d /tmp/arcade-profile.XXXXXX)}
PORT=${PORT:-24110}
SECONDS_RECORDED=${SECONDS_RECORDED:-5}
SESSIONS=${SESSIONS:-10000}
command -v perf >/dev/null || { echo "skipped: perf is not installed (apt-get install linux-perf)"; exit 0; }
mkdir -p "$OUT"
rm -rf "$OUT/data"
RUST_LOG=warn taskset -c 0 "$ARCADE" serve --bind 127.0.0.1 --port "$PORT" \
    --max-sessions 20000 --max-per-address 20000 --data-dir "$OUT/data" 2>"$OUT/server.log" &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
    sleep 0.1
done
taskset -c 1 "$LOADTEST" --addr "127.0.0.1:$PORT" --sessions "$SESSIONS" --rate 1 \
    --ramp 1500ms --warmup 3s --duration $((SECONDS_RECORDED + 6))s --sources 16 \
    --json --quiet --server-pid "$server" >"$OUT/load.json" &
load=$!
sleep 6.5
perf record -F ${FREQUENCY:-999} --call-graph dwarf,16384 -p "$server" -o "$OUT/perf.data" -- sleep "$SECONDS_RECORDED" 2>"$OUT/perf.log"
wait "$load"
perf report -i "$OUT/perf.data" --no-children --sort dso,symbol --percent-limit 1.5 --stdio 2>/dev/null \
    | grep -E '^ +[0-9]' | head -30 | tee "$OUT/top.txt"
python3 - "$OUT/load.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
keys = ("commands_per_second", "p99_ms", "server_cpu_us_per_command", "failures", "errors")
print({k: report[k] for k in keys if k in report})
PY
echo "profile and reports in $OUT"
