#!/usr/bin/env python3
"""Print the benchmark table of bench/run.sh from its JSON files.

Usage: table.py DIR. DIR holds rowN-SERVER-REP.json, one `arcade loadtest --json`
report each, and rowN.runs, the number of runs of row N. The ratio is arcade /
minimal; a target is checked on the ratio (or, for memory, on arcade's own number).

Latency percentiles of rows 2, 3, 6, 7, 9, 10, 11, 12 and 13 are "pooled": taken from the sum of all
runs' histograms (`latency_histogram` for commands, `delivery_histogram` for
deliveries), that is from every command or delivery the runs measured, as if they
were one long run. Percentiles of separate runs cannot be averaged, and a median of
per-run p99s mostly says which runs a stall of the machine happened to hit; it is
shown as well. Every other number is the median over the runs, except lost
deliveries, which are added up. The server CPU rows (from --server-pid) have no
target: they show what each command costs the server, which a noisy machine disturbs
less than latency.

Row 7's player p99 has a target against another row: at most 1.2x row 2's pooled p99
for arcade in the same run (a watched player should answer about as fast as one of
10,000 players who are not watched).

Row 9 (games that end and start again all the time) runs arcade only: arcade-minimal
has no games to end, record or replay. Its p99 is held to row 2's as row 7's is. Its
notes come from files bench/run.sh leaves beside the JSON: the server's log
(row9-arcade-REP.log), where the recorder reports every 10 s (`written=N backlog=M
largest_backlog=L`, `checked=N replay_us_each=U`), and what the database held after
the server stopped (row9-arcade-REP.db: `db_bytes=`, and with the sqlite3 shell
`results=`, `results_bytes=`, `inputs_recorded=`). What is missing shows as n/a.

Row 10 (a race of 500: every racer's moves, and the progress lines each move makes
the 499 others hear) runs arcade only too: arcade-minimal has no races. Both its p99s,
the moves' and the progress lines' delivery, are held to 1.5x row 2's pooled arcade
p99 of the same run.

Row 11 (row 2's load while the teacher's web page is followed by 50 browsers) runs
arcade only as well: arcade-minimal has no web page. Each run has two halves, each on
a fresh server with the web page on: row11-web-REP.json with the followers (`curl -N`
on /events) and row11-plain-REP.json without. Its target is the pooled p99 with
followers at most 1.1x the pooled p99 without, from the same runs; it needs no other
row. What the followers received is in row11-web-REP.sse (`followers=`, `viewers=`,
`received=`, `events=`, `fewest_events=`, `bytes=`, `followed_ms=`); a follower that
received no `event: sessions` line makes the check `**no**`, and the comparison says
nothing. Skipped (row11.skipped: curl missing, or no --http-port), the row is left
out and the reason printed.

Row 12 (several instances) runs arcade only as well, in two halves of every run, each
on fresh servers: row12-proxied-REP.json, row 2's load through HAProxy to three
instances, and row12-direct-REP.json, the same load to one instance. Its target is
the pooled p99 proxied at most 1.3x the pooled p99 direct, from the same runs. The
server CPU per command of each half over the whole run comes from row12-HALF-REP.cpu (`server_ticks=`:
every instance's and HAProxy's CPU over the whole run, in 1/100 s), divided by the
run's commands (`commands_whole_run`), since loadtest's --server-pid sees one process;
that process is HAProxy in the proxied half and the one arcade in the direct half, so
their CPU per command in the measured window (no connects) is shown as well.
The instances' own CPU (`server_ticks` less HAProxy's `proxy_ticks`) per command
against one instance's is issue 29's target for the row (at most 1.2x). With --bus,
row12-chat-REP.json (chat through the proxy, across the instances) and
row12-chatdirect-REP.json (the same on one instance) are shown as well, with their
instances' CPU per line said from row12-chat-REP.cpu and row12-chatdirect-REP.cpu
against the same 1.2x. What ran is
in row12.setup (`bus=`, `db=`); row12.skipped says why the row did not run.

Row 13 (warnings on every push, issue 33) is row 2's load side by side with
arcade-minimal, named sessions pushing a box in Star Pusher, in two halves of every
run on fresh servers: row13-arcade-REP.json and row13-minimal-REP.json with every
session's `set warnings on` (loadtest --setup), row13-plain-REP.json and
row13-plainminimal-REP.json without. Its target is row 2's on the first half: arcade's
pooled p99 with warnings at most 1.2x minimal's beside it. The half without warnings
is shown against its own minimal, and its lines say what the same number with
warnings is against it (`with warnings: 1.05x this`): the cost of the warnings alone.
The setup's replies (the first session's, from each half's first report) are printed
under the table, so that it shows that warnings were on.

Row 15 (bots, issue 34) runs arcade only: arcade-minimal speaks no bot protocol. Each
game of the row is a load of its own, row15-GAME-REP.json (GAME: `wumpus`, `2048`,
the first word of loadtest's --bot-game): 60 bots each playing 100 seeds of it in turn,
the whole run measured (`bots` in the report: wall time, games and actions per
second, errors). Its target: the wumpus load within 5 minutes (issue 34: "finishes in
minutes"). The bots' error lines go with the failures under the table.

Row 16 (upgrades, issue 36) runs arcade only: arcade-minimal cannot upgrade. Row 2's
load on a fresh arcade, `arcade upgrade` asked 5 s into the measured window (loadtest's
--upgrade-after): `upgrade` in the report has the answer, the time from asked to
answered, the stall (the longest wait of a command answered after the upgrade was
asked) and the notices the sessions received; every session must have been told, and
none may fail.

Rates (ROWS=rates): rates-nats.txt (examples/bus_rate.rs, one line per size and
subscriber count) and rates-pg.txt (pgbench, one line per setting), printed as
tables under the main one.

A row that did not run (bench/run.sh with ROWS) is left out.
"""

import functools
import json
import math
import os
import re
import statistics
import sys

# Rows run on arcade alone: arcade-minimal has nothing to compare there.
ARCADE_ONLY = {9, 10, 11, 12, 14, 15, 16}

# Row 15's loads, one per game the bots play (loadtest's --bot-game's first word).
BOT_LOADS = ("wumpus", "2048")

# Row 11's two halves, as its files name them, and as the table names them.
WEB_HALVES = {"web": "with followers", "plain": "without"}

# Row 13's halves: each arcade file and the arcade-minimal run beside it.
WARNING_HALVES = {"arcade": "minimal", "plain": "plainminimal"}

# Row 12's halves: through the proxy to three instances, and to one instance; and,
# with the bus, the chat load the same two ways.
CLUSTER_HALVES = {"proxied": "proxied", "direct": "direct", "chat": "chat proxied",
                  "chatdirect": "chat direct"}


