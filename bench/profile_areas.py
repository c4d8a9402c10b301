#!/usr/bin/env python3
"""Split a `perf record -g` profile of the server into areas by call stack (issue 29).

Reads `perf script` output on stdin; each sample goes to the first area whose test
matches its stack (innermost frame first), and prints each area's share. With
`--us-per-command X` it also prints each area's CPU per command (share times X).
"""
import argparse
import collections
import sys

# (area, test on the thread's name, test on a frame's symbol), checked in order.
AREAS = [
    ("database (sqlx's SQLite thread)", lambda comm: comm.startswith("sqlx-sqlite"), None),
    ("recorder (records::)", None, lambda sym: "arcade::records::" in sym or "arcade::store::" in sym),
    ("games (games::)", None, lambda sym: "arcade::games::" in sym),
    ("console and seat", None, lambda sym: "arcade::console::" in sym or "arcade::seat::" in sym),
    ("session and codec (net::, codec::)", None, lambda sym: "arcade::net::" in sym or "arcade::codec::" in sym),
]


def samples(lines):
    comm, stack = None, []
    for line in lines:
        line = line.rstrip("\n")
        if not line.strip():
            if comm is not None:
                yield comm, stack
            comm, stack = None, []
        elif not line.startswith((" ", "\t")):
            comm = line.split()[0]
        else:
            parts = line.strip().split(None, 1)
            stack.append(parts[1] if len(parts) > 1 else parts[0])
    if comm is not None:
        yield comm, stack


def area_of(comm, stack):
    for name, thread, frame in AREAS:
        if thread is not None and thread(comm):
            return name
        if frame is not None and any(frame(sym) for sym in stack):
            return name
    if stack and "[kernel" in stack[0]:
        return "kernel, outside the above (sockets, epoll, scheduling)"
    return "runtime and the rest (tokio, malloc, libc)"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--us-per-command", type=float)
    args = parser.parse_args()
    counts = collections.Counter()
    for comm, stack in samples(sys.stdin):
        counts[area_of(comm, stack)] += 1
    total = sum(counts.values()) or 1
    print(f"{'area':58} {'share':>7}" + (f" {'us/command':>11}" if args.us_per_command else ""))
    for name, count in counts.most_common():
        share = count / total
        row = f"{name:58} {share:7.1%}"
        if args.us_per_command:
            row += f" {share * args.us_per_command:11.2f}"
        print(row)
    print(f"{'samples':58} {total:7}")


if __name__ == "__main__":
    main()
