//! Help for stuck Sokoban players over real TCP (SPEC section 13): warnings after a
//! push that leaves a level unsolvable, `/hint`, `/solve` (and `--allow-solutions`),
//! the help kept in the recording, and a helped result ranked after honest ones.

mod common;

use arcade::server::Options;
use common::{eventually, named, Client, TestServer};

/// Send `line` and read the answer up to `until`.
async fn ask(client: &mut Client, line: &str, until: &str) -> String {
    client.send(line).await;
    client.read_text_until(until).await
}

const PROMPT: &str = "Enter command: ";

/// Star Pusher's `arcade 2` ("Around the Bend"): the box at row 3, column 4 goes down,
/// then left onto the goal.
///
/// ```text
/// ######
/// #    #
/// # #$ #
/// # .@ #
/// ######
/// ```
const AROUND_THE_BEND: &str = "starpusher arcade 2";

/// The moves that solve `arcade 2` from its start: round to the top of the box, push it
/// down, round to its right, push it left.
const SOLVE_AROUND_THE_BEND: &[&str] = &["d", "w", "w", "a", "s", "d", "s", "a"];

#[tokio::test]
async fn a_warning_a_way_back_and_hints_to_the_end() {
    let server = TestServer::start().await;
    let mut ann = named(&server, "ann").await;
    assert_eq!(
        ask(&mut ann, "set warnings on", "> ").await,
        "Warnings are on: a push that leaves a Sokoban level unsolvable is reported.\r\n> "
    );
    ask(&mut ann, AROUND_THE_BEND, PROMPT).await;
    // Up: the box against the top wall, where no goal is.
    let pushed = ask(&mut ann, "w", PROMPT).await;
    assert!(
        pushed.contains("That box can no longer reach a goal: it is against a wall with no"),
        "{pushed}"
    );
    assert!(
        pushed.contains("Undo with u.\r\nEnter command: "),
        "{pushed}"
    );
    // Once: a walk in the dead position says nothing more.
    let walked = ask(&mut ann, "d", PROMPT).await;
    assert!(!walked.contains("can no longer"), "{walked}");
    assert_eq!(
        ask(&mut ann, "/hint", PROMPT).await,
        "No solution from here: undo to the last safe position (2 moves back).\r\nEnter command: "
    );
    ask(&mut ann, "u", PROMPT).await;
    ask(&mut ann, "u", PROMPT).await;
    assert_eq!(
        ask(&mut ann, "/hint", PROMPT).await,
        "Push the box at row 3, column 4 down.\r\nEnter command: "
    );
    assert_eq!(
        ask(&mut ann, "/solve", PROMPT).await,
        "At best 2 pushes are left.\r\nEnter command: "
    );
    let mut last = String::new();
    for line in SOLVE_AROUND_THE_BEND {
        last = ask(&mut ann, line, PROMPT).await;
        assert!(!last.contains("can no longer"), "a false warning: {last}");
    }
    assert!(last.contains("Level 2 solved in"), "{last}");
    ask(&mut ann, "e", "> ").await;
    // The result is checked by replay, help lines and all, and marked.
    let top = eventually(&mut ann, "top starpusher arcade 2", "with hints").await;
    assert!(top.contains("ann"), "{top}");
    server.shutdown().await;
}

#[tokio::test]
async fn an_honest_result_ranks_before_a_helped_one() {
    let server = TestServer::start().await;
    let mut ann = named(&server, "ann").await;
    let mut bob = named(&server, "bob").await;
    // ann asks for a hint and solves it in the fewest moves.
    ask(&mut ann, AROUND_THE_BEND, PROMPT).await;
    ask(&mut ann, "/hint", PROMPT).await;
    for line in SOLVE_AROUND_THE_BEND {
        ask(&mut ann, line, PROMPT).await;
    }
    // bob takes a longer way, alone.
    ask(&mut bob, AROUND_THE_BEND, PROMPT).await;
    let mut last = String::new();
    for line in ["a", "d", "d", "w", "w", "a", "s", "d", "s", "a"] {
        last = ask(&mut bob, line, PROMPT).await;
    }
    assert!(last.contains("Level 2 solved in 10 moves"), "{last}");
    ask(&mut ann, "e", "> ").await;
    let top = eventually(&mut ann, "top starpusher arcade 2", "with hints").await;
    let bob_at = top.find("bob").expect("bob on the board");
    let ann_at = top.find("ann").expect("ann on the board");
    assert!(bob_at < ann_at, "help beat an honest result:\n{top}");
    assert!(top.contains("8 moves, 2 pushes"), "{top}");
    server.shutdown().await;
}

