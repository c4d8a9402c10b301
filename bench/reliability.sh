#!/usr/bin/env bash
# Reliability items of the hardening issue (1-10) and of the trust issue (t0-t18,
# issue 28), measured on two builds of arcade side by side; prints the machine and a
# markdown table (item, what was done, BEFORE, AFTER). docs/RELIABILITY.md explains
# every row.
#
#   bench/reliability.sh                                   # the defaults below
#   BEFORE=path/to/old/arcade AFTER=path/to/new/arcade bench/reliability.sh
#   TRUST_BEFORE=old/arcade TRUST_AFTER=new/arcade ITEMS="t0 t3" bench/reliability.sh
#   ITEMS="1 3" bench/reliability.sh                       # some items only
#
# Items 1-10 run BEFORE and AFTER; the trust items run TRUST_BEFORE and TRUST_AFTER
# (the builds before and after issue 28). A trust build that is missing is reported
# in its column ("not measured") instead of stopping the run, so that the BEFORE
# figures can be taken before the AFTER build exists. The trust items' clients are in
# bench/trust.py (beside this script); item t9 also needs nats-server and PostgreSQL
# (it says "skipped" without them).
#
# Every server binds 127.0.0.1 on a free port, with a fresh --data-dir under one
# temporary directory; clients connect to 127.0.0.1 (item 2 binds its client sockets
# to 127.0.0.2, 127.0.0.3 and 127.0.0.4). Every process started here is killed on exit and the
# temporary directory removed. Each item takes a few seconds per binary; item 4 is
# longer for a build that hangs (HANG seconds per hanging run, 4 such runs).
#
# Needs: bash, python3, coreutils (timeout, truncate, mkfifo, touch -d); /usr/bin/time
# for peak memory in item 4 (optional).
set -euo pipefail
shopt -s nullglob

BEFORE=${BEFORE:-/work/bin-old/arcade}
AFTER=${AFTER:-/work/bin-new/arcade}
TRUST_BEFORE=${TRUST_BEFORE:-/work/bin-trust-before/arcade}
TRUST_AFTER=${TRUST_AFTER:-/work/bin-trust-after/arcade}
TRUST_ITEMS="t0 t1 t2 t3 t4 t5 t6 t7 t8 t9 t10 t11 t12 t13 t14 t15 t16 t17 t18"
ITEMS=${ITEMS:-"1 2 3 4 5 6 7 8 9 10 $TRUST_ITEMS"}
TRUST_PY=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/trust.py
# Seconds after which a start or a check-levels that has not finished is given up on.
HANG=${HANG:-10}
# Item 4's address-space cap (ulimit -v, KiB) for both builds: 3 GiB lets a 2 GB file
# be read whole, and stops a read of /dev/zero at about 2 GiB.
MEMCAP_KB=${MEMCAP_KB:-3145728}
# Item 1: lines of 1000 moves (20,000 lines = 20 million moves).
MOVE_LINES=${MOVE_LINES:-20000}
# Item 3: saves made by one client; files pre-created for the listing.
SAVES=${SAVES:-3000}
LISTED=${LISTED:-100000}

# The old items need both builds; the trust items report a missing one in its column.
if [[ " $ITEMS " =~ \ [0-9]+\  ]]; then
  for bin in "$BEFORE" "$AFTER"; do
    [[ -x $bin ]] || { echo "not an executable: $bin" >&2; exit 2; }
  done
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/arcade-reliability.XXXXXX")
PIDS=()
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  # Item 9's servers are children of its python client, which kills them; in case it
  # was interrupted first:
  for pid in "$WORK"/run.*/pid; do kill -KILL "$(cat "$pid")" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

py() { python3 "$WORK/rel.py" "$@"; }
say() { printf '%s\n' "$*" >&2; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }
fresh() { mktemp -d "$WORK/run.XXXXXX"; }
# A table cell: no pipes, no newlines.
cell() { printf '%s' "$*" | tr '\n' ' ' | sed -e 's/|/\\|/g' -e 's/ *$//'; }
row() {
  printf '| %s | %s | %s | %s |\n' "$1" "$(cell "$2")" "$(cell "$3")" "$(cell "$4")" >>"$WORK/rows"
}
mib() { awk -v k="$1" 'BEGIN { printf "%.1f MiB", k / 1024 }'; }
# State of a child process: empty once it is reaped, Z while it is a zombie.
state() { awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null || true; }
running() { local s; s=$(state "$1"); [[ -n $s && $s != Z ]]; }
count() { find "$1" -maxdepth 1 -name "$2" 2>/dev/null | wc -l; }

# start_server LOG BIN DATA [ARGS...]: `BIN serve` on a free port of 127.0.0.1 with
# its log in LOG; waits for the banner; sets PORT and PID.
start_server() {
  local log=$1 bin=$2 data=$3
  shift 3
  PORT=$(py free-port)
  "$bin" serve --bind 127.0.0.1 --port "$PORT" --data-dir "$data" "$@" >"$log" 2>&1 &
  PID=$!
  PIDS+=("$PID")
  if [[ $(py banner "$PORT" 15) == none ]]; then
    say "$bin did not answer on port $PORT; its log:"
    tail -5 "$log" >&2
    return 1
  fi
}

# stop_server PID: SIGTERM, up to 5 s, then SIGKILL; reaped. Prints the exit status.
stop_server() {
  local pid=$1 i rc=0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 50; i++)); do running "$pid" || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || rc=$?
  echo "$rc"
}

declare -A R

item1() {
  local side d out b a m e n
  for side in BEFORE AFTER; do
    say "item 1 ($side): $MOVE_LINES lurd lines"
    d=$(fresh)
    start_server "$d/log" "${!side}" "$d/data"
    out=$(py starpusher "$PORT" "$PID" "$MOVE_LINES" 100)
    read -r b a m e n <<<"$out"
    R[$side]="+$(mib $((a - b))) (VmRSS $b → $a kB); Moves: $m after $n lines in $e s"
    stop_server "$PID" >/dev/null
  done
  row 1 "\`play starpusher arcade 1\`, then $MOVE_LINES lines \`lurd \` + \`rl\`×500 in batches of 100, replies read; server VmRSS growth while the client is still connected" "${R[BEFORE]}" "${R[AFTER]}"
}

