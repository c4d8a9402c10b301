//! Races over real TCP (SPEC section 9): a race of three for each game, with the
//! progress lines, the standings, the winner and the places, and the results in `top`;
//! then every edge case of the races issue.

mod common;

use arcade::games::{Game, Memory, Outcome};
use common::{named, Client, TestServer, BACK_OUT, TO_THE_GOLD};

/// Send `line` and read the answer up to `until`.
async fn ask(client: &mut Client, line: &str, until: &str) -> String {
    client.send(line).await;
    client.read_text_until(until).await
}

/// ann opens a race of `game`, bob and cy join it, ann starts it: each has read up to
/// the game's first prompt; what each saw from `Race N: go!` on.
async fn race_of_three(
    ann: &mut Client,
    bob: &mut Client,
    cy: &mut Client,
    game: &str,
    label: &str,
) -> [String; 3] {
    assert_eq!(
        ask(ann, &format!("race {game}"), "> ").await,
        format!("Race 1 is open: {label}.\r\nOthers join with: join 1. Type start when everyone is in.\r\n> ")
    );
    let listed = ask(bob, "races", "> ").await;
    assert!(listed.starts_with("Races:\r\n  race 1 "), "{listed}");
    let game_words = label.split(" (time").next().unwrap_or(label);
    assert!(listed.contains(game_words), "{listed}");
    assert!(listed.contains("host ann"), "{listed}");
    assert!(listed.contains("1 racer, waiting"), "{listed}");
    assert_eq!(
        ask(bob, "join 1", "> ").await,
        format!("You joined race 1: {label} (2 racers).\r\nann starts it; leave leaves it.\r\n> ")
    );
    assert_eq!(
        ann.read_text_until("> ").await,
        "\r\n[race 1] bob joined (2 racers).\r\n> "
    );
    ask(cy, "join 1", "> ").await;
    for other in [&mut *ann, &mut *bob] {
        assert_eq!(
            other.read_text_until("> ").await,
            "\r\n[race 1] cy joined (3 racers).\r\n> "
        );
    }
    assert_eq!(
        ask(bob, "start", "> ").await,
        "Only the host (ann) can start race 1.\r\n> "
    );
    assert_eq!(ask(ann, "start", "> ").await, "Race 1 starts now.\r\n> ");
    let mut seen = Vec::new();
    for racer in [ann, bob, cy] {
        racer.read_text_until("Race 1: go!\r\n").await;
        // Racers have used race commands: each is told how to get help and out.
        assert_eq!(
            racer.read_text_until("\r\n").await,
            "/help lists this game's commands, /leave goes back to the lobby.\r\n"
        );
        seen.push(racer.read_text_until("Enter command: ").await);
    }
    [seen.remove(0), seen.remove(0), seen.remove(0)]
}

/// Play `lines`, each answered up to the game's prompt; the last answer is read to
/// `last` instead.
async fn play(client: &mut Client, lines: &[&str], last: &str) -> String {
    let mut answer = String::new();
    for (index, line) in lines.iter().enumerate() {
        let until = if index + 1 == lines.len() {
            last
        } else {
            "Enter command: "
        };
        answer = ask(client, line, until).await;
    }
    answer
}

