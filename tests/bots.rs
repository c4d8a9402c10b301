//! Bot mode over TCP (SPEC section 12, docs/bots.md): `bot NAME`, then JSON lines both
//! ways for every game, checked against the JSON Schemas docs/bots.md gives.

mod common;

use std::collections::HashMap;

use common::bot::Bot;
use common::test_server::TestServer;
use common::Client;
use serde_json::{json, Value};

/// docs/bots.md's schemas, by their `$id`'s last part (`state-2048`, `error`, ...),
/// compiled.
struct Schemas {
    schemas: boon::Schemas,
    by_name: HashMap<String, boon::SchemaIndex>,
}

impl Schemas {
    fn from_docs() -> Schemas {
        let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/bots.md"))
            .expect("docs/bots.md");
        let mut compiler = boon::Compiler::new();
        let mut ids = Vec::new();
        for block in docs.split("```json\n").skip(1) {
            let text = block.split("\n```").next().expect("a closed block");
            let value: Value = serde_json::from_str(text)
                .unwrap_or_else(|error| panic!("a schema in docs/bots.md: {error}\n{text}"));
            let Some(id) = value["$id"].as_str().map(str::to_string) else {
                continue;
            };
            compiler.add_resource(&id, value).expect("add a schema");
            ids.push(id);
        }
        let mut schemas = boon::Schemas::new();
        let mut by_name = HashMap::new();
        for id in ids {
            let index = compiler
                .compile(&id, &mut schemas)
                .unwrap_or_else(|error| panic!("{id}: {error}"));
            let name = id
                .rsplit('/')
                .next()
                .and_then(|last| last.strip_suffix(".json"))
                .expect("an $id ending NAME.json")
                .to_string();
            by_name.insert(name, index);
        }
        Schemas { schemas, by_name }
    }

    /// `value` is valid by the schema `name`.
    fn check(&self, name: &str, value: &Value) {
        let index = self
            .by_name
            .get(name)
            .unwrap_or_else(|| panic!("docs/bots.md has no schema {name}"));
        if let Err(error) = self.schemas.validate(value, *index) {
            panic!("{value} is not a valid {name}: {error:#}");
        }
    }

    /// A `state` line of `game`, valid by that game's schema.
    fn state(&self, game: &str, value: &Value) {
        assert_eq!(value["type"], "state", "{value}");
        assert_eq!(value["game"], game, "{value}");
        self.check(&format!("state-{game}"), value);
    }
}

#[test]
fn the_schemas_refuse_what_they_should() {
    let schemas = Schemas::from_docs();
    for name in [
        "welcome",
        "error",
        "text",
        "message",
        "state-sokoban",
        "state-starpusher",
        "state-2048",
        "state-wumpus",
    ] {
        assert!(schemas.by_name.contains_key(name), "no schema {name}");
    }
    let bad = json!({"type": "state", "game": "2048", "seed": 1, "args": [],
        "observation": {"grid": "not a grid"}, "legal": [], "score": 0, "done": false,
        "clock_ms": null});
    let index = schemas.by_name["state-2048"];
    assert!(schemas.schemas.validate(&bad, index).is_err());
}

