#!/usr/bin/env bash
# What the players of other instances cost an instance (docs/BENCHMARKS.md, "Players of
# other instances"): two release instances on one bus (a throwaway nats-server) and one
# throwaway PostgreSQL; N idle named sessions in the lobby of instance A only; instance
# B's RSS and CPU from /proc before, while it knows them all, over the next 10 s (at
# least one roll call of A's sessions), and as they all leave at once (the load's end:
# a class's lab losing its network).
#
#   N=9000 bench/ghosts.sh        # about 45 s; only 127.0.0.1 is touched
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-9000}
ARCADE=${ARCADE:-target/release/arcade}
# The load tester is a binary of its own (the loadtest/ crate; `arcade loadtest` runs it).
LOADTEST=${LOADTEST:-target/release/arcade-loadtest}
[ -x "$ARCADE" ] && [ -x "$LOADTEST" ] || cargo build --release --bin arcade --bin arcade-loadtest
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$PGBIN" ] || { echo "ghosts: PostgreSQL is not installed (apt-get install postgresql)" >&2; exit 1; }
command -v nats-server >/dev/null || { echo "ghosts: nats-server is not installed" >&2; exit 1; }
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
W=$(mktemp -d /tmp/arcade-ghosts.XXXX)
[ "$(id -u)" = 0 ] && chown postgres: "$W"
PIDS=()
cleanup() {
    kill "${PIDS[@]}" 2>/dev/null || true
    # Each process gone before the database and the directory are (an instance with
    # 9,000 sessions takes seconds to stop): the next run's ports are free then.
    for pid in "${PIDS[@]}"; do
        for _ in $(seq 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    done
    as_postgres "$PGBIN/pg_ctl" -D "$W/pg" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$W"
}
trap cleanup EXIT
as_postgres "$PGBIN/initdb" -D "$W/pg" -U arcade -A trust >/dev/null
as_postgres "$PGBIN/pg_ctl" -D "$W/pg" -l "$W/pg.log" -w \
    -o "-p 25432 -k $W -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null
as_postgres "$PGBIN/createdb" -h 127.0.0.1 -p 25432 -U arcade ghosts
nats-server -a 127.0.0.1 -p 25422 >"$W/nats.log" 2>&1 &
PIDS+=($!)
DB=postgres://arcade@127.0.0.1:25432/ghosts
for port in 25401 25402; do
    mkdir -p "$W/$port"
    RUST_LOG=warn "$ARCADE" serve --bind 127.0.0.1 --port "$port" --max-sessions 20000 \
        --max-per-address 20000 --data-dir "$W/$port" --db "$DB" \
        --bus nats://127.0.0.1:25422 >/dev/null 2>"$W/$port.log" &
    PIDS+=($!)
done
A=${PIDS[1]}
B=${PIDS[2]}
sleep 3
rss() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
who() {
    python3 - "$1" <<'PY'
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.settimeout(2)
time.sleep(0.3)
s.sendall(b"who\r\n")
time.sleep(1.5)
data = b""
try:
    while chunk := s.recv(1 << 20):
        data += chunk
except OSError:
    pass
print(next((line for line in data.decode(errors="replace").splitlines() if " online" in line), "?"))
PY
}
echo "before: A $(rss "$A") KiB, B $(rss "$B") KiB, B $(ticks "$B") CPU ticks"
"$LOADTEST" --addr 127.0.0.1:25401 --sources 16 --sessions "$N" --idle --lobby --names \
    --ramp 5s --warmup 3s --duration 25s --quiet --json >"$W/load.json" 2>&1 &
PIDS+=($!)
load=$!
sleep 10
echo "with A's $N: A $(rss "$A") KiB, B $(rss "$B") KiB, B $(ticks "$B") CPU ticks; B's who: $(who 25402)"
sleep 10
echo "10 s later: B $(ticks "$B") CPU ticks"
# All of A's sessions end at once (the load tester killed: the kernel closes its
# sockets together); B hears each end and forgets the player.
before=$(ticks "$B")
kill "$load"
wait "$load" 2>/dev/null || true
sleep 5
echo "as A's $N leave: B $before to $(ticks "$B") CPU ticks over 5 s; B's who: $(who 25402)"