#[tokio::test]
async fn a_sokoban_race_of_three_by_the_seeds_transcript() {
    let server = TestServer::start().await;
    let mut ann = common::registered(server.addr, "ann", "secret-ann").await;
    let mut bob = common::registered(server.addr, "bob", "secret-bob").await;
    let mut cy = named(&server, "cy").await;
    let [first, ..] = race_of_three(
        &mut ann,
        &mut bob,
        &mut cy,
        "sokoban classic",
        "sokoban classic",
    )
    .await;
    assert!(first.starts_with("Welcome to Sokoban!\r\n"), "{first}");
    let who = ask(&mut cy, "/who", "Enter command: ").await;
    assert!(who.contains("race 1"), "{who}");

    let transcript = common::classic_transcript();
    let lines: Vec<&str> = transcript.commands.iter().map(String::as_str).collect();
    let won = play(&mut ann, &lines, "> ").await;
    assert!(
        won.contains("Win!\r\nYou are done in race 1: solved, "),
        "{won}"
    );
    // The others heard every box ann placed, then the finish.
    let heard = bob.read_text_until("[race 1] ann solved it in ").await;
    assert!(heard.contains("[race 1] ann placed a box (1/"), "{heard}");
    bob.read_text_until("Enter command: ").await;
    let standings = ask(&mut bob, "/standings", "Enter command: ").await;
    assert!(
        standings.starts_with("Race 1: sokoban classic, running for "),
        "{standings}"
    );
    assert!(standings.contains("\r\n    1. ann "), "{standings}");
    assert!(standings.contains("solved, "), "{standings}");

    let won = play(&mut bob, &lines, "> ").await;
    assert!(won.contains("You are done in race 1: solved, "), "{won}");
    // cy's connection drops: kept as left, and the race is over.
    drop(cy);
    let places = ann.read_text_until("[race 1] Race over. Places:").await;
    assert!(places.contains("[race 1] bob solved it in "), "{places}");
    let places = ann.read_text_until("> ").await;
    let rows: Vec<&str> = places.lines().filter(|line| line.contains(". ")).collect();
    assert_eq!(rows.len(), 3, "{places}");
    assert!(rows[0].starts_with("    1. ann "), "{places}");
    assert!(rows[1].starts_with("    2. bob "), "{places}");
    assert!(rows[2].starts_with("    3. cy "), "{places}");
    assert!(rows[2].contains("left (0/"), "{places}");
    bob.read_text_until("Race over. Places:").await;
    bob.read_text_until("> ").await;

    // The results are the players' own, checked by replay, in the leaderboard.
    let top = common::eventually(&mut bob, "top sokoban classic", "bob").await;
    assert!(top.contains("ann"), "{top}");
    assert_eq!(
        ask(&mut ann, "standings", "> ").await,
        "You are not in a race: races lists them.\r\n> "
    );
}

#[tokio::test]
async fn a_star_pusher_race_by_lurd_on_one_level() {
    let server = TestServer::start().await;
    let mut ann = common::registered(server.addr, "ann", "secret-ann").await;
    let mut bob = named(&server, "bob").await;
    let mut cy = named(&server, "cy").await;
    let [first, ..] = race_of_three(
        &mut ann,
        &mut bob,
        &mut cy,
        "starpusher arcade 3",
        "starpusher arcade 3 only",
    )
    .await;
    assert!(first.contains("Level 3: Four Winds"), "{first}");
    // The race is that level only.
    let refused = ask(&mut bob, "level 1", "Enter command: ").await;
    assert!(
        refused.starts_with("This game is level 3 only.\r\n"),
        "{refused}"
    );
    // bob pushes one box at a time, ann solves it in one line of LURD.
    ask(&mut bob, "lurd Ud", "Enter command: ").await;
    let heard = ann.read_text_until("\r\n").await;
    let heard = heard + &ann.read_text_until("Enter command: ").await;
    assert!(
        heard.contains("[race 1] bob placed a box (1/4)."),
        "{heard}"
    );
    let solved = ask(&mut ann, "lurd UdLrRlD", "> ").await;
    assert!(
        solved.contains("Level 3 solved in 7 moves and 4 pushes!\r\nYou are done in race 1: solved, 7 moves, in "),
        "{solved}"
    );
    assert!(!solved.contains("Level 4"), "a race's level only: {solved}");
    let heard = cy.read_text_until("[race 1] ann solved it in ").await;
    assert!(heard.contains("bob placed a box (1/4)."), "{heard}");
    // bob and cy leave their games: the race is over, ann first.
    assert!(ask(&mut bob, "/leave", "> ")
        .await
        .ends_with("Bye!\r\nYou left race 1.\r\n> "));
    assert!(ask(&mut cy, "/leave", "> ")
        .await
        .ends_with("Bye!\r\nYou left race 1.\r\n> "));
    ann.read_text_until("Race over. Places:").await;
    let places = ann.read_text_until("> ").await;
    assert!(places.contains("1. ann "), "{places}");
    assert!(
        places.contains("2. bob               left (1/4 boxes, 2 moves)"),
        "{places}"
    );
    assert!(
        places.contains("3. cy                left (0/4 boxes, 0 moves)"),
        "{places}"
    );
    common::eventually(&mut ann, "top starpusher arcade 3", "ann").await;
}