#[tokio::test]
async fn classic_sokoban_gets_help_and_is_told_it_has_no_undo() {
    let server = TestServer::start().await;
    let mut ann = named(&server, "ann").await;
    ask(&mut ann, "sokoban", PROMPT).await;
    let hint = ask(&mut ann, "/hint", PROMPT).await;
    assert!(hint.starts_with("Push the box at row "), "{hint}");
    assert_eq!(
        ask(&mut ann, "/set warnings on", PROMPT).await,
        "Warnings are on: a push that leaves a Sokoban level unsolvable is reported.\r\nEnter command: "
    );
    // Round the box at row 3, column 5 to its left, and push it against the right wall.
    for line in ["w3", "a2", "s1"] {
        let moved = ask(&mut ann, line, PROMPT).await;
        assert!(!moved.contains("can no longer"), "{moved}");
    }
    let pushed = ask(&mut ann, "d1", PROMPT).await;
    assert!(
        pushed.contains("That box can no longer reach a goal:"),
        "{pushed}"
    );
    assert!(pushed.contains("This game has no undo"), "{pushed}");
    let stuck = ask(&mut ann, "/hint", PROMPT).await;
    assert!(
        stuck.starts_with(
            "No solution from here: undo to the last safe position (1 move back).\r\n"
        ),
        "{stuck}"
    );
    // The game's own lines are untouched: an invalid line is still the seed's answer.
    assert!(ask(&mut ann, "x3", PROMPT)
        .await
        .starts_with("Invalid command\r\n"));
    server.shutdown().await;
}

#[tokio::test]
async fn solve_plays_the_solution_out_only_when_the_teacher_allows_it() {
    let server = TestServer::start().await;
    let mut ann = named(&server, "ann").await;
    ask(&mut ann, "starpusher arcade 3", PROMPT).await;
    let told = ask(&mut ann, "/solve", PROMPT).await;
    assert!(told.starts_with("At best "), "{told}");
    assert!(!told.contains("solved in"), "{told}");
    server.shutdown().await;

    let server = TestServer::start_with(Options {
        allow_solutions: true,
        ..Options::default()
    })
    .await;
    let mut ann = named(&server, "ann").await;
    ask(&mut ann, "starpusher arcade 3", PROMPT).await;
    let played = ask(&mut ann, "/solve", "Enter command: ").await;
    assert!(played.starts_with("The solver plays "), "{played}");
    let solved = if played.contains("Level 3 solved in") {
        played
    } else {
        ann.read_text_until(PROMPT).await
    };
    assert!(solved.contains("Level 3 solved in"), "{solved}");
    server.shutdown().await;
}

#[tokio::test]
async fn help_is_for_games_of_boxes_outside_races() {
    let server = TestServer::start().await;
    let mut ann = named(&server, "ann").await;
    assert_eq!(
        ask(&mut ann, "hint", "> ").await,
        "/hint and /solve help in sokoban and starpusher games.\r\n> "
    );
    ask(&mut ann, "2048 seed=1", PROMPT).await;
    assert_eq!(
        ask(&mut ann, "/solve", PROMPT).await,
        "/hint and /solve help in sokoban and starpusher games.\r\nEnter command: "
    );
    ask(&mut ann, "/leave", "> ").await;
    let mut bob = named(&server, "bob").await;
    ask(
        &mut ann,
        AROUND_THE_BEND
            .replacen("starpusher", "race starpusher", 1)
            .as_str(),
        "> ",
    )
    .await;
    ask(&mut bob, "join 1", "> ").await;
    ann.read_text_until("> ").await;
    ask(&mut ann, "start", "> ").await;
    ann.read_text_until(PROMPT).await;
    assert_eq!(
        ask(&mut ann, "/hint", PROMPT).await,
        "No help in a race: every racer plays on their own.\r\nEnter command: "
    );
    server.shutdown().await;
}