def servers(row):
    """The file names of `row`'s runs: rowN-SERVER-REP.json."""
    if row == 11:
        return tuple(WEB_HALVES)
    if row == 12:
        return ("proxied", "direct")
    if row == 14:
        return ("ssh", "telnet", "sshidle", "telnetidle")
    if row == 15:
        return BOT_LOADS
    if row in ARCADE_ONLY:
        return ("arcade",)
    if row == 13:
        return ("arcade", "minimal", "plain", "plainminimal")
    return ("arcade", "minimal")


def runs(directory, row):
    try:
        with open(os.path.join(directory, f"row{row}.runs")) as file:
            return int(file.read().strip())
    except (OSError, ValueError):
        return 0


@functools.cache
def load(directory, row, server):
    if server == "minimal" and row in ARCADE_ONLY:
        return ()
    reports = []
    reps = runs(directory, row)
    for rep in range(1, reps + 1):
        path = os.path.join(directory, f"row{row}-{server}-{rep}.json")
        try:
            with open(path) as file:
                reports.append(json.load(file))
        except (OSError, ValueError) as error:
            print(f"(missing or broken: {path}: {error})", file=sys.stderr)
    return tuple(reports)


def cpu_us(report):
    return (report.get("server_cpu") or {}).get("us_per_command")


def median(reports, pick):
    values = [pick(report) for report in reports]
    values = [value for value in values if value is not None]
    return statistics.median(values) if values else None


def pooled(reports, quantile, field="latency_histogram"):
    """The latency at `quantile` over every command (or delivery, with
    field="delivery_histogram") of `reports`, in ms: the same rule as hdrhistogram's
    value_at_quantile, applied to the runs' summed buckets."""
    counts = {}
    for report in reports:
        for value, count in report.get(field, []):
            counts[value] = counts.get(value, 0) + count
    total = sum(counts.values())
    if not total:
        return None
    wanted = max(1, math.ceil(quantile * total))
    seen = 0
    for value in sorted(counts):
        seen += counts[value]
        if seen >= wanted:
            return value / 1000.0
    return None


def ms(micros):
    return None if micros is None else micros / 1000.0


def show(value, unit):
    if value is None:
        return "n/a"
    if unit == "ms":
        return f"{value:.2f} ms"
    if unit == "us":
        return f"{value:.1f} µs"
    if unit == "B":
        return f"{value:.0f} B"
    if unit == "/s":
        return f"{value:,.0f}/s"
    if unit == "s":
        return f"{value:,.2f} s"
    if unit == "MiB":
        return f"{value:,.1f} MiB"
    return f"{value:,.0f}"


class Pooled:
    """A table row whose number is `pooled(reports, quantile, field)`."""

    def __init__(self, quantile, field="latency_histogram"):
        self.quantile = quantile
        self.field = field


class Summed:
    """A table row whose number is the sum of `pick` over a server's runs."""

    def __init__(self, pick):
        self.pick = pick


class Half:
    """A row 11 table row whose number is `pick` (a function, or Pooled) over the runs
    of one half: "web" (with the followers) or "plain" (without)."""

    def __init__(self, half, pick):
        self.half = half
        self.pick = pick


class ClusterCpu:
    """A row 12 table row: the median over the runs of one half of the server CPU per
    command, from row12-HALF-REP.cpu and the run's commands."""

    def __init__(self, half, key="server_ticks", unit_us=1):
        self.half = half
        self.key = key
        # µs in one unit of the row's (1,000 for a row in ms).
        self.unit_us = unit_us


class Followers:
    """Row 11's followers over all runs (row11-web-REP.sse): a text, and whether every
    follower received the table."""


def lost(report):
    """Deliveries expected and not received (skipped by the server, or never came)."""
    return max(0, report.get("deliveries_expected", 0) - report.get("deliveries_received", 0))


def first(reports, key, default):
    """`key` of the first report, to name a row by what actually ran."""
    return reports[0].get(key, default) if reports else default


def row_labels(directory):
    """The loads of rows 6-8 as they ran (bench/run.sh can make them smaller)."""
    chat = load(directory, 6, "arcade")
    watch = load(directory, 7, "arcade")
    lobby = load(directory, 8, "arcade")
    restart = load(directory, 9, "arcade")
    race = load(directory, 10, "arcade")
    web = load(directory, 11, "web") or load(directory, 11, "plain")
    cluster = load(directory, 12, "proxied") or load(directory, 12, "direct")
    pushes = load(directory, 13, "arcade") or load(directory, 13, "plain")
    ssh = load(directory, 14, "ssh") or load(directory, 14, "telnet")
    bots = next((bot(report) for report in load_bots(directory)), {})
    upgraded = load(directory, 16, "arcade")
    setup = cluster_setup(directory)
    followers = max((fields.get("followers", 0) for fields in sse_facts(directory)),
                    default=0) or 50
    return {
        6: f"chat: {first(chat, 'sessions', 10000):,} named sessions in the lobby, "
           f"{first(chat, 'chat_rate', 10):g} lines/s",
        7: f"watching: 1 player at {first(watch, 'rate', 10):g}/s, "
           f"{first(watch, 'watchers', 1000):,} watchers",
        8: f"memory per named session idle in the lobby "
           f"({first(lobby, 'sessions', 10000):,})",
        9: f"{first(restart, 'sessions', 10000):,} named sessions at "
           f"{first(restart, 'rate', 1):g}/s playing {first(restart, 'game', '2048')}, "
           f"a new game every {first(restart, 'restart_every', 10)} moves (arcade only)",
        10: f"race: {first(race, 'sessions', 500):,} named sessions in races of "
            f"{first(race, 'race', 500):,} at {first(race, 'rate', 1):g}/s, "
            f"`{first(race, 'race_line', 'race 2048')}` (arcade only)",
        11: f"{first(web, 'sessions', 10000):,} sessions at {first(web, 'rate', 1):g}/s "
            f"(row 2's load) with {followers} followers of the web page's /events, and "
            f"without (arcade only)",
        12: f"{first(cluster, 'sessions', 10000):,} sessions at "
            f"{first(cluster, 'rate', 1):g}/s (row 2's load) through HAProxy to "
            f"{setup.get('instances', '3')} instances, and direct to one"
            f"{', with ' + setup['bus'] if setup.get('bus') else ', no bus'}"
            f"{', with ' + setup['db'] if setup.get('db') else ', SQLite each'} (arcade only)",
        13: f"{first(pushes, 'sessions', 10000):,} named sessions at "
            f"{first(pushes, 'rate', 1):g}/s pushing a box in "
            f"`{first(pushes, 'lobby_line', 'play starpusher pushes')}` "
            f"({','.join(first(pushes, 'script_commands', []))}), with `set warnings on` "
            f"and without",
        14: f"{first(ssh, 'sessions', 1000):,} sessions over SSH and over telnet to one "
            f"server: a closed loop, and idle in their games (arcade only)",
        15: f"bots: {bots.get('bots', 60):,} bots, each over seeds "
            f"{bots.get('seeds', {}).get('first', 1)}-{bots.get('seeds', {}).get('last', 100)} "
            f"of a game in turn"
            f"{' through a ladder (`' + bots['start_line'] + '`)' if bots.get('ladder') else ' (`' + bots.get('start_line', 'play GAME seed=S') + '`)'}"
            f", a random policy, each action when the last state came (arcade only)",
        16: f"upgrades: {first(upgraded, 'sessions', 10000):,} sessions in Sokoban at "
            f"{first(upgraded, 'rate', 1):g}/s (row 2's load), `arcade upgrade` 5 s into the "
            f"window: every session moves to the new process (arcade only)",
    }