/// Moves that take a 2048 game with these arguments to its win tile, found by playing
/// it here: the server's game is the same pure game.
fn moves_to_win(args: &[&str]) -> Vec<&'static str> {
    let mut game = arcade::games::twenty48::from_args(args).unwrap();
    let mut memory = Memory::default();
    game.start(&mut memory);
    let mut moves = Vec::new();
    for key in ["a", "s", "d", "s"].iter().cycle().take(2000) {
        game.handle(key, &mut memory);
        moves.push(*key);
        if game.progress().ended == Some(Outcome::Won) {
            return moves;
        }
        assert_eq!(game.progress().ended, None, "stuck before the win");
    }
    panic!("no win in 2000 moves");
}

#[tokio::test]
async fn a_2048_race_gives_everyone_the_same_tiles_and_ends_with_its_time() {
    let server = TestServer::start().await;
    let mut ann = common::registered(server.addr, "ann", "secret-ann").await;
    let mut bob = common::registered(server.addr, "bob", "secret-bob").await;
    let mut cy = named(&server, "cy").await;
    let [first_ann, first_bob, first_cy] = race_of_three(
        &mut ann,
        &mut bob,
        &mut cy,
        "2048 win=64 seed=7 time=10s style=ascii",
        "2048 win=64 seed=7 style=ascii (time 10s)",
    )
    .await;
    assert_eq!(first_ann, first_bob);
    assert_eq!(first_ann, first_cy);
    let moves = moves_to_win(&["win=64", "seed=7", "style=ascii"]);
    let (last, before_last) = moves.split_last().unwrap();
    let mut boards = Vec::new();
    for key in before_last {
        boards.push(ask(&mut ann, key, "Enter command: ").await);
    }
    let won = ask(&mut ann, last, "> ").await;
    assert!(
        won.contains("You win!\r\nBye!\r\nYou are done in race 1: reached 64, score "),
        "{won}"
    );
    let heard = bob.read_text_until("[race 1] ann reached 64 in ").await;
    assert!(heard.contains("[race 1] ann reached 32."), "{heard}");
    bob.read_text_until("Enter command: ").await;
    // The same moves give bob the same tiles: the same boards, move by move.
    for (key, board) in before_last.iter().zip(&boards) {
        assert_eq!(&ask(&mut bob, key, "Enter command: ").await, board);
    }
    // bob and cy play on until the time runs out: their games stop, the places come.
    let stopped = bob.read_text_until("Time is up.").await;
    assert!(!stopped.contains("Race over"), "{stopped}");
    let end = bob.read_text_until("Race over. Places:").await;
    assert!(end.contains("Bye!\r\n"), "{end}");
    let places = bob.read_text_until("> ").await;
    assert!(places.contains("1. ann "), "{places}");
    assert!(places.contains("reached 64, score"), "{places}");
    assert!(places.contains("2. bob "), "{places}");
    assert!(places.contains("3. cy "), "{places}");
    // Everyone's game was recorded and ended by its own `q`: bob's result counts too.
    ann.read_text_until("Race over. Places:").await;
    ann.read_text_until("> ").await;
    // On the board of their win value, not on the main 2048 board (issue 30).
    let top = common::eventually(&mut ann, "top 2048 win=64", "bob").await;
    assert!(top.contains("2048 size=4 win=64, highest score:"), "{top}");
    assert!(top.contains("ann"), "{top}");
    ann.send("top 2048").await;
    let main = ann.read_text_until("> ").await;
    assert!(
        main.contains("2048 size=4, highest score:\r\n  no results yet"),
        "{main}"
    );
    ann.send("top").await;
    let boards = ann.read_text_until("> ").await;
    assert!(boards.contains("  2048 size=4 win=64 "), "{boards}");
    assert!(!boards.contains("  2048 size=4  "), "{boards}");
}