#[tokio::test]
async fn a_bot_plays_2048_in_json_lines_and_is_told_what_is_legal() {
    let server = TestServer::start().await;
    let schemas = Schemas::from_docs();
    let (mut bot, welcome) = Bot::connect(server.addr, "ada-bot").await;
    schemas.check("welcome", &welcome);
    assert_eq!(welcome["name"], "ada-bot");
    assert!(welcome["games"]
        .as_array()
        .unwrap()
        .contains(&json!("2048")));

    let state = bot.command("play 2048 seed=5").await;
    schemas.state("2048", &state);
    assert_eq!(state["seed"], 5);
    assert_eq!(state["done"], false);
    assert_eq!(state["clock_ms"], Value::Null);
    let grid = state["observation"]["grid"].as_array().unwrap();
    assert_eq!(grid.len(), 4);
    let tiles: u64 = grid
        .iter()
        .flat_map(|row| row.as_array().unwrap())
        .map(|cell| u64::from(cell.as_u64().unwrap() > 0))
        .sum();
    assert_eq!(tiles, 2, "two opening tiles: {state}");

    // Every legal slide changes the board; a slide that is not legal is an error.
    let legal: Vec<String> = state["legal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|action| action.as_str().unwrap().to_string())
        .collect();
    assert!(!legal.is_empty());
    let after = bot.act(&legal[0]).await;
    schemas.state("2048", &after);
    assert_ne!(after["observation"]["grid"], state["observation"]["grid"]);
    assert_eq!(after["observation"]["moves"], 1);
    let error = bot.act("sideways").await;
    schemas.check("error", &error);
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("not a legal action"),
        "{error}"
    );

    // Garbage gets an error and loses nothing: the game goes on from where it was.
    let error = bot.ask(json!(["up"])).await;
    schemas.check("error", &error);
    bot.client.send("this is not json").await;
    let error = bot.next().await;
    schemas.check("error", &error);
    let who = bot.command("who").await;
    schemas.check("text", &who);
    assert!(
        who["text"].as_str().unwrap().contains("ada-bot [bot]"),
        "{who}"
    );

    // Leaving ends the game: its last state, done.
    let last = bot.command("leave").await;
    schemas.state("2048", &last);
    assert_eq!(last["done"], true);
    assert_eq!(last["legal"], json!([]));
    assert_eq!(last["observation"], after["observation"]);
    let error = bot.act("up").await;
    assert!(
        error["message"].as_str().unwrap().contains("not in a game"),
        "{error}"
    );
}

#[tokio::test]
async fn a_bot_plays_sokoban_and_starpusher_by_legal_steps() {
    let server = TestServer::start().await;
    let schemas = Schemas::from_docs();
    let (mut bot, _) = Bot::connect(server.addr, "box-bot").await;

    let state = bot.command("play sokoban").await;
    schemas.state("sokoban", &state);
    let observation = &state["observation"];
    let rows = observation["rows"].as_array().unwrap();
    let [row, column] = [0, 1].map(|i| observation["player"][i].as_u64().unwrap() as usize);
    let at = rows[row].as_str().unwrap().as_bytes()[column];
    assert!(at == b'@' || at == b'+', "{observation}");
    let legal = state["legal"].as_array().unwrap().clone();
    assert!(!legal.is_empty(), "{state}");
    let after = bot.act(legal[0].as_str().unwrap()).await;
    schemas.state("sokoban", &after);
    assert_eq!(after["observation"]["moves"], 1);
    assert_ne!(
        after["observation"]["player"],
        state["observation"]["player"]
    );
    let last = bot.command("leave").await;
    assert_eq!(last["done"], true);

    let state = bot.command("play starpusher").await;
    schemas.state("starpusher", &state);
    assert_eq!(state["observation"]["level"], 1);
    assert!(!state["legal"].as_array().unwrap().contains(&json!("undo")));
    let step = state["legal"][0].as_str().unwrap().to_string();
    let after = bot.act(&step).await;
    schemas.state("starpusher", &after);
    assert!(
        after["legal"].as_array().unwrap().contains(&json!("undo")),
        "{after}"
    );
    let undone = bot.act("undo").await;
    assert_eq!(
        undone["observation"]["player"],
        state["observation"]["player"]
    );
    assert_eq!(undone["observation"]["rows"], state["observation"]["rows"]);
}

