//! Issue 20's scenario, on the shape of docker/compose.yaml's `cluster` profile, with
//! the real programs: one throwaway PostgreSQL, one nats-server, three arcade
//! instances (`--db postgres://... --bus nats://... --proxy-protocol`) behind HAProxy
//! configured by docker/haproxy.cfg. Thirty players connect through the proxy; every
//! instance's `who` shows all thirty; chat, tells and watching cross instances; a race
//! has racers on all three; one instance is killed with SIGKILL in the middle of its
//! players' games, and they reconnect through the proxy, log in, `resume` and finish;
//! PostgreSQL holds every finished game exactly once.

mod common;

use std::time::Duration;

use common::cluster::{Instance, Nats, Proxy};
use common::postgres::Postgres;
use common::{Client, TO_THE_GOLD};

/// Players in the scenario.
const PLAYERS: usize = 30;

/// The instance killed in the middle of its players' games.
const VICTIM: usize = 2;

/// How many players are connected to each instance, as HAProxy counts them.
async fn per_instance(proxy: &Proxy) -> Vec<u64> {
    proxy
        .backends()
        .await
        .iter()
        .map(|backend| backend.sessions)
        .collect()
}

/// One of the thirty: its name, its connection, and the instance HAProxy sent it to.
struct Player {
    name: String,
    client: Client,
    on: usize,
}

/// Ask `line` until a line of the answer contains `wanted`: what crosses the bus
/// arrives a moment later.
async fn until(client: &mut Client, line: &str, wanted: &str) -> String {
    until_line(client, line, |answer| answer.contains(wanted)).await
}

/// Ask `line` until a line of the answer passes `wanted`.
async fn until_line(client: &mut Client, line: &str, wanted: impl Fn(&str) -> bool) -> String {
    until_answer(client, line, |answer| answer.lines().any(&wanted)).await
}