def upgrade(report):
    """The `upgrade` part of a row 16 report (empty when missing)."""
    return report.get("upgrade") or {}


def per_session_us(report):
    """Row 16: the upgrade's time from asked to answered, per session moved, µs."""
    told = upgrade(report).get("notices")
    took = upgrade(report).get("took_ms")
    return None if not told or took is None else took * 1000 / told


def bot(report):
    """The `bots` part of a row 15 report (empty when missing)."""
    return report.get("bots") or {}


def load_bots(directory):
    """Every row 15 report, of every game."""
    return [report for name in BOT_LOADS for report in load(directory, 15, name)]


def ladder(report):
    """The `ladder` part of a row 15 report's `bots` (empty without a ladder)."""
    return bot(report).get("ladder") or {}


def rss_mib(report):
    """The server's peak resident memory in a row 15 run, MiB."""
    kib = bot(report).get("server_rss_peak_kib")
    return None if kib is None else kib / 1024


def cluster_setup(directory):
    """What row 12 ran with (row12.setup), as strings."""
    facts = {}
    try:
        with open(os.path.join(directory, "row12.setup")) as file:
            for line in file:
                key, _, value = line.strip().partition("=")
                facts[key] = value
    except OSError:
        pass
    return facts


def cluster_cpu(directory, half, key="server_ticks"):
    """Median over row 12's runs of `half` of the server CPU per command, µs: every
    server process's CPU over the whole run (row12-HALF-REP.cpu, `key`: server_ticks
    for all of them, proxy_ticks for HAProxy's) by the run's commands."""
    values = []
    for rep, report in enumerate(load(directory, 12, half), start=1):
        facts = key_value_file(os.path.join(directory, f"row12-{half}-{rep}.cpu"))
        if "server_ticks" in facts:
            # The arcade instances' own: HAProxy's (none in a direct half) apart.
            facts["instance_ticks"] = facts["server_ticks"] - facts.get("proxy_ticks", 0)
        commands = report.get("commands_whole_run")
        if key in facts and commands:
            values.append(facts[key] * 10_000 / commands)
    return statistics.median(values) if values else None


def has_chat(directory):
    """Whether row 12 ran its chat loads (only with --bus)."""
    return os.path.exists(os.path.join(directory, "row12-chat-1.json"))


def received(report):
    """Deliveries received (of those sent in the measured window)."""
    return report.get("deliveries_received", 0)


def games_per_second(report):
    """Games ended and started again per second of the measured window."""
    seconds = report.get("measured_seconds")
    return report.get("games_restarted", 0) / seconds if seconds else None


def key_values(line):
    """The `key=value` fields of a log line (tracing's fmt output), numbers as ints."""
    fields = {}
    for key, value in re.findall(r"(\w+)=(\S+)", line):
        try:
            fields[key] = int(value)
        except ValueError:
            pass
    return fields


def server_log(directory, rep):
    """The recorder's reports in row 9's server log of run `rep`: the `written=`
    lines and the `checked=` lines, each as a list of their fields."""
    written, checked = [], []
    try:
        with open(os.path.join(directory, f"row9-arcade-{rep}.log"), errors="replace") as file:
            for line in file:
                if "recorder: changes written" in line:
                    written.append(key_values(line))
                elif "results checked by replay" in line:
                    checked.append(key_values(line))
    except OSError:
        pass
    return written, checked


def key_value_file(path):
    """The key=value lines of a file as one dict (empty if the file is missing)."""
    facts = {}
    try:
        with open(path) as file:
            for line in file:
                facts.update(key_values(line))
    except OSError:
        pass
    return facts


def db_facts(directory, rep):
    """What row 9's database held after run `rep` (row9-arcade-REP.db), as ints."""
    return key_value_file(os.path.join(directory, f"row9-arcade-{rep}.db"))


def sse_facts(directory):
    """What row 11's followers received, one dict per run (row11-web-REP.sse)."""
    return [
        key_value_file(os.path.join(directory, f"row11-web-{rep}.sse"))
        for rep in range(1, runs(directory, 11) + 1)
    ]


def followers_line(directory):
    """Row 11's table line of the followers: (text, met)."""
    facts = sse_facts(directory)
    started = sum(fields.get("followers", 0) for fields in facts)
    received = sum(fields.get("received", 0) for fields in facts)
    missing = sum(1 for fields in facts if not fields)
    text = f"{received:,} of {started:,} received the table"
    if missing:
        text += f" ({missing} run(s) without a .sse file)"
    return text, bool(facts) and not missing and received == started


def followers_notes(directory):
    """Per run of row 11: the followers the server counted, and what they received."""
    lines = []
    for rep, fields in enumerate(sse_facts(directory), start=1):
        if not fields:
            lines.append(f"- run {rep}: no row11-web-{rep}.sse")
            continue
        followers = fields.get("followers", 0)
        seconds = fields.get("followed_ms", 0) / 1000
        bytes_each = fields.get("bytes", 0) / followers if followers else 0
        events_each = fields.get("events", 0) / followers if followers else 0
        rate = (f"{bytes_each / seconds / 1000:,.0f} kB/s, {events_each / seconds:.1f} "
                f"events/s" if seconds else "n/a")
        lines.append(
            f"- run {rep}: {fields.get('viewers', 0)} of {followers} followers counted by "
            f"the server before the load, {fields.get('received', 0)} received the table; "
            f"each {bytes_each / 1e6:,.1f} MB in {events_each:,.0f} events (fewest "
            f"{fields.get('fewest_events', 0)}) over {seconds:.1f} s: {rate} each")
    return lines


def number(value, unit=""):
    return "n/a" if value is None else f"{value:,.0f}{unit}"