item2() {
  local side d args
  for side in BEFORE AFTER; do
    say "item 2 ($side): 300 silent connections from 127.0.0.2"
    d=$(fresh)
    start_server "$d/log" "${!side}" "$d/data" --max-sessions 300
    R[$side.flood]=$(py flood "$PORT" 300)
    stop_server "$PID" >/dev/null
    d=$(fresh)
    start_server "$d/log" "${!side}" "$d/data" --max-sessions 300
    R[$side.flood2]=$(py flood2 "$PORT" 256 44)
    stop_server "$PID" >/dev/null
    d=$(fresh)
    args=()
    [[ $side == AFTER ]] && args=(--login-timeout 2s)
    start_server "$d/log" "${!side}" "$d/data" "${args[@]}"
    R[$side.silent]=$(py silent "$PORT" 5)
    stop_server "$PID" >/dev/null
    d=$(fresh)
    start_server "$d/log" "${!side}" "$d/data" --idle-timeout 4s
    R[$side.idle]=$(py silent "$PORT" 8)
    stop_server "$PID" >/dev/null
  done
  row 2a "\`--max-sessions 300\`: 300 connections from 127.0.0.2 that send nothing, then 1 from 127.0.0.3; what each gets first" "${R[BEFORE.flood]}" "${R[AFTER.flood]}"
  row 2b "Same limit: 256 silent connections from 127.0.0.2 and 44 from 127.0.0.4, then 1 from 127.0.0.3" "${R[BEFORE.flood2]}" "${R[AFTER.flood2]}"
  row 2c "One connection that sends nothing (watched 5 s)" "${R[BEFORE.silent]} (no --login-timeout: it stays until --idle-timeout, 30 min by default; not waited for)" "${R[AFTER.silent]} (\`--login-timeout 2s\`)"
  row 2d "… with \`--idle-timeout 4s\` instead (watched 8 s)" "${R[BEFORE.idle]}" "${R[AFTER.idle]}"
}

item3() {
  local side d out replies saved refused elapsed why files
  for side in BEFORE AFTER; do
    say "item 3 ($side): $SAVES saves, then $LISTED saves listed"
    d=$(fresh)
    start_server "$d/log" "${!side}" "$d/data"
    out=$(py saves "$PORT" "$SAVES" 25)
    IFS='|' read -r replies saved refused elapsed why <<<"$out"
    files=$(count "$d/data/wumpus" '*.txt')
    R[$side.saves]="$files files in wumpus/; $saved \`Saved as\`, $refused refused, $replies replies in $elapsed s"
    [[ -n $why ]] && R[$side.saves]+="; first refusal: \"$why\""
    stop_server "$PID" >/dev/null
    d=$(fresh)
    py mksaves "$d/data/wumpus" "$LISTED"
    start_server "$d/log" "${!side}" "$d/data"
    out=$(py listing "$PORT" 20 200)
    IFS='|' read -r "R[$side.nope]" "R[$side.quiet]" "R[$side.loaded]" "R[$side.noise]" <<<"$out"
    R[$side.levels]=$(py levels "$PORT" wumpus)
    stop_server "$PID" >/dev/null
    rm -rf "$d"
  done
  row 3a "In \`play wumpus\`, one client sends \`save s1\` … \`save s$SAVES\` in one write and reads every reply" "${R[BEFORE.saves]}" "${R[AFTER.saves]}"
  row 3b "$LISTED save files pre-created in DATA-DIR/wumpus/; one \`play wumpus nope\`: reply size and latency" "${R[BEFORE.nope]}" "${R[AFTER.nope]}"
  row 3c "Same server: 200 \`d0\` in sokoban, one every 5 ms, alone: latency p50/p99 (ms)" "${R[BEFORE.quiet]}" "${R[AFTER.quiet]}"
  row 3d "… while 20 other clients each send \`play wumpus nope\` at once: p50/p99/max (ms)" "${R[BEFORE.loaded]}" "${R[AFTER.loaded]}"
  row 3e "… the slowest of those 20 \`play wumpus nope\` replies (ms)" "${R[BEFORE.noise]}" "${R[AFTER.noise]}"
  row 3f "… one \`levels wumpus\`: reply size and latency" "${R[BEFORE.levels]}" "${R[AFTER.levels]}"
}

# The hostile level directories of item 4, each with one good level beside.
make_hostile() {
  local h=$WORK/hostile c
  for c in huge zero fifo all; do
    mkdir -p "$h/$c/sokoban"
    printf '#P+-#\n' >"$h/$c/sokoban/good.txt"
  done
  truncate -s 2G "$h/huge/sokoban/huge.txt" "$h/all/sokoban/huge.txt"
  ln -s /dev/zero "$h/zero/sokoban/zero.txt"
  ln -s /dev/zero "$h/all/sokoban/zero.txt"
  mkfifo "$h/fifo/sokoban/fifo.txt" "$h/all/sokoban/fifo.txt"
}

# A new sparse huge.txt for every run, so that every run reads it from a cold page
# cache (removing the old one also frees what the last run cached of it).
rehuge() {
  if [[ -e $1/sokoban/huge.txt ]]; then
    rm -f "$1/sokoban/huge.txt"
    truncate -s 2G "$1/sokoban/huge.txt"
  fi
}

