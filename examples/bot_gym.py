#!/usr/bin/env python3
"""arcade's games as a Gymnasium-style environment (reset/step), standard library only.

    env = ArcadeEnv(port=4000, game="2048")
    observation, info = env.reset(seed=7)
    observation, reward, terminated, truncated, info = env.step(info["legal"][0])

`reset(seed)` starts `play GAME seed=N` (for wumpus: `play wumpus random seed=N`);
`step(action)` plays one legal action; the reward is the change in the game's score;
`terminated` when the game has ended or nothing is legal any more (2048 with no slide
left); `info` holds the legal actions and the whole state.
Run as a script, it plays a few episodes with a random policy and prints one JSON line
per episode.
"""

import argparse
import json
import random

from bot_random import Connection


class ArcadeEnv:
    """One arcade game as an environment, over one bot connection."""

    def __init__(self, host="127.0.0.1", port=4000, game="2048", name="gym-bot",
                 token=None, max_steps=2000):
        self.connection = Connection(host, port, name, token)
        self.game = game
        self.max_steps = max_steps
        self.state = None
        self.steps = 0

    def _play_words(self, seed):
        if self.game == "wumpus":
            return "wumpus random" + ("" if seed is None else " seed=%d" % seed)
        return self.game + ("" if seed is None else " seed=%d" % seed)

    def reset(self, seed=None):
        self._leave()
        state = self.connection.command("play " + self._play_words(seed))
        if state.get("type") != "state":
            raise RuntimeError("the game did not start: %s" % state)
        self.state = state
        self.steps = 0
        return state["observation"], {"legal": state["legal"], "state": state}

    def step(self, action):
        before = self.state["score"]
        state = self.connection.act(action)
        if state.get("type") != "state":
            raise ValueError("not a legal action: %s" % state.get("message", state))
        self.state = state
        self.steps += 1
        terminated = state["done"] or not state["legal"]
        truncated = not terminated and self.steps >= self.max_steps
        return (state["observation"], state["score"] - before, terminated, truncated,
                {"legal": state["legal"], "state": state})

    def _leave(self):
        """End the game being played, if it has not ended."""
        if self.state is not None and not self.state["done"]:
            self.state = self.connection.command("leave")

    def close(self):
        self._leave()
        self.connection.close()


def main():
    parser = argparse.ArgumentParser(description="Random episodes through ArcadeEnv.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=4000)
    parser.add_argument("--game", default="2048")
    parser.add_argument("--episodes", type=int, default=3)
    parser.add_argument("--max-steps", type=int, default=200)
    args = parser.parse_args()
    env = ArcadeEnv(args.host, args.port, args.game, max_steps=args.max_steps)
    rng = random.Random(0)
    try:
        for episode in range(args.episodes):
            observation, info = env.reset(seed=episode + 1)
            total, steps, terminated, truncated = 0, 0, False, False
            while not (terminated or truncated) and info["legal"]:
                observation, reward, terminated, truncated, info = env.step(
                    rng.choice(info["legal"]))
                total += reward
                steps += 1
            print(json.dumps({"episode": episode + 1, "seed": episode + 1, "steps": steps,
                              "return": total, "score": info["state"]["score"],
                              "terminated": terminated}))
    finally:
        env.close()


if __name__ == "__main__":
    main()
