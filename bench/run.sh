#!/usr/bin/env bash
# The benchmark of docs/BENCHMARKS.md: arcade against arcade-minimal (a tokio server
# that answers every line with a fixed board and does nothing else), the same loads on
# both in the same run, and a table of the ratios.
#
#   bench/run.sh                          # about 13 minutes on 2 cores, 2 more for row 10, 3 for row 11
#   REPS=1 THROUGHPUT_REPS=1 LATENCY_REPS=1 SOCIAL_REPS=1 RACE_REPS=1 WEB_REPS=1 bench/run.sh   # one run of each: about 5 minutes
#   ROWS="6 7 8" bench/run.sh             # only the rows of the players' commands
#   ROWS="2 9" bench/run.sh               # games that end all the time, against row 2
#   ROWS="2 10" bench/run.sh              # a race of 500, against row 2
#   ROWS=11 bench/run.sh                  # row 2's load with and without 50 followers of the
#                                         # web page: about 3 minutes (7 runs of ~25 s)
#   ROWS=12 bench/run.sh                  # row 2's load through HAProxy to three instances and
#                                         # direct to one: about 4 minutes (7 runs of each)
#   ROWS="2 13" bench/run.sh              # warnings on every push (issue 33), beside row 2:
#                                         # about 6 minutes (row 13: 7 runs of two ~17 s halves)
#   ROWS=14 bench/run.sh                  # SSH against telnet (issue 32), arcade alone: about
#                                         # 4 minutes (3 runs of four ~15 s loads)
#   ROWS=15 bench/run.sh                  # bots (issue 34): 60 bots through a ladder of 100 seeds of
#                                         # wumpus, then of 2048, arcade alone: about 9 minutes (3 runs
#                                         # of each; 2048's baselines take 2.4 of them)
#   ROWS=16 bench/run.sh                  # upgrades (issue 36): 10,000 sessions moved to a new
#                                         # process under row 2's load: about 2 minutes (3 runs)
#   ROWS=rates bench/run.sh               # NATS and PostgreSQL rates for "Scale on paper": ~3 minutes
#   ROWS=store bench/run.sh               # the recorder's database over 5 minutes of 10,000 games
#                                         # (issue 29, examples/store_seconds.rs): about 3 minutes;
#                                         # STORE_SECONDS=600 for 10
#   ROWS=solver bench/run.sh              # the Sokoban solver's collections (bench/solver.sh;
#                                         # not in the default rows: up to an hour)
#   ARCADE=../old/target/release/arcade bench/run.sh         # another build of the server
#
# Only 127.0.0.0/8 is touched. Each load runs several times per server (REPS;
# THROUGHPUT_REPS for row 1, whose runs vary by about 10% while its target is 10% below
# parity; LATENCY_REPS for the p99 loads of rows 2, 3 and 13, whose runs vary most;
# SOCIAL_REPS for rows 6-8, the players' commands). The table shows the latencies of
# rows 2, 3, 6, 7 and 13 over all of a server's runs together (their histograms
# summed) and every other number as the median of the runs. Results (JSON per run, the servers' logs) stay in
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
# - Row 12 (several instances) runs arcade only too, in two halves per run, alternating
#   which goes first: "proxied", row 2's load to HAProxy (TCP mode, send-proxy-v2,
#   health checks on each instance's /healthz, leastconn) in front of three arcade
#   instances with --proxy-protocol; "direct", the same load to one arcade. Every
#   server (HAProxy included) runs on SERVER_CPUS, so the proxied half pays for the
#   proxy's own work on the same CPU. Both halves have --http-port (the health checks
#   need it; it costs a command a little, so the direct half pays it too). When ARCADE
#   has --bus, a throwaway nats-server runs for the row and every instance gets --bus
#   (and a chat load through the proxy, "chat", is timed against the same load on one
#   instance, "chatdirect"); when its --db takes postgres://, a throwaway PostgreSQL cluster (as the
#   postgres user when run as root) runs for the row, a fresh database each run. Its
#   target: the pooled p99 proxied at most 1.3x the pooled p99 direct; issue 29's,
#   the instances' CPU per command (per line said, for chat) at most 1.2x one
#   instance's. Server CPU (instances and HAProxy, from /proc, over the whole run of
#   each load) goes to row12-HALF-REP.cpu, and what ran to row12.setup.
# - ROWS=rates: no load on arcade. NATS (examples/bus_rate.rs against a throwaway
#   nats-server on SERVER_CPUS, the program on LOAD_CPUS): publish and delivery rates
#   for 60-byte and 1-KiB messages to 1, 3 and 10 subscriber connections, with the
#   server's CPU; PostgreSQL (pgbench on a throwaway cluster, default settings): the
#   recorder's write shape, with synchronous_commit on and off. rates-nats.txt and
#   rates-pg.txt, shown under the table.
#   Each follower's stream goes to a file that is counted (bytes, `event: sessions`
#   lines) and deleted after the run: row11-web-REP.sse. Without curl, or with an
#   ARCADE that has no --http-port, the row is skipped (row11.skipped says why).
# - Row 13 (warnings on every push, issue 33) is row 2's load, side by side with
#   arcade-minimal as row 2, with sessions that play Star Pusher on a level of the
#   benchmark's own (bench/levels/starpusher/pushes.txt, given to arcade with --levels
#   bench/levels) and push a box every fourth command: PUSH_LOBBY, then PUSH_COMMANDS
#   in turn, the box right and back left forever, never solved and never a deadlock
#   (loadtest's tests play the script with the real game and the solver). Each session
#   takes a name and types `set warnings on` in the lobby first (loadtest's --setup,
#   untimed; arcade-minimal answers it and changes nothing), so that after every push
#   the server runs the solver's cheap checks and queues a corral search on the
#   solver's thread: the most a push costs with warnings, since nothing is ever
#   warned about. Each run has two halves on fresh servers, alternating which goes
#   first: "arcade" with warnings (and "minimal" beside it) and "plain", the same load
#   without `set warnings on` (and "plainminimal" beside it). Its target is row 2's,
#   arcade's pooled p99 with warnings at most 1.2x minimal's beside it; the table also
#   shows the p99 and the server CPU per command with warnings against without, the
#   cost of the warnings alone. The first session's reply to `set warnings on` is in
#   each arcade report (setup_replies), and the table prints it.
# - Row 15 (bots, issue 34) runs arcade only too: arcade-minimal speaks no bot
#   protocol. Its load is not a window but a fixed amount of play (BOT_COUNT bots,
#   each over every seed of BOT_SEEDS), timed to its end, on a fresh server and data
#   directory per game of BOT_GAMES.
# - Row 16 (upgrades, issue 36) runs arcade only too: arcade-minimal cannot upgrade.
#   Each run has a fresh server and data directory and a log of its own.
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
ROWS=${ROWS:-1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 rates}
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
UPGRADE_REPS=${UPGRADE_REPS:-3}
UPGRADE_SESSIONS=${UPGRADE_SESSIONS:-10000}
CLUSTER_REPS=${CLUSTER_REPS:-7}
# Row 2's 10,000 sessions, unless HAProxy cannot hold them: it needs two descriptors a
# session (client and instance sides) within its hard open-file limit, which only a
# process allowed to raise it (CAP_SYS_RESOURCE) can go past; both halves then get the
# same smaller load.
cluster_cap=$(( ($(ulimit -Hn) - 400) / 2 ))
CLUSTER_SESSIONS=${CLUSTER_SESSIONS:-$(( cluster_cap < 10000 ? cluster_cap : 10000 ))}
# Row 13's game: the lobby line and the commands, comma-separated (loadtest's
# --lobby-line and --commands). loadtest's tests read these two lines and play them.
PUSH_LOBBY=${PUSH_LOBBY:-play starpusher pushes}
PUSH_COMMANDS=${PUSH_COMMANDS:-d,s,d2,w,a,s,a2,w}
# Row 14 (SSH against telnet): how many sessions, how many runs.
SSH_SESSIONS=${SSH_SESSIONS:-1000}
SSH_REPS=${SSH_REPS:-3}
CROSS_CHAT_SESSIONS=${CROSS_CHAT_SESSIONS:-3000}
CROSS_CHAT_RATE=${CROSS_CHAT_RATE:-10}
# Row 15 (bots): how many bots, the seeds each plays, the games (loadtest's
# --bot-game, comma-separated: each a load of its own, named by its first word), runs.
BOT_COUNT=${BOT_COUNT:-60}
BOT_SEEDS=${BOT_SEEDS:-1-100}
BOT_GAMES=${BOT_GAMES:-wumpus random,2048}
BOT_REPS=${BOT_REPS:-3}
# ... through a ladder that this admin opens, with this time per move (BOT_LADDER=off:
# `play GAME seed=S` for each seed instead).
BOT_LADDER=${BOT_LADDER:-on}
BOT_ADMIN=${BOT_ADMIN:-benchadmin}
BOT_MOVE=${BOT_MOVE:-2s}
# Each rate measurement is bounded: NATS_MESSAGES per run (a tenth of it for 1 KiB),
# PG_SECONDS per pgbench run.
NATS_MESSAGES=${NATS_MESSAGES:-200000}
PG_SECONDS=${PG_SECONDS:-10}
# Row 9's server log: warnings, and the recorder's reports (its writer,
# src/records/writer.rs, logs them at info as arcade::records::writer). Not info for everything: a line per game or per session in the measured
# window would cost the server what no other row pays.
RESTART_LOG=${RESTART_LOG:-warn,arcade::recorder=info,arcade::records=info}
# Ports below the ephemeral range (32768-60999 here), so that no client socket of an
# earlier run can hold them.
PORT_ARCADE=${PORT_ARCADE:-24100}
PORT_MINIMAL=${PORT_MINIMAL:-24101}
PORT_HTTP=${PORT_HTTP:-24102}
# Row 14: arcade's --ssh-port.
PORT_SSH=${PORT_SSH:-24103}
# Row 12: HAProxy's port, the three instances' (and their web pages'), NATS and
# PostgreSQL (also for ROWS=rates).
PORT_PROXY=${PORT_PROXY:-24110}
PORT_INSTANCE=${PORT_INSTANCE:-24111}
PORT_INSTANCE_HTTP=${PORT_INSTANCE_HTTP:-24121}
PORT_NATS=${PORT_NATS:-24130}
PORT_PG=${PORT_PG:-24131}
INSTANCES=3
OUT=${OUT:-$(mktemp -d -t arcade-bench.XXXXXX)}
mkdir -p "$OUT"
# ARCADE=path/to/another/build compares another version of the server against the same
# minimal, with the same load generator (LOADTEST, the arcade-loadtest binary: what
# `arcade loadtest` runs).
# The builds below go where cargo puts them (CARGO_TARGET_DIR, else target/).
TARGET=${CARGO_TARGET_DIR:-target}
ARCADE=${ARCADE:-$TARGET/release/arcade}
MINIMAL=${MINIMAL:-$TARGET/release/arcade-minimal}
LOADTEST=${LOADTEST:-$TARGET/release/arcade-loadtest}

