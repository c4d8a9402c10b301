#!/usr/bin/env python3
"""A bot for arcade that plays one game with a random policy (docs/bots.md).

Standard library only: a socket and json. Run it against a server:

    python3 examples/bot_random.py --port 4000 --game "wumpus random seed=7"

It connects, becomes a bot (`bot NAME`), starts the game, picks one of the legal
actions at random after every state until the game is done, leaves, and prints the
last state as one JSON line.
"""

import argparse
import json
import random
import socket


class Connection:
    """One bot session: JSON lines both ways after `bot NAME`."""

    def __init__(self, host, port, name, token=None, timeout=30.0):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.buffer = b""
        self.read_until(b"> ")  # the banner, up to the lobby's prompt
        self.send_line("bot " + name + (" " + token if token else ""))
        welcome = self.receive()
        if welcome.get("type") != "welcome":
            raise RuntimeError("not a bot: %s" % welcome)
        self.welcome = welcome

    def read_until(self, marker):
        while marker not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the server closed the connection")
            self.buffer += chunk
        at = self.buffer.index(marker) + len(marker)
        text, self.buffer = self.buffer[:at], self.buffer[at:]
        return text

    def send_line(self, text):
        self.sock.sendall(text.encode("utf-8") + b"\r\n")

    def receive(self):
        """The next JSON line from the server."""
        return json.loads(self.read_until(b"\n").decode("utf-8"))

    def request(self, obj):
        """Send one request; the next line that is not chat from elsewhere."""
        self.send_line(json.dumps(obj))
        while True:
            answer = self.receive()
            if answer.get("type") != "message":
                return answer

    def command(self, command):
        return self.request({"command": command})

    def act(self, action):
        return self.request({"action": action})

    def close(self):
        self.sock.close()


def play(connection, game, rng, max_moves):
    """Play `game` (a `play` command's words) at random; the last state."""
    state = connection.command("play " + game)
    if state.get("type") != "state":
        raise RuntimeError("the game did not start: %s" % state)
    moves = 0
    while not state["done"] and state["legal"] and moves < max_moves:
        state = connection.act(rng.choice(state["legal"]))
        if state.get("type") != "state":
            raise RuntimeError("unexpected answer: %s" % state)
        moves += 1
    if not state["done"]:
        # Out of moves to spend, or nothing legal left (2048 stuck): leave it.
        state = connection.command("leave")
    return state


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=4000)
    parser.add_argument("--name", default="random-bot")
    parser.add_argument("--token", default=None)
    parser.add_argument("--game", default="wumpus random seed=1")
    parser.add_argument("--policy-seed", type=int, default=0)
    parser.add_argument("--max-moves", type=int, default=1000)
    args = parser.parse_args()
    connection = Connection(args.host, args.port, args.name, args.token)
    try:
        last = play(connection, args.game, random.Random(args.policy_seed), args.max_moves)
    finally:
        connection.close()
    print(json.dumps(last))


if __name__ == "__main__":
    main()