def row9_notes(directory):
    """Per run of row 9: the finished games, the recorder's backlog and replays from
    the server's log, and the database's bytes per command and per result."""
    reports = load(directory, 9, "arcade")
    lines = []
    for rep, report in enumerate(reports, start=1):
        written, checked = server_log(directory, rep)
        backlogs = [fields["backlog"] for fields in written if "backlog" in fields]
        largest = [fields["largest_backlog"] for fields in written if "largest_backlog" in fields]
        replays = [fields["replay_us_each"] for fields in checked if "replay_us_each" in fields]
        checked_all = sum(fields.get("checked", 0) for fields in checked) if checked else None
        written_all = sum(fields.get("written", 0) for fields in written) if written else None
        facts = db_facts(directory, rep)
        commands = report.get("commands_whole_run")
        db_bytes = facts.get("db_bytes")
        per_command = db_bytes / commands if db_bytes is not None and commands else None
        results = facts.get("results")
        per_result = (facts["results_bytes"] / results
                      if results and "results_bytes" in facts else None)
        restarted = report.get("games_restarted_whole_run")
        per_command_text = "n/a" if per_command is None else f"{per_command:.0f} B"
        per_result_text = "n/a" if per_result is None else f"{per_result:.0f} B"
        lines += [
            f"- run {rep}: {report.get('games_restarted', 0):,} games ended and restarted in "
            f"the window ({number(games_per_second(report), '/s')}), "
            f"{number(restarted)} in the whole run",
            f"  - recorder backlog: largest {number(max(largest) if largest else None)}, "
            f"last {number(backlogs[-1] if backlogs else None)} "
            f"({len(written)} reports, {number(written_all)} changes written)",
            f"  - replay per result: {number(statistics.median(replays) if replays else None)} µs "
            f"(median of {len(replays)} reports, last "
            f"{number(replays[-1] if replays else None)} µs); {number(checked_all)} results "
            f"checked, {number(results)} in the database",
            f"  - database: {number(db_bytes, ' B')} (arcade.db + -wal) after "
            f"{number(commands)} commands: {per_command_text} per recorded command, "
            f"{per_result_text} per result (results table and indexes); "
            f"{number(facts.get('inputs_recorded'))} input lines recorded",
        ]
    return lines