#[tokio::test]
async fn a_wumpus_race_is_won_by_the_first_out_with_the_gold() {
    let server = TestServer::start().await;
    let mut ann = common::registered(server.addr, "ann", "secret-ann").await;
    let mut bob = common::registered(server.addr, "bob", "secret-bob").await;
    let mut cy = named(&server, "cy").await;
    race_of_three(
        &mut ann,
        &mut bob,
        &mut cy,
        "wumpus classic",
        "wumpus classic",
    )
    .await;
    play(&mut cy, TO_THE_GOLD, "Enter command: ").await;
    let heard = ann.read_text_until("[race 1] cy grabbed the gold.").await;
    assert!(!heard.contains("ann"), "{heard}");
    ann.read_text_until("Enter command: ").await;
    // bob walks into the pit at (1,2).
    bob.read_text_until("cy grabbed the gold.\r\nEnter command: ")
        .await;
    let died = play(
        &mut bob,
        &[
            "move forward",
            "turn left",
            "move forward",
            "turn right",
            "move forward",
        ],
        "> ",
    )
    .await;
    assert!(
        died.contains("You are done in race 1: died, 5 actions, in "),
        "{died}"
    );
    ann.read_text_until("bob died after 5 actions.\r\nEnter command: ")
        .await;
    let all: Vec<&str> = TO_THE_GOLD
        .iter()
        .chain(BACK_OUT)
        .copied()
        .chain(["climb"])
        .collect();
    let out = play(&mut ann, &all, "> ").await;
    assert!(
        out.contains("You are done in race 1: out with the gold, 18 actions, in "),
        "{out}"
    );
    let heard = cy
        .read_text_until("[race 1] ann came out with the gold in ")
        .await;
    assert!(
        heard.contains("[race 1] bob died after 5 actions."),
        "{heard}"
    );
    drop(cy);
    let places = ann.read_text_until("Race over. Places:").await;
    assert!(places.contains("cy left the race."), "{places}");
    let places = ann.read_text_until("> ").await;
    let rows: Vec<&str> = places.lines().filter(|line| line.contains(". ")).collect();
    assert!(rows[0].starts_with("    1. ann "), "{places}");
    assert!(
        rows[1].starts_with("    2. bob ") && rows[1].contains("died"),
        "{places}"
    );
    assert!(
        rows[2].starts_with("    3. cy ") && rows[2].contains("left (has the gold"),
        "{places}"
    );
    bob.read_text_until("Race over. Places:").await;
    bob.read_text_until("> ").await;
    // The leaderboard counts wins with the gold; bob's death is in his stats.
    let top = common::eventually(&mut bob, "top wumpus classic", "ann").await;
    assert!(top.contains("1. ann "), "{top}");
    let stats = common::eventually(&mut bob, "stats", "died").await;
    assert!(stats.contains("wumpus"), "{stats}");
}

