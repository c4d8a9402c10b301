//! The teacher's web page in a real browser: headless Chromium driven by WebDriver
//! (tests/common/browser.rs), against a server started inside the test with
//! `--http-port`, while students play over TCP. The teacher logs in, sees the class
//! live, watches a student's board move, reads the leaderboard, downloads the results
//! and plays a recording; a visitor gets 403. Each page is saved under
//! `target/screenshots/web-*.png`.
//!
//! Without Chromium the test prints `skipped: ...`; under `CI=true` it fails
//! (`.ci/run` installs Debian's `chromium` and `chromium-driver`).

mod common;

use std::time::{Duration, Instant};

use arcade::server::Options;
use common::browser::Browser;
use common::{TestServer, BACK_OUT, TO_THE_GOLD};

/// How long the test waits for the page to show a change. The page itself looks
/// every 250 ms; the time each change took is printed, not asserted (timings stay out
/// of tests: docs/BENCHMARKS.md).
const WAIT: Duration = Duration::from_secs(5);

/// A pause in a recording, long enough to press the player's pause button inside it.
const RECORDED_PAUSE: Duration = Duration::from_secs(3);

/// The text of what `url` (a JavaScript expression) answers, fetched by the page, with
/// its cookies: what the teacher's browser downloads.
async fn fetch_text(browser: &Browser, url: &str) -> String {
    let text = browser
        .client()
        .execute(
            &format!("return fetch({url}).then(response => response.text());"),
            Vec::new(),
        )
        .await
        .expect("fetch in the page");
    text.as_str().expect("text").to_string()
}