def main():
    directory = sys.argv[1]
    labels = row_labels(directory)
    # A pick takes one report, or with POOLED or SUMMED all of a server's reports at once.
    rows = [
        # (row, label, metric, unit, pick, target kind, target value)
        (1, "closed loop, 100 sessions", "commands/s", "/s",
         lambda r: r["commands_per_second"], "ratio>=", 0.9),
        (1, "", "server CPU per command", "us", cpu_us, None, None),
        (2, "open loop, 10,000 sessions at 1/s", "p50, pooled", "ms",
         Pooled(0.50), None, None),
        (2, "", "p99, pooled", "ms", Pooled(0.99), "ratio<=", 1.2),
        (2, "", "p99.9, pooled", "ms", Pooled(0.999), None, None),
        (2, "", "p99, median of runs", "ms", lambda r: ms(r["latency"]["p99_us"]),
         None, None),
        (2, "", "server CPU per command", "us", cpu_us, None, None),
        (3, "open-file limit at 1/s", "sessions", "",
         lambda r: r["connected"], None, None),
        (3, "", "p99, pooled", "ms", Pooled(0.99), "ratio<=", 1.2),
        (3, "", "p99, median of runs", "ms", lambda r: ms(r["latency"]["p99_us"]),
         None, None),
        (3, "", "server CPU per command", "us", cpu_us, None, None),
        (4, "burst of 5,000 connects", "connect p99", "ms",
         lambda r: ms(r["connect"]["p99_us"]), None, None),
        (4, "", "failures", "", lambda r: r["failures"], "arcade==", 0),
        (5, "memory per idle in-game session", "RSS growth / session", "B",
         lambda r: (r.get("server_memory") or {}).get("bytes_per_session"),
         "arcade<=", 3072),
        (6, labels[6], "delivery p50, pooled", "ms",
         Pooled(0.50, "delivery_histogram"), None, None),
        (6, "", "delivery p99, pooled", "ms",
         Pooled(0.99, "delivery_histogram"), "ratio<=", 1.5),
        (6, "", "delivery p99.9, pooled", "ms",
         Pooled(0.999, "delivery_histogram"), None, None),
        (6, "", "delivery p99, median of runs", "ms",
         lambda r: ms(r["delivery"]["p99_us"]), None, None),
        (6, "", "deliveries lost, all runs", "", Summed(lost), None, None),
        (6, "", "say to its echo p99, pooled", "ms", Pooled(0.99), None, None),
        (6, "", "server CPU per line said", "us", cpu_us, None, None),
        (7, labels[7], "frame delivery p50, pooled", "ms",
         Pooled(0.50, "delivery_histogram"), None, None),
        (7, "", "frame delivery p99, pooled", "ms",
         Pooled(0.99, "delivery_histogram"), "ratio<=", 1.5),
        (7, "", "frame delivery p99.9, pooled", "ms",
         Pooled(0.999, "delivery_histogram"), None, None),
        (7, "", "frames lost, all runs", "", Summed(lost), None, None),
        (7, "", "player's command p99, pooled", "ms", Pooled(0.99), "row2<=", 1.2),
        (7, "", "server CPU per player command", "us", cpu_us, None, None),
        (8, labels[8], "RSS growth / session", "B",
         lambda r: (r.get("server_memory") or {}).get("bytes_per_session"),
         "arcade<=", 3072),
        (9, labels[9], "p50, pooled", "ms", Pooled(0.50), None, None),
        (9, "", "p99, pooled", "ms", Pooled(0.99), "row2<=", 1.2),
        (9, "", "p99.9, pooled", "ms", Pooled(0.999), None, None),
        (9, "", "games ended and restarted", "/s", games_per_second, None, None),
        (9, "", "server CPU per command", "us", cpu_us, None, None),
        (10, labels[10], "move p50, pooled", "ms", Pooled(0.50), None, None),
        (10, "", "move p99, pooled", "ms", Pooled(0.99), "row2<=", 1.5),
        (10, "", "move p99.9, pooled", "ms", Pooled(0.999), None, None),
        (10, "", "progress-line delivery p50, pooled", "ms",
         Pooled(0.50, "delivery_histogram"), None, None),
        (10, "", "progress-line delivery p99, pooled", "ms",
         Pooled(0.99, "delivery_histogram"), "row2<=", 1.5),
        (10, "", "progress-line delivery p99.9, pooled", "ms",
         Pooled(0.999, "delivery_histogram"), None, None),
        (10, "", "progress-line deliveries received, all runs", "", Summed(received), None, None),
        (10, "", "deliveries lost, all runs", "", Summed(lost), None, None),
        (10, "", "racers still playing at the end", "",
         lambda r: r.get("racers_playing_at_end"), None, None),
        (10, "", "server CPU per move", "us", cpu_us, None, None),
        (11, labels[11], "p50 with followers, pooled", "ms",
         Half("web", Pooled(0.50)), None, None),
        (11, "", "p99 with followers, pooled", "ms",
         Half("web", Pooled(0.99)), "plain<=", 1.1),
        (11, "", "p99.9 with followers, pooled", "ms",
         Half("web", Pooled(0.999)), None, None),
        (11, "", "p50 without, pooled", "ms", Half("plain", Pooled(0.50)), None, None),
        (11, "", "p99 without, pooled", "ms", Half("plain", Pooled(0.99)), None, None),
        (11, "", "p99.9 without, pooled", "ms", Half("plain", Pooled(0.999)), None, None),
        (11, "", "server CPU per command with followers", "us", Half("web", cpu_us),
         None, None),
        (11, "", "server CPU per command without", "us", Half("plain", cpu_us),
         None, None),
        (11, "", "followers, all runs", "", Followers(), "all", None),
        (12, labels[12], "p50 proxied, pooled", "ms", Half("proxied", Pooled(0.50)), None, None),
        (12, "", "p99 proxied, pooled", "ms", Half("proxied", Pooled(0.99)), "direct<=", 1.3),
        (12, "", "p99.9 proxied, pooled", "ms", Half("proxied", Pooled(0.999)), None, None),
        (12, "", "p50 direct, pooled", "ms", Half("direct", Pooled(0.50)), None, None),
        (12, "", "p99 direct, pooled", "ms", Half("direct", Pooled(0.99)), None, None),
        (12, "", "p99.9 direct, pooled", "ms", Half("direct", Pooled(0.999)), None, None),
        (12, "", "server CPU per command proxied (instances + HAProxy, whole run)", "us",
         ClusterCpu("proxied"), None, None),
        (12, "", "of which HAProxy", "us", ClusterCpu("proxied", "proxy_ticks"), None, None),
        (12, "", "HAProxy's CPU per command in the measured window", "us",
         Half("proxied", cpu_us), None, None),
        (12, "", "arcade's CPU per command in the measured window, direct", "us",
         Half("direct", cpu_us), None, None),
        (12, "", "server CPU per command direct (whole run)", "us", ClusterCpu("direct"),
         None, None),
        (12, "", "instances' CPU per command proxied (whole run, HAProxy's apart)", "us",
         ClusterCpu("proxied", "instance_ticks"), "cpu-direct<=", 1.2),
        (12, "", "chat: instances' CPU per line said across instances (whole run, HAProxy's apart)",
         "ms", Half("chat", ClusterCpu("chat", "instance_ticks", 1000)), "cpu-direct<=", 1.2),
        (12, "", "chat: CPU per line said on one instance (whole run)", "ms",
         Half("chatdirect", ClusterCpu("chatdirect", "instance_ticks", 1000)), None, None),
        (12, "", "chat delivery p99 across instances, pooled", "ms",
         Half("chat", Pooled(0.99, "delivery_histogram")), None, None),
        (12, "", "chat delivery p99 on one instance, pooled", "ms",
         Half("chatdirect", Pooled(0.99, "delivery_histogram")), None, None),
        (12, "", "chat deliveries lost across instances, all runs", "",
         Half("chat", Summed(lost)), None, None),
        (13, labels[13], "p50 with warnings, pooled", "ms", Pooled(0.50), None, None),
        (13, "", "p99 with warnings, pooled", "ms", Pooled(0.99), "ratio<=", 1.2),
        (13, "", "p99.9 with warnings, pooled", "ms", Pooled(0.999), None, None),
        (13, "", "p99 with warnings, median of runs", "ms",
         lambda r: ms(r["latency"]["p99_us"]), None, None),
        (13, "", "server CPU per command with warnings", "us", cpu_us, None, None),
        (13, "", "p50 without warnings, pooled", "ms", Half("plain", Pooled(0.50)),
         "warnings/", None),
        (13, "", "p99 without warnings, pooled", "ms", Half("plain", Pooled(0.99)),
         "warnings/", None),
        (13, "", "p99.9 without warnings, pooled", "ms", Half("plain", Pooled(0.999)),
         "warnings/", None),
        (13, "", "server CPU per command without warnings", "us", Half("plain", cpu_us),
         "warnings/", None),
        (14, labels[14], "commands/s over SSH", "/s",
         Half("ssh", lambda r: r["commands_per_second"]), "vs:telnet", None),
        (14, "", "commands/s over telnet", "/s",
         Half("telnet", lambda r: r["commands_per_second"]), None, None),
        (14, "", "server CPU per command over SSH", "us", Half("ssh", cpu_us),
         "vs:telnet", None),
        (14, "", "server CPU per command over telnet", "us", Half("telnet", cpu_us),
         None, None),
        (14, "", "p99 over SSH (closed loop), pooled", "ms", Half("ssh", Pooled(0.99)),
         "vs:telnet", None),
        (14, "", "p99 over telnet (closed loop), pooled", "ms",
         Half("telnet", Pooled(0.99)), None, None),
        (14, "", "connect p99 over SSH (with the handshake)", "ms",
         Half("ssh", lambda r: ms(r["connect"]["p99_us"])), "vs:telnet", None),
        (14, "", "connect p99 over telnet", "ms",
         Half("telnet", lambda r: ms(r["connect"]["p99_us"])), None, None),
        (14, "", "RSS growth / idle session over SSH", "B",
         Half("sshidle", lambda r: (r.get("server_memory") or {}).get("bytes_per_session")),
         "vs:telnetidle", None),
        (14, "", "RSS growth / idle session over telnet", "B",
         Half("telnetidle",
              lambda r: (r.get("server_memory") or {}).get("bytes_per_session")),
         None, None),
        (15, labels[15], "wumpus: wall time for every game", "s",
         Half("wumpus", lambda r: bot(r).get("wall_seconds")), "wall<=", 300),
        (15, "", "wumpus: games finished / expected", "",
         Half("wumpus", lambda r: bot(r).get("games_finished")), "games", None),
        (15, "", "wumpus: games/s", "/s", Half("wumpus", lambda r: bot(r).get("games_per_second")),
         None, None),
        (15, "", "wumpus: actions/s", "/s",
         Half("wumpus", lambda r: bot(r).get("actions_per_second")), None, None),
        (15, "", "wumpus: action p50, pooled", "ms", Half("wumpus", Pooled(0.50)), None, None),
        (15, "", "wumpus: action p99, pooled", "ms", Half("wumpus", Pooled(0.99)), None, None),
        (15, "", "wumpus: server CPU per action", "us", Half("wumpus", cpu_us), None, None),
        (15, "", "wumpus: server RSS at most", "MiB", Half("wumpus", rss_mib), None, None),
        (15, "", "wumpus: error lines, all runs", "",
         Half("wumpus", Summed(lambda r: bot(r).get("errors", 0))), "arcade==", 0),
        (15, "", "wumpus: ladder results refused or never checked, all runs", "",
         Half("wumpus", Summed(lambda r: ladder(r).get("refused", 0) + ladder(r).get("waiting", 0))),
         "arcade==", 0),
        (15, "", "wumpus: ladder, every result checked after the last bot", "s",
         Half("wumpus", lambda r: ladder(r).get("settle_seconds")), None, None),
        (15, "", "wumpus: ladder baselines before the bots (not measured above)", "s",
         Half("wumpus", lambda r: ladder(r).get("baselines_seconds")), None, None),
        (15, "", "2048: wall time for every game", "s",
         Half("2048", lambda r: bot(r).get("wall_seconds")), None, None),
        (15, "", "2048: games finished / expected", "",
         Half("2048", lambda r: bot(r).get("games_finished")), "games", None),
        (15, "", "2048: games/s", "/s", Half("2048", lambda r: bot(r).get("games_per_second")),
         None, None),
        (15, "", "2048: actions/s", "/s",
         Half("2048", lambda r: bot(r).get("actions_per_second")), None, None),
        (15, "", "2048: action p50, pooled", "ms", Half("2048", Pooled(0.50)), None, None),
        (15, "", "2048: action p99, pooled", "ms", Half("2048", Pooled(0.99)), None, None),
        (15, "", "2048: server CPU per action", "us", Half("2048", cpu_us), None, None),
        (15, "", "2048: server RSS at most", "MiB", Half("2048", rss_mib), None, None),
        (15, "", "2048: error lines, all runs", "",
         Half("2048", Summed(lambda r: bot(r).get("errors", 0))), "arcade==", 0),
        (15, "", "2048: ladder results refused or never checked, all runs", "",
         Half("2048", Summed(lambda r: ladder(r).get("refused", 0) + ladder(r).get("waiting", 0))),
         "arcade==", 0),
        (15, "", "2048: ladder, every result checked after the last bot", "s",
         Half("2048", lambda r: ladder(r).get("settle_seconds")), None, None),
        (15, "", "2048: ladder baselines before the bots (not measured above)", "s",
         Half("2048", lambda r: ladder(r).get("baselines_seconds")), None, None),
        (16, labels[16], "stall: longest wait of a command answered after the upgrade was asked",
         "ms", lambda r: upgrade(r).get("longest_wait_ms"), None, None),
        (16, "", "upgrade, asked to answered", "ms", lambda r: upgrade(r).get("took_ms"),
         None, None),
        (16, "", "hand-over per session (asked to answered / sessions)", "us", per_session_us,
         None, None),
        (16, "", "sessions never told `The server was upgraded.`, all runs", "",
         Summed(lambda r: r.get("sessions", 0) - upgrade(r).get("notices", 0)),
         "arcade==", 0),
        (16, "", "failed sessions, all runs", "", Summed(lambda r: r.get("failures", 0)),
         "arcade==", 0),
        (16, "", "p99 over the window with the upgrade, pooled", "ms", Pooled(0.99), None, None),
    ]
    print("| # | load | metric | arcade | minimal | arcade / minimal | target | met |")
    print("|---|---|---|---:|---:|---:|---|---|")
    failures = []
    for row, label, metric, unit, pick, kind, target in rows:
        if not runs(directory, row):
            continue
        half = None
        if isinstance(pick, Half):
            half, pick = pick.half, pick.pick
            if half.startswith("chat") and not has_chat(directory):
                continue
        # Row 11's halves are its "servers"; its followers' line comes from the .sse files.
        arcade = (() if isinstance(pick, (Followers, ClusterCpu))
                  else load(directory, row, half or "arcade"))
        if row == 15 and not arcade:
            # A game of row 15 that did not run (BOT_GAMES).
            continue
        # Beside each half of row 13, its own arcade-minimal run.
        minimal = load(directory, row, WARNING_HALVES.get(half, "minimal") if row == 13
                       else "minimal")
        text = None
        if isinstance(pick, Followers):
            text, all_received = followers_line(directory)
            a = m = None
        elif isinstance(pick, ClusterCpu):
            a, m = cluster_cpu(directory, pick.half, pick.key), None
            a = None if a is None else a / pick.unit_us
        elif isinstance(pick, Pooled):
            a = pooled(arcade, pick.quantile, pick.field)
            m = pooled(minimal, pick.quantile, pick.field)
        elif isinstance(pick, Summed):
            a = sum(pick.pick(report) for report in arcade) if arcade else None
            m = sum(pick.pick(report) for report in minimal) if minimal else None
        else:
            a, m = median(arcade, pick), median(minimal, pick)
        ratio = a / m if a is not None and m else None
        if kind == "ratio>=":
            met, goal = ratio is not None and ratio >= target, f">= {target}x"
        elif kind == "ratio<=":
            met, goal = ratio is not None and ratio <= target, f"<= {target}x"
        elif kind == "row2<=":
            row2 = pooled(load(directory, 2, "arcade"), 0.99) if runs(directory, 2) else None
            against = a / row2 if a is not None and row2 else None
            if row2 is None:
                # Row 2 did not run (ROWS): nothing to hold the player to.
                met, goal = None, f"arcade <= {target}x row 2's p99 (row 2 not run)"
            else:
                met = against is not None and against <= target
                shown = "n/a" if against is None else f"{against:.2f}x"
                goal = f"arcade <= {target}x row 2's p99 ({shown})"
        elif kind in ("plain<=", "direct<="):
            # The p99 against the same row's other half: without followers (row 11),
            # direct to one instance (row 12).
            half, words = ("plain", "without") if kind == "plain<=" else ("direct", "direct")
            other = pooled(load(directory, row, half), 0.99)
            against = a / other if a is not None and other else None
            met = against is not None and against <= target
            shown = "n/a" if against is None else f"{against:.2f}x"
            goal = f"<= {target}x the p99 {words} ({shown})"
        elif kind == "cpu-direct<=":
            # Row 12's instances over the whole run against one instance's: per command
            # of the p99 load, per line said of the chat load (issue 29).
            other_half = "chatdirect" if pick.half == "chat" else "direct"
            other = cluster_cpu(directory, other_half, "instance_ticks")
            other = None if other is None else other / pick.unit_us
            against = a / other if a is not None and other else None
            met = against is not None and against <= target
            shown = "n/a" if against is None else f"{against:.2f}x"
            goal = f"<= {target}x one instance's ({shown})"
        elif kind == "warnings/":
            # Row 13 without warnings: the same number with warnings, against this one.
            with_warnings = load(directory, row, "arcade")
            if isinstance(pick, Pooled):
                w = pooled(with_warnings, pick.quantile, pick.field)
            else:
                w = median(with_warnings, pick)
            shown = "n/a" if w is None or not a else f"{w / a:.2f}x"
            met, goal = None, f"with warnings: {shown} this"
        elif isinstance(kind, str) and kind.startswith("vs:"):
            # Row 14: the same number on the other door, SSH against telnet.
            other_half = kind[3:]
            others = load(directory, row, other_half)
            if isinstance(pick, Pooled):
                o = pooled(others, pick.quantile, pick.field)
            else:
                o = median(others, pick)
            shown = "n/a" if a is None or not o else f"{a / o:.2f}x"
            met, goal = None, f"{shown} {other_half.replace('idle', '')}'s"
        elif kind == "wall<=":
            met, goal = a is not None and a <= target, f"within {target / 60:g} minutes"
        elif kind == "games":
            # Row 15: every game the run was for came to its end.
            expected = median(arcade, lambda r: bot(r).get("games_expected"))
            met = a is not None and expected is not None and a == expected
            text = "n/a" if a is None else f"{a:,.0f} / {expected or 0:,.0f}"
            goal = "every game"
        elif kind == "all":
            met, goal = all_received, "every follower"
        elif kind == "arcade==":
            met, goal = a == target, f"arcade = {target}"
        elif kind == "arcade<=":
            met, goal = a is not None and a <= target, f"arcade <= {target} B"
        else:
            met, goal = None, ""
        mark = "" if met is None else ("yes" if met else "**no**")
        ratio_text = "n/a" if ratio is None else f"{ratio:.2f}x"
        minimal_text = show(m, unit)
        if row in ARCADE_ONLY:
            minimal_text, ratio_text = "not run", "-"
        shown_row = f"{row}" if label else ""
        shown_a = text if text is not None else show(a, unit)
        print(f"| {shown_row} | {label} | {metric} | {shown_a} | {minimal_text} "
              f"| {ratio_text} | {goal} | {mark} |")
        if not label:
            continue
        for server in servers(row):
            for rep, report in enumerate(load(directory, row, server), start=1):
                for reason, count in report.get("failure_reasons", {}).items():
                    failures.append(f"row {row} {server} run {rep}: {count} x {reason}")
                for text, count in bot(report).get("error_texts", {}).items():
                    failures.append(f"row {row} {server} run {rep}: {count} x error: {text}")
    print("\nEvery run, in order (the medians and pooled latencies above come from these):")
    spread = [
        (1, "commands/s", lambda r: f"{r['commands_per_second']:,.0f}"),
        (2, "p99 ms", lambda r: f"{r['latency']['p99_us'] / 1000:.2f}"),
        (3, "p99 ms", lambda r: f"{r['latency']['p99_us'] / 1000:.2f}"),
        (1, "server CPU µs/command", lambda r: f"{cpu_us(r) or 0:.1f}"),
        (2, "server CPU µs/command", lambda r: f"{cpu_us(r) or 0:.1f}"),
        (3, "server CPU µs/command", lambda r: f"{cpu_us(r) or 0:.1f}"),
        (4, "connect p99 ms", lambda r: f"{r['connect']['p99_us'] / 1000:.0f}"),
        (5, "bytes/session",
         lambda r: f"{(r.get('server_memory') or {}).get('bytes_per_session', 0):.0f}"),
        (6, "delivery p99 ms", lambda r: f"{r['delivery']['p99_us'] / 1000:.2f}"),
        (6, "deliveries received/expected",
         lambda r: f"{r.get('deliveries_received', 0)}/{r.get('deliveries_expected', 0)}"),
        (6, "server CPU µs/line said", lambda r: f"{cpu_us(r) or 0:.0f}"),
        (7, "frame delivery p99 ms", lambda r: f"{r['delivery']['p99_us'] / 1000:.2f}"),
        (7, "frames received/expected",
         lambda r: f"{r.get('deliveries_received', 0)}/{r.get('deliveries_expected', 0)}"),
        (7, "player's command p99 ms", lambda r: f"{r['latency']['p99_us'] / 1000:.2f}"),
        (8, "bytes/session",
         lambda r: f"{(r.get('server_memory') or {}).get('bytes_per_session', 0):.0f}"),
        (9, "p99 ms", lambda r: f"{r['latency']['p99_us'] / 1000:.2f}"),
        (9, "games restarted/s", lambda r: f"{games_per_second(r) or 0:.0f}"),
        (10, "move p99 ms", lambda r: f"{r['latency']['p99_us'] / 1000:.2f}"),
        (10, "delivery p99 ms", lambda r: f"{r['delivery']['p99_us'] / 1000:.2f}"),
        (10, "deliveries received/expected",
         lambda r: f"{r.get('deliveries_received', 0)}/{r.get('deliveries_expected', 0)}"),
        (10, "racers done/playing at the end",
         lambda r: f"{r.get('racers_done', 0)}/{r.get('racers_playing_at_end', 0)}"),
        (10, "server CPU µs/move", lambda r: f"{cpu_us(r) or 0:.1f}"),
        (11, "p99 ms", lambda r: f"{r['latency']['p99_us'] / 1000:.2f}"),
        (11, "server CPU µs/command", lambda r: f"{cpu_us(r) or 0:.1f}"),
        (12, "p99 ms", lambda r: f"{r['latency']['p99_us'] / 1000:.2f}"),
        (13, "p99 ms", lambda r: f"{r['latency']['p99_us'] / 1000:.2f}"),
        (13, "server CPU µs/command", lambda r: f"{cpu_us(r) or 0:.1f}"),
        (14, "commands/s", lambda r: f"{r.get('commands_per_second', 0):,.0f}"),
        (14, "server CPU µs/command", lambda r: f"{cpu_us(r) or 0:.1f}"),
        (14, "bytes/session",
         lambda r: f"{(r.get('server_memory') or {}).get('bytes_per_session', 0):.0f}"),
        (15, "wall s", lambda r: f"{bot(r).get('wall_seconds', 0):.1f}"),
        (15, "actions/s", lambda r: f"{bot(r).get('actions_per_second', 0):,.0f}"),
        (15, "p99 ms", lambda r: f"{r['latency']['p99_us'] / 1000:.2f}"),
    ]
    for row, metric, pick in spread:
        if not runs(directory, row):
            continue
        parts = []
        for server in servers(row):
            values = " ".join(pick(report) for report in load(directory, row, server))
            parts.append(f"{WEB_HALVES.get(server, server)} {values}")
        print(f"- row {row} {metric}: " + "; ".join(parts))
    if runs(directory, 12) and has_chat(directory):
        for half in ("chat", "chatdirect"):
            values = " ".join(f"{r['delivery']['p99_us'] / 1000:.2f}"
                              for r in load(directory, 12, half))
            print(f"- row 12 {CLUSTER_HALVES[half]} delivery p99 ms: {values}")
    print("\nCPU time stolen by the hypervisor during the runs (all runs of a row):")
    for row in range(1, 16):
        if not runs(directory, row):
            continue
        parts = []
        for server in servers(row):
            ticks = 0
            for rep in range(1, runs(directory, row) + 1):
                try:
                    with open(os.path.join(directory, f"row{row}-{server}-{rep}.steal")) as file:
                        ticks += int(file.read().strip() or 0)
                except (OSError, ValueError):
                    pass
            parts.append(f"{WEB_HALVES.get(server, server)} {ticks / 100:.2f} s")
        print(f"- row {row}: " + ", ".join(parts))
    if runs(directory, 9):
        print("\nRow 9 runs arcade alone (arcade-minimal has no games to end, record or "
              "replay). Its p99 target is against row 2's arcade p99 of the same run; row 2 "
              "loads arcade and arcade-minimal side by side on the same server CPU, while "
              "row 9 has that CPU to itself, which favours row 9. From the server's log and "
              "database (n/a: not logged or not measurable; bytes per result need the "
              "sqlite3 shell):")
        for line in row9_notes(directory):
            print(line)
    if runs(directory, 10):
        print("\nRow 10 runs arcade alone (arcade-minimal has no races). Its targets are "
              "against row 2's arcade p99 of the same run; as for row 9, row 2 loads both "
              "servers side by side on the same server CPU, while row 10 has it to itself. "
              "A racer whose game is over (the win tile, or no move left) stops moving and "
              "stays, hearing the others: `racers done/playing at the end` per run.")
    if runs(directory, 11):
        print("\nRow 11 runs arcade alone (arcade-minimal has no web page). Each run loads "
              "two fresh servers with the web page on, one after the other, alternating "
              "which goes first: one followed by the followers (`curl -N` on /events, on "
              "the load generator's CPUs) and one not. Its target is the pooled p99 with "
              "followers against the pooled p99 without, from the same runs; neither half "
              "shares the server CPU with arcade-minimal, so neither is row 2's p99. The "
              "followers:")
        for line in followers_notes(directory):
            print(line)
    try:
        with open(os.path.join(directory, "row11.skipped")) as file:
            print(f"\nRow 11 was skipped: {file.read().strip()}.")
    except OSError:
        pass
    if runs(directory, 12):
        setup = cluster_setup(directory)
        print("\nRow 12 runs arcade alone, in two halves per run on fresh servers, alternating "
              "which goes first: row 2's load through HAProxy "
              f"{setup.get('haproxy', '')} (TCP mode, send-proxy-v2, leastconn, health "
              f"checks on /healthz) to {setup.get('instances', 3)} instances with "
              "--proxy-protocol, and direct to one instance; the instances on the server CPU, "
              f"HAProxy on CPU {setup.get('proxy_cpus', 'of the servers')}. Bus: "
              f"{setup.get('bus') or 'none (this arcade has no --bus, or no nats-server)'}; "
              f"database: {setup.get('db') or 'SQLite, one per instance'}.")
        if not has_chat(directory):
            print("No cross-instance chat was timed: without --bus a line said on one "
                  "instance reaches only that instance's players.")
    try:
        with open(os.path.join(directory, "row12.skipped")) as file:
            print(f"\nRow 12 was skipped: {file.read().strip()}.")
    except OSError:
        pass
    if runs(directory, 13):
        print("\nRow 13 runs in two halves per run, each on fresh servers side by side "
              "as row 2, alternating which goes first: with `set warnings on` typed by "
              "every session (arcade, minimal) and without (plain, plainminimal). "
              "The setup as the first session of each half's first run had it answered:")
        for server in ("arcade", "minimal", "plain", "plainminimal"):
            reports = load(directory, 13, server)
            setup = " / ".join(first(reports, "setup", [])) or "(none)"
            replies = " / ".join(first(reports, "setup_replies", None) or []) or "(none)"
            print(f"- {server}: {setup} -> {replies}")
    rates(directory)
    capped = load(directory, 3, "arcade")
    if capped and capped[0].get("capped_by_open_files"):
        print(f"\nRow 3: loadtest capped --sessions to {capped[0]['capped_by_open_files']} "
              "by its open-file limit.")
    if failures:
        print("\nFailures:")
        for line in failures:
            print(f"- {line}")
    else:
        print("\nNo session failed in any run.")


