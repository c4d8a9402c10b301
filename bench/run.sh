#!/usr/bin/env bash
# The benchmark of BENCHMARKS.md: arcade against arcade-minimal (a tokio server that
# answers every line with a fixed board and does nothing else), the same loads on
# both in the same run, and a table of the ratios.
#
#   bench/run.sh                          # about 13 minutes on 2 cores, 2 more for row 10, 3 for row 11
#   REPS=1 THROUGHPUT_REPS=1 LATENCY_REPS=1 SOCIAL_REPS=1 RACE_REPS=1 WEB_REPS=1 bench/run.sh   # one run of each: about 5 minutes
#   ROWS="6 7 8" bench/run.sh             # only the rows of the players' commands
#   ROWS="2 9" bench/run.sh               # games that end all the time, against row 2
#   ROWS="2 10" bench/run.sh              # a race of 500, against row 2
#   ROWS=11 bench/run.sh                  # row 2's load with and without 50 followers of the
#                                         # web page: about 3 minutes (7 runs of ~25 s)
#   ARCADE=../old/target/release/arcade bench/run.sh         # another build of the server
#
# Only 127.0.0.0/8 is touched. Each load runs several times per server (REPS;
# THROUGHPUT_REPS for row 1, whose runs vary by about 10% while its target is 10% below
# parity; LATENCY_REPS for the two p99 loads, whose runs vary most; SOCIAL_REPS for
# rows 6-8, the players' commands). The table shows the latencies of rows 2, 3, 6 and
# 7 over all of a server's runs together (their histograms summed) and every other
# number as the median of the runs. Results (JSON per run, the servers' logs) stay in
# $OUT (printed at the end).
#
# The sizes of rows 6-8 can be made smaller for a quick try (CHAT_SESSIONS,
# WATCHERS, LOBBY_SESSIONS); their targets are set for the defaults. So can row 9's
# (RESTART_SESSIONS, RESTART_DURATION; RESTART_EVERY, RESTART_REPS) and row 10's
# (RACE_SESSIONS, RACE_SIZE, RACE_DURATION; RACE_REPS), whose targets are against
# row 2 of the same run, and row 11's (WEB_SESSIONS, WEB_FOLLOWERS; WEB_REPS), whose
# target is against itself.
#
# How the runs are laid out, and why:
# - The servers run on SERVER_CPUS and the load generator on LOAD_CPUS (by default
#   CPU 0 and the rest), so that the generator never takes the server's core.
#   PIN=0 turns this off.
# - Rows 1, 3, 4, 5, 6, 7 and 8 run one server at a time, alternating which goes
#   first.
# - Row 2 (latency at 10,000 sessions) loads both servers at once, each with its own
#   generator: on a shared VM a stall of a few milliseconds now and then sets the p99,
#   and a stall that hits one server's run but not the other's says nothing about
#   either. Run side by side, both see the same stalls and the ratio shows what
#   differs. Row 3 cannot: see there.
# - Every loadtest gets --server-pid, so each run also reports the server's CPU time
#   per command in its measured window.
# - Row 9 (games that end and start again all the time, each one recorded by the
#   server) runs arcade only: arcade-minimal has no games to end, record or replay.
#   Its p99 is held to row 2's arcade p99 of the same run. Each run has a fresh data
#   directory and a log of its own, from which bench/table.py reads the recorder's
#   10-second reports; after the server has stopped, the database's size (and, with
#   the sqlite3 shell, its results) goes to row9-arcade-REP.db.
# - Row 10 (a race of 500 racers, the server's largest) runs arcade only too:
#   arcade-minimal has no races. Each run has a fresh server and data directory. Its
#   two targets are against row 2's arcade p99 of the same run: the racers' moves, and
#   the progress lines each move makes every other racer hear.
# - Row 11 (the teacher's web page followed by WEB_FOLLOWERS browsers while row 2's
#   load runs) runs arcade only too: arcade-minimal has no web page. Each run loads two
#   fresh servers one after the other, both with --http-port: one with the followers
#   (`curl -N` on /events, on the load generator's CPUs, started before the load and
#   stopped after it), one without; which goes first alternates between runs. Its
#   target is the p99 with followers against the p99 without, so it needs no other row.
#   Each follower's stream goes to a file that is counted (bytes, `event: sessions`
#   lines) and deleted after the run: row11-web-REP.sse. Without curl, or with an
#   ARCADE that has no --http-port, the row is skipped (row11.skipped says why).
# - Rows 6 and 7 time deliveries (a line of chat reaching the other sessions, a
#   player's frame reaching its watchers) as well as commands. Both fan one message
#   out to thousands of sockets on one CPU, which measures the fan-out, not the VM's
#   stalls, so they run one server at a time like row 3.
set -euo pipefail
cd "$(dirname "$0")/.."