# check_capped BIN DIR: check-levels under the memory cap and `timeout $HANG`.
check_capped() {
  local bin=$1 dir=$2 o t rc=0 start el peak first
  rehuge "$dir"
  o=$(mktemp "$WORK/out.XXXXXX")
  t=$(mktemp "$WORK/time.XXXXXX")
  start=$(now)
  if [[ -x /usr/bin/time ]]; then
    (ulimit -v "$MEMCAP_KB" && exec /usr/bin/time -o "$t" -f '%M' timeout "$HANG" "$bin" check-levels "$dir") >"$o" 2>&1 || rc=$?
    peak=", peak RSS $(mib "$(tail -1 "$t")")"
  else
    (ulimit -v "$MEMCAP_KB" && exec timeout "$HANG" "$bin" check-levels "$dir") >"$o" 2>&1 || rc=$?
    peak=""
  fi
  el=$(since "$start")
  first=$(grep -v -e 'problem(s)$' -e '^Command ' "$o" | sed "s|$dir/||" | paste -sd ';' - | cut -c1-300)
  if [[ $rc == 124 ]]; then
    echo "killed by \`timeout $HANG\` (exit 124) after $el s, no output$peak"
  else
    echo "exit $rc in $el s$peak: \"$first\""
  fi
}

# serve_capped BIN DIR: seconds from start to banner under the memory cap.
serve_capped() {
  local bin=$1 dir=$2 d start b pid hwm rc
  rehuge "$dir"
  d=$(fresh)
  PORT=$(py free-port)
  start=$(now)
  (ulimit -v "$MEMCAP_KB" && exec "$bin" serve --bind 127.0.0.1 --port "$PORT" --data-dir "$d/data" --levels "$dir") >"$d/log" 2>&1 &
  pid=$!
  PIDS+=("$pid")
  b=$(py banner "$PORT" "$HANG" "$start")
  hwm=$(awk '/VmHWM/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
  if running "$pid"; then
    rc=$(stop_server "$pid")
    if [[ $b == none ]]; then
      echo "no banner within $HANG s (process alive, peak RSS $(mib "${hwm:-0}"); killed)"
    else
      echo "banner after $b s, peak RSS $(mib "${hwm:-0}")"
    fi
  else
    rc=0
    wait "$pid" 2>/dev/null || rc=$?
    echo "no banner: the process exited ($rc) after $(since "$start") s: $(tail -2 "$d/log" | paste -sd ' ' - | cut -c1-200)"
  fi
}

item4() {
  local side c
  make_hostile
  for c in huge zero fifo all; do
    for side in BEFORE AFTER; do
      say "item 4 ($side): $c check-levels"
      R[$side.check.$c]=$(check_capped "${!side}" "$WORK/hostile/$c")
      say "item 4 ($side): $c serve"
      R[$side.serve.$c]=$(serve_capped "${!side}" "$WORK/hostile/$c")
    done
  done
  rm -f "$WORK"/hostile/*/sokoban/huge.txt
  local what=(
    [0]=huge "sokoban/huge.txt: \`truncate -s 2G\` (sparse, made anew for every run)"
    [2]=zero "sokoban/zero.txt: symlink to /dev/zero"
    [4]=fifo "sokoban/fifo.txt: \`mkfifo\`"
    [6]=all "all three together"
  )
  local i
  for ((i = 0; i < 8; i += 2)); do
    c=${what[i]}
    row "4 $c" "\`check-levels DIR\`, DIR/${what[i + 1]} beside good.txt (\`ulimit -v $MEMCAP_KB\`, \`timeout $HANG\`)" "${R[BEFORE.check.$c]}" "${R[AFTER.check.$c]}"
    row "4 $c" "\`serve --levels DIR\`, same DIR: time from start to the banner" "${R[BEFORE.serve.$c]}" "${R[AFTER.serve.$c]}"
  done
}

item5() {
  # No path here may contain the word looked for.
  local side dir=$WORK/leak/levels g o rc d n
  mkdir -p "$dir"
  printf 'root:x:0:0:secret-text\nsecond line\n' >"$WORK/leak/passwd"
  for g in sokoban starpusher wumpus; do
    mkdir -p "$dir/$g"
    ln -s "$WORK/leak/passwd" "$dir/$g/leak.txt"
  done
  for side in BEFORE AFTER; do
    say "item 5 ($side)"
    rc=0
    o=$(timeout 20 "${!side}" check-levels "$dir" 2>&1) || rc=$?
    n=$(grep -c secret <<<"$o" || true)
    R[$side]="exit $rc; $n of $(wc -l <<<"$o") output lines contain \`secret\`"
    [[ $n -gt 0 ]] && R[$side]+=": \"$(grep -m1 secret <<<"$o" | sed "s|$dir|DIR|")\""
    d=$(fresh)
    start_server "$d/log" "${!side}" "$d/data" --levels "$dir"
    stop_server "$PID" >/dev/null
    R[$side]+="; server log lines with \`secret\`: $(grep -c secret "$d/log" || true)"
  done
  row 5 "DIR/{sokoban,starpusher,wumpus}/leak.txt are symlinks to a file starting \`root:x:0:0:secret-text\`: \`check-levels DIR\`, and the log of \`serve --levels DIR\`" "${R[BEFORE]}" "${R[AFTER]}"
}

item6() {
  local side dir=$WORK/tall o rc d
  mkdir -p "$dir/sokoban"
  py tall-level "$dir/sokoban/tall.txt" 100000
  for side in BEFORE AFTER; do
    say "item 6 ($side)"
    rc=0
    o=$(timeout 20 "${!side}" check-levels "$dir" 2>&1) || rc=$?
    R[$side.check]="exit $rc: \"$(head -1 <<<"$o" | sed "s|$dir|DIR|")\""
    d=$(fresh)
    start_server "$d/log" "${!side}" "$d/data" --levels "$dir"
    R[$side.play]=$(py bigsok "$PORT" tall)
    stop_server "$PID" >/dev/null
  done
  row 6a "sokoban/tall.txt: \`#P+-#\` then 99,999 rows \`#...#\` (100,000 rows, 600 kB): \`check-levels\`" "${R[BEFORE.check]}" "${R[AFTER.check]}"
  row 6b "\`serve --levels\` it; \`play sokoban tall\`, then \`d0\`: reply sizes" "${R[BEFORE.play]}" "${R[AFTER.play]}"
}

item7() {
  local side d trial left saver i fresh_left old_left torn saves
  for side in BEFORE AFTER; do
    d=$(fresh)
    left=0
    for trial in 1 2 3; do
      say "item 7 ($side): kill -9 during saves, try $trial"
      rm -rf "$d/data"
      start_server "$d/log" "${!side}" "$d/data"
      py saver "$PORT" 8 20 >"$d/saver.out" 2>&1 &
      saver=$!
      PIDS+=("$saver")
      for ((i = 0; i < 100; i++)); do grep -q ready "$d/saver.out" && break; sleep 0.05; done
      sleep 1.5
      kill -KILL "$PID"
      wait "$PID" 2>/dev/null || true
      kill -TERM "$saver" 2>/dev/null || true
      wait "$saver" 2>/dev/null || true
      left=$(count "$d/data/wumpus" '.*.tmp')
      [[ $left -gt 0 ]] && break
    done
    saves=$(count "$d/data/wumpus" '*.txt')
    torn=0
    for f in "$d"/data/wumpus/*.txt; do grep -q '^exit ' "$f" || torn=$((torn + 1)); done
    start_server "$d/log2" "${!side}" "$d/data"
    fresh_left=$(count "$d/data/wumpus" '.*.tmp')
    stop_server "$PID" >/dev/null
    find "$d/data/wumpus" -maxdepth 1 -name '.*.tmp' -exec touch -d '1 hour ago' {} +
    start_server "$d/log3" "${!side}" "$d/data"
    old_left=$(count "$d/data/wumpus" '.*.tmp')
    stop_server "$PID" >/dev/null
    R[$side.kill]="$left \`.*.tmp\` left (kill on try $trial); $saves saves, $torn incomplete"
    R[$side.restart]="$fresh_left left after a restart at once; $old_left after \`touch -d '1 hour ago'\` and another restart"
  done
  row 7a "8 clients in \`play wumpus\` each saving over 20 names in a loop; \`kill -9\` the server 1.5 s in: temporaries in DATA-DIR/wumpus" "${R[BEFORE.kill]}" "${R[AFTER.kill]}"
  row 7b "Start again on the same DATA-DIR, count once it answers" "${R[BEFORE.restart]}" "${R[AFTER.restart]}"
}

item8() {
  local side d out exit said note rc warn
  for side in BEFORE AFTER; do
    say "item 8 ($side)"
    d=$(fresh)
    start_server "$d/log" "${!side}" "$d/data"
    out=$(py shutdown "$PORT" "$PID" 20000 15)
    IFS='|' read -r exit said note <<<"$out"
    rc=$(stop_server "$PID")
    warn=$(grep -c 'did not close in time' "$d/log" || true)
    R[$side.exit]="$exit, exit status $rc"
    [[ $warn -gt 0 ]] && R[$side.exit]+=" (log: \"some sessions did not close in time\")"
    R[$side.said]=$said
  done
  row 8a "Client A (SO_RCVBUF 4096) writes 20,000 \`help\` lines and never reads; client B in the lobby; SIGTERM: time to exit" "${R[BEFORE.exit]}" "${R[AFTER.exit]}"
  row 8b "… B received \`Server shutting down.\`" "${R[BEFORE.said]}" "${R[AFTER.said]}"
}

item9() {
  local side d out banners said code st
  for side in BEFORE AFTER; do
    say "item 9 ($side)"
    d=$(fresh)
    out=$(py logpipe "${!side}" "$(py free-port)" "$d/data" "$d/pid" 20)
    IFS='|' read -r banners said code st <<<"$out"
    R[$side.banner]="$banners ($st)"
    R[$side.term]="goodbye: $said; exit status $code"
  done
  row 9a "\`arcade serve 2>&1 | reader\`; the reader takes the log up to \`listening\` and closes the pipe; then 5 new connections" "${R[BEFORE.banner]}" "${R[AFTER.banner]}"
  row 9b "… then a client in the lobby, SIGTERM: does it get \`Server shutting down.\`; exit status" "${R[BEFORE.term]}" "${R[AFTER.term]}"
}

item10() {
  local side d start b pid rc o cap=$WORK/capital
  mkdir -p "$cap/Sokoban"
  printf '#P+-#\n' >"$cap/Sokoban/a.txt"
  for side in BEFORE AFTER; do
    say "item 10 ($side)"
    d=$(fresh)
    PORT=$(py free-port)
    start=$(now)
    "${!side}" serve --bind 127.0.0.1 --port "$PORT" --data-dir "$d/data" --levels /nonexistent >"$d/log" 2>&1 &
    pid=$!
    PIDS+=("$pid")
    b=$(py banner "$PORT" 3 "$start")
    if running "$pid"; then
      stop_server "$pid" >/dev/null
      R[$side.serve]="keeps running: banner after $b s; log lines naming /nonexistent: $(grep -c nonexistent "$d/log" || true)"
    else
      rc=0
      wait "$pid" 2>/dev/null || rc=$?
      R[$side.serve]="exit $rc; stderr: \"$(tail -1 "$d/log")\""
    fi
    rc=0
    o=$(timeout 20 "${!side}" check-levels "$cap" 2>&1) || rc=$?
    R[$side.cap]="exit $rc: \"$(sed "s|$cap|DIR|" <<<"$o" | paste -sd ' ' -)\""
    rc=0
    o=$(timeout 20 "${!side}" check-levels /nonexistent 2>&1) || rc=$?
    R[$side.none]="exit $rc: \"$(paste -sd ' ' - <<<"$o")\""
  done
  row 10a "\`serve --levels /nonexistent\`" "${R[BEFORE.serve]}" "${R[AFTER.serve]}"
  row 10b "\`check-levels DIR\`, DIR holding only \`Sokoban/a.txt\` (capital S, a valid level)" "${R[BEFORE.cap]}" "${R[AFTER.cap]}"
  row 10c "\`check-levels /nonexistent\`" "${R[BEFORE.none]}" "${R[AFTER.none]}"
}

# The clients, written out once per run.
write_clients() {
  cat >"$WORK/rel.py" <<'PY'
"""Small clients for bench/reliability.sh. Every connection goes to 127.0.0.x only."""
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time

HOST = "127.0.0.1"
BANNER = b"Welcome to arcade!"
LOBBY = b"\r\n> "
GAME = b"Enter command: "


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def exited(pid):
    """True once pid is gone or a zombie (the bash parent reaps it later)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


def connect(port, source=None, timeout=5.0, rcvbuf=None):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    if source:
        s.bind((source, 0))
    s.settimeout(timeout)
    s.connect((HOST, port))
    return s


def read_until(s, marker, limit=None, buf=b""):
    """Read until marker appears; returns (everything read, rest after marker)."""
    while True:
        i = buf.find(marker)
        if i >= 0:
            return buf[: i + len(marker)], buf[i + len(marker):]
        b = s.recv(1 << 20)
        if not b:
            raise EOFError(buf[-200:])
        buf += b
        if limit and len(buf) > limit:
            raise RuntimeError("reply over limit")


def count_markers(s, marker, n, deadline, buf=b""):
    """Read until marker was seen n times or deadline passes; returns (count, tail)."""
    seen = 0
    while seen < n and time.monotonic() < deadline:
        s.settimeout(max(0.05, deadline - time.monotonic()))
        try:
            b = s.recv(1 << 20)
        except socket.timeout:
            break
        if not b:
            break
        buf += b
        c = buf.count(marker)
        seen += c
        if c:
            buf = buf[buf.rfind(marker) + len(marker):]
        else:
            buf = buf[-len(marker):]
    return seen, buf


def login(port, **kw):
    s = connect(port, **kw)
    _, rest = read_until(s, LOBBY)
    return s, rest


def cmd_banner(port, wait, start=None):
    """Seconds from `start` (a time.time() stamp; default now) until a connection
    gets the banner, trying for `wait` seconds from `start`; or 'none'."""
    start = time.time() if start is None else float(start)
    end = start + float(wait)
    while time.time() < end:
        try:
            s = connect(int(port), timeout=max(0.1, end - time.time()))
            got = b""
            while BANNER not in got and time.time() < end:
                s.settimeout(max(0.05, end - time.time()))
                b = s.recv(4096)
                if not b:
                    break
                got += b
            s.close()
            if BANNER in got:
                print(f"{time.time() - start:.3f}")
                return
        except (OSError, socket.timeout):
            time.sleep(0.05)
    print("none")


def cmd_starpusher(port, pid, lines, batch):
    port, pid, lines, batch = int(port), int(pid), int(lines), int(batch)
    s, _ = login(port, timeout=60)
    s.sendall(b"play starpusher arcade 1\r\n")
    _, rest = read_until(s, GAME)
    line = b"lurd " + b"rl" * 500 + b"\r\n"
    s.sendall(line)
    _, rest = read_until(s, GAME, buf=rest)
    before = rss_kb(pid)
    t0 = time.monotonic()
    deadline = t0 + 25
    sent = 1
    while sent < lines and time.monotonic() < deadline:
        n = min(batch, lines - sent)
        s.sendall(line * n)
        got, rest = count_markers(s, GAME, n, deadline, rest)
        sent += n
    s.sendall(b"d0\r\n")
    status, _ = read_until(s, GAME, buf=rest)
    elapsed = time.monotonic() - t0
    after = rss_kb(pid)
    moves = status.split(b"Moves: ")[-1].split(b" ")[0].decode()
    print(f"{before} {after} {moves} {elapsed:.1f} {sent}")


def classify(data):
    if BANNER in data:
        return "banner"
    if b"Server full" in data:
        return "full"
    if b"Too many connections" in data:
        return "too-many"
    if not data:
        return "nothing"
    return "other"


def read_first(s, wait=2.0):
    s.settimeout(wait)
    data = b""
    try:
        while True:
            b = s.recv(4096)
            if not b:
                break
            data += b
            if b"\r\n" in data and (BANNER not in data or LOBBY in data):
                break
    except (socket.timeout, OSError):
        pass
    return data


def cmd_flood(port, n):
    """n silent connections from 127.0.0.2, then one from 127.0.0.3."""
    port, n = int(port), int(n)
    socks, counts, first_other = [], {}, None
    for i in range(n):
        s = connect(port, source="127.0.0.2")
        data = read_first(s)
        what = classify(data)
        counts[what] = counts.get(what, 0) + 1
        if what != "banner" and first_other is None:
            first_other = i + 1
            other_line = data.split(b"\r\n")[0].decode(errors="replace")
        socks.append(s)
    s = connect(port, source="127.0.0.3")
    data = read_first(s)
    third = classify(data)
    line = data.split(b"\r\n")[0].decode(errors="replace")
    for s in socks:
        s.close()
    s.close()
    parts = ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
    turned = f"; first turned away: #{first_other} ({other_line!r})" if first_other else ""
    print(f"from .2: {parts}{turned}; from .3: {third} ({line!r})")


def cmd_flood2(port, n2, n4):
    """n2 silent connections from 127.0.0.2, n4 from 127.0.0.4, then one from
    127.0.0.3: what the last gets."""
    port, n2, n4 = int(port), int(n2), int(n4)
    socks, counts = [], {}
    for source, n in (("127.0.0.2", n2), ("127.0.0.4", n4)):
        for _ in range(n):
            s = connect(port, source=source)
            what = classify(read_first(s))
            counts[(source[-2:], what)] = counts.get((source[-2:], what), 0) + 1
            socks.append(s)
    s = connect(port, source="127.0.0.3")
    data = read_first(s)
    line = data.split(b"\r\n")[0].decode(errors="replace")
    for x in socks + [s]:
        x.close()
    parts = ", ".join(f"{v} {k[1]} from {k[0]}" for k, v in counts.items())
    print(f"{parts}; from .3: {classify(data)} ({line!r})")


def cmd_silent(port, wait):
    """Connect, send nothing; seconds until the server closes, and its last words."""
    port, wait = int(port), float(wait)
    s = connect(port)
    t0 = time.monotonic()
    data = b""
    s.settimeout(wait)
    try:
        while True:
            b = s.recv(4096)
            if not b:
                print(f"closed after {time.monotonic() - t0:.1f} s: "
                      f"{data.split(LOBBY)[-1].decode(errors='replace').strip()!r}")
                return
            data += b
    except socket.timeout:
        print(f"still open after {wait:.0f} s")
    finally:
        s.close()


def cmd_saves(port, n, limit):
    """One client in wumpus pipelines `save sN` N=1..n; replies and time."""
    port, n, limit = int(port), int(n), float(limit)
    s, rest = login(port, timeout=30)
    s.sendall(b"play wumpus\r\n")
    _, rest = read_until(s, GAME, buf=rest)
    payload = b"".join(b"save s%d\r\n" % i for i in range(1, n + 1))
    t0 = time.monotonic()
    done = threading.Event()

    def writer():
        s.sendall(payload)
        done.set()

    threading.Thread(target=writer, daemon=True).start()
    deadline = t0 + limit
    saved = refused = replies = 0
    first_refusal = None
    buf = rest
    while replies < n and time.monotonic() < deadline:
        s.settimeout(max(0.05, deadline - time.monotonic()))
        try:
            b = s.recv(1 << 16)
        except socket.timeout:
            break
        if not b:
            break
        buf += b
        while True:
            i = buf.find(GAME)
            if i < 0:
                break
            reply, buf = buf[:i], buf[i + len(GAME):]
            replies += 1
            if b"Saved as" in reply:
                saved += 1
            else:
                refused += 1
                if first_refusal is None:
                    first_refusal = reply.decode(errors="replace").strip()
    elapsed = time.monotonic() - t0
    s.close()
    print(f"{replies}|{saved}|{refused}|{elapsed:.2f}|{first_refusal or ''}")


def nope(port):
    s, rest = login(port, timeout=60)
    t0 = time.monotonic()
    s.sendall(b"play wumpus nope\r\n")
    reply, _ = read_until(s, LOBBY, buf=rest)
    dt = time.monotonic() - t0
    s.close()
    return len(reply), dt, reply


def cmd_levels(port, game):
    """Size and latency of `levels GAME`."""
    s, rest = login(int(port), timeout=60)
    t0 = time.monotonic()
    s.sendall(f"levels {game}\r\n".encode())
    reply, _ = read_until(s, LOBBY, buf=rest)
    print(f"{len(reply)} bytes in {(time.monotonic() - t0) * 1000:.1f} ms")
    s.close()


def pct(values, p):
    v = sorted(values)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]


PACE = 0.005


def cmd_listing(port, noisy, probes):
    """Size and latency of one `play wumpus nope`; then p50/p99 of `d0` in sokoban,
    alone and while `noisy` clients each send one `play wumpus nope`."""
    port, noisy, probes = int(port), int(noisy), int(probes)
    size, dt, reply = nope(port)
    head = reply[:60].decode(errors="replace")

    def probe_run():
        s, rest = login(port, timeout=60)
        s.sendall(b"play sokoban\r\n")
        _, rest = read_until(s, GAME, buf=rest)
        lat = []
        for _ in range(probes):
            t0 = time.monotonic()
            s.sendall(b"d0\r\n")
            _, rest = read_until(s, GAME, buf=rest)
            lat.append(time.monotonic() - t0)
            # Paced, so that the probes span the noise (about 1 s of requests).
            time.sleep(max(0.0, PACE - (time.monotonic() - t0)))
        s.close()
        return lat

    quiet = probe_run()
    noise_times = []
    start = threading.Barrier(noisy + 1)

    def noise():
        start.wait()
        noise_times.append(nope(port)[1])

    threads = [threading.Thread(target=noise) for _ in range(noisy)]
    for t in threads:
        t.start()
    start.wait()
    loaded = probe_run()
    for t in threads:
        t.join()
    ms = lambda x: f"{x * 1000:.1f}"
    print(f"reply {size} bytes in {ms(dt)} ms ({head!r}...)|"
          f"{ms(pct(quiet, 50))}/{ms(pct(quiet, 99))}|"
          f"{ms(pct(loaded, 50))}/{ms(pct(loaded, 99))}/{ms(max(loaded))}|"
          f"{ms(max(noise_times))}")


def cmd_bigsok(port, name):
    port = int(port)
    s, rest = login(port, timeout=30)
    t0 = time.monotonic()
    s.sendall(f"play sokoban {name}\r\n".encode())
    s.settimeout(30)
    # A level that loads ends in the game prompt; a refusal in the lobby prompt.
    buf = rest
    while GAME not in buf and LOBBY not in buf:
        b = s.recv(1 << 20)
        if not b:
            break
        buf += b
    first = len(buf)
    if GAME in buf:
        t1 = time.monotonic()
        s.sendall(b"d0\r\n")
        reply, _ = read_until(s, GAME)
        print(f"play: {first} bytes; d0: {len(reply)} bytes in {(time.monotonic() - t1) * 1000:.0f} ms")
    else:
        print(f"play: {first} bytes, refused: {buf.decode(errors='replace').strip()!r}")
    s.close()


def cmd_saver(port, clients, names):
    """`clients` sessions in wumpus, each saving over `names` names in a loop, forever
    (until killed or the server dies)."""
    port, clients, names = int(port), int(clients), int(names)

    def one(k):
        try:
            s, rest = login(port, timeout=30)
            s.sendall(b"play wumpus\r\n")
            _, rest = read_until(s, GAME, buf=rest)
            i = 0
            while True:
                s.sendall(b"save c%dn%d\r\n" % (k, i % names))
                _, rest = read_until(s, GAME, buf=rest)
                i += 1
        except Exception:
            pass

    threads = [threading.Thread(target=one, args=(k,), daemon=True) for k in range(clients)]
    for t in threads:
        t.start()
    print("ready", flush=True)
    for t in threads:
        t.join()


def cmd_shutdown(port, pid, lines, limit):
    """A client that never reads floods `help`; a reading client waits in the lobby;
    SIGTERM; time to exit and what the reading client got."""
    port, pid, lines, limit = int(port), int(pid), int(lines), float(limit)
    a = connect(port, rcvbuf=4096)
    a.setblocking(False)
    payload = b"help\r\n" * lines
    sent, t0 = 0, time.monotonic()
    while sent < len(payload) and time.monotonic() - t0 < 3:
        try:
            sent += a.send(payload[sent:])
        except BlockingIOError:
            time.sleep(0.01)
    time.sleep(0.5)
    b, rest = login(port)
    t0 = time.monotonic()
    os.kill(pid, signal.SIGTERM)
    got = rest
    b.settimeout(0.1)
    b_closed = None
    while time.monotonic() - t0 < limit:
        if b_closed is None:
            try:
                d = b.recv(4096)
                if d:
                    got += d
                else:
                    b_closed = time.monotonic() - t0
            except socket.timeout:
                pass
        else:
            time.sleep(0.05)
        if exited(pid):
            break
    dt = time.monotonic() - t0
    gone = exited(pid)
    said = b"Server shutting down." in got
    a.close()
    b.close()
    print(f"{'exited' if gone else 'still running'} after {dt:.3f} s"
          f"{'' if gone else ' (killed)'}|"
          f"{'yes' if said else 'no'}|{sent // 6} help lines accepted by the socket")


def cmd_logpipe(binary, port, data, pidfile, lines_to_read):
    """Run `binary serve ... 2>&1 | (this process)`, read the first lines of the
    log, close our end of the pipe, then probe the server."""
    port, lines_to_read = int(port), int(lines_to_read)
    proc = subprocess.Popen(
        [binary, "serve", "--bind", HOST, "--port", str(port), "--data-dir", data],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    with open(pidfile, "w") as f:
        f.write(str(proc.pid))
    try:
        # Read the log up to its "listening" line, then go away.
        for _ in range(lines_to_read):
            if b"listening" in proc.stdout.readline():
                break
        proc.stdout.close()  # the consumer of the log goes away
        time.sleep(0.2)
        got, other = 0, {}
        for _ in range(5):
            try:
                s = connect(port, timeout=2)
                data = read_first(s, 2)
                if BANNER in data:
                    got += 1
                else:
                    what = f"{len(data)} bytes without the banner" if data else "closed with no data"
                    other[what] = other.get(what, 0) + 1
                s.close()
            except OSError as e:
                other[type(e).__name__] = other.get(type(e).__name__, 0) + 1
            time.sleep(0.1)
        try:
            c, rest = login(port, timeout=2)
            c.sendall(b"help\r\n")
            read_until(c, LOBBY, buf=rest)
        except Exception as e:  # noqa
            c = None
        alive = proc.poll() is None
        proc.send_signal(signal.SIGTERM)
        said = False
        if c is not None:
            c.settimeout(5)
            data_ = b""
            try:
                while True:
                    d = c.recv(4096)
                    if not d:
                        break
                    data_ += d
            except (socket.timeout, OSError):
                pass
            said = b"Server shutting down." in data_
        try:
            code = proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = f"none (killed after 10 s; {proc.wait()})"
        others = "".join(f", {v}x {k}" for k, v in other.items())
        print(f"{got}/5 got the banner{others}|{'yes' if said else 'no'}|{code}|"
              f"{'running' if alive else 'dead'} before SIGTERM")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def cmd_mksaves(folder, n):
    """n small valid world files saveNNNNN.txt in folder, written directly."""
    os.makedirs(folder, exist_ok=True)
    world = "dim 2 2\nplayer 0 0 0 0 1\nexit 0 0\n"
    for i in range(int(n)):
        with open(os.path.join(folder, f"save{i:05d}.txt"), "w") as f:
            f.write(world)


def cmd_tall_level(path, rows):
    """A sokoban level of `rows` rows: #P+-# then #...# rows."""
    with open(path, "w") as f:
        f.write("#P+-#\n" + "#...#\n" * (int(rows) - 1))


def cmd_free_port():
    s = socket.socket()
    s.bind((HOST, 0))
    print(s.getsockname()[1])
    s.close()


if __name__ == "__main__":
    globals()["cmd_" + sys.argv[1].replace("-", "_")](*sys.argv[2:])
PY
}

# The trust items (issue 28): bench/trust.py attacks one build and prints "KEY<tab>cell"
# per row; here both builds are measured, one after the other, and the rows made.
declare -A TRUST_WHAT=(
  [t0a]="Data-directory lock: \`serve\` on DATA-DIR; a registered player in \`play sokoban\` (its recording open); a second \`serve\` on the same DATA-DIR (another port): does it start; the first's recording's state in the store before → after"
  [t0b]="… the same player logs in on the second server and types \`resume\`; does the first server's session still answer"
  [t1a]="\`--admin teacher\`, nobody registered: a student types \`name Teacher\`, \`register\`; then \`broadcast\` (seen by another player?); then the real teacher's \`name teacher\`"
  [t1b]="\`ARCADE_ADMINS=\"ann, bob\"\`: bob logs in (a password set as the build allows) and types \`broadcast\`: is bob an admin"
  [t1c]="\`--admin \"Mr Smith\"\` (not a possible name): does the server start"
  [t2a]="\`--http-port\`: 256 TCP connections from 127.0.0.2 that send nothing; then GET /healthz and / from 127.0.0.3 (5 s cap each)"
  [t2b]="… 256 \`GET /events\` streams from 127.0.0.2 instead"
  [t3a]="Registered name \`target\`; N connections from 127.0.0.2 each send \`name target\` and, all at once, a wrong password (GUESSERS, default 250): replies, server memory"
  [t3b]="… a victim session from 127.0.0.5 in \`play sokoban\` sends \`d0\` every 50 ms throughout: reply latency (ms), disconnected?"
  [t4]="A guest plays \`2048 size=8\` and sends \`r\` (restart: a board each) CAST_LINES times (default 100,000); anonymous \`GET /recordings/ID.cast\` from another address: size, time, server memory"
  [t5]="One guest from 127.0.0.2, for DISK_SECONDS (10): \`play 2048\`, 4500 lines of 1000 bytes (past the 4 MiB recording cap), \`q\`, again: store growth (arcade.db + WAL)"
  [t6a]="\`teacher\` (a guest so named, reading everything) in the lobby from 127.0.0.4; 250 connections from 127.0.0.2 each send 5 \`tell teacher …\` in one write, one after another (the burst repeated, up to 3 times, while the teacher stays connected)"
  [t6b]="20 lobby players from 127.0.0.3, reading everything; 250 connections from 127.0.0.2 each send 5 \`say …\`"
  [t7a]="Registered \`target\`; GUESS_PARALLEL (50) connections from 127.0.0.3 loop \`name target\` + a wrong password for GUESS_SECONDS (20): wrong passwords answered"
  [t7b]="… the owner logs in with the right password from 127.0.0.2, before the attack and 3, 8 and 13 s into it: time from the password to the lobby"
  [t8]="Race host opens \`race sokoban\`; \`vicky\` joins and types \`register\` (prompt: Choose a password); the host types \`start\`; vicky types her password: where it goes; \`.cast\` files (anonymous GET) that contain it"
  [t9a]="\`--db postgres://… --bus nats://…\` (nats-server without credentials); a player watching another; a raw NATS client publishes \`Deliver\` of a \`Frame\` and a \`Line\` with ESC [2J, then a \`Close\`, to arcade.to.INSTANCE"
  [t9b]="nats-server with --user/--pass; \`--bus nats://arcade:PASSWORD@…\`: does the instance get on the bus; its log lines holding the password"
  [t10]="A guest's 2048 game of REPLAY_LINES (400,000) \`r\` lines; REPLAYS (50) connections from 127.0.0.2 send \`replay ID 1\` and stop reading: server memory and CPU"
  [t11]="4 connections from 127.0.0.2, each looping \`name regN\` + \`register\` (password twice) for REGISTER_SECONDS (5)"
  [t12]="RACES (10,000) races of 2048 opened, started alone and left by one host, once with \`time=24h\` and once without (two servers): memory growth; a timer that outlives its race is a sleeping task, visible only as memory"
  [t13]="100 sessions from 127.0.0.2 named \`--00\` … \`--99\`; alice (sokoban), bob (2048) and carol (lobby) from 127.0.0.3; the live table's first event on \`/events\`"
  [t14]="U+009B (C1 CSI) and U+202E (bidi override) in \`say\`, in \`tell\`, and in a game's input line (a watcher; the public \`.cast\`): what reaches the others"
  [t15]="\`mallory\` says \`x\` + spaces + \`[teacher to everyone] …\`, padded so that on an 80-column terminal the fake starts a line"
  [t16a]="\`--proxy-protocol\` (AFTER: \`--proxy-from 127.0.0.2/32\`): a PROXY v2 header claiming 10.9.8.7, sent from 127.0.0.3"
  [t16b]="… 300 connections from 127.0.0.2 (the proxy's address) that never send a header, then one that does"
  [t17]="20 \`--admin\` names with passwords; \`POST /login\` with a wrong password for each, and for 20 unknown names, each from its own address: median time"
  [t18]="Players \`-inf\`, \`-1e9\` and \`-2-3\` finish a wumpus game; the admin's \`GET /results.csv\`: their player field"
)

# trust ITEM: both trust builds through bench/trust.py, then the item's rows.
trust() {
  local item=$1 side key cell bin keys=()
  for side in TRUST_BEFORE TRUST_AFTER; do
    bin=${!side}
    if [[ ! -x $bin ]]; then
      R[$side.missing]="not measured: no $bin"
      continue
    fi
    say "item $item (${side#TRUST_})"
    while IFS=$'\t' read -r key cell; do
      R[$side.$key]=$cell
      [[ " ${keys[*]} " == *" $key "* ]] || keys+=("$key")
    done < <(python3 "$TRUST_PY" "$item" "$bin" "$WORK" || printf '%s\tfailed (exit %s)\n' "$item" "$?")
  done
  for key in "${keys[@]}"; do
    row "$key" "${TRUST_WHAT[$key]:-}" "${R[TRUST_BEFORE.$key]:-${R[TRUST_BEFORE.missing]:-}}" \
      "${R[TRUST_AFTER.$key]:-${R[TRUST_AFTER.missing]:-}}"
  done
}
for t in $TRUST_ITEMS; do
  eval "item$t() { trust $t; }"
done

write_clients
: >"$WORK/rows"
for item in $ITEMS; do
  "item$item"
done

echo "## arcade reliability: BEFORE vs AFTER"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo "- machine: $(nproc) CPUs ($(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)), $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo) RAM, kernel $(uname -sr), load average $(cut -d' ' -f1-3 /proc/loadavg)"
if [[ " $ITEMS " =~ \ [0-9]+\  ]]; then
  echo "- BEFORE: $BEFORE ($(sha256sum "$BEFORE" | cut -c1-12))"
  echo "- AFTER: $AFTER ($(sha256sum "$AFTER" | cut -c1-12))"
  echo "- HANG=$HANG s, MEMCAP_KB=$MEMCAP_KB, MOVE_LINES=$MOVE_LINES, SAVES=$SAVES, LISTED=$LISTED"
fi
for bin in "$TRUST_BEFORE" "$TRUST_AFTER"; do
  if [[ -x $bin ]]; then
    echo "- trust items: $bin ($(sha256sum "$bin" | cut -c1-12))"
  else
    echo "- trust items: $bin (missing: not measured)"
  fi
done
echo
echo "| # | what was done | BEFORE | AFTER |"
echo "|---|---|---|---|"
cat "$WORK/rows"
