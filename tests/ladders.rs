//! Ladders over TCP (SPEC section 12): an admin opens one, a bot and a person play the
//! same seeds, each result counts once its replay agrees, a move over the time per
//! move forfeits its seed, and a forged result is kept off the table.

mod common;

use std::time::Duration;

use arcade::server::Options;
use common::bot::Bot;
use common::test_server::TestServer;
use common::Client;
use serde_json::json;

/// A server with the admin `teacher`, and the admin's connection.
async fn server_with_teacher() -> (TestServer, Client) {
    let options = Options {
        admin: vec![String::from("teacher")],
        ..Options::default()
    };
    let server = TestServer::start_with(options).await;
    let teacher = common::admin(&server, "teacher", "teachers-pw").await;
    (server, teacher)
}

async fn ask(client: &mut Client, line: &str) -> String {
    client.send(line).await;
    client.read_text_until("> ").await
}

/// Type `line` in a game: what comes up to the game's prompt, or the lobby's.
async fn play(client: &mut Client, line: &str) -> String {
    client.send(line).await;
    let mut said = String::new();
    loop {
        said.push_str(&client.read_text_until(" ").await);
        if said.ends_with("Enter command: ") || said.ends_with("> ") {
            return said;
        }
    }
}

/// Ask `ladder N` until no result waits for its replay; the table.
async fn settled_table(client: &mut Client, id: u32) -> String {
    let mut table = String::new();
    for _ in 0..100 {
        table = ask(client, &format!("ladder {id}")).await;
        // An entrant's row starts with its place; its last column is what waits.
        let waiting = table
            .lines()
            .filter(|line| line.trim_start().starts_with(|c: char| c.is_ascii_digit()))
            .any(|line| !line.trim_end().ends_with(" 0") && !line.contains("refused"));
        if !waiting && table.contains("(built-in)") {
            return table;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("ladder {id}'s results were not all checked: {table}");
}

#[tokio::test]
async fn a_bot_and_a_person_play_the_same_seeds_and_are_ranked_with_the_agents() {
    let (server, mut teacher) = server_with_teacher().await;
    let opened = ask(&mut teacher, "ladder open wumpus seeds=1-3").await;
    assert!(
        opened.contains("Ladder 1 is open: Ladder 1: wumpus, seeds 1-3"),
        "{opened}"
    );
    let listed = ask(&mut teacher, "ladders").await;
    assert!(
        listed.contains("Ladder 1: wumpus, seeds 1-3, open"),
        "{listed}"
    );

    // The bot climbs out at once on every seed: out without the gold, 1 action.
    let mut bot = Bot::welcomed(server.addr, "climber-bot").await;
    bot.send(json!({"command": "ladder enter 1"})).await;
    let mut before = Vec::new();
    for seed in 1..=3u64 {
        let state = bot.state(&mut before).await;
        assert_eq!(state["game"], "wumpus", "{state}");
        assert_eq!(state["seed"], seed, "{state}");
        assert_eq!(state["done"], false);
        bot.send(json!({"action": "climb"})).await;
        let last = bot.state(&mut before).await;
        assert_eq!(
            (last["done"].clone(), last["score"].clone()),
            (json!(true), json!(-1)),
            "{last}"
        );
    }
    let end = bot.next().await;
    assert!(
        end["text"]
            .as_str()
            .unwrap_or("")
            .contains("You have played every seed of ladder 1"),
        "{end}"
    );

    // A person plays the same seeds, typing as people do: turn, then climb.
    let mut ada = common::named(&server, "ada").await;
    let entered = play(&mut ada, "ladder enter 1").await;
    assert!(entered.contains("Ladder 1: seed 1 of 3."), "{entered}");
    for seed in 1..=3 {
        play(&mut ada, "turn left").await;
        let said = play(&mut ada, "climb").await;
        if seed < 3 {
            assert!(
                said.contains(&format!("Ladder 1: seed {} of 3.", seed + 1)),
                "{said}"
            );
        } else {
            assert!(
                said.contains("You have played every seed of ladder 1"),
                "{said}"
            );
        }
    }
    // Entering again plays nothing twice.
    let again = ask(&mut ada, "ladder enter 1").await;
    assert!(
        again.contains("You have played every seed of ladder 1"),
        "{again}"
    );

    let table = settled_table(&mut teacher, 1).await;
    let row = |name: &str| {
        table
            .lines()
            .find(|line| line.contains(name))
            .unwrap_or_else(|| panic!("no {name} in {table}"))
            .to_string()
    };
    // Both played all three seeds; the bot's 1 action beats ada's 2 on every seed.
    assert!(
        row("climber-bot [bot]").contains("3/3") && row("climber-bot").contains("-1.0"),
        "{table}"
    );
    assert!(
        row("ada ").contains("3/3") && row("ada ").contains("-2.0"),
        "{table}"
    );
    assert!(
        table.find("climber-bot").unwrap() < table.find("ada ").unwrap(),
        "{table}"
    );
    // The agents' rows: the knowledge-based agent never dies.
    assert!(row("kb (built-in)").contains("3/3"), "{table}");
    assert!(row("random (built-in)").contains("3/3"), "{table}");

    let results = ask(&mut teacher, "ladder results 1 ada").await;
    assert!(results.contains("ada's seeds in ladder 1:"), "{results}");
    assert_eq!(results.matches("stopped").count(), 3, "{results}");

    // Closed, it takes no one.
    ask(&mut teacher, "ladder close 1").await;
    let mut late = common::named(&server, "late").await;
    let refused = ask(&mut late, "ladder enter 1").await;
    assert!(refused.contains("Ladder 1 is closed"), "{refused}");
    let student = ask(&mut late, "ladder open 2048 seeds=1-2").await;
    assert!(student.contains("admins"), "{student}");
}

#[tokio::test]
async fn a_move_over_the_time_per_move_forfeits_its_seed() {
    let (server, mut teacher) = server_with_teacher().await;
    let opened = ask(
        &mut teacher,
        "ladder open wumpus seeds=1-2 move=150ms humans off",
    )
    .await;
    assert!(opened.contains("150ms a move, bots only"), "{opened}");

    let mut person = common::named(&server, "bea").await;
    let refused = ask(&mut person, "ladder enter 1").await;
    assert!(refused.contains("for bots only"), "{refused}");

    let mut bot = Bot::welcomed(server.addr, "slow-bot").await;
    bot.send(json!({"command": "ladder enter 1"})).await;
    let mut before = Vec::new();
    let first = bot.state(&mut before).await;
    assert_eq!(
        (first["seed"].clone(), first["clock_ms"].clone()),
        (json!(1), json!(150))
    );
    // Nothing is sent: the clock runs out, the seed is forfeited, the next begins.
    let mut told = Vec::new();
    let last = bot.state(&mut told).await;
    assert_eq!(last["done"], true, "{last}");
    // Then the ladder's word on it, then the next seed.
    let second = bot.state(&mut told).await;
    assert!(
        told.iter()
            .any(|line| line["text"].as_str().is_some_and(|text| text
                .contains("Out of time (150ms a move): seed 1 of ladder 1 is forfeited."))),
        "{told:?}"
    );
    assert_eq!(
        (second["seed"].clone(), second["done"].clone()),
        (json!(2), json!(false)),
        "{second}"
    );
    // In time, the move counts.
    bot.send(json!({"action": "climb"})).await;
    let done = bot.state(&mut told).await;
    assert_eq!(
        (done["done"].clone(), done["score"].clone()),
        (json!(true), json!(-1)),
        "{done}"
    );

    let table = settled_table(&mut teacher, 1).await;
    let row = table
        .lines()
        .find(|line| line.contains("slow-bot"))
        .unwrap_or_default();
    // Seed 1 forfeited (-1000), seed 2 climbed (-1): both count.
    assert!(row.contains("2/2") && row.contains("-500.5"), "{table}");
    let results = ask(&mut teacher, "ladder results 1 slow-bot").await;
    assert!(results.contains("forfeit on time"), "{results}");
}

#[tokio::test]
async fn a_forged_result_is_kept_off_the_table() {
    let (server, mut teacher) = server_with_teacher().await;
    ask(&mut teacher, "ladder open wumpus seeds=4-4").await;
    let mut bot = Bot::welcomed(server.addr, "honest-bot").await;
    bot.send(json!({"command": "ladder enter 1"})).await;
    let mut before = Vec::new();
    let state = bot.state(&mut before).await;
    let action = state["legal"][0].as_str().unwrap().to_string();
    bot.send(json!({"action": action})).await;
    let moved = bot.state(&mut before).await;
    bot.send(json!({"command": "leave"})).await;
    let last = bot.state(&mut before).await;
    assert_eq!(last["done"], true, "{last}");
    assert_eq!(last["score"], moved["score"]);
    settled_table(&mut teacher, 1).await;

    // Someone writes a result into the store by hand: the honest bot's recording,
    // with a score it never reached.
    let store = arcade::store::Store::open(&server.db)
        .await
        .expect("the store");
    let honest = store
        .ladder_results_of(1, "honest-bot")
        .await
        .expect("results");
    let recording = honest[0].recording_id.expect("the seed was recorded");
    let forged = arcade::store::NewLadderResult {
        ladder_id: 1,
        player: String::from("cheat"),
        player_key: String::from("cheat"),
        bot: true,
        seed: 4,
        recording_id: Some(recording),
        score: 99_999,
        moves: honest[0].moves,
        outcome: String::from("won"),
        forfeit: false,
        finished_at: honest[0].finished_at,
    };
    store
        .add_ladder_result(&forged)
        .await
        .expect("written")
        .expect("new");
    // The verifier's next round checks it (within its 10 s).
    let mut table = String::new();
    for _ in 0..100 {
        table = ask(&mut teacher, "ladder 1").await;
        if table.contains("refused") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let cheat = table
        .lines()
        .find(|line| line.contains("cheat"))
        .unwrap_or_default();
    assert!(
        cheat.contains("0/1") && cheat.contains("(1 refused)"),
        "{table}"
    );
    let honest_row = table
        .lines()
        .find(|line| line.contains("honest-bot"))
        .unwrap_or_default();
    assert!(honest_row.contains("1/1"), "{table}");
    // The honest bot is first; the forged score made no mean.
    assert!(!table.contains("99999"), "{table}");
}