REPS=${REPS:-3}
THROUGHPUT_REPS=${THROUGHPUT_REPS:-5}
LATENCY_REPS=${LATENCY_REPS:-7}
SOCIAL_REPS=${SOCIAL_REPS:-3}
RESTART_REPS=${RESTART_REPS:-1}
ROWS=${ROWS:-1 2 3 4 5 6 7 8 9 10 11}
CHAT_SESSIONS=${CHAT_SESSIONS:-10000}
WATCHERS=${WATCHERS:-1000}
LOBBY_SESSIONS=${LOBBY_SESSIONS:-10000}
RESTART_SESSIONS=${RESTART_SESSIONS:-10000}
RESTART_EVERY=${RESTART_EVERY:-10}
RESTART_DURATION=${RESTART_DURATION:-60s}
RACE_REPS=${RACE_REPS:-3}
RACE_SESSIONS=${RACE_SESSIONS:-500}
RACE_SIZE=${RACE_SIZE:-500}
RACE_DURATION=${RACE_DURATION:-30s}
WEB_REPS=${WEB_REPS:-7}
WEB_SESSIONS=${WEB_SESSIONS:-10000}
WEB_FOLLOWERS=${WEB_FOLLOWERS:-50}
# Row 9's server log: warnings, and the recorder's reports (src/recorder.rs logs them
# at info). Not info for everything: a line per game or per session in the measured
# window would cost the server what no other row pays.
RESTART_LOG=${RESTART_LOG:-warn,arcade::recorder=info}
# Ports below the ephemeral range (32768-60999 here), so that no client socket of an
# earlier run can hold them.
PORT_ARCADE=${PORT_ARCADE:-24100}
PORT_MINIMAL=${PORT_MINIMAL:-24101}
PORT_HTTP=${PORT_HTTP:-24102}
OUT=${OUT:-$(mktemp -d -t arcade-bench.XXXXXX)}
mkdir -p "$OUT"
# ARCADE=path/to/another/build compares another version of the server against the same
# minimal, with the same load generator (LOADTEST).
# The builds below go where cargo puts them (CARGO_TARGET_DIR, else target/).
TARGET=${CARGO_TARGET_DIR:-target}
ARCADE=${ARCADE:-$TARGET/release/arcade}
MINIMAL=${MINIMAL:-$TARGET/release/arcade-minimal}
LOADTEST=${LOADTEST:-$TARGET/release/arcade}

SERVER_ON=()
LOAD_ON=()
cpus=$(nproc)
if [ "${PIN:-1}" = 1 ] && [ "$cpus" -ge 2 ] && command -v taskset >/dev/null; then
    SERVER_CPUS=${SERVER_CPUS:-0}
    LOAD_CPUS=${LOAD_CPUS:-1-$((cpus - 1))}
    SERVER_ON=(taskset -c "$SERVER_CPUS")
    LOAD_ON=(taskset -c "$LOAD_CPUS")
fi

cargo build --release --bins --quiet

arcade_pid=""
minimal_pid=""
follower_pids=()

stop_servers() {
    for pid in $arcade_pid $minimal_pid; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    arcade_pid=""
    minimal_pid=""
}
# stop_followers: row 11's followers, if any are running.
stop_followers() {
    local pid
    for pid in "${follower_pids[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${follower_pids[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    follower_pids=()
}
trap 'stop_followers; stop_servers' EXIT