#[tokio::test]
async fn a_bot_explores_a_random_wumpus_world_and_sees_only_percepts() {
    let server = TestServer::start().await;
    let schemas = Schemas::from_docs();
    let (mut bot, _) = Bot::connect(server.addr, "aima-bot").await;

    let state = bot.command("play wumpus random seed=11").await;
    schemas.state("wumpus", &state);
    assert_eq!(state["seed"], 11);
    assert_eq!(state["args"], json!(["random", "seed=11"]));
    let observation = &state["observation"];
    assert_eq!(observation["size"], json!([4, 4]));
    assert_eq!(observation["visited"], json!([observation["position"]]));
    assert_eq!(observation["arrow"], true);
    assert!(observation["percepts"]
        .as_array()
        .unwrap()
        .contains(&json!("light")));
    // Nothing the explorer cannot perceive is given away.
    for hidden in ["pits", "wumpus", "gold_at"] {
        assert!(observation.get(hidden).is_none(), "{observation}");
    }
    let legal = state["legal"].as_array().unwrap();
    assert!(legal.contains(&json!("climb")) && legal.contains(&json!("shoot")));

    let turned = bot.act("left").await;
    schemas.state("wumpus", &turned);
    assert_ne!(turned["observation"]["heading"], observation["heading"]);
    assert_eq!(turned["score"], -1);
    // Climbing out at the start ends the game: out without the gold.
    let last = bot.act("climb").await;
    schemas.state("wumpus", &last);
    assert_eq!(last["done"], true);
    assert!(last["observation"]["percepts"]
        .as_array()
        .unwrap()
        .contains(&json!("out_without_gold")));
    assert_eq!(last["score"], -2);
}

#[tokio::test]
async fn chat_reaches_a_bot_only_once_it_asks() {
    let server = TestServer::start().await;
    let (mut bot, _) = Bot::connect(server.addr, "quiet-bot").await;
    let mut person = common::named(&server, "ada").await;

    person.send("say one").await;
    person.read_until("> ").await;
    let answer = bot.command("set chat on").await;
    assert_eq!(answer["type"], "text", "{answer}");
    person.send("say two").await;
    person.read_until("> ").await;
    let message = bot.next().await;
    assert_eq!(message["type"], "message", "{message}");
    let text = message["text"].as_str().unwrap();
    assert!(text.contains("two") && !text.contains("one"), "{message}");
}

#[tokio::test]
async fn a_registered_name_needs_a_token_and_people_keep_the_plain_protocol() {
    let server = TestServer::start().await;
    let mut owner = common::registered(server.addr, "owner", "secret-pass").await;
    owner.send("who").await;
    owner.read_until("> ").await;

    let mut client = Client::connect(server.addr).await;
    client.send("bot owner").await;
    let refused = client.read_until("> ").await;
    assert!(refused.contains("is registered"), "{refused:?}");
    client
        .send("bot owner arcbot_0123456789abcdef0123456789abcdef")
        .await;
    let refused = client.read_until("> ").await;
    assert!(
        refused.contains("not one of owner's bot tokens"),
        "{refused:?}"
    );
    // Still a person's session: plain text and the lobby's prompt.
    client.send("name someone").await;
    let answer = client.read_until("> ").await;
    assert!(answer.contains("You are now someone."), "{answer:?}");

    // The owner's token logs the bot in as the owner (the owner's session is taken
    // over, as a login elsewhere takes it).
    owner.send("bottoken new").await;
    let made = owner.read_until("> ").await;
    let token = made
        .split_whitespace()
        .find(|word| word.starts_with("arcbot_"))
        .map(|word| word.trim_end_matches(['.', ',']))
        .unwrap_or_else(|| panic!("no token in {made:?}"))
        .to_string();
    let mut client = Client::connect(server.addr).await;
    client.send(&format!("bot owner {token}")).await;
    let mut bot = Bot { client };
    let welcome = bot.next().await;
    assert_eq!(welcome["type"], "welcome", "{welcome}");
    assert_eq!(welcome["name"], "owner");
    let who = bot.command("who").await;
    assert!(
        who["text"].as_str().unwrap().contains("owner [bot]"),
        "{who}"
    );
}