/// The player's `data-state` once it is `wanted`.
async fn wait_for_state(browser: &Browser, wanted: &str) {
    let start = Instant::now();
    loop {
        let state = browser.attribute("#player", "data-state").await;
        if state.as_deref() == Some(wanted) {
            return;
        }
        assert!(start.elapsed() < WAIT, "the player stayed {state:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The player's `data-position` once it is `wanted`.
async fn wait_for_position(browser: &Browser, wanted: usize) {
    let start = Instant::now();
    loop {
        let position = browser.attribute("#player", "data-position").await;
        if position == Some(wanted.to_string()) {
            return;
        }
        assert!(start.elapsed() < WAIT, "the player stayed at {position:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A server with its web page and the admin `Teacher` logged in over telnet: the
/// server, the page's address and the teacher's connection.
async fn with_a_teacher() -> (TestServer, String, common::Client) {
    let server = TestServer::start_with(Options {
        http_port: Some(0),
        admin: vec![String::from("Teacher")],
        ..Options::default()
    })
    .await;
    let base = format!("http://{}", server.web_addr.expect("the web page is on"));
    let teacher = common::admin(&server, "Teacher", "secret-te").await;
    (server, base, teacher)
}

/// Log in on the page as the teacher.
async fn log_in(browser: &Browser, base: &str) {
    browser.goto(&format!("{base}/login")).await;
    browser.fill("#name", "Teacher").await;
    browser.fill("#password", "secret-te").await;
    browser.click("#log-in").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_teacher_sees_the_class_live_watches_a_board_and_downloads_the_results() {
    let Some(browser) = Browser::start().await else {
        return;
    };
    let (server, base, _teacher) = with_a_teacher().await;

    // A visitor: the public table, and 403 on an admin page.
    browser.goto(&format!("{base}/results.csv")).await;
    browser.wait_for_text("h1", "For admins only", WAIT).await;
    browser.screenshot("forbidden").await;
    let status: serde_json::Value = browser
        .client()
        .execute(
            "return fetch('/watch/anyone').then(response => response.status);",
            Vec::new(),
        )
        .await
        .expect("fetch in the page");
    assert_eq!(status, 403);

    // The teacher logs in through the form.
    log_in(&browser, &base).await;
    browser
        .wait_for_text("#status", "1 player online.", WAIT)
        .await;
    browser.wait_for_text("nav", "Log out Teacher", WAIT).await;

    // A student enters a game: the row appears, without a reload.
    let mut ann = common::named(&server, "ann").await;
    ann.send("play sokoban classic").await;
    ann.read_text_until("Enter command: ").await;
    let entered = Instant::now();
    let row = browser
        .wait_for_text("#sessions tbody", "sokoban classic", WAIT)
        .await;
    println!(
        "the row appeared {:?} after the game started",
        entered.elapsed()
    );
    assert!(row.contains("ann"), "{row}");
    // The place and the game's progress are two fields set a moment apart (the place
    // as the game starts, the progress just before its board is sent), so a look at
    // the table can fall between them: the progress is waited for too.
    let row = browser
        .wait_for_text("#sessions tbody", "0/2 boxes, 0 moves", WAIT)
        .await;
    assert!(row.contains("ann"), "{row}");
    ann.send("w1").await;
    ann.read_text_until("Enter command: ").await;
    browser
        .wait_for_text("#sessions tbody", "0/2 boxes, 1 move", WAIT)
        .await;
    browser.screenshot("live").await;

    // The teacher watches ann's board; a move over TCP shows in the page.
    browser.click("#sessions a[href='/watch/ann']").await;
    browser.wait_for_text("#status", "Live.", WAIT).await;
    browser.wait_for_text("#screen", "#######", WAIT).await;
    ann.send("s1").await;
    let moved = ann.read_text_until("Enter command: ").await;
    let board: String = moved
        .replace("\r\n", "\n")
        .trim_end_matches("Enter command: ")
        .trim_end()
        .to_string();
    let sent = Instant::now();
    let screen = browser.wait_for_text("#screen", &board, WAIT).await;
    println!("the move showed {:?} after its reply", sent.elapsed());
    assert!(screen.trim_end().ends_with("Enter command:"), "{screen}");
    browser.screenshot("watch").await;
    // Leaving the board's page stops watching: `who` counts no watcher again.
    browser.goto(&format!("{base}/top")).await;
    let left = Instant::now();
    loop {
        let watchers = server
            .registry
            .who()
            .into_iter()
            .find(|line| line.name.as_str() == "ann")
            .map(|line| line.watchers);
        if watchers == Some(0) {
            break;
        }
        assert!(left.elapsed() < WAIT, "ann is still watched: {watchers:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    println!(
        "watching stopped {:?} after the page was left",
        left.elapsed()
    );

    // A registered student finishes a game: the leaderboard and the CSV have it.
    // A pause the recording keeps, for the player's pause button below.
    let mut bob = common::won_wumpus(&server, "bob", "secret-bob", RECORDED_PAUSE).await;
    browser.goto(&format!("{base}/top")).await;
    browser.click("a[href='/top/wumpus/classic']").await;
    let top = browser
        .wait_for_text("table.leaderboard", "bob", WAIT)
        .await;
    assert!(top.contains("bob 1 18"), "{top}");
    browser.screenshot("top").await;
    let csv = fetch_text(&browser, "'/results.csv?since=2020-01-01'").await;
    assert!(
        csv.starts_with(
            "player,game,level,outcome,moves,pushes,score,seconds,finished_at,recording_id,race_id,hints_used\r\n"
        ),
        "{csv}"
    );
    assert!(csv.contains("\r\nbob,wumpus,classic,won,18,0,0,"), "{csv}");

    // bob's recording plays in the page, to its end.
    bob.send("recordings bob").await;
    let list = bob.read_text_until("> ").await;
    let id = list
        .lines()
        .find(|line| line.contains("wumpus"))
        .and_then(|line| line.split_whitespace().next())
        .unwrap_or_else(|| panic!("{list}"))
        .to_string();
    browser.goto(&format!("{base}/recordings/{id}")).await;
    // The start, then each line typed and what it got: 2 outputs a line.
    let outputs = 1 + 2 * (TO_THE_GOLD.len() + BACK_OUT.len() + 1);
    browser
        .wait_for_text(
            "#screen",
            "You are out with the gold.",
            WAIT + RECORDED_PAUSE,
        )
        .await;
    wait_for_state(&browser, "ended").await;
    let position = browser.text_of("#position").await;
    assert_eq!(position, format!("{outputs} / {outputs}"));
    browser.screenshot("recording").await;
    // From the start again, paused in the recorded pause before `climb`: it stays.
    browser.click("#restart").await;
    wait_for_position(&browser, outputs - 2).await;
    browser.click("#play").await;
    wait_for_state(&browser, "paused").await;
    tokio::time::sleep(RECORDED_PAUSE + Duration::from_millis(500)).await;
    assert_eq!(
        browser.attribute("#player", "data-position").await,
        Some((outputs - 2).to_string())
    );
    browser.click("#play").await;
    wait_for_state(&browser, "ended").await;
    // The download link is the asciicast file.
    let cast = fetch_text(&browser, "document.getElementById('download').href").await;
    let header: serde_json::Value =
        serde_json::from_str(cast.lines().next().expect("a header")).expect("JSON");
    assert_eq!(header["version"], 2, "{cast}");
    assert_eq!(
        browser.attribute("#download", "download").await.as_deref(),
        Some(format!("arcade-{id}.cast").as_str())
    );

    // The admin's forms: a broadcast reaches the class, and says so on the page.
    browser.goto(&format!("{base}/")).await;
    browser.fill("#broadcast-text", "Hand in by 3pm").await;
    browser.click("#broadcast button").await;
    browser
        .wait_for_text("#notice", "Sent to 3 players.", WAIT)
        .await;
    let heard = ann.read_text_until("Hand in by 3pm").await;
    assert!(
        heard.ends_with("[Teacher to everyone] Hand in by 3pm"),
        "{heard}"
    );
    browser.screenshot("broadcast").await;

    browser.close().await;
    server.shutdown().await;
}

/// Where the element `css` and the screen's box are in the window, and the window's
/// height, as the browser lays them out: `[top, bottom]` of each, then the height,
/// then how high the box's content is and how high the box.
async fn layout_of(browser: &Browser, css: &str) -> Vec<f64> {
    let script = format!(
        "const e = document.querySelector({css:?}).getBoundingClientRect();
         const box = document.getElementById('screen');
         const s = box.getBoundingClientRect();
         return [e.top, e.bottom, s.top, s.bottom, window.innerHeight,
                 box.scrollHeight, box.clientHeight];"
    );
    let value = browser
        .client()
        .execute(&script, Vec::new())
        .await
        .expect("measure in the page");
    value
        .as_array()
        .expect("numbers")
        .iter()
        .map(|number| number.as_f64().expect("a number"))
        .collect()
}

/// The element `css` lies inside the screen's box, which lies inside the window; and
/// the box holds more than it shows (so that staying in view was tested).
fn assert_in_view(css: &str, layout: &[f64]) {
    let [top, bottom, box_top, box_bottom, window, content, shown] = layout else {
        panic!("{layout:?}");
    };
    assert!(content > shown, "the box never scrolled: {layout:?}");
    assert!(
        *top >= box_top - 1.0 && *bottom <= box_bottom + 1.0,
        "{css} is out of its box: {layout:?}"
    );
    assert!(
        *box_top >= 0.0 && *box_bottom <= *window,
        "the box is out of the window: {layout:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_board_stays_in_view_at_1280x900_and_the_admin_runs_a_race_by_clicks() {
    let Some(browser) = Browser::start().await else {
        return;
    };
    browser
        .client()
        .set_window_size(1280, 900)
        .await
        .expect("a 1280x900 window");
    let (server, base, _teacher) = with_a_teacher().await;
    log_in(&browser, &base).await;
    browser.wait_for_text("nav", "Log out Teacher", WAIT).await;

    // A long game: far more screens than the box shows; the latest stays in view.
    let mut ann = common::named(&server, "ann").await;
    ann.send("play sokoban classic").await;
    ann.read_text_until("Enter command: ").await;
    browser.goto(&format!("{base}/watch/ann")).await;
    browser.wait_for_text("#status", "Live.", WAIT).await;
    for step in 0..20 {
        ann.send(if step % 2 == 0 { "w1" } else { "s1" }).await;
        ann.read_text_until("Enter command: ").await;
    }
    ann.send("x9").await;
    ann.read_text_until("Enter command: ").await;
    let current = browser
        .wait_for_text("#current", "Invalid command", WAIT)
        .await;
    assert!(current.contains("#######"), "{current}");
    assert_in_view("#current", &layout_of(&browser, "#current").await);
    browser.screenshot("watch-1280x900").await;
    ann.send("e").await;
    ann.read_text_until("> ").await;

    // The same in a recording played back: ann's game, to its end.
    let list = common::eventually(&mut ann, "recordings ann", "sokoban").await;
    let id = list
        .lines()
        .find(|line| line.contains("sokoban"))
        .and_then(|line| line.split_whitespace().next())
        .unwrap_or_else(|| panic!("{list}"))
        .to_string();
    browser.goto(&format!("{base}/recordings/{id}")).await;
    wait_for_state(&browser, "ended").await;
    assert_in_view("#current", &layout_of(&browser, "#current").await);
    browser.screenshot("recording-1280x900").await;

    // A race for the class, opened and started by clicks; bob is invited and races.
    browser.goto(&format!("{base}/")).await;
    browser.fill("#race-args", "classic").await;
    browser.click("#race button").await;
    let notice = browser
        .wait_for_text("#notice", "is open: sokoban classic", WAIT)
        .await;
    let invite = ann.read_text_until("> ").await;
    assert!(
        invite.contains("Teacher invites you to race sokoban classic"),
        "{invite}"
    );
    let race = notice
        .strip_prefix("Race ")
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_else(|| panic!("{notice}"))
        .to_string();
    ann.send(&format!("join {race}")).await;
    ann.read_text_until("> ").await;
    let races = browser.wait_for_text("#races", "1. ann", WAIT).await;
    assert!(races.contains("Host: Teacher"), "{races}");
    browser.screenshot("race-open").await;
    // The page was drawn before ann joined: its start button is there.
    browser.click("#start button").await;
    browser
        .wait_for_text("#notice", &format!("Race {race} starts now."), WAIT)
        .await;
    let go = ann.read_text_until("Enter command: ").await;
    assert!(go.contains(&format!("Race {race}: go!")), "{go}");
    browser.wait_for_text("#races", "running for", WAIT).await;
    browser.click("#reload button").await;
    browser
        .wait_for_text("#notice", "Levels reloaded:", WAIT)
        .await;
    browser.screenshot("race-running").await;

    browser.close().await;
    server.shutdown().await;
}

/// How long an open ladder's page may take to show a new result by itself: its
/// refresh (5 s), the table's sharing (2 s) and the replay that checks the result.
const LADDER_WAIT: Duration = Duration::from_secs(40);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_ladders_page_loads_itself_again_with_new_results() {
    let Some(browser) = Browser::start().await else {
        return;
    };
    let (server, base, mut teacher) = with_a_teacher().await;
    teacher.send("ladder open wumpus seeds=1-1").await;
    let opened = teacher.read_text_until("> ").await;
    assert!(opened.contains("Ladder 1 is open"), "{opened}");

    // A visitor finds it from the menu, then only waits.
    browser.goto(&base).await;
    browser.click("nav a[href='/ladders']").await;
    browser.click("#open a[href='/ladders/1']").await;
    browser
        .wait_for_text("h1", "Ladder 1: wumpus, seeds 1-1", WAIT)
        .await;
    browser
        .wait_for_text("#no-entrants", "No entrant yet", WAIT)
        .await;

    // ann plays the seed by hand: out at once, -1.
    let mut ann = common::named(&server, "ann").await;
    ann.send("ladder enter 1").await;
    ann.read_text_until("Enter command: ").await;
    ann.send("climb").await;
    let done = ann.read_text_until("> ").await;
    assert!(
        done.contains("You have played every seed of ladder 1"),
        "{done}"
    );
    // The page shows ann's row, counted once replayed, without being opened again.
    let started = Instant::now();
    let table = browser
        .wait_for_text("#table tbody", "1 ann 1/1 -1.0", LADDER_WAIT)
        .await;
    println!(
        "ann's row counted on the page {:?} after",
        started.elapsed()
    );
    assert!(table.contains("kb (built-in)"), "{table}");
    browser.screenshot("ladder").await;

    browser.close().await;
    server.shutdown().await;
}