wait_for_port() {
    for _ in $(seq 100); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
        sleep 0.05
    done
    echo "bench: nothing listens on port $1" >&2
    exit 1
}

# Every session comes from 127.0.0.1-16, so arcade's limit per client address
# (--max-per-address, 256 by default: a class behind one NAT) must allow them all.
# An ARCADE built before that option has no such limit.
ARCADE_LIMITS=(--max-sessions 20000)
if "$ARCADE" serve --help 2>/dev/null | grep -q -- --max-per-address; then
    ARCADE_LIMITS+=(--max-per-address 20000)
fi

# start_arcade DATA_DIR LOG FILTER [serve options...]: arcade on PORT_ARCADE with that
# data directory and those further options, its stderr appended to LOG,
# RUST_LOG=FILTER.
start_arcade() {
    local data=$1 log=$2 filter=$3
    shift 3
    mkdir -p "$data"
    RUST_LOG=$filter "${SERVER_ON[@]}" "$ARCADE" serve --bind 127.0.0.1 --port "$PORT_ARCADE" \
        "${ARCADE_LIMITS[@]}" --data-dir "$data" "$@" 2>>"$log" &
    arcade_pid=$!
}

# fresh_arcade DATA_DIR LOG FILTER [serve options...]: the servers stopped, then
# start_arcade on an empty DATA_DIR, once it accepts (rows 9 to 11, arcade alone).
fresh_arcade() {
    stop_servers
    rm -rf "$1"
    start_arcade "$@"
    wait_for_port "$PORT_ARCADE"
    sleep 0.5
}

# Fresh servers for every load, so that no load inherits another's heap or sockets.
start_servers() {
    stop_servers
    start_arcade "$OUT/data" "$OUT/arcade.log" warn
    "${SERVER_ON[@]}" "$MINIMAL" "$PORT_MINIMAL" 2>>"$OUT/minimal.log" &
    minimal_pid=$!
    wait_for_port "$PORT_ARCADE"
    wait_for_port "$PORT_MINIMAL"
    sleep 0.5
}

# run ROW SERVER REP [loadtest options...]
run() {
    local row=$1 server=$2 rep=$3
    shift 3
    local port=$PORT_ARCADE pid=$arcade_pid
    if [ "$server" = minimal ]; then port=$PORT_MINIMAL; pid=$minimal_pid; fi
    echo "row $row, $server, run $rep: loadtest $*" >&2
    local before after
    before=$(steal)
    # A failed session makes loadtest exit 1; its JSON still says why. RUN_LIMIT: for a
    # load longer than the usual few seconds.
    timeout "${RUN_LIMIT:-180}" "${LOAD_ON[@]}" "$LOADTEST" loadtest --addr "127.0.0.1:$port" --sources 16 \
        --json --quiet --server-pid "$pid" "$@" >"$OUT/row$row-$server-$rep.json" || true
    after=$(steal)
    echo $((after - before)) >"$OUT/row$row-$server-$rep.steal"
}

# db_facts DATA_DIR: what a stopped arcade left in its database, as key=value lines:
# db_bytes, arcade.db and arcade.db-wal together; and with the sqlite3 shell, if
# installed, results (rows), results_bytes (the pages of the results table and its
# indexes) and inputs_recorded (input lines, by the recordings' counts). A query the
# database cannot answer (no such table yet) leaves its line out.
db_facts() {
    local db="$1/arcade.db" bytes=0 file copy
    for file in "$db" "$db-wal"; do
        if [ -f "$file" ]; then bytes=$((bytes + $(stat -c %s "$file"))); fi
    done
    echo "db_bytes=$bytes"
    if ! command -v sqlite3 >/dev/null || [ ! -f "$db" ]; then return 0; fi
    # Queried on a copy: opening the database itself may checkpoint its WAL into it.
    copy=$(mktemp -d)
    cp "$db" "$copy/"
    if [ -f "$db-wal" ]; then cp "$db-wal" "$copy/"; fi
    sqlite3 "$copy/arcade.db" "SELECT 'results=' || COUNT(*) FROM results;" 2>/dev/null || true
    sqlite3 "$copy/arcade.db" "SELECT 'results_bytes=' || SUM(pgsize) FROM dbstat
        WHERE name IN (SELECT name FROM sqlite_master WHERE tbl_name = 'results')
        HAVING SUM(pgsize) IS NOT NULL;" 2>/dev/null || true
    sqlite3 "$copy/arcade.db" "SELECT 'inputs_recorded=' || COALESCE(SUM(inputs), 0) FROM recordings;" \
        2>/dev/null || true
    rm -rf "$copy"
}

