#!/usr/bin/env python3
"""The trust items (issue 28) of bench/reliability.sh: one attack on one build.

    python3 bench/trust.py ITEM BIN WORK      # ITEM: t0 ... t18

Starts what the item needs (`BIN serve` on free ports of 127.0.0.1, each with a fresh
--data-dir in a new WORK/run.XXXXXX/ that holds its pid file, so that the script's
clean-up can kill it), attacks it from 127.0.0.x clients, and prints one line per row
of the table: the row's key, a tab, then the measured cell. Everything it started is
stopped before it returns (and on SIGTERM/SIGINT). Only the Python standard library;
every connection goes to 127.0.0.1.

A build's options and messages are probed, not assumed (`BIN --help`), so that the
same code measures the build before the fixes and the one after them; the checks are
on behaviour (was the session closed, did the bytes arrive, how much memory) rather
than on the wording of a message wherever that can be done.
"""
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

HOST = "127.0.0.1"
BANNER = b"Welcome to arcade!"
LOBBY = b"\r\n> "
GAME = b"Enter command: "
# The password every registered test account gets (6 to 128 characters).
PASSWORD = "correct-horse-1"
WRONG = "wrong-password-9"

SERVERS = []


def out(key, cell):
    """One row of the table: printed at once, so that a later failure keeps it."""
    cell = " ".join(str(cell).split("\n")).strip()
    print(f"{key}\t{cell}", flush=True)


