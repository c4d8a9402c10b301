//! 2048 over real TCP: a seeded game checked move by move, the win and game-over
//! messages, the share of 4s, the session's best score and the lobby's argument errors.

mod common;

use arcade::games::twenty48::{self, board::Board, board::Direction};
use arcade::games::{Game, Memory};
use common::{crlf, Client, TestServer};

use arcade::games::PROMPT;

/// The board and the numbers of the status line, read back from a reply in the ascii
/// style.
#[derive(Debug)]
struct Shown {
    board: Board,
    score: u128,
    best: u128,
    step: u64,
}

fn parse_reply(text: &str) -> Option<Shown> {
    let rows: Vec<Vec<u128>> = text
        .lines()
        .filter(|line| line.starts_with('|'))
        .map(|line| {
            line.trim_matches('|')
                .split('|')
                .map(|cell| match cell.trim() {
                    "" => 0,
                    number => number.parse().expect("a number in a cell"),
                })
                .collect()
        })
        .collect();
    if rows.is_empty() {
        return None;
    }
    let rows: Vec<&[u128]> = rows.iter().map(Vec::as_slice).collect();
    let board = Board::from_values(&rows).expect("a square board of tiles");
    let status = text
        .lines()
        .find_map(|line| line.strip_prefix("Score: "))
        .expect("a status line after the board");
    let mut fields = status.split("  ");
    let score = fields.next()?.parse().ok()?;
    let best = fields.next()?.strip_prefix("Best: ")?.parse().ok()?;
    let step = fields.next()?.strip_prefix("Step: ")?.parse().ok()?;
    Some(Shown {
        board,
        score,
        best,
        step,
    })
}

/// Send one key and read the reply up to the game's prompt.
async fn key(client: &mut Client, key: &str) -> String {
    client.send(key).await;
    client.read_until(PROMPT).await
}

fn direction(key: char) -> Option<Direction> {
    match key {
        'w' | 'k' => Some(Direction::Up),
        'a' | 'h' => Some(Direction::Left),
        's' | 'j' => Some(Direction::Down),
        'd' | 'l' => Some(Direction::Right),
        _ => None,
    }
}

#[tokio::test]
async fn seeded_game_checked_move_by_move() {
    let server = TestServer::start().await;
    let mut client = Client::connect(server.addr).await;
    client.send("play 2048 seed=2048 style=ascii").await;
    let start = client.read_until(PROMPT).await;
    // Seed 2048 puts its first two tiles on the second row, first and third columns
    // (the draw pinned in board.rs).
    let expected = "\
Welcome to 2048! Join equal tiles to make 2048.
Keys: w/k up, a/h left, s/j down, d/l right, b back, r restart, q quit.
+-----+-----+-----+-----+
|     |     |     |     |
+-----+-----+-----+-----+
|   2 |     |   2 |     |
+-----+-----+-----+-----+
|     |     |     |     |
+-----+-----+-----+-----+
|     |     |     |     |
+-----+-----+-----+-----+
Score: 0  Best: 0  Step: 0
Enter command: ";
    assert_eq!(start, crlf(expected));

    // The first move, worked out by hand: the two 2s merge into a 4 at the wall.
    let reply = key(&mut client, "a").await;
    let shown = parse_reply(&reply).expect("a board");
    assert_eq!(shown.board.values()[1][0], 4);
    assert_eq!((shown.score, shown.best, shown.step), (4, 4, 1));
    assert_eq!(
        shown.board.tiles().count(),
        2,
        "the merged 4 and one new tile"
    );

    // The same seed played by the pure game gives the same bytes, and every board
    // follows from the one before by the rules.
    let mut pure = twenty48::from_args(&["seed=2048", "style=ascii"]).unwrap();
    let mut memory = Memory::default();
    assert_eq!(crlf(&pure.start(&mut memory).text), start);
    assert_eq!(crlf(&pure.handle("a", &mut memory).text), reply);
    let mut previous = shown;
    let keys = "sdwaxsjdlkhbbwwaassddq?bsadwsadw".repeat(4);
    let mut moves = 0;
    for typed in keys.chars().filter(|&c| c != 'q') {
        let typed = typed.to_string();
        let reply = key(&mut client, &typed).await;
        assert_eq!(
            reply,
            crlf(&pure.handle(&typed, &mut memory).text),
            "{typed}"
        );
        let Some(shown) = parse_reply(&reply) else {
            continue;
        };
        if let Some(direction) = typed.chars().next().and_then(direction) {
            let slid = previous
                .board
                .slide(direction)
                .expect("only moves that change redraw");
            let new_tiles: Vec<(usize, usize)> = (0..4)
                .flat_map(|r| (0..4).map(move |c| (r, c)))
                .filter(|&(r, c)| slid.board.get(r, c) != shown.board.get(r, c))
                .collect();
            assert_eq!(new_tiles.len(), 1, "one spawn after {typed}: {reply}");
            let (r, c) = new_tiles[0];
            assert_eq!(slid.board.get(r, c), None);
            assert!(matches!(shown.board.values()[r][c], 2 | 4));
            assert_eq!(shown.score, previous.score + slid.gained);
            assert_eq!(shown.step, previous.step + 1);
            moves += 1;
        }
        previous = shown;
    }
    assert!(moves > 20, "only {moves} moves changed the board");
    client.send("q").await;
    assert_eq!(client.read_until("> ").await, "Bye!\r\n> ");
}