/// Ask `line` until the whole answer passes `wanted`.
async fn until_answer(client: &mut Client, line: &str, wanted: impl Fn(&str) -> bool) -> String {
    let mut last = String::new();
    for _ in 0..100 {
        client.send(line).await;
        last = client.read_text_until("> ").await;
        if wanted(&last) {
            return last;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{line} never showed the answer wanted; last: {last}");
}

/// A throwaway PostgreSQL and nats-server for instances to share, or `None` when one
/// of them is missing (skipped; a failure under CI=true).
async fn shared_store_and_bus() -> Option<(Postgres, Nats)> {
    let postgres = Postgres::start()?;
    let nats = Nats::start().await?;
    Some((postgres, nats))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn three_instances_behind_haproxy_play_as_one_arcade() {
    let Some((postgres, nats)) = shared_store_and_bus().await else {
        return;
    };
    let (db, bus) = (postgres.database("arcade"), nats.url());
    let args = ["--db", db.as_str(), "--bus", bus.as_str()];
    let mut instances = Vec::new();
    for _ in 0..3 {
        instances.push(Instance::start(&args).await);
    }
    let Some(proxy) = Proxy::start(&instances.iter().collect::<Vec<_>>()).await else {
        return;
    };
    proxy.wait_up(3).await;

    // Thirty players through the proxy; which instance each reached, from HAProxy's
    // own counts. The victim's players register (they will resume), the others take
    // a name.
    let mut players: Vec<Player> = Vec::new();
    for n in 0..PLAYERS {
        let before = per_instance(&proxy).await;
        let mut client = proxy.client().await;
        let mut after = per_instance(&proxy).await;
        for _ in 0..50 {
            if after != before {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
            after = per_instance(&proxy).await;
        }
        let on = (0..3)
            .find(|&i| after[i] > before[i])
            .expect("HAProxy counted the new player on an instance");
        let name = format!("p{n:02}");
        client.send(&format!("name {name}")).await;
        assert_eq!(
            client.read_text_until("> ").await,
            format!("You are now {name}.\r\n> ")
        );
        if on == VICTIM {
            common::register(&mut client, "secret-pw").await;
        }
        players.push(Player { name, client, on });
    }
    for i in 0..3 {
        assert!(
            players.iter().filter(|player| player.on == i).count() >= 5,
            "HAProxy spreads the players over the three instances"
        );
    }
    let first_on = |i: usize, players: &[Player]| {
        players
            .iter()
            .position(|player| player.on == i)
            .expect("a player on each instance")
    };
    let (a, b, c) = (
        first_on(0, &players),
        first_on(1, &players),
        first_on(VICTIM, &players),
    );

    // Every instance's `who` lists all thirty.
    for i in 0..3 {
        let first = first_on(i, &players);
        let player = &mut players[first];
        let who = until(
            &mut player.client,
            "who",
            &format!("{PLAYERS} players online:"),
        )
        .await;
        for n in 0..PLAYERS {
            assert!(who.contains(&format!("p{n:02} ")), "p{n:02} missing: {who}");
        }
    }

    // `say` in the lobby reaches the players of every instance; a tell crosses too.
    players[a].client.send("say hello, everyone").await;
    players[a].client.read_text_until("> ").await;
    let speaker = players[a].name.clone();
    for (n, player) in players.iter_mut().enumerate() {
        if n != a {
            let heard = player.client.read_text_until("hello, everyone").await;
            assert!(
                heard.contains(&format!("[{speaker}] hello, everyone")),
                "{heard}"
            );
            player.client.read_text_until("> ").await;
        }
    }
    let to = players[b].name.clone();
    players[a]
        .client
        .send(&format!("tell {to} meet me in race"))
        .await;
    players[a].client.read_text_until("> ").await;
    let told = players[b].client.read_text_until("meet me in race").await;
    assert!(told.contains(&format!("[{speaker} tells you] meet me in race")));
    players[b].client.read_text_until("> ").await;

    // A player on one instance watches a game played on another: the watcher sees
    // the player's own reply to each move.
    players[a].client.send("play wumpus").await;
    players[a].client.read_text_until("Enter command: ").await;
    let watched = players[a].name.clone();
    // Watching needs the news that the player is in a game to have crossed the bus.
    until_line(&mut players[b].client, "who", |line| {
        line.contains(&format!("{watched} ")) && line.contains("wumpus")
    })
    .await;
    players[b].client.send(&format!("watch {watched}")).await;
    let started = players[b].client.read_text_until("Enter command: ").await;
    assert!(
        started.starts_with(&format!("You are watching {watched}.")),
        "{started}"
    );
    players[a].client.send("move forward").await;
    let reply = players[a].client.read_text_until("Enter command: ").await;
    let frame = players[b].client.read_text_until("Enter command: ").await;
    // After the board before it, which ended at the player's prompt, the frame starts
    // a line of its own.
    assert_eq!(
        frame,
        format!("\r\n{reply}"),
        "the watcher sees the player's own reply"
    );
    players[b].client.send("stop").await;
    players[b].client.read_text_until("> ").await;
    players[a].client.send("/leave").await;
    players[a].client.read_text_until("> ").await;

    // A race with racers on all three instances: hosted on one, joined from the two
    // others; everyone's game starts, and the standings list all three.
    players[a].client.send("race wumpus").await;
    let opened = players[a].client.read_text_until("> ").await;
    let race: String = opened
        .strip_prefix("Race ")
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_default()
        .to_string();
    assert!(!race.is_empty(), "{opened}");
    for racer in [b, c] {
        let joined = until(
            &mut players[racer].client,
            &format!("join {race}"),
            "You joined race",
        )
        .await;
        assert!(joined.contains("wumpus"), "{joined}");
    }
    players[a].client.send("start").await;
    for racer in [a, b, c] {
        let go = players[racer]
            .client
            .read_text_until("Enter command: ")
            .await;
        assert!(go.contains(&format!("Race {race}: go!")), "{go}");
    }
    players[b].client.send("/standings").await;
    let standings = players[b].client.read_text_until("Enter command: ").await;
    for racer in [a, b, c] {
        assert!(standings.contains(&players[racer].name), "{standings}");
    }
    // The host grabs the gold: the racers on the other instances hear of it.
    for line in TO_THE_GOLD {
        players[a].client.send(line).await;
        players[a].client.read_text_until("Enter command: ").await;
    }
    let host = players[a].name.clone();
    for racer in [b, c] {
        let news = players[racer].client.read_text_until("gold").await;
        assert!(news.contains(&format!("[race {race}] {host}")), "{news}");
    }
    for racer in [a, b, c] {
        players[racer].client.send("/leave").await;
    }
    for racer in [a, b, c] {
        players[racer].client.read_text_until("> ").await;
    }

    // Every player of the victim is in the middle of a wumpus game when its instance
    // is killed.
    let victims: Vec<usize> = (0..PLAYERS).filter(|&n| players[n].on == VICTIM).collect();
    for &n in &victims {
        let client = &mut players[n].client;
        client.send("play wumpus").await;
        client.read_text_until("Enter command: ").await;
        for line in TO_THE_GOLD {
            client.send(line).await;
            client.read_text_until("Enter command: ").await;
        }
    }
    // The recorder writes every second: what was played is in PostgreSQL by now.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    instances[VICTIM].kill();
    for &n in &victims {
        players[n].client.read_to_end().await;
    }
    proxy.wait_for(&[true, true, false]).await;
    // Its games count as unfinished once its heartbeat in PostgreSQL is stale.
    tokio::time::sleep(Duration::from_secs(4)).await;

    // They come back through the proxy to the two live instances, log in, resume
    // and finish.
    for &n in &victims {
        let name = players[n].name.clone();
        let mut client = proxy.client().await;
        client.send(&format!("name {name}")).await;
        client.read_text_until("Password: ").await;
        client.send("secret-pw").await;
        let said = client.read_text_until("> ").await;
        assert!(
            said.contains("You have an unfinished wumpus game. Type resume to continue it."),
            "{name}: {said}"
        );
        common::resume_at_the_gold_and_climb(&mut client).await;
        players[n].client = client;
    }

    // Every finished game is in PostgreSQL exactly once: one win with the gold for
    // each player of the killed instance, none for anyone else. (The recorder writes
    // each second: look until the last result is in, then a little longer, so that a
    // second copy would show.)
    let pool = sqlx::PgPool::connect(&db).await.expect("PostgreSQL");
    let expected: Vec<(String, i64)> = victims.iter().map(|&n| (format!("p{n:02}"), 1)).collect();
    let mut counts: Vec<(String, i64)> = Vec::new();
    for _ in 0..50 {
        counts =
            sqlx::query_as("SELECT player, COUNT(*) FROM results GROUP BY player ORDER BY player")
                .fetch_all(&pool)
                .await
                .expect("the results");
        if counts.len() >= expected.len() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let again: Vec<(String, i64)> =
        sqlx::query_as("SELECT player, COUNT(*) FROM results GROUP BY player ORDER BY player")
            .fetch_all(&pool)
            .await
            .expect("the results");
    assert_eq!(counts, expected);
    assert_eq!(again, expected);
}

/// The bus goes down: each instance carries on alone (its players play, talk and see
/// each other; the others drop out of `who`); the bus comes back: they see each other
/// again. An admin's broadcast and kick, and a name taken over, cross instances.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn without_the_bus_each_instance_carries_on_alone() {
    let Some((postgres, mut nats)) = shared_store_and_bus().await else {
        return;
    };
    let (db, bus) = (postgres.database("arcade"), nats.url());
    let args = ["--db", db.as_str(), "--bus", bus.as_str(), "--admin", "ann"];
    let one = Instance::start(&args).await;
    let two = Instance::start(&args).await;
    // The admin's password is set out of band, on the shared database.
    common::set_password_with_cli("ann", "anns-pw", &["--db", db.as_str()]);
    let mut ann = one.client().await;
    let mut bob = two.client().await;
    let mut cy = one.client().await;
    ann.send("name ann").await;
    ann.read_text_until("Password: ").await;
    ann.send("anns-pw").await;
    ann.read_text_until("> ").await;
    for (client, name) in [(&mut bob, "bob"), (&mut cy, "cy")] {
        client.send(&format!("name {name}")).await;
        client.read_text_until("> ").await;
    }
    until(&mut ann, "who", "bob ").await;
    let (_, metrics) = one.http_get("/metrics").await;
    assert!(metrics.contains("arcade_bus_instances 1\n"), "{metrics}");
    assert!(
        !metrics.contains("arcade_bus_messages_total 0\n"),
        "{metrics}"
    );

    nats.stop();
    // bob's instance goes silent for ann's: bob drops out of `who` and tells fail.
    until(&mut ann, "who", "2 players online:").await;
    let (_, metrics) = one.http_get("/metrics").await;
    assert!(metrics.contains("arcade_bus_instances 0\n"), "{metrics}");
    ann.send("tell bob are you there?").await;
    assert_eq!(
        ann.read_text_until("> ").await,
        "No player called bob.\r\n> "
    );
    // Everything local works: a tell, a game.
    ann.send("tell cy still here").await;
    ann.read_text_until("> ").await;
    assert!(cy
        .read_text_until("still here")
        .await
        .contains("[ann tells you] still here"));
    cy.read_text_until("> ").await;
    bob.send("play wumpus").await;
    bob.read_text_until("Enter command: ").await;
    bob.send("/leave").await;
    bob.read_text_until("> ").await;

    nats.start_again().await;
    until(&mut ann, "who", "3 players online:").await;
    until(&mut bob, "who", "3 players online:").await;
    // NATS delivers at most once: what is sent while a client is still reconnecting
    // can be lost (seen here about once in four runs, for a tell sent the moment
    // both instances listed each other again). Let the reconnections settle.
    tokio::time::sleep(Duration::from_secs(2)).await;
    ann.send("tell bob welcome back").await;
    ann.read_text_until("> ").await;
    assert!(bob
        .read_text_until("welcome back")
        .await
        .contains("[ann tells you] welcome back"));
    bob.read_text_until("> ").await;

    // The admin, on one instance, broadcasts to both and kicks a player of the other.
    let mut dee = two.client().await;
    dee.send("name dee").await;
    dee.read_text_until("> ").await;
    until(&mut ann, "who", "dee ").await;
    ann.send("broadcast the lab closes at noon").await;
    assert_eq!(ann.read_text_until("> ").await, "Sent to 4 players.\r\n> ");
    for client in [&mut ann, &mut bob, &mut cy, &mut dee] {
        let heard = client.read_text_until("closes at noon").await;
        assert!(
            heard.contains("[ann to everyone] the lab closes at noon"),
            "{heard}"
        );
        client.read_text_until("> ").await;
    }
    ann.send("kick dee too loud").await;
    assert_eq!(
        ann.read_text_until("> ").await,
        "dee is disconnected.\r\n> "
    );
    let kicked = dee.read_to_end().await;
    assert!(
        kicked.contains("You were disconnected by ann: too loud."),
        "{kicked}"
    );

    // A registered name logged in on the other instance takes the name over there.
    common::register(&mut bob, "bobs-pw").await;
    let mut again = one.client().await;
    again.send("name bob").await;
    again.read_text_until("Password: ").await;
    again.send("bobs-pw").await;
    again.read_text_until("> ").await;
    let closed = bob.read_to_end().await;
    assert!(
        closed.contains("Someone logged in as bob from elsewhere."),
        "{closed}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_instance_upgrades_in_place_and_its_players_stay_on_the_bus() {
    let Some((postgres, nats)) = shared_store_and_bus().await else {
        return;
    };
    let (db, bus) = (postgres.database("arcade"), nats.url());
    let args = ["--db", db.as_str(), "--bus", bus.as_str()];
    let mut one = Instance::start(&args).await;
    let mut two = Instance::start(&args).await;
    let mut ann = one.client().await;
    let mut bob = two.client().await;
    for (client, name) in [(&mut ann, "ann"), (&mut bob, "bob")] {
        client.send(&format!("name {name}")).await;
        client.read_text_until("> ").await;
    }
    ann.send("play 2048 seed=3").await;
    ann.read_text_until("Enter command: ").await;
    ann.send("l").await;
    ann.read_text_until("Enter command: ").await;
    ann.send("/look").await;
    let before = ann.read_text_until("Enter command: ").await;
    until(&mut bob, "who", "ann ").await;

    // ann's instance upgrades in place: a new process, a new instance on the bus.
    let data = one.data_dir().to_path_buf();
    let upgraded = tokio::task::spawn_blocking(move || {
        std::process::Command::new(env!("CARGO_BIN_EXE_arcade"))
            .arg("upgrade")
            .arg("--data-dir")
            .arg(&data)
            .output()
            .expect("arcade upgrade")
    })
    .await
    .expect("the upgrade");
    let answer = String::from_utf8_lossy(&upgraded.stdout).into_owned();
    assert!(upgraded.status.success(), "{answer}\n{}", one.log());
    ann.read_text_until("The server was upgraded.\r\nEnter command: ")
        .await;
    ann.send("/look").await;
    assert_eq!(ann.read_text_until("Enter command: ").await, before);

    // Across the bus, each finds the other again, by name, where they are. (For a
    // moment the other instance may list ann twice: the old instance's, until its
    // players' leaving reaches it, and the new one's.)
    let who = until_answer(&mut bob, "who", |who| {
        who.contains("2 players online:") && who.contains("2048 seed=3")
    })
    .await;
    assert!(
        who.contains("2 players online:") && who.matches("ann ").count() == 1,
        "{who}"
    );
    tokio::time::sleep(Duration::from_secs(1)).await;
    bob.send("tell ann still there?").await;
    bob.read_text_until("> ").await;
    assert!(ann
        .read_text_until("still there?")
        .await
        .contains("[bob tells you] still there?"));
    ann.read_text_until("Enter command: ").await;
    ann.send("/tell bob yes").await;
    ann.read_text_until("Enter command: ").await;
    assert!(bob
        .read_text_until("yes")
        .await
        .contains("[ann tells you] yes"));
    assert_eq!(one.terminate(), Some(0));
    assert_eq!(two.terminate(), Some(0));
}