def note(text):
    print(text, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- processes


def free_port():
    s = socket.socket()
    s.bind((HOST, 0))
    port = s.getsockname()[1]
    s.close()
    return port


def proc_status(pid, field):
    """A field of /proc/PID/status in kB (VmRSS, VmHWM), or threads; None once gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        return None
    return None


def mib(kb):
    return "?" if kb is None else f"{kb / 1024:.0f} MiB"


class Server:
    """`BIN serve` on free ports of 127.0.0.1 with a fresh data directory."""

    def __init__(self, binary, work, args=(), http=False, data=None, env=None, port=None,
                 wait=15.0):
        self.binary = binary
        self.dir = tempfile.mkdtemp(prefix="run.", dir=work)
        self.data = data or os.path.join(self.dir, "data")
        self.port = port or free_port()
        self.http = free_port() if http else None
        self.log = os.path.join(self.dir, "log")
        cmd = [binary, "serve", "--bind", HOST, "--port", str(self.port),
               "--data-dir", self.data]
        if self.http:
            cmd += ["--http-port", str(self.http)]
        cmd += list(args)
        full_env = dict(os.environ)
        for k in list(full_env):
            if k.startswith("ARCADE_"):
                del full_env[k]
        full_env.update(env or {})
        self.started = time.monotonic()
        self.proc = subprocess.Popen(cmd, stdout=open(self.log, "wb"), stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, env=full_env)
        with open(os.path.join(self.dir, "pid"), "w") as f:
            f.write(str(self.proc.pid))
        SERVERS.append(self)
        self.up = wait_banner(self.port, wait, self.proc) if wait else None

    @property
    def pid(self):
        return self.proc.pid

    def alive(self):
        return self.proc.poll() is None

    def rss(self):
        return proc_status(self.pid, "VmRSS")

    def hwm(self):
        return proc_status(self.pid, "VmHWM")

    def threads(self):
        return proc_status(self.pid, "Threads")

    def log_text(self):
        try:
            with open(self.log, "rb") as f:
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self in SERVERS:
            SERVERS.remove(self)
        return self.proc.returncode


def stop_all(*_):
    for s in list(SERVERS):
        try:
            s.proc.kill()
            s.proc.wait(5)
        except Exception:  # noqa: BLE001 - best effort on the way out
            pass
    SERVERS.clear()


def on_signal(signum, _frame):
    stop_all()
    sys.exit(128 + signum)


def wait_banner(port, wait, proc=None):
    """True once a connection gets the banner within `wait` s; False if not (or if
    `proc` exited first)."""
    end = time.monotonic() + wait
    while time.monotonic() < end:
        if proc is not None and proc.poll() is not None:
            return False
        try:
            s = connect(port, timeout=1)
            got = b""
            while BANNER not in got and time.monotonic() < end:
                b = s.recv(4096)
                if not b:
                    break
                got += b
            s.close()
            if BANNER in got:
                return True
        except OSError:
            pass
        time.sleep(0.05)
    return False


def help_text(binary, *sub):
    try:
        return subprocess.run([binary, *sub, "--help"], capture_output=True, text=True,
                              timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""


def has_option(binary, option, *sub):
    return option in help_text(binary, *(sub or ("serve",)))


# ---------------------------------------------------------------- telnet clients


def connect(port, source=None, timeout=5.0):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if source:
        s.bind((source, 0))
    s.settimeout(timeout)
    s.connect((HOST, port))
    return s


class Client:
    """A line client: reads until a marker, keeps the rest."""

    def __init__(self, port, source=None, timeout=10.0, login=True):
        self.s = connect(port, source, timeout)
        self.buf = b""
        self.timeout = timeout
        self.closed = False
        if login:
            self.until(LOBBY)

    def send(self, line):
        if isinstance(line, str):
            line = line.encode()
        self.s.sendall(line + b"\r\n")

    def until(self, *markers, timeout=None):
        """Everything up to and including the first marker; raises EOFError on close,
        socket.timeout when none came in time."""
        end = time.monotonic() + (timeout or self.timeout)
        while True:
            hits = [(self.buf.find(m), m) for m in markers if self.buf.find(m) >= 0]
            if hits:
                i, m = min(hits)
                got, self.buf = self.buf[: i + len(m)], self.buf[i + len(m):]
                return got
            left = end - time.monotonic()
            if left <= 0:
                raise socket.timeout("no marker")
            self.s.settimeout(left)
            b = self.s.recv(1 << 16)
            if not b:
                self.closed = True
                raise EOFError(self.buf[-300:])
            self.buf += b

    def cmd(self, line, marker=LOBBY, timeout=None):
        self.send(line)
        return self.until(marker, timeout=timeout)

    def drain(self, wait=0.3):
        """What arrives within `wait` s (and whether the server closed); with no wait,
        what has arrived already (one read that does not wait for more)."""
        end = time.monotonic() + wait
        got = self.buf
        self.buf = b""
        first = True
        while first or time.monotonic() < end:
            first = False
            self.s.settimeout(max(0.001, end - time.monotonic()))
            try:
                b = self.s.recv(1 << 16)
            except socket.timeout:
                break
            except OSError:
                self.closed = True
                break
            if not b:
                self.closed = True
                break
            got += b
        return got

    def close(self):
        try:
            self.s.close()
        except OSError:
            pass


def take_name(c, name, password=None):
    """`name NAME` (with its password if it asks); the reply."""
    c.send(f"name {name}")
    got = c.until(LOBBY, b"Password: ")
    if got.endswith(b"Password: "):
        c.send(password or PASSWORD)
        got = c.until(LOBBY)
    return got


def register(c, password=PASSWORD):
    """`register` on the current name; True if the server says it is registered."""
    c.send("register")
    got = c.until(LOBBY, b": ")
    if got.endswith(LOBBY):
        return False, got
    c.send(password)
    got = c.until(LOBBY, b": ")
    if got.endswith(LOBBY):
        return False, got
    c.send(password)
    got = c.until(LOBBY)
    return b"registered:" in got or b"is registered" in got, got


def line_of(got):
    """The first meaningful line of a reply, for a table cell."""
    text = re.sub(rb"\xff[\xfb-\xfe].", b"", got).decode(errors="replace")
    for line in text.replace("\r", "").split("\n"):
        line = line.strip()
        if line and line not in (">",):
            return line[:160]
    return ""


def pct(values, p):
    v = sorted(values)
    if not v:
        return float("nan")
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]


class Victim(threading.Thread):
    """A session from its own address playing sokoban: `d0` every 50 ms, each reply
    timed; notes whether the server closed it."""

    def __init__(self, port, source="127.0.0.5", every=0.05):
        super().__init__(daemon=True)
        self.port, self.source, self.every = port, source, every
        self.lat, self.closed, self.error = [], False, None
        self.halt = threading.Event()
        self.ready = threading.Event()

    def run(self):
        try:
            c = Client(self.port, self.source, timeout=30)
            c.cmd("play sokoban", GAME)
            self.ready.set()
            while not self.halt.is_set():
                t0 = time.monotonic()
                c.cmd("d0", GAME, timeout=30)
                self.lat.append(time.monotonic() - t0)
                time.sleep(max(0.0, self.every - (time.monotonic() - t0)))
            c.close()
        except EOFError:
            self.closed = True
        except Exception as e:  # noqa: BLE001 - reported in the cell
            self.error = f"{type(e).__name__}"
        finally:
            self.ready.set()

    def stop(self):
        self.halt.set()
        self.join(40)

    def summary(self):
        ms = [x * 1000 for x in self.lat]
        if not ms:
            return f"victim: no reply ({self.error or 'closed' if self.closed else '?'})"
        text = (f"victim p50/p99/max {pct(ms, 50):.0f}/{pct(ms, 99):.0f}/{max(ms):.0f} ms "
                f"({len(ms)} d0)")
        if self.closed:
            text += ", victim disconnected"
        if self.error:
            text += f", victim {self.error}"
        return text


# ---------------------------------------------------------------- http


def http(port, method, path, body=None, headers=None, source=None, timeout=5.0, sink=None):
    """One HTTP/1.1 request; (status, headers dict, body bytes or byte count, seconds).
    status is None on a time-out or a closed connection. With `sink` the body is only
    counted (and sink(n) called as it comes)."""
    t0 = time.monotonic()
    try:
        s = connect(port, source, timeout)
    except OSError as e:
        return None, {}, type(e).__name__, time.monotonic() - t0
    hdrs = {"Host": f"{HOST}:{port}", "Connection": "close"}
    hdrs.update(headers or {})
    if body is not None:
        body = body.encode() if isinstance(body, str) else body
        hdrs["Content-Length"] = str(len(body))
    req = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in hdrs.items())
    try:
        s.sendall(req.encode() + b"\r\n" + (body or b""))
        data, n = b"", 0
        head = None
        while True:
            left = timeout - (time.monotonic() - t0)
            if left <= 0:
                raise socket.timeout()
            s.settimeout(left)
            b = s.recv(1 << 20)
            if not b:
                break
            if head is None:
                data += b
                if b"\r\n\r\n" in data:
                    head, rest = data.split(b"\r\n\r\n", 1)
                    data = rest if sink is None else b""
                    n = len(rest)
                    if sink:
                        sink(n)
            elif sink is None:
                data += b
            else:
                n += len(b)
                sink(len(b))
        s.close()
    except (socket.timeout, OSError) as e:
        s.close()
        return None, {}, type(e).__name__, time.monotonic() - t0
    if head is None:
        return None, {}, "no header", time.monotonic() - t0
    lines = head.decode(errors="replace").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers.setdefault(k.strip().lower(), []).append(v.strip())
    if headers.get("transfer-encoding") == ["chunked"] and sink is None:
        data = unchunk(data)
    return status, headers, (data if sink is None else n), time.monotonic() - t0


def unchunk(data):
    out_, i = b"", 0
    while i < len(data):
        j = data.find(b"\r\n", i)
        if j < 0:
            break
        size = int(data[i:j].split(b";")[0] or b"0", 16)
        if size == 0:
            break
        out_ += data[j + 2:j + 2 + size]
        i = j + 2 + size + 2
    return out_


def web_login(port, name, password, source=None):
    """POST /login; (status, cookie or None, seconds)."""
    body = urllib.parse.urlencode({"name": name, "password": password})
    status, headers, _, dt = http(port, "POST", "/login", body,
                                  {"Content-Type": "application/x-www-form-urlencoded"},
                                  source=source, timeout=30)
    cookie = None
    for c in headers.get("set-cookie", []):
        cookie = c.split(";")[0]
    return status, cookie, dt


def db_query(data, sql):
    """A read-only query on DATA-DIR/arcade.db (the SQLite store), or None."""
    path = os.path.join(data, "arcade.db")
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            return con.execute(sql).fetchall()
        finally:
            con.close()
    except sqlite3.Error as e:
        return f"({e})"


def db_bytes(data):
    """The SQLite store's files (database, WAL, shared memory) in bytes."""
    total = 0
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            total += os.path.getsize(os.path.join(data, "arcade.db" + suffix))
        except OSError:
            pass
    return total


# ---------------------------------------------------------------- the items


def t0(binary, work):
    """Two servers on one data directory."""
    a = Server(binary, work)
    owner = Client(a.port)
    take_name(owner, "owner")
    register(owner)
    owner.cmd("play sokoban", GAME)
    owner.cmd("d1", GAME)
    time.sleep(1.2)  # the recording's first lines reach the store
    before = db_query(a.data, "SELECT state FROM recordings ORDER BY id")
    t0_ = time.monotonic()
    b = Server(binary, work, data=a.data, wait=5)
    dt = time.monotonic() - t0_
    if b.up:
        second = f"second server started (banner after {dt:.1f} s)"
    else:
        rc = b.proc.poll()
        said = line_of(b.log_text().encode().split(b"\n")[-2] if b.log_text() else b"")
        names_pid = "names the first's pid" if str(a.pid) in b.log_text() else "pid not named"
        second = (f"second server refused: exit {rc} after {dt:.1f} s ({names_pid}): \"{said}\""
                  if rc is not None else f"second server: no banner within 5 s (alive)")
    time.sleep(1.0)
    after = db_query(a.data, "SELECT state FROM recordings ORDER BY id")
    out("t0a", f"{second}; the first's live game in the store: {before} → {after}")
    copies = "no"
    if b.up:
        c = Client(b.port)
        got = take_name(c, "owner")
        c.send("resume")
        got = c.until(LOBBY, GAME, timeout=5)
        if got.endswith(GAME):
            copies = "yes: `resume` on the second server opened the game"
        c.close()
    try:
        owner.cmd("d0", GAME, timeout=5)
        first = "answers"
    except (EOFError, OSError, socket.timeout) as e:
        first = f"does not answer ({type(e).__name__})"
    out("t0b", f"two live copies of the game: {copies}; the first server's session {first}")
    owner.close()
    b.stop()
    a.stop()


def set_password_offline(binary, data, name):
    """The out-of-band admin password of a build that has one (`arcade admin
    set-password NAME`, the password on standard input): None if the build has no
    such command, else whether it succeeded."""
    if "set-password" not in help_text(binary, "admin"):
        return None
    os.makedirs(data, exist_ok=True)
    try:
        r = subprocess.run([binary, "admin", "set-password", "--data-dir", data, name],
                           input=f"{PASSWORD}\n{PASSWORD}\n", capture_output=True, text=True,
                           timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    if r.returncode != 0:
        note(f"admin set-password: exit {r.returncode}: {r.stdout} {r.stderr}")
    return r.returncode == 0


def is_admin_now(c, listener):
    """Whether `broadcast` from c reaches listener (the admin's power, seen from
    another player)."""
    mark = f"trust-{time.monotonic_ns()}"
    c.send(f"broadcast {mark}")
    c.drain(0.5)
    return mark.encode() in listener.drain(0.5)


def with_admin(binary, work, args=(), name="teacher"):
    """A server with --http-port and `--admin NAME`, NAME's password set (out of band
    where the build can, else by registering over telnet) and logged in on the web:
    (server, the cookie header)."""
    data = tempfile.mkdtemp(prefix="run.", dir=work) + "/data"
    offline = set_password_offline(binary, data, name)
    s = Server(binary, work, ["--admin", name, *args], http=True, data=data)
    if offline is None:
        c = Client(s.port, "127.0.0.250")
        take_name(c, name)
        register(c)
        c.close()
    _, cookie, _ = web_login(s.http, name, PASSWORD, source="127.0.0.250")
    return s, {"Cookie": cookie or ""}


def t1(binary, work):
    """The admin role: claimed by the first comer; ARCADE_ADMINS with a space; an
    impossible --admin name."""
    s = Server(binary, work, ["--admin", "teacher"])
    listener = Client(s.port, "127.0.0.4")
    student = Client(s.port, "127.0.0.3")
    take_name(student, "Teacher")
    ok, got = register(student)
    power = is_admin_now(student, listener) if ok else False
    cell = f"`register` as Teacher: {'accepted' if ok else 'refused'}"
    if not ok:
        cell += f" (\"{line_of(got)}\")"
    cell += f"; the student's `broadcast` reached another player: {'yes' if power else 'no'}"
    teacher = Client(s.port, "127.0.0.6")
    got = take_name(teacher, "teacher", "the-real-teachers-pw")
    cell += f"; the real teacher's `name teacher`: \"{line_of(got)}\""
    out("t1a", cell)
    for c in (listener, student, teacher):
        c.close()
    s.stop()

    data = tempfile.mkdtemp(prefix="run.", dir=work) + "/data"
    offline = set_password_offline(binary, data, "bob")
    s = Server(binary, work, data=data, env={"ARCADE_ADMINS": "ann, bob"}, wait=5)
    if not s.up:
        out("t1b", f"server did not start (exit {s.proc.poll()}): \"{line_of(s.log_text().encode())}\"")
    else:
        listener = Client(s.port, "127.0.0.4")
        bob = Client(s.port, "127.0.0.3")
        take_name(bob, "bob")
        how = "password set with `arcade admin set-password`" if offline else "registered over telnet"
        if not offline:
            register(bob)
        power = is_admin_now(bob, listener)
        out("t1b", f"bob ({how}) is an admin: {'yes' if power else 'no'}")
        bob.close()
        listener.close()
    s.stop()

    s = Server(binary, work, ["--admin", "Mr Smith"], wait=5)
    if s.up:
        out("t1c", "starts (banner)")
    else:
        rc = s.proc.wait(5) if s.proc.poll() is None else s.proc.poll()
        out("t1c", f"refuses to start: exit {rc}: \"{s.log_text().strip().splitlines()[-1][:200]}\"")
    s.stop()


def open_idle(port, n, source, request=None):
    """n connections to port from source; each sends `request` (or nothing) and then
    nothing more. Returns the sockets that connected."""
    socks = []
    for _ in range(n):
        try:
            s = connect(port, source, timeout=2)
            if request:
                s.sendall(request)
            socks.append(s)
        except OSError:
            break
    return socks


def still_open(socks, wait=0.2):
    """How many of socks the server has not closed (nothing to read, or data but no
    end of file)."""
    n = 0
    for s in socks:
        s.setblocking(False)
        try:
            while True:
                b = s.recv(1 << 16)
                if not b:
                    break
        except BlockingIOError:
            n += 1
        except OSError:
            pass
    return n


def probe_web(port, source):
    """GET /healthz and / at once from source, 5 s each at most."""
    got = {}

    def one(path):
        got[path] = http(port, "GET", path, source=source, timeout=5)

    threads = [threading.Thread(target=one, args=(p,)) for p in ("/healthz", "/")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    cells = []
    for path in ("/healthz", "/"):
        status, _, body, dt = got[path]
        cells.append(f"{path}: {status} in {dt:.2f} s" if status else
                     f"{path}: no answer in {dt:.1f} s ({body})")
    return ", ".join(cells)


def t2(binary, work):
    """The web page under idle connections and idle /events streams."""
    for key, request in (("t2a", None),
                         ("t2b", f"GET /events HTTP/1.1\r\nHost: x\r\n\r\n".encode())):
        s = Server(binary, work, http=True)
        socks = open_idle(s.http, 256, "127.0.0.2", request)
        time.sleep(0.5)
        cell = f"{len(socks)} connected; " + probe_web(s.http, "127.0.0.3")
        time.sleep(3)
        cell += f"; after 3.5 s {still_open(socks)} of them still open"
        out(key, cell)
        for x in socks:
            x.close()
        s.stop()


def mem_available_kb():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1])
    return 0


def guess_once(port, source, name, barrier, results, limit):
    """One connection: `name NAME`, then at the barrier a wrong password; what came
    back ('wrong', 'closed', 'other: ...', 'timeout') and when."""
    try:
        c = Client(port, source, timeout=limit)
        c.send(f"name {name}")
        c.until(b"Password: ", LOBBY)
        barrier.wait(30)
        t0 = time.monotonic()
        c.send(WRONG)
        got = c.until(LOBBY, timeout=limit)
        results.append(("wrong" if b"Wrong password" in got else f"other: {line_of(got)}",
                        time.monotonic() - t0))
        c.close()
    except EOFError:
        results.append(("closed", 0.0))
    except socket.timeout:
        results.append(("timeout", float(limit)))
    except (OSError, threading.BrokenBarrierError) as e:
        results.append((type(e).__name__, 0.0))


def tally(results):
    counts = {}
    for what, _ in results:
        counts[what] = counts.get(what, 0) + 1
    return ", ".join(f"{v} {k}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1]))


def guess_round(s, n, source, name):
    """n connections, the i-th from address source(i) at name(i), each send `name` and,
    all at once, a wrong password, while a victim session plays; the tally, the time
    of the last reply, the server's memory before, at its peak and 3 s after, and the
    victim's summary."""
    victim = Victim(s.port)
    victim.start()
    victim.ready.wait(10)
    time.sleep(1)
    base = s.rss()
    results = []
    barrier = threading.Barrier(n)
    threads = [threading.Thread(target=guess_once, daemon=True,
                                args=(s.port, source(i), name(i), barrier, results, 60))
               for i in range(n)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join(70)
    took = time.monotonic() - t0
    peak = s.hwm()
    time.sleep(3)
    after = s.rss()
    victim.stop()
    return (f"{tally(results)}, last after {took:.1f} s): server VmRSS {mib(base)} before, "
            f"VmHWM {mib(peak)}, VmRSS 3 s after {mib(after)}"), victim.summary()


def t3(binary, work):
    """250 parallel wrong passwords from one address: memory and a victim's latency;
    then as many at names of their own from addresses of their own, which no throttle
    stops: only the hashing's own bound."""
    n = int(os.environ.get("GUESSERS", "250"))
    if mem_available_kb() < 12 * 1024 * 1024:
        n = min(n, 100)
        note(f"t3: less than 12 GiB available: {n} guessers")
    s = Server(binary, work)
    c = Client(s.port, "127.0.0.9")
    take_name(c, "target")
    register(c)
    c.close()
    cell, victim = guess_round(s, n, lambda i: "127.0.0.2", lambda i: "target")
    out("t3a", f"{n} guesses from 127.0.0.2 ({cell}")
    out("t3b", victim)
    s.stop()

    s = Server(binary, work)
    def source(i):
        return f"127.0.{1 + i // 200}.{1 + i % 200}"
    for i in range(n):
        c = Client(s.port, source(i))
        take_name(c, f"target{i}")
        register(c)
        c.close()
    cell, victim = guess_round(s, n, source, lambda i: f"target{i}")
    out("t3c", f"{n} guesses, each at its own name from its own address ({cell}")
    out("t3d", victim)
    s.stop()


def flood_game(c, start, line, n, limit):
    """In game `start`, send `line` n times (in batches, replies read and counted by
    their prompts) for at most `limit` s, then leave the game; lines sent."""
    c.cmd(start, GAME)
    batch = 2000
    sent, t0 = 0, time.monotonic()
    while sent < n and time.monotonic() - t0 < limit:
        k = min(batch, n - sent)
        c.s.sendall((line + "\r\n").encode() * k)
        seen = 0
        while seen < k:
            c.s.settimeout(max(0.1, limit + 10 - (time.monotonic() - t0)))
            b = c.s.recv(1 << 20)
            if not b:
                raise EOFError(b"")
            c.buf = (c.buf + b)[-len(GAME) * 2:] if GAME not in b else c.buf + b
            seen += c.buf.count(GAME)
            c.buf = c.buf[c.buf.rfind(GAME) + len(GAME):] if GAME in c.buf else c.buf
        sent += k
    return sent, time.monotonic() - t0


def recording_ids(c):
    got = c.cmd("recordings")
    return [int(m) for m in re.findall(rb"^\s+(\d+)\s", got, re.M)]


def t4(binary, work):
    """GET /recordings/ID.cast of a big recording: server memory and bytes."""
    n = int(os.environ.get("CAST_LINES", "100000"))
    s, admin = with_admin(binary, work)
    c = Client(s.port, "127.0.0.2")
    sent, took = flood_game(c, "play 2048 size=8 seed=1", "r", n, 20)
    c.send("q")
    c.until(LOBBY)
    time.sleep(1.5)
    ids = recording_ids(c)
    c.close()
    rid = max(ids) if ids else 1
    base = s.rss()
    peak = [base]
    halt = threading.Event()

    def sample():
        while not halt.is_set():
            peak[0] = max(peak[0], s.rss() or 0)
            time.sleep(0.02)

    threading.Thread(target=sample, daemon=True).start()
    anonymous, _, _, _ = http(s.http, "GET", f"/recordings/{rid}.cast", source="127.0.0.3",
                              timeout=60, sink=lambda k: None)
    status, _, nbytes, dt = http(s.http, "GET", f"/recordings/{rid}.cast", source="127.0.0.250",
                                 headers=admin, timeout=60, sink=lambda k: None)
    halt.set()
    time.sleep(0.1)
    out("t4", f"recording {rid}: {sent} `r` lines in 2048 size=8 (sent in {took:.1f} s); "
              f"anonymous GET: {anonymous}; the admin's GET: {status}, {nbytes / 1e6:.1f} MB in {dt:.1f} s; server VmRSS "
              f"{mib(base)} before, peak {mib(max(peak[0], 0))} (VmHWM {mib(s.hwm())})")
    s.stop()


def t5(binary, work):
    """One guest filling the disk: games of 1000-byte lines, one after another."""
    secs = float(os.environ.get("DISK_SECONDS", "10"))
    s = Server(binary, work)
    c = Client(s.port, "127.0.0.2", timeout=30)
    stop = threading.Event()
    games, lines, refused = [0], [0], []

    def attack():
        try:
            while not stop.is_set():
                c.send("play 2048")
                got = c.until(GAME, LOBBY)
                if not got.endswith(GAME):
                    refused.append(line_of(got))
                    time.sleep(0.2)
                    continue
                games[0] += 1
                k, _ = flood_more(c, "w" * 1000, 4500, stop)
                lines[0] += k
                c.send("q")
                c.until(LOBBY)
        except (EOFError, OSError, socket.timeout) as e:
            refused.append(type(e).__name__)

    size0 = db_bytes(s.data)
    t = threading.Thread(target=attack, daemon=True)
    t0 = time.monotonic()
    t.start()
    time.sleep(secs)
    stop.set()
    size1 = db_bytes(s.data)
    dt = time.monotonic() - t0
    t.join(30)
    time.sleep(1)
    size2 = db_bytes(s.data)
    cell = (f"{games[0]} games, {lines[0]} lines of 1000 bytes in {dt:.0f} s: store "
            f"+{(size1 - size0) / 1e6:.1f} MB = {(size1 - size0) / 1e6 / dt:.1f} MB/s "
            f"({size2 / 1e6:.1f} MB 1 s later), server VmHWM {mib(s.hwm())}")
    if refused:
        cell += f"; {len(refused)} refusals, first: \"{refused[0]}\""
    out("t5", cell)
    c.close()
    s.stop()


def flood_more(c, line, n, stop):
    """Send `line` n times in batches of 500 inside a game, replies counted by their
    prompts; stops early on `stop`. Returns (lines sent, the last reply's text)."""
    sent, last = 0, b""
    while sent < n and not stop.is_set():
        k = min(500, n - sent)
        c.s.sendall((line + "\r\n").encode() * k)
        seen = 0
        while seen < k:
            c.s.settimeout(30)
            b = c.s.recv(1 << 20)
            if not b:
                raise EOFError(b"")
            c.buf += b
            seen += c.buf.count(GAME)
            if GAME in c.buf:
                last = c.buf[: c.buf.rfind(GAME)][-300:]
                c.buf = c.buf[c.buf.rfind(GAME) + len(GAME):]
            else:
                c.buf = c.buf[-len(GAME):]
        sent += k
    return sent, last


class Reader(threading.Thread):
    """A player that reads everything it is sent (and says nothing); notes whether the
    server closed it, and the last line before that."""

    def __init__(self, port, source, name=None):
        super().__init__(daemon=True)
        self.c = Client(port, source, timeout=30)
        if name:
            take_name(self.c, name)
        self.got, self.closed = b"", False
        self.halt = threading.Event()

    def run(self):
        s = self.c.s
        s.settimeout(0.2)
        while not self.halt.is_set():
            try:
                b = s.recv(1 << 16)
            except socket.timeout:
                continue
            except OSError:
                self.closed = True
                break
            if not b:
                self.closed = True
                break
            self.got += b

    def stop(self):
        self.halt.set()
        self.join(5)
        self.c.close()

    def last_line(self):
        lines = [x for x in self.got.decode(errors="replace").replace("\r", "").split("\n")
                 if x.strip() and x.strip() != ">"]
        return lines[-1][:160] if lines else ""


def burst(port, n, source, lines):
    """n connections from source; once all are in the lobby, each sends `lines` in one
    write, one connection after another in a tight loop (a few milliseconds for all);
    then every reply is read for 1.5 s. Returns (connections, what the senders were
    told: line -> count)."""
    conns = []
    for _ in range(n):
        try:
            conns.append(Client(port, source, timeout=10))
        except (OSError, EOFError, socket.timeout):
            break
    payload = b"".join(x.encode() + b"\r\n" for x in lines)
    for c in conns:
        try:
            c.s.sendall(payload)
        except OSError:
            pass
    told = {}
    end = time.monotonic() + 1.5
    got = {c: b"" for c in conns}
    while time.monotonic() < end:
        for c in conns:
            got[c] += c.drain(0.0)
        time.sleep(0.05)
    for c in conns:
        text = [x.strip() for x in got[c].decode(errors="replace").replace("\r", "").split("\n")]
        for t in text:
            t = t.lstrip("> ").strip()
            if t and not t.startswith("["):
                told[t[:100]] = told.get(t[:100], 0) + 1
        c.close()
    return len(conns), told


def told_summary(told):
    if not told:
        return "senders were told nothing"
    top = sorted(told.items(), key=lambda kv: -kv[1])[:2]
    return "senders were told: " + "; ".join(f"{v}× \"{k}\"" for k, v in top)


def t6(binary, work):
    """A burst of tells at one player, and of `say` in the lobby."""
    s = Server(binary, work)
    teacher = Reader(s.port, "127.0.0.4", "teacher")
    teacher.start()
    # Whether the queue overflows depends on how closely the 1250 tells come: the
    # burst is tried up to three times (new connections each time) while the teacher
    # is still connected.
    told, tries = {}, 0
    while tries < 3 and not teacher.closed:
        tries += 1
        n, more = burst(s.port, 250, "127.0.0.2", [f"tell teacher hello {i}" for i in range(5)])
        for k, v in more.items():
            told[k] = told.get(k, 0) + v
        time.sleep(1)
    got = teacher.got.count(b"tells you]")
    out("t6a", f"{n} connections × 5 `tell teacher`, {tries} burst(s): teacher (reading) "
               f"{'DISCONNECTED' if teacher.closed else 'still connected'}, got {got} tells"
               + (f", last line \"{teacher.last_line()}\"" if teacher.closed else "")
               + f"; {told_summary(told)}")
    teacher.stop()
    s.stop()

    s = Server(binary, work)
    readers = [Reader(s.port, "127.0.0.3") for _ in range(20)]
    for r in readers:
        r.start()
    n, told = burst(s.port, 250, "127.0.0.2", [f"say hello {i}" for i in range(5)])
    time.sleep(1)
    closed = [r for r in readers if r.closed]
    got = min(r.got.count(b"] hello") for r in readers)
    cell = f"{n} connections × 5 `say`: {len(closed)} of 20 reading lobby players closed"
    if closed:
        cell += f" (\"{closed[0].last_line()}\")"
    cell += f"; the least any reader got: {got} lines; {told_summary(told)}"
    out("t6b", cell)
    for r in readers:
        r.stop()
    s.stop()


def owner_login(port, source, name):
    """Seconds from sending the right password to the lobby prompt, and whether the
    name was taken (None on a time-out)."""
    try:
        c = Client(port, source, timeout=40)
        c.send(f"name {name}")
        c.until(b"Password: ", LOBBY)
        t0 = time.monotonic()
        c.send(PASSWORD)
        got = c.until(LOBBY, timeout=40)
        dt = time.monotonic() - t0
        c.close()
        return dt, b"You are now" in got
    except (OSError, EOFError, socket.timeout):
        return None, False


def t7(binary, work):
    """Parallel password guessing for 20 s against one name: guesses checked, and the
    owner's own login from another address meanwhile."""
    k = int(os.environ.get("GUESS_PARALLEL", "50"))
    secs = float(os.environ.get("GUESS_SECONDS", "20"))
    s = Server(binary, work)
    c = Client(s.port, "127.0.0.9")
    take_name(c, "target")
    register(c)
    c.close()
    quiet, _ = owner_login(s.port, "127.0.0.2", "target")
    stop = threading.Event()
    counts = {"wrong": 0, "other": 0}
    lock = threading.Lock()

    def guesser():
        try:
            c = Client(s.port, "127.0.0.3", timeout=60)
            while not stop.is_set():
                c.send("name target")
                got = c.until(b"Password: ", LOBBY, timeout=60)
                if not got.endswith(b"Password: "):
                    with lock:
                        counts["other"] += 1
                    time.sleep(0.1)
                    continue
                c.send(WRONG)
                got = c.until(LOBBY, timeout=60)
                if stop.is_set() and time.monotonic() > t_end:
                    break
                with lock:
                    counts["wrong" if b"Wrong password" in got else "other"] += 1
            c.close()
        except (OSError, EOFError, socket.timeout):
            pass

    t_start = time.monotonic()
    t_end = t_start + secs
    threads = [threading.Thread(target=guesser, daemon=True) for _ in range(k)]
    for t in threads:
        t.start()
    logins = {}

    def login_at(at):
        time.sleep(max(0.0, t_start + at - time.monotonic()))
        logins[at] = owner_login(s.port, "127.0.0.2", "target")[0]

    owners = [threading.Thread(target=login_at, args=(at,), daemon=True) for at in (3, 8, 13)]
    for t in owners:
        t.start()
    for t in owners:
        t.join(60)
    logins = [logins.get(at) for at in (3, 8, 13)]
    time.sleep(max(0.0, t_end - time.monotonic()))
    stop.set()
    with lock:
        checked = counts["wrong"]
    fmt = lambda x: "timed out" if x is None else f"{x:.2f} s"
    out("t7a", f"{k} connections from 127.0.0.3 guessing for {secs:.0f} s: {checked} wrong "
               f"passwords answered (checked), {counts['other']} other replies")
    out("t7b", f"owner's login from 127.0.0.2: {fmt(quiet)} before the attack; during it, "
               f"at 3/8/13 s: {', '.join(fmt(x) for x in logins)}")
    for t in threads:
        t.join(1)
    s.stop()


def t8(binary, work):
    """A race start during a `register` prompt: where the password goes."""
    secret = "hunter2-secret-pw"
    s, admin = with_admin(binary, work)
    host = Client(s.port, "127.0.0.3")
    take_name(host, "hosty")
    got = host.cmd("race sokoban")
    race = re.search(rb"[Rr]ace (\d+)", got)
    victim = Client(s.port, "127.0.0.4")
    take_name(victim, "vicky")
    victim.cmd(f"join {race.group(1).decode() if race else 1}")
    victim.send("register")
    victim.until(b": ")
    host.send("start")
    time.sleep(0.5)
    victim.drain(0.3)
    victim.send(secret)
    reply = victim.drain(0.7)
    victim.send("/leave")
    victim.drain(0.5)
    victim.send("e")
    victim.drain(0.5)
    time.sleep(1.5)  # the recording's lines reach the store
    found, where = 0, []
    for rid in recording_ids(victim):
        status, _, body, _ = http(s.http, "GET", f"/recordings/{rid}.cast",
                                  source="127.0.0.250", headers=admin, timeout=10)
        if status == 200 and secret.encode() in cast_text(body):
            found += 1
            where.append(str(rid))
    echoed = secret.encode() in reply
    out("t8", f"the password line went to: "
              f"{'the game' if b'Invalid command' in reply or echoed else 'the prompt'} "
              f"(reply \"{line_of(reply)}\"); .cast files (fetched by the admin) containing it: {found}"
              + (f" (recording {', '.join(where)})" if where else ""))
    host.close()
    victim.close()
    s.stop()


class Proc:
    """Another program (nats-server) run for an item, killed with the servers."""

    def __init__(self, cmd, work):
        self.dir = tempfile.mkdtemp(prefix="run.", dir=work)
        self.log = os.path.join(self.dir, "log")
        self.proc = subprocess.Popen(cmd, stdout=open(self.log, "wb"), stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)
        with open(os.path.join(self.dir, "pid"), "w") as f:
            f.write(str(self.proc.pid))
        SERVERS.append(self)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self in SERVERS:
            SERVERS.remove(self)


class Postgres:
    """A throwaway PostgreSQL (as tests/common/postgres.rs makes one): initdb in a new
    directory, loopback only, trusted user `arcade`; as root the programs run as the
    `postgres` user. None of it if PostgreSQL is not installed."""

    def __init__(self, work):
        self.bin = None
        dirs = [os.path.dirname(shutil.which("initdb") or "")]
        if os.path.isdir("/usr/lib/postgresql"):
            dirs += sorted((f"/usr/lib/postgresql/{v}/bin" for v in os.listdir(
                "/usr/lib/postgresql")), reverse=True)
        for d in dirs:
            if d and all(os.path.isfile(os.path.join(d, p))
                         for p in ("initdb", "pg_ctl", "createdb")):
                self.bin = d
                break
        if self.bin is None:
            raise FileNotFoundError("PostgreSQL (initdb, pg_ctl) is not installed")
        # Not under WORK: PostgreSQL's user must be able to reach it.
        self.dir = tempfile.mkdtemp(prefix="arcade-trust-pg.")
        self.user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if self.user:
            subprocess.run(["chown", "postgres:", self.dir], check=True)
        self.port = free_port()
        data = os.path.join(self.dir, "data")
        self.data = data
        self.run("initdb", "-D", data, "-U", "arcade", "-A", "trust", "-E", "UTF8", "--no-sync")
        try:
            self.run("pg_ctl", "-D", data, "-l", os.path.join(self.dir, "log"), "-o",
                     f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 "
                     "-c fsync=off", "-w", "start")
            pid_dir = tempfile.mkdtemp(prefix="run.", dir=work)
            with open(os.path.join(data, "postmaster.pid")) as f, \
                    open(os.path.join(pid_dir, "pid"), "w") as g:
                g.write(f.readline().strip())
            self.run("createdb", "-h", HOST, "-p", str(self.port), "-U", "arcade", "arcade")
        except BaseException:
            self.stop()
            raise
        self.url = f"postgres://arcade@{HOST}:{self.port}/arcade"

    def run(self, program, *args):
        subprocess.run(self.user + [os.path.join(self.bin, program), *args], check=True,
                       capture_output=True, timeout=60)

    def stop(self):
        try:
            self.run("pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop")
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired):
            pass
        shutil.rmtree(self.dir, ignore_errors=True)


def nats_publish(port, subject, payloads, user=None, password=None):
    """Publish raw payloads on core NATS (its text protocol), as anyone on the network
    can; True if the server took them (a PONG after them)."""
    s = connect(port, timeout=5)
    s.recv(4096)  # INFO
    opts = {"verbose": False, "pedantic": False}
    if user:
        opts.update(user=user, **{"pass": password})
    s.sendall(b"CONNECT " + json.dumps(opts).encode() + b"\r\n")
    for p in payloads:
        p = json.dumps(p).encode()
        s.sendall(f"PUB {subject} {len(p)}\r\n".encode() + p + b"\r\n")
    s.sendall(b"PING\r\n")
    got = b""
    try:
        while b"PONG" not in got and b"-ERR" not in got:
            b = s.recv(4096)
            if not b:
                break
            got += b
    except socket.timeout:
        pass
    s.close()
    return b"PONG" in got


def nats_hears(port, subject, wait, user=None, password=None):
    """Whether anything is published on `subject` within `wait` s."""
    s = connect(port, timeout=wait)
    s.recv(4096)  # INFO
    opts = {"verbose": False, "pedantic": False}
    if user:
        opts.update(user=user, **{"pass": password})
    s.sendall(b"CONNECT " + json.dumps(opts).encode() + f"\r\nSUB {subject} 1\r\n".encode())
    got, end = b"", time.monotonic() + wait
    try:
        while b"MSG " not in got and time.monotonic() < end:
            s.settimeout(max(0.05, end - time.monotonic()))
            b = s.recv(4096)
            if not b:
                break
            got += b
    except socket.timeout:
        pass
    s.close()
    return b"MSG " in got


def t9(binary, work):
    """NATS without credentials: forged deliveries; a password in the --bus URL."""
    nats = shutil.which("nats-server")
    if not nats:
        out("t9a", "skipped: nats-server is not installed")
        return
    try:
        pg = Postgres(work)
    except (OSError, subprocess.CalledProcessError) as e:
        out("t9a", f"skipped: PostgreSQL did not start ({e})")
        return
    try:
        nport = free_port()
        n = Proc([nats, "-a", HOST, "-p", str(nport)], work)
        time.sleep(0.5)
        s = Server(binary, work, ["--db", pg.url, "--bus", f"nats://{HOST}:{nport}"])
        m = re.search(r"instance=(\d+)", s.log_text())
        instance = m.group(1) if m else "1"
        player = Client(s.port, "127.0.0.3")
        take_name(player, "playr")
        player.cmd("play sokoban", GAME)
        victim = Client(s.port, "127.0.0.4")
        take_name(victim, "vicky")
        victim.send("watch playr")
        victim.drain(0.5)
        # Session numbers are the instance's number times a million plus a count
        # (heard on arcade.presence); both forms, in case a build numbers otherwise.
        base = int(instance) * 1_000_000
        to = list(range(base, base + 64)) + list(range(0, 64))
        esc = "\u001b[2J\u001b[31mFORGED"
        subject = f"arcade.to.{instance}"
        took = nats_publish(nport, subject, [
            {"Deliver": {"to": to, "message": {"Frame": esc + " frame\r\n"}}},
            {"Deliver": {"to": to, "message": {"Line": esc + " line"}}}])
        got = victim.drain(1.0)
        frame = b"FORGED frame" in got
        line = b"FORGED line" in got
        escaped = b"\x1b[2J" in got
        nats_publish(nport, subject, [{"Deliver": {"to": to, "message": {"Close": "forged"}}}])
        victim.drain(1.0)
        out("t9a", f"anonymous publish on {subject} taken: {'yes' if took else 'no'}; "
                   f"forged frame reached a watcher: {'yes' if frame else 'no'}, forged line: "
                   f"{'yes' if line else 'no'}; ESC bytes reached the watcher: "
                   f"{'yes' if escaped else 'no'}; forged `Close` closed the player: "
                   f"{'yes' if victim.closed else 'no'}")
        player.close()
        victim.close()
        s.stop()
        n.stop()

        secret = "bus-secret-pw-77"
        nport = free_port()
        n = Proc([nats, "-a", HOST, "-p", str(nport), "--user", "arcade", "--pass", secret], work)
        time.sleep(0.5)
        s = Server(binary, work, ["--db", pg.url, "--bus",
                                  f"nats://arcade:{secret}@{HOST}:{nport}"], wait=8)
        time.sleep(0.5)
        logged = s.log_text().count(secret)
        heard = nats_hears(nport, "arcade.presence", 3.0, "arcade", secret)
        out("t9b", f"nats-server with --user/--pass, `--bus nats://arcade:PASSWORD@...`: "
                   f"{'started' if s.up else f'did not start (exit {s.proc.poll()})'}; its heartbeats "
                   f"on the bus: {'yes' if heard else 'none in 3 s'}; "
                   f"log lines with the password: {logged}")
        s.stop()
        n.stop()
    finally:
        pg.stop()


def cpu_seconds(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def t10(binary, work):
    """50 replays of a recording at the input cap, none of them read."""
    k = int(os.environ.get("REPLAYS", "50"))
    s = Server(binary, work)
    c = Client(s.port, "127.0.0.3", timeout=30)
    lines = int(os.environ.get("REPLAY_LINES", "400000"))
    flood_game(c, "play 2048 seed=1", "r", lines, 20)
    c.send("q")
    c.until(LOBBY)
    time.sleep(1.5)
    ids = recording_ids(c)
    c.close()
    rid = max(ids) if ids else 1
    time.sleep(0.5)
    base = s.rss()
    viewers, first = [], {}
    for _ in range(k):
        try:
            v = Client(s.port, "127.0.0.2", timeout=10)
            v.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            v.send(f"replay {rid} 1")
            what = line_of(v.drain(0.1)) or "(nothing)"
            what = re.sub(r"\d+", "N", what)[:80]
            first[what] = first.get(what, 0) + 1
            viewers.append(v)
        except (OSError, EOFError, socket.timeout):
            break
    cpu0, t0 = cpu_seconds(s.pid), time.monotonic()
    time.sleep(5)
    cpu = (cpu_seconds(s.pid) - cpu0) / (time.monotonic() - t0) * 100
    rss = s.rss()
    top = sorted(first.items(), key=lambda kv: -kv[1])[:2]
    out("t10", f"recording {rid} ({lines} `r` lines in 2048); {len(viewers)} `replay` from "
               f"127.0.0.2 that read only their first 0.1 s: server VmRSS {mib(base)} → "
               f"{mib(rss)} 5 s later (VmHWM {mib(s.hwm())}), CPU {cpu:.0f}% over those 5 s; "
               f"first lines: " + "; ".join(f"{v}× \"{w}\"" for w, v in top))
    for v in viewers:
        v.close()
    s.stop()


def t11(binary, work):
    """Registrations from one address: 4 connections, each registering name after
    name."""
    secs = float(os.environ.get("REGISTER_SECONDS", "5"))
    s = Server(binary, work)
    ok, refused, first = [0], [0], []
    lock = threading.Lock()
    t0 = time.monotonic()

    def one(k):
        try:
            c = Client(s.port, "127.0.0.2", timeout=30)
            i = 0
            while time.monotonic() - t0 < secs:
                i += 1
                take_name(c, f"reg{k}x{i:05d}")
                done, got = register(c)
                with lock:
                    if done:
                        ok[0] += 1
                    else:
                        refused[0] += 1
                        first.append(line_of(got))
            c.close()
        except (OSError, EOFError, socket.timeout):
            pass

    threads = [threading.Thread(target=one, args=(k,), daemon=True) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(40)
    dt = time.monotonic() - t0
    cell = (f"{ok[0]} names registered in {dt:.1f} s = {ok[0] / dt:.0f}/s from 4 connections "
            f"of 127.0.0.2, {refused[0]} refused")
    if first:
        cell += f" (first: \"{first[0]}\")"
    out("t11", cell)
    s.stop()


def races_closed(s, n, limit):
    """n races of 2048 (with `limit`, e.g. time=24h, or none) each opened, started and
    left by one host at once; (races started, seconds, the server's VmRSS growth)."""
    c = Client(s.port, "127.0.0.3", timeout=30)
    take_name(c, "hosty")
    time.sleep(0.5)
    base = s.rss()
    started, t0 = 0, time.monotonic()
    for _ in range(n):
        c.cmd(f"race 2048 seed=1 {limit}".strip())
        c.send("start")
        got = c.until(GAME, LOBBY)
        if got.endswith(LOBBY) and b"again" in got:  # "type start again to race alone"
            c.send("start")
            got = c.until(GAME, LOBBY)
        if got.endswith(LOBBY) and b"starts now" in got:  # the board follows
            got = c.until(GAME, LOBBY)
        if got.endswith(GAME):
            started += 1
            c.send("/leave")
            c.until(LOBBY)
        c.drain(0)
    dt = time.monotonic() - t0
    time.sleep(1.5)
    c.close()
    return started, dt, s.rss() - base


def t12(binary, work):
    """Race timers of closed races: not visible from outside but as memory, so the
    same races are run with `time=24h` and without, on two servers, and the growth
    compared."""
    n = int(os.environ.get("RACES", "10000"))
    cells = []
    for limit in ("time=24h", ""):
        s = Server(binary, work)
        started, dt, grew = races_closed(s, n, limit)
        cells.append((limit or "no time limit", started, dt, grew, s.threads()))
        s.stop()
    (l1, s1, d1, g1, th1), (l2, s2, d2, g2, th2) = cells
    out("t12", f"{n} races opened, started and left by their host: with {l1}: {s1} started "
               f"in {d1:.0f} s, VmRSS +{g1} kB, {th1} threads; with {l2}: {s2} started, "
               f"VmRSS +{g2} kB, {th2} threads; difference {(g1 - g2) / max(1, s1) * 1024:.0f} "
               f"bytes per race (sleeping timer tasks; noisy)")


def first_event(port, path="/events", wait=5.0):
    """The data of the first Server-Sent Event on path, as JSON (None if none)."""
    s = connect(port, "127.0.0.7", timeout=wait)
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n".encode())
    got, end = b"", time.monotonic() + wait
    try:
        while time.monotonic() < end:
            s.settimeout(max(0.05, end - time.monotonic()))
            b = s.recv(1 << 20)
            if not b:
                break
            got += b
            m = re.search(rb"data: (\{.*?\})\r?\n\r?\n", got, re.S)
            if m and b'"rows":[]' not in m.group(1):
                return json.loads(m.group(1))
    except (socket.timeout, OSError):
        pass
    finally:
        s.close()
    m = re.search(rb"data: (\{.*?\})\r?\n", got)
    return json.loads(m.group(1)) if m else None


def t13(binary, work):
    """100 sessions named --00 ... --99 and three real players: the live table."""
    s = Server(binary, work, http=True)
    fillers = []
    for i in range(100):
        c = Client(s.port, "127.0.0.2")
        take_name(c, f"--{i:02d}")
        fillers.append(c)
    real = []
    for name, game in (("alice", "sokoban"), ("bob", "2048"), ("carol", None)):
        c = Client(s.port, "127.0.0.3")
        take_name(c, name)
        if game:
            c.cmd(f"play {game}", GAME)
            c.cmd("d1" if game == "sokoban" else "a", GAME)
        real.append(c)
    time.sleep(1)
    snap = first_event(s.http)
    if not snap:
        out("t13", "no table came on /events")
    else:
        names = [r.get("name") for r in snap.get("rows", [])]
        where = {n: names.index(n) + 1 for n in ("alice", "bob", "carol") if n in names}
        shown = ", ".join(f"{n} row {i}" for n, i in where.items()) or "none of them"
        out("t13", f"{snap.get('total')} sessions, {len(names)} rows sent to the page; the "
                   f"real players (alice and bob in games, carol in the lobby): {shown}")
    for c in fillers + real:
        c.close()
    s.stop()


CSI = "\u009b"  # C1 control: CSI, as ESC [ to a terminal that takes 8-bit controls
RLO = "\u202e"  # bidi: right-to-left override


def marks(data):
    """Which of the two controls (as UTF-8) are in data."""
    found = [n for n, ch in (("C1 U+009B", CSI), ("bidi U+202E", RLO)) if ch.encode() in data]
    return " and ".join(found) if found else "neither"


def cast_text(cast):
    """The output an asciicast carries (its frames' text, JSON escapes undone), as
    UTF-8."""
    text = []
    for line in cast.decode(errors="replace").splitlines()[1:]:
        try:
            frame = json.loads(line)
            text.append(frame[2])
        except (ValueError, IndexError, TypeError):
            pass
    return "".join(text).encode(errors="replace")


def t14(binary, work):
    """C1 controls and bidi overrides in chat, in a tell, and in a game's input (which
    watchers and the .cast show)."""
    s, admin = with_admin(binary, work)
    sender = Client(s.port, "127.0.0.2")
    take_name(sender, "sendr")
    other = Client(s.port, "127.0.0.3")
    take_name(other, "othr")
    text = f"hi {CSI}31mred {RLO}desrever"
    sender.cmd(f"say {text}")
    said = other.drain(0.5)
    sender.cmd(f"tell othr {text}")
    told = other.drain(0.5)
    player = Client(s.port, "127.0.0.4")
    take_name(player, "playr")
    player.cmd("play sokoban", GAME)
    other.send("watch playr")
    other.drain(0.5)
    player.cmd(f"d1{CSI}2J{RLO}", GAME)
    watched = other.drain(0.5)
    player.send("e")
    player.until(LOBBY)
    time.sleep(1.5)
    rid = max(recording_ids(player) or [1])
    _, _, cast, _ = http(s.http, "GET", f"/recordings/{rid}.cast", source="127.0.0.250",
                         headers=admin)
    cast = cast if isinstance(cast, bytes) else b""
    out_ = cast_text(cast if isinstance(cast, bytes) else b"")
    out("t14", f"reached the other player: by `say` {marks(said)}; by `tell` {marks(told)}; "
               f"a game input line, to a watcher: {marks(watched)}; in the .cast: {marks(out_)}")
    for c in (sender, other, player):
        c.close()
    s.stop()


def t15(binary, work):
    """Chat padded with spaces so that a fake line starts at column 0 of an 80-column
    terminal."""
    s = Server(binary, work)
    sender = Client(s.port, "127.0.0.2")
    take_name(sender, "mallory")
    other = Client(s.port, "127.0.0.3")
    fake = "[teacher to everyone] Type quit now, the lab closes."
    pad = 80 - len("[mallory] ")
    sender.cmd("say " + "x" + " " * (pad - 1) + fake)
    got = other.drain(0.5).decode(errors="replace")
    line = next((x for x in got.replace("\r", "").split("\n") if "to everyone]" in x), None)
    if line is None:
        out("t15", "the chat did not arrive")
    else:
        col = line.index("[teacher")
        out("t15", f"`say x` + {pad - 1} spaces + `{fake[:21]}…`: arrives as a {len(line)}-"
                   f"character line with the fake at column {col}: on an 80-column terminal "
                   f"it {'starts a line of its own (fake line: yes)' if col % 80 == 0 else 'does not start a line (fake line: no)'}")
    sender.close()
    other.close()
    s.stop()


def proxy_header(src, sport, dst="127.0.0.1", dport=4000):
    """A PROXY protocol v2 header (PROXY command, TCP over IPv4)."""
    addrs = socket.inet_aton(src) + socket.inet_aton(dst) + sport.to_bytes(2, "big") \
        + dport.to_bytes(2, "big")
    return b"\r\n\r\n\x00\r\nQUIT\n" + bytes([0x21, 0x11]) + len(addrs).to_bytes(2, "big") + addrs


def t16(binary, work):
    """--proxy-protocol: a header from an address that is not the proxy; connections
    that never send one."""
    args = ["--proxy-protocol"]
    if has_option(binary, "--proxy-from"):
        args += ["--proxy-from", "127.0.0.2/32"]
    s = Server(binary, work, args, wait=0)
    time.sleep(0.5)
    c = connect(s.port, "127.0.0.3")
    c.sendall(proxy_header("10.9.8.7", 4242, dport=s.port))
    cl = Client.__new__(Client)
    cl.s, cl.buf, cl.closed = c, b"", False
    got = cl.drain(1.0)
    logged = "10.9.8.7" in s.log_text()
    out("t16a", f"{' '.join(args)}; a header claiming 10.9.8.7 sent from 127.0.0.3: "
                f"{'banner: accepted' if BANNER in got else 'no banner'}"
                f"{', closed' if cl.closed else ''}; the log names 10.9.8.7: "
                f"{'yes' if logged else 'no'}")
    c.close()
    held = open_idle(s.port, 300, "127.0.0.2")
    time.sleep(3)
    n = still_open(held)
    c = connect(s.port, "127.0.0.2")
    c.sendall(proxy_header("10.1.1.1", 4243, dport=s.port))
    cl.s, cl.buf, cl.closed = c, b"", False
    ok = BANNER in cl.drain(1.0)
    out("t16b", f"300 connections from the proxy's address 127.0.0.2 that send no header: "
                f"{n} still open after 3 s; then a proxied connection with a header: "
                f"{'banner' if ok else 'no banner'}")
    c.close()
    for x in held:
        x.close()
    s.stop()


def t17(binary, work):
    """Web login: an unknown name against a known name with a wrong password."""
    n = 20
    names = [f"adm{i:02d}" for i in range(n)]
    args = [x for name in names for x in ("--admin", name)]
    data = tempfile.mkdtemp(prefix="run.", dir=work) + "/data"
    offline = [set_password_offline(binary, data, name) for name in names]
    s = Server(binary, work, args, http=True, data=data)
    if offline[0] is None:
        for i, name in enumerate(names):
            c = Client(s.port, f"127.0.1.{i + 1}")
            take_name(c, name)
            register(c)
            c.close()
    known, unknown, statuses = [], [], set()
    for i in range(n):
        st, _, dt = web_login(s.http, names[i], WRONG, source=f"127.0.2.{i + 1}")
        known.append(dt * 1000)
        statuses.add(st)
        st, _, dt = web_login(s.http, f"nobody{i:02d}", WRONG, source=f"127.0.3.{i + 1}")
        unknown.append(dt * 1000)
        statuses.add(st)
    med = statistics.median
    out("t17", f"POST /login, each name once from its own address, {n} of each: unknown name "
               f"median {med(unknown):.1f} ms, known name with a wrong password median "
               f"{med(known):.1f} ms (ratio {med(known) / max(0.001, med(unknown)):.0f}×); "
               f"statuses {sorted(x for x in statuses if x)}")
    s.stop()


def t18(binary, work):
    """/results.csv: a field starting with `-` that a number parser takes (`-inf`)."""
    s, admin = with_admin(binary, work)
    names = ["-inf", "-1e9", "-2-3"]
    for i, name in enumerate(names):
        c = Client(s.port, f"127.0.0.{10 + i}")
        take_name(c, name)
        register(c)
        c.cmd("play wumpus", GAME)
        c.cmd("climb")
        c.close()
    time.sleep(3)  # results are checked by replay before they are listed
    status, _, body, _ = http(s.http, "GET", "/results.csv", headers=admin,
                              source="127.0.0.250")
    rows = body.decode(errors="replace").splitlines()[1:] if isinstance(body, bytes) else []
    firsts = [r.split(",")[0] for r in rows]
    cells = []
    for name in names:
        field = next((f for f in firsts if f.lstrip("'\"") == name), None)
        cells.append(f"`{name}` → " + ("(no row)" if field is None else
                                        f"`{field}` ({'guarded' if field.startswith(chr(39)) else 'NOT guarded'})"))
    out("t18", f"GET /results.csv as the admin: {status}, {len(rows)} rows; player field " + ", ".join(cells))
    s.stop()


ITEMS = {name: fn for name, fn in globals().items() if re.fullmatch(r"t\d+", name)}

if __name__ == "__main__":
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    item, binary, work = sys.argv[1:4]
    try:
        ITEMS[item](binary, work)
    finally:
        stop_all()