#[tokio::test]
async fn box_style_over_the_wire() {
    let server = TestServer::start().await;
    let mut client = Client::connect(server.addr).await;
    client.send("2048 SEED=2048 size=3").await;
    let start = client.read_until(PROMPT).await;
    assert!(start.starts_with("Welcome to 2048!"), "{start}");
    assert!(start.contains("┌─────┬─────┬─────┐\r\n"), "{start}");
    assert!(start.contains("└─────┴─────┴─────┘\r\nScore: 0  Best: 0  Step: 0\r\n"));
}

#[tokio::test]
async fn you_win_with_a_small_win_value_and_play_goes_on() {
    let server = TestServer::start().await;
    let mut client = Client::connect(server.addr).await;
    client.send("play 2048 win=16 seed=11 style=ascii").await;
    let start = client.read_until(PROMPT).await;
    assert!(start.contains("Join equal tiles to make 16."), "{start}");
    let mut won_at = None;
    for (index, typed) in "asdw".chars().cycle().take(400).enumerate() {
        let reply = key(&mut client, &typed.to_string()).await;
        if reply.contains("Game over!") {
            key(&mut client, "r").await;
            continue;
        }
        if reply.contains("You win!") {
            let shown = parse_reply(&reply).expect("a board");
            assert!(shown.board.max_tile().is_some_and(|t| t.value() == 16));
            assert!(
                reply.ends_with(&format!("Step: {}\r\nYou win!\r\n{PROMPT}", shown.step)),
                "{reply}"
            );
            won_at = Some(index);
            break;
        }
    }
    assert!(won_at.is_some(), "16 never reached");
    // Play goes on, and the win is not announced again.
    let mut moved = false;
    for typed in ["a", "s", "d", "w", "a", "s"] {
        let reply = key(&mut client, typed).await;
        assert!(!reply.contains("You win!"), "{reply}");
        moved |= parse_reply(&reply).is_some();
    }
    assert!(moved);
}