#[tokio::test]
async fn the_edge_cases_of_races_each_with_a_clear_message() {
    let server = TestServer::start().await;
    let mut ann = named(&server, "ann").await;
    let mut bob = named(&server, "bob").await;
    let mut cy = named(&server, "cy").await;
    let mut dan = named(&server, "dan").await;

    // A race nobody joins: the host is asked before racing alone, and leaving closes it.
    ask(&mut ann, "race sokoban", "> ").await;
    assert_eq!(
        ask(&mut ann, "start", "> ").await,
        "Nobody has joined race 1 yet: type start again to race alone.\r\n> "
    );
    assert_eq!(
        ask(&mut ann, "play sokoban", "> ").await,
        "You are in race 1: wait for its start, or leave it first.\r\n> "
    );
    assert_eq!(
        ask(&mut ann, "race 2048", "> ").await,
        "You are in race 1 already: leave it first.\r\n> "
    );
    assert_eq!(
        ask(&mut ann, "name anne", "> ").await,
        "You are in race 1: leave it first to change your name.\r\n> "
    );
    assert_eq!(ask(&mut ann, "leave", "> ").await, "You left race 1.\r\n> ");
    assert_eq!(
        ask(&mut bob, "races", "> ").await,
        "No races are open: race GAME opens one.\r\n> "
    );
    assert_eq!(
        ask(&mut bob, "join 1", "> ").await,
        "No race 1: races lists them.\r\n> "
    );
    assert_eq!(
        ask(&mut bob, "join", "> ").await,
        "Usage: join N (races lists them)\r\n> "
    );
    assert_eq!(
        ask(&mut bob, "race chess", "> ").await,
        "Unknown game: chess. Choose one of: sokoban, starpusher, 2048, wumpus.\r\n> "
    );
    assert!(ask(&mut bob, "race 2048 time=1s", "> ")
        .await
        .starts_with("Usage: race GAME [ARGS] [time=DURATION] [all]"));
    assert_eq!(
        ask(&mut bob, "race sokoban nowhere", "> ").await,
        "Unknown level: nowhere. Choose one of: classic.\r\n> "
    );
    assert_eq!(
        ask(&mut bob, "start", "> ").await,
        "You are not in a race: race GAME opens one.\r\n> "
    );
    assert_eq!(
        ask(&mut bob, "leave", "> ").await,
        "You are in the lobby: quit leaves the arcade.\r\n> "
    );

    // The host leaving before the start hands the race to the first who joined.
    ask(&mut ann, "race sokoban", "> ").await; // race 2
    ask(&mut bob, "join 2", "> ").await;
    ann.read_text_until("> ").await;
    ask(&mut cy, "join 2", "> ").await;
    ann.read_text_until("> ").await;
    bob.read_text_until("> ").await;
    ask(&mut ann, "leave", "> ").await;
    assert_eq!(
        bob.read_text_until("start starts the race.\r\n> ").await,
        "\r\n[race 2] ann left (2 racers).\r\n> \r\n[race 2] bob is the host now: start starts the race.\r\n> "
    );
    cy.read_text_until("start starts the race.\r\n> ").await;

    // Two races at once.
    ask(&mut ann, "race 2048 seed=3", "> ").await; // race 3
    let listed = ask(&mut dan, "races", "> ").await;
    assert!(
        listed.contains("race 2 ") && listed.contains("race 3 "),
        "{listed}"
    );
    assert!(listed.contains("host bob"), "{listed}");

    // A watcher of the race's standings, and one of a racer.
    let watching = ask(&mut dan, "watch race 2", "racers.\r\n").await;
    assert!(watching.starts_with("You are watching race 2. Type anything to stop.\r\nRace 2: sokoban, waiting for bob to start it; 2 racers."), "{watching}");
    dan.read_text_until("cy").await;

    ask(&mut bob, "start", "Race 2 starts now.\r\n> ").await;
    for racer in [&mut bob, &mut cy] {
        racer.read_text_until("Enter command: ").await;
    }
    let frame = dan.read_text_until("running for ").await;
    assert!(frame.contains("Race 2: sokoban, "), "{frame}");
    // Join after the start.
    assert_eq!(
        ask(&mut ann, "join 2", "> ").await,
        "You are in race 3 already: leave it first.\r\n> "
    );
    let mut eve = named(&server, "eve").await;
    assert_eq!(
        ask(&mut eve, "join 2", "> ").await,
        "Race 2 has started: watch race 2 to follow it.\r\n> "
    );
    // A racer can be watched like any player.
    assert_eq!(
        ask(&mut eve, "watch cy", "Enter command: ").await,
        "You are watching cy. Type anything to stop.\r\n#######\r\n#.....#\r\n#...+.#\r\n##..+.#\r\n#--.#P#\r\n#######\r\nEnter command: "
    );
    let moved = ask(&mut cy, "w1", "Enter command: ").await;
    assert_eq!(
        eve.read_text_until("Enter command: ").await,
        format!("\r\n{moved}")
    );
    // The host leaves after the start: the race goes on without bob.
    let left = ask(&mut bob, "/leave", "> ").await;
    assert_eq!(left, "Bye!\r\nYou left race 2.\r\n> ");
    assert_eq!(
        cy.read_text_until("Enter command: ").await,
        "\r\n[race 2] bob left the race.\r\nEnter command: "
    );
    let standings = ask(&mut cy, "/standings", "Enter command: ").await;
    assert!(standings.contains("bob               left"), "{standings}");
    // The last racer leaves: the race is over; its watcher is told and back in the lobby.
    ask(&mut cy, "/leave", "> ").await;
    let over = dan.read_text_until("Race 2 is over.\r\n> ").await;
    assert!(over.contains("[race 2] Race over. Places:"), "{over}");
    let who = ask(&mut dan, "who", "> ").await;
    assert!(who.contains("race 3"), "{who}");
    assert!(!who.contains("race 2"), "{who}");
}