# start_followers REP: row 11's WEB_FOLLOWERS browsers, `curl -N` on arcade's /events
# on the load generator's CPUs, each writing the stream to a file of its own
# (row11-followers-REP/N); then up to 5 s for the server to count them all (its
# arcade_web_live_viewers gauge on /metrics), so that the load starts with every one in.
start_followers() {
    local dir="$OUT/row11-followers-$1" i viewers=""
    rm -rf "$dir"
    mkdir -p "$dir"
    followed_from=$(date +%s%N)
    for i in $(seq "$WEB_FOLLOWERS"); do
        "${LOAD_ON[@]}" curl -sN -o "$dir/$i" "http://127.0.0.1:$PORT_HTTP/events" &
        follower_pids+=($!)
    done
    for _ in $(seq 50); do
        viewers=$(curl -s "http://127.0.0.1:$PORT_HTTP/metrics" \
            | awk '$1 ~ /web_live_viewers$/ {print $2}') || true
        if [ "${viewers:-0}" -ge "$WEB_FOLLOWERS" ]; then break; fi
        sleep 0.1
    done
    followers_in=${viewers:-0}
}

# count_followers REP: stop the followers and write what they received to
# row11-web-REP.sse as key=value: followers (started), viewers (the server's count of
# them before the load), received (those with at least one `event: sessions` line),
# events and bytes (all of them together), fewest_events (one follower's least),
# followed_ms (from their start to their end). Their files are deleted: at 10,000
# sessions each receives some 300 KB a second.
count_followers() {
    local dir="$OUT/row11-followers-$1" i events size received=0 all_events=0 bytes=0 fewest=""
    stop_followers
    local followed_ms=$(( ($(date +%s%N) - followed_from) / 1000000 ))
    for i in $(seq "$WEB_FOLLOWERS"); do
        events=0
        size=0
        if [ -f "$dir/$i" ]; then
            events=$(grep -c '^event: sessions$' "$dir/$i" || true)
            size=$(stat -c %s "$dir/$i")
        fi
        if [ "$events" -gt 0 ]; then received=$((received + 1)); fi
        all_events=$((all_events + events))
        bytes=$((bytes + size))
        if [ -z "$fewest" ] || [ "$events" -lt "$fewest" ]; then fewest=$events; fi
    done
    rm -rf "$dir"
    echo "followers=$WEB_FOLLOWERS viewers=$followers_in received=$received events=$all_events" \
        "fewest_events=${fewest:-0} bytes=$bytes followed_ms=$followed_ms" >"$OUT/row11-web-$1.sse"
}

# CPU time taken by the hypervisor from this VM so far, in clock ticks (1/100 s): a
# run with much of it was disturbed by neighbours.
steal() {
    awk '/^cpu / {print $9}' /proc/stat
}

# row N: whether row N is to run (ROWS).
row() {
    [[ " $ROWS " == *" $1 "* ]]
}

# repeat MODE ROW RUNS [loadtest options...]: RUNS runs, each on fresh servers. MODE
# "apart" loads one server at a time, alternating which goes first; "together" loads
# both at once, each with its own generator.
repeat() {
    local mode=$1 row=$2 runs=$3
    shift 3
    echo "$runs" >"$OUT/row$row.runs"
    for rep in $(seq "$runs"); do
        start_servers
        if [ "$mode" = together ]; then
            run "$row" arcade "$rep" "$@" &
            local arcade_run=$!
            run "$row" minimal "$rep" "$@" &
            wait "$arcade_run" $!
            sleep 1
            continue
        fi
        if [ $((rep % 2)) = 1 ]; then order="arcade minimal"; else order="minimal arcade"; fi
        for server in $order; do
            run "$row" "$server" "$rep" "$@"
            # Let the closed connections drain before the next load.
            sleep 1
        done
    done
}