def rates(directory):
    """The NATS and PostgreSQL rates of ROWS=rates, as two tables."""
    nats = os.path.join(directory, "rates-nats.txt")
    if os.path.exists(nats):
        print("\nNATS (examples/bus_rate.rs: one publisher, N subscriber connections, "
              "nats-server on the server CPU, the program on the load CPU):\n")
        print("| size | subscribers | messages | publish/s | deliveries/s | delivered "
              "| nats-server busy | cores per 100k deliveries/s |")
        print("|---:|---:|---:|---:|---:|---:|---:|---:|")
        with open(nats) as file:
            for line in file:
                if line.startswith("failed"):
                    print(f"| {line.strip()} | | | | | | | |")
                    continue
                fields = dict(re.findall(r"(\w+)=(\S+)", line))
                if not fields:
                    continue
                print(f"| {fields.get('size')} B | {fields.get('subscribers')} "
                      f"| {int(fields.get('messages', 0)):,} "
                      f"| {float(fields.get('publish_per_s', 0)):,.0f} "
                      f"| {float(fields.get('delivered_per_s', 0)):,.0f} "
                      f"| {int(fields.get('delivered', 0)):,} of {int(fields.get('expected', 0)):,} "
                      f"| {fields.get('server_busy', 'n/a')} "
                      f"| {fields.get('server_cores_per_100k_deliveries_per_s', 'n/a')} |")
    pg = os.path.join(directory, "rates-pg.txt")
    if os.path.exists(pg):
        print("\nPostgreSQL (pgbench -M prepared on a throwaway cluster, default settings; "
              "\"batch\": one transaction of 500 input rows and 40 results, \"second\": 10,000 "
              "input rows and 800 results, 500 and 400 rows a statement):\n")
        print("| synchronous_commit | transaction | clients | transactions/s | input rows/s |")
        print("|---|---|---:|---:|---:|")
        with open(pg) as file:
            for line in file:
                fields = dict(re.findall(r"(\w+)=(\S+)", line))
                if "tps" not in fields:
                    if fields:
                        print(f"\n({line.strip()})")
                    continue
                print(f"| {fields['synchronous_commit']} | {fields['script']} "
                      f"| {fields['clients']} | {float(fields['tps']):,.1f} "
                      f"| {int(fields['input_rows_per_s']):,} |")
    store = os.path.join(directory, "store.txt")
    if os.path.exists(store):
        print("\nThe recorder's database (ROWS=store, examples/store_seconds.rs: 10,000 "
              "games' lines written a second at a time, moved out of the inputs' log as the "
              "writer moves them):\n")
        with open(store) as file:
            print("```\n" + file.read().rstrip() + "\n```")
    for name in ("rates-nats.skipped", "rates-pg.skipped"):
        try:
            with open(os.path.join(directory, name)) as file:
                print(f"\n{name}: {file.read().strip()}")
        except OSError:
            pass


if __name__ == "__main__":
    main()