#[tokio::test]
async fn game_over_on_a_full_board() {
    let server = TestServer::start().await;
    let mut client = Client::connect(server.addr).await;
    client.send("play 2048 size=3 seed=5 style=ascii").await;
    client.read_until(PROMPT).await;
    let mut over = None;
    for typed in "asdw".chars().cycle().take(2000) {
        let reply = key(&mut client, &typed.to_string()).await;
        if reply.contains("Game over!") {
            over = Some(reply);
            break;
        }
    }
    let reply = over.expect("a 3x3 game ends");
    assert!(
        reply.ends_with(&format!("\r\nGame over!\r\n{PROMPT}")),
        "{reply}"
    );
    let shown = parse_reply(&reply).expect("a board");
    assert_eq!(shown.board.empty_cells(), 0);
    assert!(!shown.board.can_move());
    // Then only b, r and q do anything.
    for typed in ["a", "w", "d", "s", "h"] {
        assert_eq!(
            key(&mut client, typed).await,
            format!("No move is possible: b goes back, r restarts, q quits.\r\n{PROMPT}")
        );
    }
    assert_eq!(
        key(&mut client, "z").await,
        format!("Illegal operation!\r\n{PROMPT}")
    );
    let back = key(&mut client, "b").await;
    let before = parse_reply(&back).expect("the board before the last move");
    assert_eq!(before.step, shown.step - 1);
    assert!(before.board.can_move());
    assert!(!back.contains("Game over!"));
    let restarted = parse_reply(&key(&mut client, "r").await).expect("a new board");
    assert_eq!(restarted.board.tiles().count(), 2);
    assert_eq!((restarted.score, restarted.step), (0, 0));
    client.send("q").await;
    assert_eq!(client.read_until("> ").await, "Bye!\r\n> ");
}

#[tokio::test]
async fn fours_are_about_one_spawn_in_ten() {
    let server = TestServer::start().await;
    let mut client = Client::connect(server.addr).await;
    client.send("play 2048 size=8 seed=99 style=ascii").await;
    let mut replies = vec![client.read_until(PROMPT).await];
    for _ in 0..1500 {
        replies.push(key(&mut client, "r").await);
    }
    let (mut fours, mut tiles) = (0u32, 0u32);
    for reply in &replies {
        let shown = parse_reply(reply).expect("a board");
        for tile in shown.board.tiles() {
            tiles += 1;
            fours += u32::from(tile.value() == 4);
        }
    }
    assert_eq!(tiles, 3002);
    // 10% of 3002 is about 300, with a standard deviation of about 16.
    assert!(
        (240..=360).contains(&fours),
        "{fours} fours in {tiles} tiles"
    );
}

#[tokio::test]
async fn best_is_kept_across_restarts_and_games() {
    let server = TestServer::start().await;
    let mut client = Client::connect(server.addr).await;
    client.send("play 2048 seed=2048 style=ascii").await;
    client.read_until(PROMPT).await;
    let reply = key(&mut client, "a").await;
    assert!(reply.contains("Score: 4  Best: 4  Step: 1\r\n"), "{reply}");
    let reply = key(&mut client, "r").await;
    assert!(reply.contains("Score: 0  Best: 4  Step: 0\r\n"), "{reply}");
    client.send("q").await;
    assert_eq!(client.read_until("> ").await, "Bye!\r\n> ");
    client.send("2048 style=ascii").await;
    let start = client.read_until(PROMPT).await;
    assert!(start.contains("Score: 0  Best: 4  Step: 0\r\n"), "{start}");
}

#[tokio::test]
async fn bad_arguments_name_what_is_allowed() {
    let server = TestServer::start().await;
    let mut client = Client::connect(server.addr).await;
    let cases = [
        ("play 2048 size=9", "size must be 3 to 8."),
        (
            "play 2048 win=3",
            "win must be a power of two from 4 to 131072 on a 4x4 board.",
        ),
        ("2048 style=fancy", "style must be box or ascii."),
        (
            "2048 colour=red",
            "Unknown argument: colour=red. Use size=N, win=N, seed=N, style=box|ascii.",
        ),
    ];
    for (line, message) in cases {
        client.send(line).await;
        assert_eq!(client.read_until("> ").await, format!("{message}\r\n> "));
    }
    client.send("levels 2048").await;
    assert_eq!(
        client.read_until("> ").await,
        "2048: (no levels to choose: just play it)\r\n> "
    );
}