started=$(date +%s)
# 1. Closed loop, 100 sessions: throughput.
if row 1; then
    repeat apart 1 "$THROUGHPUT_REPS" --sessions 100 --rate 0 --ramp 500ms --warmup 1s --duration 4s
fi
# 2. Open loop, 10,000 sessions at 1 command/s: latency. The warm-up lets the kernel
# and both servers settle after the ramp (the first seconds after it stall more).
if row 2; then
    repeat together 2 "$LATENCY_REPS" --sessions 10000 --rate 1 --ramp 1500ms --warmup 3s --duration 5s
fi
# 3. As many sessions as the open-file limit allows (loadtest caps --sessions). One
# server at a time: with two servers of ~20,000 sessions sharing CPU 0 and their two
# generators sharing CPU 1, both p99s are 20-30 ms, which measures the sharing.
if row 3; then
    repeat apart 3 "$LATENCY_REPS" --sessions 1000000 --rate 1 --ramp 3s --warmup 5s --duration 5s
fi
# 4. A burst of 5,000 connects.
if row 4; then
    repeat apart 4 "$REPS" --sessions 5000 --burst --rate 1 --warmup 1s --duration 2s
fi
# 5. Memory per idle in-game session (fresh servers: each run's own before/after).
if row 5; then
    echo "$REPS" >"$OUT/row5.runs"
    for rep in $(seq "$REPS"); do
        for server in arcade minimal; do
            start_servers
            run 5 "$server" "$rep" --sessions 10000 --idle --ramp 3s --warmup 2s --duration 1s
        done
    done
fi
# 6. Chat fan-out: named sessions in the lobby saying 10 lines a second between them
# (each session one line every 1,000 s, far inside the chat limit); every line is
# timed at every other session. The warm-up covers the names taken during the ramp.
if row 6; then
    repeat apart 6 "$SOCIAL_REPS" --sessions "$CHAT_SESSIONS" --names --chat 10 --ramp 3s --warmup 3s --duration 5s
fi
# 7. Watching: one player at 10 commands a second watched by WATCHERS sessions; every
# frame is timed at every watcher, and the player's own commands as in row 2. Ten
# seconds, so that each run has 100 of the player's commands.
if row 7; then
    repeat apart 7 "$SOCIAL_REPS" --sessions 1 --rate 10 --watchers "$WATCHERS" --ramp 1s --warmup 2s --duration 10s
fi
# 8. Memory per named session idle in the lobby (fresh servers, as row 5).
if row 8; then
    echo "$SOCIAL_REPS" >"$OUT/row8.runs"
    for rep in $(seq "$SOCIAL_REPS"); do
        for server in arcade minimal; do
            start_servers
            run 8 "$server" "$rep" --sessions "$LOBBY_SESSIONS" --names --lobby --ramp 3s --warmup 2s --duration 1s
        done
    done
fi
# 9. Games that end and restart all the time: 10,000 named sessions at 1 command/s
# playing 2048, each ending its game with `q` after every RESTART_EVERY moves and
# starting another (the `q` and the lobby line are commands too, so a session ends a
# game every RESTART_EVERY + 2 s: about 830 finished games a second, each a result
# for the server to record and check by replay). arcade only, each run on a fresh
# data directory, with a log of its own for the recorder's reports; 60 s measured, so
# that the log has several of them. The database's size is taken once the server has
# stopped, so that nothing is still being written.
if row 9; then
    echo "$RESTART_REPS" >"$OUT/row9.runs"
    for rep in $(seq "$RESTART_REPS"); do
        data="$OUT/row9-data-$rep"
        fresh_arcade "$data" "$OUT/row9-arcade-$rep.log" "$RESTART_LOG"
        RUN_LIMIT=600 run 9 arcade "$rep" --sessions "$RESTART_SESSIONS" --rate 1 --names \
            --game 2048 --restart-every "$RESTART_EVERY" --ramp 3s --warmup 5s \
            --duration "$RESTART_DURATION"
        stop_servers
        db_facts "$data" >"$OUT/row9-arcade-$rep.db"
        sleep 1
    done
