//! A bot's connection for the tests (SPEC section 12, docs/bots.md): `bot NAME`, then
//! one JSON object a line both ways.

use std::net::SocketAddr;

use serde_json::{json, Value};

use super::Client;

/// A bot's connection.
pub struct Bot {
    /// The connection underneath, for lines that are not JSON.
    pub client: Client,
}

impl Bot {
    /// Connect and become the bot `name`: the bot and its `welcome` line.
    pub async fn connect(addr: SocketAddr, name: &str) -> (Bot, Value) {
        let mut client = Client::connect(addr).await;
        client.send(&format!("bot {name}")).await;
        let mut bot = Bot { client };
        let welcome = bot.next().await;
        (bot, welcome)
    }

    /// [`Bot::connect`], checking that the bot was welcomed.
    pub async fn welcomed(addr: SocketAddr, name: &str) -> Bot {
        let (bot, welcome) = Bot::connect(addr, name).await;
        assert_eq!(welcome["type"], "welcome", "{welcome}");
        bot
    }

    /// The next JSON line.
    pub async fn next(&mut self) -> Value {
        let line = self.client.read_until("\n").await;
        serde_json::from_str(line.trim_end()).unwrap_or_else(|error| panic!("{line:?}: {error}"))
    }

    /// Send `request` (a JSON value).
    pub async fn send(&mut self, request: Value) {
        self.client.send(&request.to_string()).await;
    }

    /// Send `request` and read one line back.
    pub async fn ask(&mut self, request: Value) -> Value {
        self.send(request).await;
        self.next().await
    }

    /// `{"command": command}`, and the line back.
    pub async fn command(&mut self, command: &str) -> Value {
        self.ask(json!({ "command": command })).await
    }

    /// `{"action": action}`, and the line back.
    pub async fn act(&mut self, action: &str) -> Value {
        self.ask(json!({ "action": action })).await
    }

    /// The next `state` line, the lines before it kept in `before`.
    pub async fn state(&mut self, before: &mut Vec<Value>) -> Value {
        loop {
            let line = self.next().await;
            if line["type"] == "state" {
                return line;
            }
            before.push(line);
        }
    }
}