/// Run `examples/SCRIPT` with `args` against the server; its standard output.
async fn python_example(script: &str, args: &[String]) -> Option<String> {
    let python = common::program("python3", "python3")?;
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/");
    let output = tokio::process::Command::new(python)
        .arg(format!("{path}{script}"))
        .args(args)
        .output()
        .await
        .expect("run python3");
    assert!(
        output.status.success(),
        "{script}: {}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    Some(String::from_utf8(output.stdout).expect("UTF-8"))
}

#[tokio::test]
async fn the_python_random_bot_plays_a_wumpus_world_to_its_end() {
    let server = TestServer::start().await;
    let schemas = Schemas::from_docs();
    let port = server.addr.port().to_string();
    let args = [
        "--port",
        &port,
        "--game",
        "wumpus random seed=21",
        "--name",
        "py-bot",
    ]
    .map(String::from);
    let Some(out) = python_example("bot_random.py", &args).await else {
        return;
    };
    let last: Value = serde_json::from_str(out.trim()).expect("one JSON line");
    schemas.state("wumpus", &last);
    assert_eq!(last["done"], true, "{last}");
    assert_eq!(last["seed"], 21);
    // The textbook's measure, from what the observation says happened.
    let actions = last["observation"]["actions"].as_i64().unwrap();
    let percepts = last["observation"]["percepts"].as_array().unwrap();
    let ending = if percepts.contains(&json!("out_with_gold")) {
        1000
    } else if percepts.contains(&json!("fell_into_pit"))
        || percepts.contains(&json!("killed_by_wumpus"))
    {
        -1000
    } else {
        0
    };
    let arrow = if last["observation"]["arrow"] == true {
        0
    } else {
        10
    };
    assert_eq!(
        last["score"].as_i64().unwrap(),
        ending - actions - arrow,
        "{last}"
    );
}

#[tokio::test]
async fn the_python_gym_wrapper_plays_episodes_whose_returns_are_their_scores() {
    let server = TestServer::start().await;
    let port = server.addr.port().to_string();
    let args = [
        "--port",
        &port,
        "--game",
        "2048",
        "--episodes",
        "2",
        "--max-steps",
        "40",
    ]
    .map(String::from);
    let Some(out) = python_example("bot_gym.py", &args).await else {
        return;
    };
    let episodes: Vec<Value> = out
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect();
    assert_eq!(episodes.len(), 2, "{out}");
    for episode in &episodes {
        let steps = episode["steps"].as_u64().unwrap();
        assert!(steps > 0 && steps <= 40, "{episode}");
        // The rewards are the score's changes: they add up to the score.
        assert_eq!(episode["return"], episode["score"], "{episode}");
    }
    // Episode seeds are 2048 seeds: the same seed plays the same game.
    let again = python_example("bot_gym.py", &args)
        .await
        .expect("python3 ran once");
    assert_eq!(again, out);
}

#[test]
fn arcade_play_bot_plays_one_game_in_json_lines_on_stdin() {
    use std::io::{BufRead as _, Write as _};
    let schemas = Schemas::from_docs();
    let data = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_arcade"))
        .args(["play", "2048", "seed=9", "--bot", "--data-dir"])
        .arg(data.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("run arcade play");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut next = || {
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        serde_json::from_str::<Value>(&line).unwrap_or_else(|e| panic!("{line:?}: {e}"))
    };
    let first = next();
    schemas.state("2048", &first);
    assert_eq!(first["seed"], 9);
    let action = first["legal"][0].as_str().unwrap().to_string();
    writeln!(stdin, "{}", json!({ "action": action })).unwrap();
    let moved = next();
    schemas.state("2048", &moved);
    assert_eq!(moved["observation"]["moves"], 1);
    writeln!(stdin, "{{\"command\": \"who\"}}\nnot json").unwrap();
    let refused = next();
    schemas.check("error", &refused);
    assert!(refused["message"]
        .as_str()
        .unwrap()
        .contains("actions only"));
    schemas.check("error", &next());
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

#[tokio::test]
async fn bot_play_runs_a_built_in_agent_that_anyone_can_watch() {
    let server = TestServer::start().await;
    let mut ada = common::named(&server, "ada").await;
    // Three worlds: long enough at 250 ms a move to be watched, however busy the machine.
    ada.send("bot-play wumpus kb seeds=1-3").await;
    let said = ada.read_text_until("> ").await;
    let name = said
        .split_whitespace()
        .next()
        .filter(|name| name.starts_with("kb-"))
        .unwrap_or_else(|| panic!("{said:?}"))
        .to_string();
    assert!(
        said.contains(&format!("plays wumpus, seeds 1-3, as a bot: watch {name}")),
        "{said}"
    );
    // It takes its name as any bot does, at once.
    let mut who = String::new();
    for _ in 0..50 {
        ada.send("who").await;
        who = ada.read_text_until("> ").await;
        if who.contains(&name) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(who.contains(&format!("{name} [bot]")), "{who}");

    // One agent an address at a time.
    ada.send("bot-play 2048 random").await;
    let refused = ada.read_text_until("> ").await;
    assert!(refused.contains("is playing already"), "{refused}");

    // A watcher sees the agent's moves as the game draws them for people.
    let mut bea = common::named(&server, "bea").await;
    bea.send(&format!("watch {name}")).await;
    let seen = bea.read_text_until("Enter command: ").await;
    assert!(
        seen.contains(&format!("watching {name}")) || seen.contains(&name),
        "{seen}"
    );

    // The agent ends its seed and leaves: who no longer lists it.
    let mut gone = false;
    for _ in 0..150 {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        ada.send("who").await;
        if !ada.read_text_until("> ").await.contains(&name) {
            gone = true;
            break;
        }
    }
    assert!(gone, "{name} still online");

    let refused = {
        ada.send("bot-play sokoban random").await;
        ada.read_text_until("> ").await
    };
    assert!(refused.contains("sokoban has no seeds"), "{refused}");
    ada.send("bot-play 2048 kb").await;
    let refused = ada.read_text_until("> ").await;
    assert!(refused.contains("No agent kb plays 2048"), "{refused}");
}

#[tokio::test]
async fn bots_are_ranked_apart_from_people() {
    let server = TestServer::start().await;
    let (mut bot, _) = Bot::connect(server.addr, "tile-bot").await;
    let state = bot.command("play 2048 seed=3").await;
    let action = state["legal"][0].as_str().unwrap().to_string();
    bot.act(&action).await;
    let last = bot.command("leave").await;
    assert_eq!(last["done"], true, "{last}");
    let score = last["score"].as_i64().unwrap();

    let mut ada = common::named(&server, "ada").await;
    // The result is written within a second or two, then checked by replay.
    let mut bots = String::new();
    for _ in 0..100 {
        ada.send("top bots 2048").await;
        bots = ada.read_text_until("> ").await;
        if bots.contains("tile-bot") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(bots.starts_with("Bots' results"), "{bots}");
    assert!(
        bots.contains("tile-bot") && bots.contains(&format!("score {score}")),
        "{bots}"
    );
    ada.send("top 2048").await;
    let people = ada.read_text_until("> ").await;
    assert!(!people.contains("tile-bot"), "{people}");
}

#[tokio::test]
async fn the_servers_own_words_reach_a_bot_as_json() {
    let server = TestServer::start().await;
    let (mut bot, _) = Bot::connect(server.addr, "long-bot").await;
    // A line past the codec's limit is dropped whole, and said so in a JSON line.
    bot.client.send(&"x".repeat(5000)).await;
    let said = bot.next().await;
    assert_eq!(said["type"], "message", "{said}");
    assert!(
        said["text"].as_str().unwrap().contains("too long"),
        "{said}"
    );
    // The session goes on.
    let who = bot.command("who").await;
    assert_eq!(who["type"], "text", "{who}");
    // quit's last words are one JSON line too.
    bot.client
        .send(&json!({"command": "quit"}).to_string())
        .await;
    let bye = bot.client.read_to_end().await;
    let lines: Vec<Value> = bye
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{line:?}: {e}")))
        .collect();
    assert_eq!(lines.len(), 1, "{bye:?}");
}