fi
# 10. A race of 500 (SPEC 9; 500 is the server's largest race): RACE_SESSIONS named
# sessions in races of RACE_SIZE, opened by loadtest's default `race 2048 seed=1
# size=5 win=256` (see `arcade loadtest --help` for why those), each racer playing
# random moves at 1/s. Every progress line (a racer's new largest tile from 8 on, or
# its finish) is a delivery at each of the 499 others, timed from the move that
# caused it. arcade only, on a fresh server and data directory per run; 30 s
# measured, so that the window has the lines of 16 and 32 (about 15 and 31 moves in).
if row 10; then
    echo "$RACE_REPS" >"$OUT/row10.runs"
    for rep in $(seq "$RACE_REPS"); do
        fresh_arcade "$OUT/row10-data-$rep" "$OUT/arcade.log" warn
        run 10 arcade "$rep" --sessions "$RACE_SESSIONS" --race "$RACE_SIZE" --rate 1 \
            --ramp 1s --warmup 5s --duration "$RACE_DURATION"
        stop_servers
        sleep 1
    done
fi
# 11. The teacher's web page followed by WEB_FOLLOWERS browsers while row 2's load runs
# (WEB_SESSIONS sessions at 1 command/s, row 2's options otherwise). A browser on the
# page follows /events, the table of sessions the server publishes every 250 ms when
# it changed; that stream is all the page asks for after loading, so `curl -N` on it
# is a browser as far as the server can tell. arcade only (arcade-minimal has no web
# page), each run two fresh servers with --http-port, one after the other: the load
# with the followers ("web") and without them ("plain"), alternating which goes
# first. The target is the p99 with followers against the p99 without.
if row 11; then
    web_skipped=""
    if ! command -v curl >/dev/null; then
        web_skipped="curl is not installed"
    elif ! "$ARCADE" serve --help 2>/dev/null | grep -q -- --http-port; then
        web_skipped="$ARCADE has no --http-port"
    fi
    if [ -n "$web_skipped" ]; then
        echo "bench: row 11 skipped: $web_skipped" >&2
        echo "$web_skipped" >"$OUT/row11.skipped"
    else
        echo "$WEB_REPS" >"$OUT/row11.runs"
        for rep in $(seq "$WEB_REPS"); do
            if [ $((rep % 2)) = 1 ]; then order="web plain"; else order="plain web"; fi
            for half in $order; do
                fresh_arcade "$OUT/row11-data" "$OUT/arcade.log" warn --http-port "$PORT_HTTP"
                wait_for_port "$PORT_HTTP"
                if [ "$half" = web ]; then start_followers "$rep"; fi
                run 11 "$half" "$rep" --sessions "$WEB_SESSIONS" --rate 1 --ramp 1500ms \
                    --warmup 3s --duration 5s
                if [ "$half" = web ]; then count_followers "$rep"; fi
                stop_servers
                sleep 1
            done
        done
        rm -rf "$OUT/row11-data"
    fi
fi
stop_servers
elapsed=$(( $(date +%s) - started ))

{
    echo "machine: $cpus cores, $(free -h | awk '/^Mem:/ {print $2}') RAM, $(uname -sr), ulimit -n $(ulimit -n) (hard $(ulimit -Hn))"
    if [ ${#SERVER_ON[@]} -gt 0 ]; then
        echo "servers on CPU $SERVER_CPUS, load generators on CPU $LOAD_CPUS"
    else
        echo "no CPU pinning"
    fi
    echo "rows run: $ROWS; runs per load and server: $REPS ($THROUGHPUT_REPS for row 1, $LATENCY_REPS for rows 2 and 3, $SOCIAL_REPS for rows 6 to 8, $RESTART_REPS for row 9, $RACE_REPS for row 10 and $WEB_REPS for each half of row 11, arcade only); latencies of rows 2, 3, 6, 7, 9, 10 and 11 pooled over the runs, other numbers medians; $elapsed s in all; JSON in $OUT"
    echo
    python3 bench/table.py "$OUT"
} | tee "$OUT/table.md"