#[tokio::test]
async fn teachers_commands_for_admins_only() {
    let options = arcade::server::Options {
        admin: vec![String::from("Teacher")],
        ..arcade::server::Options::default()
    };
    let server = TestServer::start_with(options).await;
    // Admin rights come with the registered name and its password.
    let mut teacher = common::admin(&server, "teacher", "secret-teacher").await;
    let mut ann = named(&server, "ann").await;
    let mut bob = named(&server, "bob").await;
    for line in ["broadcast hello", "kick bob", "reload", "race sokoban all"] {
        assert_eq!(
            ask(&mut ann, line, "> ").await,
            "Only admins can do that.\r\n> ",
            "{line}"
        );
    }
    assert_eq!(
        ask(&mut ann, "/broadcast hi", "> ").await,
        "Only admins can do that.\r\n> "
    );

    assert_eq!(
        ask(&mut teacher, "broadcast Lab ends at 3.", "> ").await,
        "Sent to 3 players.\r\n> "
    );
    for client in [&mut ann, &mut bob, &mut teacher] {
        assert_eq!(
            client.read_text_until("> ").await,
            "\r\n[teacher to everyone] Lab ends at 3.\r\n> "
        );
    }
    // A race for the whole lobby: everyone there is invited; the teacher only hosts.
    let opened = ask(&mut teacher, "race starpusher arcade 1 all", "> ").await;
    assert_eq!(
        opened,
        "Race 1 is open: starpusher arcade 1 only.\r\n2 players in the lobby were invited; type start when they are in,\r\nwatch race 1 to follow it.\r\n> "
    );
    for client in [&mut ann, &mut bob] {
        assert_eq!(
            client.read_text_until("> ").await,
            "\r\n[race 1] teacher invites you to race starpusher arcade 1 only: type join 1.\r\n> "
        );
        ask(client, "join 1", "> ").await;
    }
    teacher
        .read_text_until("bob joined (2 racers).\r\n> ")
        .await;
    ask(&mut teacher, "start", "Race 1 starts now.\r\n> ").await;
    assert_eq!(
        teacher.read_text_until("> ").await,
        "\r\n[race 1] Go! 2 racers.\r\n> "
    );
    ann.read_text_until("Enter command: ").await;
    bob.read_text_until("Enter command: ").await;
    ask(&mut ann, "lurd rRR", "> ").await;
    assert!(teacher
        .read_text_until("> ")
        .await
        .contains("[race 1] ann solved it in "));
    // Kick: the player is told why and closed.
    assert_eq!(
        ask(&mut teacher, "kick bob Time to go", "> ").await,
        "bob is disconnected.\r\n> "
    );
    let last = bob.read_to_end().await;
    assert!(
        last.ends_with("You were disconnected by teacher: Time to go.\r\n"),
        "{last}"
    );
    let places = teacher.read_text_until("Race over. Places:").await;
    assert!(places.contains("bob left the race."), "{places}");
    let places = teacher.read_text_until("> ").await;
    assert!(places.contains("1. ann "), "{places}");
    assert!(places.contains("2. bob "), "{places}");
    assert_eq!(
        ask(&mut teacher, "kick nobody", "> ").await,
        "No player called nobody.\r\n> "
    );
    assert_eq!(
        ask(&mut teacher, "kick teacher", "> ").await,
        "You cannot kick yourself: quit leaves.\r\n> "
    );
    let reloaded = ask(&mut teacher, "reload", "> ").await;
    assert!(reloaded.starts_with("Levels reloaded: 1 sokoban levels, 1 starpusher collections, 3 wumpus worlds; no problems.\r\n"), "{reloaded}");
}