SERVER_ON=()
LOAD_ON=()
cpus=$(nproc)
if [ "${PIN:-1}" = 1 ] && [ "$cpus" -ge 2 ] && command -v taskset >/dev/null; then
    SERVER_CPUS=${SERVER_CPUS:-0}
    LOAD_CPUS=${LOAD_CPUS:-1-$((cpus - 1))}
    SERVER_ON=(taskset -c "$SERVER_CPUS")
    LOAD_ON=(taskset -c "$LOAD_CPUS")
fi
# Row 12's HAProxy: on the servers' CPUs unless PROXY_CPUS says otherwise (to see what
# sharing that CPU with the instances costs).
PROXY_ON=("${SERVER_ON[@]}")
if [ -n "${PROXY_CPUS:-}" ] && command -v taskset >/dev/null; then
    PROXY_ON=(taskset -c "$PROXY_CPUS")
fi

# The server (arcade), and the load tester and arcade-minimal (the loadtest/ crate).
cargo build --release --workspace --bins --example bus_rate --example store_seconds --quiet
BUS_RATE=${BUS_RATE:-$TARGET/release/examples/bus_rate}
STORE_SECONDS_BIN=${STORE_SECONDS_BIN:-$TARGET/release/examples/store_seconds}

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
# stop_all PID...: stop these processes and wait for them.
stop_all() {
    local pid
    for pid in "$@"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "$@"; do
        wait "$pid" 2>/dev/null || true
    done
}
# stop_followers: row 11's followers, if any are running.
stop_followers() {
    stop_all "${follower_pids[@]}"
    follower_pids=()
}
cluster_pids=()
nats_pid=""
pg_dir=""
# stop_cluster: row 12's HAProxy and instances, if any are running.
stop_cluster() {
    stop_all "${cluster_pids[@]}"
    cluster_pids=()
}
stop_nats() {
    if [ -n "$nats_pid" ]; then
        kill "$nats_pid" 2>/dev/null || true
        wait "$nats_pid" 2>/dev/null || true
    fi
    nats_pid=""
}
# start_nats: a throwaway nats-server on 127.0.0.1:PORT_NATS, on the servers' CPUs.
start_nats() {
    stop_nats
    "${SERVER_ON[@]}" nats-server -a 127.0.0.1 -p "$PORT_NATS" 2>>"$OUT/nats.log" &
    nats_pid=$!
    wait_for_port "$PORT_NATS"
}
# as_postgres COMMAND...: PostgreSQL's programs refuse to run as root; as root they
# run as the postgres user (Debian's package creates it).
as_postgres() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
# pg_bin: the directory of initdb and pg_ctl (PATH, else Debian's
# /usr/lib/postgresql/VERSION/bin, the newest).
pg_bin() {
    if command -v initdb >/dev/null && command -v pg_ctl >/dev/null; then
        # Through a symlink (/usr/local/bin -> the package's directory) to where psql,
        # postgres and pgbench are too.
        dirname "$(readlink -f "$(command -v initdb)")"
        return 0
    fi
    local dir
    dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
    [ -n "$dir" ] && [ -x "$dir/initdb" ] && echo "$dir"
}
# start_postgres: a throwaway cluster (default settings, trust for the user arcade on
# 127.0.0.1:PORT_PG only) in a directory of its own, owned by postgres when root.
start_postgres() {
    local bin
    bin=$(pg_bin) || { echo "bench: no initdb/pg_ctl (Debian: apt-get install postgresql)" >&2; return 1; }
    pg_dir=$(mktemp -d -t arcade-bench-pg.XXXXXX)
    if [ "$(id -u)" = 0 ]; then chown postgres: "$pg_dir"; fi
    as_postgres "$bin/initdb" -D "$pg_dir/data" -U arcade -A trust -E UTF8 >"$pg_dir/initdb.log"
    as_postgres "$bin/pg_ctl" -D "$pg_dir/data" -l "$pg_dir/server.log" -w -o \
        "-c listen_addresses=127.0.0.1 -p $PORT_PG -k $pg_dir" start >/dev/null
    PG_BIN=$bin
}
stop_postgres() {
    if [ -n "$pg_dir" ]; then
        as_postgres "$PG_BIN/pg_ctl" -D "$pg_dir/data" -m fast -w stop >/dev/null 2>&1 || true
        cp "$pg_dir/server.log" "$OUT/postgres.log" 2>/dev/null || true
        rm -rf "$pg_dir"
    fi
    pg_dir=""
}
# psql_run SQL...: SQL on database bench of the throwaway cluster.
psql_run() {
    "$PG_BIN/psql" -q -h 127.0.0.1 -p "$PORT_PG" -U arcade -v ON_ERROR_STOP=1 "$@"
}
# arcade_has PATTERN: whether `arcade serve --help` (or `arcade --help`) mentions it.
arcade_has() {
    { "$ARCADE" serve --help 2>/dev/null; "$ARCADE" --help 2>/dev/null; } | grep -qE "$@"
}
# cluster_db_args NAME: `--db postgres://...` on a fresh database NAME of the
# throwaway cluster when row 12 runs with PostgreSQL; nothing otherwise.
cluster_db_args() {
    if [ -z "${cluster_db:-}" ]; then return 0; fi
    psql_run -d postgres -c "CREATE DATABASE row12_$1" >&2
    echo "--db postgres://arcade@127.0.0.1:$PORT_PG/row12_$1"
}
# cpu_ticks PID...: their user + system CPU time so far, in clock ticks (1/100 s).
cpu_ticks() {
    local pid total=0 ticks
    for pid in "$@"; do
        ticks=$(awk '{sub(/.*\) /, ""); print $12 + $13}' "/proc/$pid/stat" 2>/dev/null || echo 0)
        total=$((total + ticks))
    done
    echo "$total"
}
# start_cluster DB: row 12's INSTANCES arcade instances (ports PORT_INSTANCE..., web
# pages PORT_INSTANCE_HTTP..., --proxy-protocol, CLUSTER_ARGS, one shared database DB
# with --db) and HAProxy on PORT_PROXY in front of them, all on the servers' CPUs;
# their pids in cluster_pids (the instances first).
#
# HAProxy -> instance connections: every connection to an instance comes from
# HAProxy, so their four-tuples differ only in the source port: at most the
# ephemeral range (32768-60999 here, 28,232 ports) per source address and instance.
# Each server line therefore has a source address of its own (127.0.1.N): more
# instances, or more server lines to one instance each with its own source, lift
# that limit. At this row's 10,000 sessions over three instances it
# is far away (about 3,300 per instance).
start_cluster() {
    local db=$1 i port http args
    stop_cluster
    local cfg="$OUT/row12-haproxy.cfg"
    cat >"$cfg" <<CFG
global
    maxconn $((CLUSTER_SESSIONS + 100))
defaults
    mode tcp
    maxconn $((CLUSTER_SESSIONS + 100))
    timeout connect 5s
    timeout client 1h
    timeout server 1h
frontend arcade
    bind 127.0.0.1:$PORT_PROXY
    default_backend instances
backend instances
    balance leastconn
    option httpchk GET /healthz
    default-server inter 1s fall 2 rise 1
CFG
    # One database for all instances: unfinished games are resumed on any of them.
    args=$(cluster_db_args "$db")
    for i in $(seq "$INSTANCES"); do
        port=$((PORT_INSTANCE + i - 1))
        http=$((PORT_INSTANCE_HTTP + i - 1))
        rm -rf "$OUT/row12-instance-$i"
        mkdir -p "$OUT/row12-instance-$i"
        # shellcheck disable=SC2086 # args is empty or `--db URL`
        RUST_LOG=warn "${SERVER_ON[@]}" "$ARCADE" serve --bind 127.0.0.1 --port "$port" \
            "${ARCADE_LIMITS[@]}" --data-dir "$OUT/row12-instance-$i" --http-port "$http" \
            --proxy-protocol "${CLUSTER_ARGS[@]}" $args 2>>"$OUT/row12-instances.log" &
        cluster_pids+=($!)
        echo "    server a$i 127.0.0.1:$port send-proxy-v2 check port $http source 127.0.1.$i" >>"$cfg"
    done
    for i in $(seq "$INSTANCES"); do
        wait_for_port "$((PORT_INSTANCE + i - 1))"
        wait_for_port "$((PORT_INSTANCE_HTTP + i - 1))"
    done
    "${PROXY_ON[@]}" haproxy -db -f "$cfg" 2>>"$OUT/haproxy.log" &
    cluster_pids+=($!)
    wait_for_port "$PORT_PROXY"
    # Servers start up in HAProxy; a second lets the first health checks pass.
    sleep 1
}
# pg_rates: the recorder's write shape on the throwaway cluster with pgbench, one line
# of key=value per run: synchronous_commit on and off, 1 and 4 clients (a client is an
# instance's recorder, which writes one transaction at a time), two transactions:
# "batch" (one INSERT of 500 input rows and one of 40 results: the most one statement
# carries) and "second" (20 INSERTs of 500 input rows and 2 of 400 results: a second
# of row 9's load, 10,000 sessions at 1/s ending a game every 12 commands, in one
# transaction as the recorder writes it). The schema is the SQLite one's in
# PostgreSQL's types (the same tables, keys and indexes).
pg_rates() {
    local pgbench=pgbench
    if ! command -v pgbench >/dev/null; then pgbench="$PG_BIN/pgbench"; fi
    psql_run -d postgres -c "CREATE DATABASE bench" >&2
    psql_run -d bench >&2 <<'SQL'
CREATE TABLE inputs (recording_id BIGINT NOT NULL, batch BIGINT NOT NULL, lines TEXT NOT NULL,
    PRIMARY KEY (recording_id, batch));
CREATE TABLE results (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    recording_id BIGINT NOT NULL, upto BIGINT NOT NULL, player TEXT NOT NULL,
    player_key TEXT NOT NULL, registered BOOLEAN NOT NULL, game TEXT NOT NULL,
    level TEXT NOT NULL, args TEXT NOT NULL, outcome TEXT NOT NULL, moves BIGINT NOT NULL,
    pushes BIGINT NOT NULL, score BIGINT NOT NULL, largest_tile BIGINT NOT NULL,
    gold BIGINT NOT NULL, duration_ms BIGINT NOT NULL, finished_at BIGINT NOT NULL,
    verified BOOLEAN);
CREATE INDEX results_by_board ON results (game, level, verified);
CREATE INDEX results_by_player ON results (player_key);
CREATE INDEX results_by_recording ON results (recording_id);
CREATE INDEX results_pending ON results (id) WHERE verified IS NULL;
SQL
    # A transaction of STATEMENTS inserts of 500 input rows and RESULT_STATEMENTS of
    # RESULTS rows, keys from a random base (a collision is about 1 in 10^8 per run).
    # The rows are literals joined to the one parameter (pgbench binds at most 255
    # per statement; sqlx binds every value): the same rows and statements.
    pg_script() {
        local statements=$1 result_statements=$2 results=$3 s i values
        echo '\set base random(1, 900000000000000)'
        echo 'BEGIN;'
        for s in $(seq 0 $((statements - 1))); do
            values=""
            for i in $(seq 0 499); do
                values+="${values:+, }($((s * 500 + i)), '1000 w1')"
            done
            echo "INSERT INTO inputs (recording_id, batch, lines) SELECT b.k + v.i, 0, v.l FROM (SELECT :base::bigint * 10000 AS k) b, (VALUES $values) v (i, l);"
        done
        for s in $(seq 1 "$result_statements"); do
            values=""
            for i in $(seq 1 "$results"); do
                values+="${values:+, }($i, 12, 'ltABCD-$i', 'ltabcd-$i', false, '2048', 'seed=1', 'seed=1 size=5 win=256', 'quit', 10, 0, 84, 16, 0, 12000, 1700000000000)"
            done
            echo "INSERT INTO results (recording_id, upto, player, player_key, registered, game, level, args, outcome, moves, pushes, score, largest_tile, gold, duration_ms, finished_at) SELECT b.k + v.r, v.upto, v.player, v.player_key, v.registered, v.game, v.level, v.args, v.outcome, v.moves, v.pushes, v.score, v.largest_tile, v.gold, v.duration_ms, v.finished_at FROM (SELECT :base::bigint * 10000 AS k) b, (VALUES $values) v (r, upto, player, player_key, registered, game, level, args, outcome, moves, pushes, score, largest_tile, gold, duration_ms, finished_at);"
        done
        echo 'COMMIT;'
    }
    pg_script 1 1 40 >"$OUT/rates-pg-batch.sql"
    pg_script 20 2 400 >"$OUT/rates-pg-second.sql"
    local sync script clients tps inputs
    for sync in on off; do
        for script in batch second; do
            inputs=500
            if [ "$script" = second ]; then inputs=10000; fi
            for clients in 1 4; do
                echo "rates: PostgreSQL, synchronous_commit=$sync, $script, $clients client(s)" >&2
                tps=$(PGOPTIONS="-c synchronous_commit=$sync" timeout $((PG_SECONDS + 60)) \
                    "${LOAD_ON[@]}" "$pgbench" -h 127.0.0.1 -p "$PORT_PG" -U arcade -n -M prepared \
                    -f "$OUT/rates-pg-$script.sql" -c "$clients" -j "$clients" -T "$PG_SECONDS" bench \
                    2>>"$OUT/pgbench.log" | awk '/^tps = / {print $3; exit}')
                echo "synchronous_commit=$sync script=$script clients=$clients tps=${tps:-0}" \
                    "input_rows_per_s=$(awk -v t="${tps:-0}" -v n="$inputs" 'BEGIN {printf "%.0f", t * n}')"
                psql_run -d bench -c "TRUNCATE inputs, results" >&2
            done
        done
    done
    echo "postgres=$("$PG_BIN/postgres" --version | awk '{print $3}') disk=$(df -P "$pg_dir" | awk 'NR == 2 {print $1}')"
}
trap 'stop_followers; stop_servers; stop_cluster; stop_nats; stop_postgres' EXIT

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
# start_servers [DIR]: arcade on the data directory DIR, emptied first (the rows that
# measure memory: SQLite keeps up to 8 MiB of pages per connection, and over a
# database that earlier rows have filled, the ramp's inserts fill that cache, which
# row 5 would count as some 700 bytes a session); without DIR (or with ""), the shared
# $OUT/data. Further arguments are arcade's (row 13's --levels).
start_servers() {
    stop_servers
    local data=${1:-}
    if [ $# -gt 0 ]; then shift; fi
    if [ -n "$data" ]; then rm -rf "$data"; fi
    start_arcade "${data:-$OUT/data}" "$OUT/arcade.log" warn "$@"
    "${SERVER_ON[@]}" "$MINIMAL" "$PORT_MINIMAL" 2>>"$OUT/minimal.log" &
    minimal_pid=$!
    wait_for_port "$PORT_ARCADE"
    wait_for_port "$PORT_MINIMAL"
    sleep 0.5
}

# run ROW SERVER REP [loadtest options...]; RUN_PORT and RUN_PID: another server than
# SERVER's (row 12's proxy, and one of its instances).
run() {
    local row=$1 server=$2 rep=$3
    shift 3
    local port=$PORT_ARCADE pid=$arcade_pid
    # minimal, and row 13's plainminimal.
    case "$server" in *minimal) port=$PORT_MINIMAL; pid=$minimal_pid ;; esac
    port=${RUN_PORT:-$port}
    pid=${RUN_PID:-$pid}
    echo "row $row, $server, run $rep: loadtest $*" >&2
    local before after
    before=$(steal)
    # A failed session makes loadtest exit 1; its JSON still says why. RUN_LIMIT: for a
    # load longer than the usual few seconds.
    timeout "${RUN_LIMIT:-180}" "${LOAD_ON[@]}" "$LOADTEST" --addr "127.0.0.1:$port" --sources 16 \
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
# (row11-followers-REP/N), from 127.0.0.1-16 in turn: browsers on the machines of a
# class, not 50 from one address (the server keeps each address to
# web::STREAMS_PER_ADDRESS, 16, live streams since issue 28); then up to 5 s for the server to count them all (its
# arcade_web_live_viewers gauge on /metrics), so that the load starts with every one in.
start_followers() {
    local dir="$OUT/row11-followers-$1" i viewers=""
    rm -rf "$dir"
    mkdir -p "$dir"
    followed_from=$(date +%s%N)
    for i in $(seq "$WEB_FOLLOWERS"); do
        "${LOAD_ON[@]}" curl -sN --interface "127.0.0.$(((i - 1) % 16 + 1))" \
            -o "$dir/$i" "http://127.0.0.1:$PORT_HTTP/events" &
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
# 5. Memory per idle in-game session (fresh servers and a fresh data directory: each
# run's own before/after).
if row 5; then
    echo "$REPS" >"$OUT/row5.runs"
    for rep in $(seq "$REPS"); do
        for server in arcade minimal; do
            start_servers "$OUT/row5-data"
            run 5 "$server" "$rep" --sessions 10000 --idle --ramp 3s --warmup 2s --duration 1s
        done
    done
    rm -rf "$OUT/row5-data"
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
            start_servers "$OUT/row8-data"
            run 8 "$server" "$rep" --sessions "$LOBBY_SESSIONS" --names --lobby --ramp 3s --warmup 2s --duration 1s
        done
    done
    rm -rf "$OUT/row8-data"
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
# 12. Several instances: row 2's load (CLUSTER_SESSIONS at 1/s) through HAProxy to
# INSTANCES arcade instances ("proxied"), and the same load to one arcade ("direct"),
# alternating which goes first; with --bus, a chat load through the proxy ("chat": the
# chatters spread over the instances by HAProxy, so most deliveries cross the bus)
# and the same on one instance ("chatdirect"), on the same servers after the p99 load.
if row 12; then
    cluster_skipped=""
    if ! command -v haproxy >/dev/null; then
        cluster_skipped="haproxy is not installed"
    elif ! arcade_has -- '--proxy-protocol'; then
        cluster_skipped="$ARCADE has no --proxy-protocol"
    elif ! arcade_has -- '--http-port'; then
        cluster_skipped="$ARCADE has no --http-port (HAProxy's health checks ask /healthz)"
    fi
    if [ -n "$cluster_skipped" ]; then
        echo "bench: row 12 skipped: $cluster_skipped" >&2
        echo "$cluster_skipped" >"$OUT/row12.skipped"
    else
        CLUSTER_ARGS=()
        cluster_bus=""
        cluster_db=""
        if arcade_has -- '--bus\b'; then
            if command -v nats-server >/dev/null; then
                start_nats
                CLUSTER_ARGS+=(--bus "nats://127.0.0.1:$PORT_NATS")
                cluster_bus=1
            else
                echo "bench: row 12 without --bus: nats-server is not installed" >&2
            fi
        fi
        # --db takes sqlite:// URLs before PostgreSQL's store; its help names postgres
        # once that is in.
        if arcade_has -- '--db\b' && arcade_has -i 'postgres'; then
            if start_postgres; then cluster_db=1; else
                echo "bench: row 12 without --db: no PostgreSQL" >&2
            fi
        fi
        {
            echo "instances=$INSTANCES"
            echo "haproxy=$(haproxy -v | awk 'NR == 1 {print $3}')"
            echo "bus=${cluster_bus:+nats-server $(nats-server --version | awk '{print $2}')}"
            echo "db=${cluster_db:+postgresql $("$PG_BIN/postgres" --version | awk '{print $3}')}"
            echo "proxy_cpus=${PROXY_CPUS:-${SERVER_CPUS:-any}}"
        } >"$OUT/row12.setup"
        echo "$CLUSTER_REPS" >"$OUT/row12.runs"
        for rep in $(seq "$CLUSTER_REPS"); do
            if [ $((rep % 2)) = 1 ]; then order="proxied direct"; else order="direct proxied"; fi
            for half in $order; do
                if [ "$half" = direct ]; then
                    fresh_arcade "$OUT/row12-data" "$OUT/arcade.log" warn --http-port "$PORT_HTTP" \
                        "${CLUSTER_ARGS[@]}" $(cluster_db_args "direct_$rep")
                    wait_for_port "$PORT_HTTP"
                    pids=$arcade_pid
                    run_port=$PORT_ARCADE
                else
                    start_cluster "proxied_$rep"
                    pids="${cluster_pids[*]}"
                    run_port=$PORT_PROXY
                fi
                proxy_pid=""
                if [ "$half" = proxied ]; then proxy_pid=${pids##* }; fi
                before=$(cpu_ticks $pids)
                proxy_before=$(cpu_ticks $proxy_pid)
                # loadtest's --server-pid: the direct arcade, or HAProxy (the last pid),
                # whose CPU per command in the measured window is then its own.
                RUN_PORT=$run_port RUN_PID=${pids##* } run 12 "$half" "$rep" \
                    --sessions "$CLUSTER_SESSIONS" --rate 1 --ramp 1500ms --warmup 3s --duration 5s
                after=$(cpu_ticks $pids)
                proxy_after=$(cpu_ticks $proxy_pid)
                echo "server_ticks=$((after - before)) processes=$(wc -w <<<"$pids")" \
                    "proxy_ticks=$((proxy_after - proxy_before))" \
                    >"$OUT/row12-$half-$rep.cpu"
                if [ -n "$cluster_bus" ]; then
                    sleep 1
                    chat=chatdirect
                    if [ "$half" = proxied ]; then chat=chat; fi
                    before=$(cpu_ticks $pids)
                    proxy_before=$(cpu_ticks $proxy_pid)
                    RUN_PORT=$run_port RUN_PID=${pids%% *} run 12 "$chat" "$rep" \
                        --sessions "$CROSS_CHAT_SESSIONS" --names --chat "$CROSS_CHAT_RATE" \
                        --ramp 3s --warmup 3s --duration 5s
                    after=$(cpu_ticks $pids)
                    proxy_after=$(cpu_ticks $proxy_pid)
                    echo "server_ticks=$((after - before)) processes=$(wc -w <<<"$pids")" \
                        "proxy_ticks=$((proxy_after - proxy_before))" \
                        >"$OUT/row12-$chat-$rep.cpu"
                fi
                stop_servers
                stop_cluster
                sleep 1
            done
        done
        rm -rf "$OUT/row12-data" "$OUT"/row12-instance-*
        stop_nats
        stop_postgres
    fi
fi
# 13. Warnings on every push (issue 33): row 2's load, named sessions playing Star
# Pusher on the benchmark's level and pushing a box every fourth command, arcade and
# arcade-minimal side by side; in one half of each run every session turns warnings
# on first ("arcade", "minimal"), in the other none does ("plain", "plainminimal").
if row 13; then
    echo "$LATENCY_REPS" >"$OUT/row13.runs"
    # A warm-up of 6 s, not row 2's 3: each session here has three lines to send before
    # its first command (name, setup, lobby line) on both servers at once, and without
    # the setup the backlog of the ramp still set the p99 of the first two measured
    # seconds (per-second progress lines: p99 over 1 s at 3-4 s, 264 ms at 5 s, 132 ms
    # at 6 s, then 25-32 ms), which made the half without warnings the slow one.
    push_load=(--sessions 10000 --rate 1 --ramp 1500ms --warmup 6s --duration 5s --names
        --lobby-line "$PUSH_LOBBY" --commands "$PUSH_COMMANDS")
    for rep in $(seq "$LATENCY_REPS"); do
        if [ $((rep % 2)) = 1 ]; then order="warnings plain"; else order="plain warnings"; fi
        for half in $order; do
            start_servers "" --levels bench/levels
            if [ "$half" = warnings ]; then
                run 13 arcade "$rep" "${push_load[@]}" --setup "set warnings on" &
                arcade_run=$!
                run 13 minimal "$rep" "${push_load[@]}" --setup "set warnings on" &
            else
                run 13 plain "$rep" "${push_load[@]}" &
                arcade_run=$!
                run 13 plainminimal "$rep" "${push_load[@]}" &
            fi
            wait "$arcade_run" $!
            sleep 1
        done
    done
fi
# 14. SSH (issue 32), arcade alone (arcade-minimal has no SSH) with --ssh-port: the
# same server's two doors side by side in each run, each load on a fresh server,
# alternating which goes first. SSH_SESSIONS sessions in a closed loop (commands/s,
# and the server's CPU per command: the encryption's price), then the same number
# idle in their games (the server's memory per session). Over SSH each session is a
# guest with no password on a shell channel without a pty (loadtest --ssh: russh's
# client); the handshake counts in the connect time, before the measured window.
if row 14; then
    if ! arcade_has -- --ssh-port; then
        echo "bench: row 14 skipped: $ARCADE has no --ssh-port" >&2
    else
        echo "$SSH_REPS" >"$OUT/row14.runs"
        busy=(--sessions "$SSH_SESSIONS" --rate 0 --ramp 2s --warmup 2s --duration 5s)
        idle=(--sessions "$SSH_SESSIONS" --idle --ramp 2s --warmup 2s --duration 1s)
        for rep in $(seq "$SSH_REPS"); do
            if [ $((rep % 2)) = 1 ]; then order="ssh telnet"; else order="telnet ssh"; fi
            for way in $order; do
                door=(); port=$PORT_ARCADE
                if [ "$way" = ssh ]; then door=(--ssh); port=$PORT_SSH; fi
                fresh_arcade "$OUT/row14-data" "$OUT/row14-arcade.log" warn --ssh-port "$PORT_SSH"
                RUN_PORT=$port run 14 "$way" "$rep" "${busy[@]}" "${door[@]}"
                fresh_arcade "$OUT/row14-data" "$OUT/row14-arcade.log" warn --ssh-port "$PORT_SSH"
                RUN_PORT=$port run 14 "${way}idle" "$rep" "${idle[@]}" "${door[@]}"
            done
        done
        stop_servers
        rm -rf "$OUT/row14-data"
    fi
fi
# 15. Bots (issue 34, SPEC 12) through a ladder: the admin BOT_ADMIN (its password
# set with `arcade admin set-password` on the fresh data directory, and handed to
# loadtest in LOADTEST_ADMIN_PASSWORD) opens `ladder open GAME seeds=BOT_SEEDS
# move=BOT_MOVE` and loadtest waits until the built-in agents have played every seed
# (not measured: the baselines run on the server's blocking threads before any bot
# connects). Then BOT_COUNT connections, each `bot loadbot-K`, each send `ladder enter
# N` once and play every seed as the ladder serves it, with a seeded random policy over
# the legal actions, each action sent when the last state came (loadtest --bots
# --bot-ladder-admin): a fixed amount of play, not a window. What is measured is the
# whole run: the wall time to the last bot's last seed, games/s, actions/s, each
# action's latency, the server's CPU per action and its peak RSS; then the time until
# every result has been checked by replay, and how the results stand. One load per
# game of BOT_GAMES (wumpus random, the row's; 2048 beside it, ~120 moves a game where
# a random explorer's wumpus game lasts ~25 actions), each on a fresh server and data
# directory; arcade only (arcade-minimal speaks no bot protocol). BOT_LADDER=off plays
# each seed with `play GAME seed=S` instead (the row before the ladder).
if row 15; then
    IFS=',' read -ra bot_games <<<"$BOT_GAMES"
    echo "$BOT_REPS" >"$OUT/row15.runs"
    bot_ladder=()
    if [ "$BOT_LADDER" != off ]; then
        bot_ladder=(--bot-ladder-admin "$BOT_ADMIN" --ladder-move "$BOT_MOVE")
        export LOADTEST_ADMIN_PASSWORD=bench-ladder-pw
    fi
    for rep in $(seq "$BOT_REPS"); do
        for game in "${bot_games[@]}"; do
            stop_servers
            rm -rf "$OUT/row15-data"
            mkdir -p "$OUT/row15-data"
            if [ "$BOT_LADDER" != off ]; then
                printf '%s\n' "$LOADTEST_ADMIN_PASSWORD" |
                    "$ARCADE" admin set-password --data-dir "$OUT/row15-data" "$BOT_ADMIN" >/dev/null
            fi
            start_arcade "$OUT/row15-data" "$OUT/row15-arcade.log" warn --admin "$BOT_ADMIN"
            wait_for_port "$PORT_ARCADE"
            sleep 0.5
            RUN_LIMIT=1800 run 15 "${game%% *}" "$rep" --bots "$BOT_COUNT" --bot-game "$game" \
                --bot-seeds "$BOT_SEEDS" "${bot_ladder[@]}"
            stop_servers
            sleep 1
        done
    done
    rm -rf "$OUT/row15-data"
fi
# 16. Upgrades (issue 36): row 2's load (10,000 sessions in Sokoban at 1 command/s)
# on a fresh arcade, upgraded to itself by `arcade upgrade` 5 s into the measured
# window: every session moves to the new process. loadtest reports the stall (the
# longest wait of a command answered after the upgrade was asked: those sent while a
# session was handed over wait in its socket) and the notices the sessions got; the
# server's log (row16-arcade-REP.log) has the roll call, the flush, the hand-over and
# the new process's rebuild of every game by replay.
if row 16; then
    echo "$UPGRADE_REPS" >"$OUT/row16.runs"
    for rep in $(seq "$UPGRADE_REPS"); do
        fresh_arcade "$OUT/row16-data" "$OUT/row16-arcade-$rep.log" \
            "warn,arcade::server=info,arcade::server::roll_call=info"
        RUN_LIMIT=300 run 16 arcade "$rep" --sessions "$UPGRADE_SESSIONS" --rate 1 --ramp 3s \
            --warmup 3s --duration 15s --upgrade-after 5s --upgrade-data-dir "$OUT/row16-data"
        stop_servers
        sleep 1
    done
    rm -rf "$OUT/row16-data"
fi
# Rates for "Scale on paper" (no arcade): NATS and PostgreSQL.
if row rates; then
    if ! command -v nats-server >/dev/null; then
        echo "nats-server is not installed" >"$OUT/rates-nats.skipped"
    else
        : >"$OUT/rates-nats.txt"
        for size in 60 1024; do
            messages=$NATS_MESSAGES
            if [ "$size" -gt 100 ]; then messages=$((NATS_MESSAGES / 4)); fi
            for subscribers in 1 3 10; do
                start_nats
                echo "rates: NATS, $size B, $subscribers subscriber(s), $messages messages" >&2
                timeout 120 "${LOAD_ON[@]}" "$BUS_RATE" --url "nats://127.0.0.1:$PORT_NATS" \
                    --size "$size" --subscribers "$subscribers" --messages "$messages" \
                    --server-pid "$nats_pid" >>"$OUT/rates-nats.txt" || echo "failed size=$size subscribers=$subscribers" >>"$OUT/rates-nats.txt"
                stop_nats
            done
        done
    fi
    if ! command -v pgbench >/dev/null && ! [ -x "$(pg_bin)/pgbench" ]; then
        echo "pgbench is not installed" >"$OUT/rates-pg.skipped"
    elif start_postgres; then
        pg_rates >"$OUT/rates-pg.txt"
        stop_postgres
    else
        echo "no PostgreSQL cluster could be started" >"$OUT/rates-pg.skipped"
    fi
fi
# The recorder's database (issue 29, run BN): no server; 10,000 games' lines written a
# second at a time to a fresh SQLite file, minute by minute. To compare with an older
# build, run that build's copy of the program (STORE_SECONDS_BIN) beside it.
if row store; then
    "${LOAD_ON[@]}" "$STORE_SECONDS_BIN" 10000 "${STORE_SECONDS:-300}" >"$OUT/store.txt" \
        || echo "examples/store_seconds failed" >>"$OUT/store.txt"
fi
# The Sokoban solver (issue 33): no server, one thread; bench/solver.sh does it all.
if row solver; then
    mkdir -p "$OUT/solver"
    OUT="$OUT/solver" "$(dirname "$0")/solver.sh" >"$OUT/solver.txt" || echo "bench/solver.sh failed" >>"$OUT/solver.txt"
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
    echo "rows run: $ROWS; runs per load and server: $REPS ($THROUGHPUT_REPS for row 1, $LATENCY_REPS for rows 2 and 3, $SOCIAL_REPS for rows 6 to 8, $RESTART_REPS for row 9, $RACE_REPS for row 10, $WEB_REPS for each half of row 11 and $CLUSTER_REPS for each half of row 12, arcade only, $LATENCY_REPS for each half of row 13, $BOT_REPS for each game of row 15); latencies of rows 2, 3, 6, 7, 9, 10, 11, 12, 13 and 15 pooled over the runs, other numbers medians; $elapsed s in all; JSON in $OUT"
    echo
    python3 bench/table.py "$OUT"
} | tee "$OUT/table.md"
