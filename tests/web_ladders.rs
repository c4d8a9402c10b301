//! The ladders on the teacher's web page over real HTTP (SPEC sections 11 and 12),
//! against a server started inside the test with `--http-port`: an admin opens a
//! ladder over telnet, two bots play it, and `/ladders` lists it, `/ladders/N` shows
//! the same numbers as telnet's `ladder N` (with watch links for the admin while a
//! bot plays), `/ladders/N.csv` has every seed and every agent's score, and an
//! unknown ladder is a 404.
//!
//! Entrants' names are `[A-Za-z0-9_-]`, so no name can carry what HTML must escape:
//! the escaping of the table's names is checked on the rendered rows in
//! `src/web/ladders.rs`'s tests (a `<b>` name becomes text), as `top.rs` checks its.

mod common;

use std::time::Duration;

use arcade::server::Options;
use common::bot::Bot;
use common::http::{browser, get};
use common::{Client, TestServer};
use reqwest::StatusCode;
use serde_json::{json, Value};

/// How long the test waits for the page to show what telnet shows: a table is read
/// again at most every 2 s, and the replays that check results run every few.
const PATIENCE: Duration = Duration::from_secs(30);

/// A server with its web page on, and `Teacher` as its admin, logged in over telnet.
async fn server() -> (TestServer, String, Client) {
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

async fn ask(client: &mut Client, line: &str) -> String {
    client.send(line).await;
    client.read_text_until("> ").await
}

/// Play the seed whose state has just come: `actions`, one state each; the last
/// state, which ends the seed.
async fn play(bot: &mut Bot, actions: &[&str]) -> Value {
    let mut last = Value::Null;
    for action in actions {
        bot.send(json!({ "action": action })).await;
        last = bot.state(&mut Vec::new()).await;
    }
    assert_eq!(last["done"], true, "{last}");
    last
}

/// `ladder N` once every entrant's results are checked and every built-in agent has
/// played every one of the `seeds`.
async fn settled_table(teacher: &mut Client, id: u32, seeds: u32) -> String {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let table = ask(teacher, &format!("ladder {id}")).await;
        let rows: Vec<&str> = table.lines().skip(2).collect();
        let entrants_checked = rows
            .iter()
            .filter(|line| line.trim_start().starts_with(|c: char| c.is_ascii_digit()))
            .all(|line| line.trim_end().ends_with(" 0"));
        let agents: Vec<&&str> = rows
            .iter()
            .filter(|line| line.contains("(built-in)"))
            .collect();
        let agents_done = !agents.is_empty()
            && agents
                .iter()
                .all(|line| line.contains(&format!(" {seeds}/{seeds} ")));
        if entrants_checked && agents_done {
            return table;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "ladder {id} did not settle: {table}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// A row of telnet's table: what follows `label` (`climber-bot [bot]`,
/// `kb (built-in)`): seeds, mean, wins, vs best, waiting.
fn telnet_numbers(table: &str, label: &str) -> Vec<String> {
    let line = table
        .lines()
        .find(|line| line.contains(label))
        .unwrap_or_else(|| panic!("no {label} in {table}"));
    let (_, rest) = line.split_once(label).expect("the label");
    rest.split_whitespace().map(str::to_string).collect()
}

/// A row of the page's table: the cells after the one that is `label`: seeds, mean,
/// wins, vs best, waiting, refused (and the admin's watch cell).
fn page_numbers(page: &str, label: &str) -> Option<Vec<String>> {
    let cell = format!("<td class=\"entrant\">{label}</td>");
    let (_, rest) = page.split_once(&cell)?;
    let (row, _) = rest.split_once("</tr>")?;
    Some(
        row.split("</td>")
            .filter_map(|cell| cell.split_once("<td>").map(|(_, text)| text.to_string()))
            .collect(),
    )
}

/// The page of `url` once `done` says it shows what is waited for.
async fn page_when(client: &reqwest::Client, url: &str, done: impl Fn(&str) -> bool) -> String {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let (status, page) = get(client, url).await;
        assert_eq!(status, StatusCode::OK, "{url}: {page}");
        if done(&page) {
            return page;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{url} never showed it: {page}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test]
async fn a_ladder_is_listed_ranked_as_on_telnet_watched_and_exported() {
    let (server, base, mut teacher) = server().await;
    let anyone = browser();
    let admin = browser();
    let response = admin
        .post(format!("{base}/login"))
        .form(&[("name", "Teacher"), ("password", "secret-te")])
        .send()
        .await
        .expect("POST /login");
    assert_eq!(response.status(), StatusCode::SEE_OTHER);

    // Before any ladder: the list says how one is opened; the menu links to it.
    let (status, page) = get(&anyone, &format!("{base}/ladders")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains("No ladder is open."), "{page}");
    let (_, home) = get(&anyone, &format!("{base}/")).await;
    assert!(home.contains("<a href=\"/ladders\">Ladders</a>"), "{home}");

    let opened = ask(&mut teacher, "ladder open wumpus seeds=1-3 humans off").await;
    assert!(opened.contains("Ladder 1 is open"), "{opened}");
    let listed = ask(&mut teacher, "ladders").await;
    let heading = listed
        .lines()
        .find_map(|line| line.trim().strip_prefix("Ladder 1: ").map(str::to_string))
        .unwrap_or_else(|| panic!("no ladder 1 in {listed}"));
    let (_, page) = get(&anyone, &format!("{base}/ladders")).await;
    assert!(
        page.contains(&format!(
            "<ul id=\"open\"><li><a href=\"/ladders/1\">Ladder 1: {heading}</a></li></ul>"
        )),
        "{heading}: {page}"
    );

    // The first bot climbs out at once on every seed (1 action, -1 each).
    let mut climber = Bot::welcomed(server.addr, "climber-bot").await;
    climber.send(json!({"command": "ladder enter 1"})).await;
    for _ in 1..=3 {
        climber.state(&mut Vec::new()).await;
        play(&mut climber, &["climb"]).await;
    }
    // The second turns first (2 actions, -2 each), and stops in its second seed's
    // game while the page is looked at: an admin can watch it from its row.
    let mut turner = Bot::welcomed(server.addr, "turner-bot").await;
    turner.send(json!({"command": "ladder enter 1"})).await;
    turner.state(&mut Vec::new()).await;
    play(&mut turner, &["left", "climb"]).await;
    let second = turner.state(&mut Vec::new()).await;
    assert_eq!(second["seed"], 2, "{second}");
    let url = format!("{base}/ladders/1");
    let watched = page_when(&admin, &url, |page| {
        page_numbers(page, "turner-bot [bot]").is_some()
    })
    .await;
    let turner_row = page_numbers(&watched, "turner-bot [bot]").expect("the row");
    assert_eq!(
        turner_row.last().map(String::as_str),
        Some("<a href=\"/watch/turner-bot\">watch</a>"),
        "{watched}"
    );
    // The climber has finished: no link; a visitor sees none at all.
    let climber_row = page_numbers(&watched, "climber-bot [bot]").expect("the row");
    assert_eq!(
        climber_row.last().map(String::as_str),
        Some(""),
        "{watched}"
    );
    assert!(watched.contains("href=\"/ladders/1.csv\""), "{watched}");
    let (_, visitor) = get(&anyone, &url).await;
    assert!(
        !visitor.contains("/watch/") && !visitor.contains(".csv"),
        "{visitor}"
    );
    // Open, it refreshes itself.
    assert!(
        visitor.contains("<meta http-equiv=\"refresh\" content=\"5\">"),
        "{visitor}"
    );
    play(&mut turner, &["left", "climb"]).await;
    let third = turner.state(&mut Vec::new()).await;
    assert_eq!(third["seed"], 3, "{third}");
    play(&mut turner, &["left", "climb"]).await;

    // The page's numbers are telnet's, once the same results are checked.
    let table = settled_table(&mut teacher, 1, 3).await;
    let labels: Vec<String> = table
        .lines()
        .skip(2)
        .filter_map(|line| {
            let line = line.trim_start();
            let (_, rest) = line.split_once("  ")?;
            let label = rest.trim_start();
            let end = label
                .find("[bot]")
                .map(|at| at + 5)
                .or_else(|| label.find("(built-in)").map(|at| at + "(built-in)".len()))?;
            Some(label[..end].to_string())
        })
        .collect();
    assert!(labels.len() >= 3, "{table}");
    let page = page_when(&anyone, &url, |page| {
        labels.iter().all(|label| {
            page_numbers(page, label).is_some_and(|cells| {
                cells.len() >= 5 && cells[..5] == telnet_numbers(&table, label)[..5]
            })
        })
    })
    .await;
    // The climber's -1.0 beats the turner's -2.0; the ranking is telnet's.
    assert_eq!(
        page_numbers(&page, "climber-bot [bot]").expect("row")[1],
        "-1.0"
    );
    let places: Vec<usize> = labels
        .iter()
        .map(|label| page.find(&format!(">{label}<")).expect("shown"))
        .collect();
    assert!(places.windows(2).all(|pair| pair[0] < pair[1]), "{page}");

    // The CSV: the admin's only, every seed of every entrant and every agent's score.
    let (status, _) = get(&anyone, &format!("{base}/ladders/1.csv")).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let response = admin
        .get(format!("{base}/ladders/1.csv"))
        .send()
        .await
        .expect("GET the CSV");
    assert_eq!(response.status(), StatusCode::OK);
    let header_of = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default()
            .to_string()
    };
    assert!(header_of("content-type").starts_with("text/csv"));
    assert!(
        header_of("content-disposition").contains("filename=\"arcade-ladder-1.csv\""),
        "{}",
        header_of("content-disposition")
    );
    let text = response.text().await.expect("the CSV");
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .expect("a header")
        .iter()
        .map(str::to_string)
        .collect();
    assert_eq!(
        header,
        [
            "ladder",
            "entrant",
            "bot",
            "seed",
            "score",
            "moves",
            "outcome",
            "standing",
            "best_agent",
            "best_agent_score",
            "difference",
            "recording_id",
            "finished_at"
        ]
    );
    let rows: Vec<csv::StringRecord> = reader
        .records()
        .map(|row| row.expect("a CSV row"))
        .collect();
    let agents = labels
        .iter()
        .filter(|label| label.ends_with("(built-in)"))
        .count();
    assert_eq!(rows.len(), 2 * 3 + agents * 3, "{text}");
    for row in &rows {
        let (score, best, difference) = (&row[4], &row[9], &row[10]);
        let number = |text: &str| text.parse::<i64>().unwrap_or_else(|_| panic!("{text}"));
        assert_eq!(number(difference), number(score) - number(best), "{text}");
        match &row[1] {
            "climber-bot" | "turner-bot" => {
                assert_eq!((&row[2], &row[7]), ("yes", "counted"), "{text}");
                assert!(row[11].parse::<i64>().is_ok(), "{text}");
                assert!(row[12].ends_with('Z'), "{text}");
            }
            agent => {
                assert!(labels.contains(&format!("{agent} (built-in)")), "{text}");
                assert_eq!(&row[7], "built-in", "{text}");
            }
        }
    }
    let climbs: Vec<&csv::StringRecord> =
        rows.iter().filter(|row| &row[1] == "climber-bot").collect();
    assert_eq!(climbs.len(), 3, "{text}");
    assert!(climbs.iter().all(|row| &row[4] == "-1"), "{text}");

    // Unknown ladders are 404s that say so.
    for path in [
        "/ladders/99",
        "/ladders/zero",
        "/ladders/0",
        "/ladders/99.csv",
    ] {
        let (status, page) = get(&admin, &format!("{base}{path}")).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        assert!(page.contains("No such ladder"), "{path}: {page}");
    }
    let (_, page) = get(&anyone, &format!("{base}/ladders/99")).await;
    assert!(page.contains("There is no ladder 99"), "{page}");

    // Closed: listed under closed, and the page no longer refreshes itself.
    ask(&mut teacher, "ladder close 1").await;
    let (_, list) = get(&anyone, &format!("{base}/ladders")).await;
    assert!(
        list.contains("<ul id=\"closed\"><li><a href=\"/ladders/1\">")
            && list.contains("No ladder is open."),
        "{list}"
    );
    let closed = page_when(&anyone, &url, |page| page.contains(", closed</h1>")).await;
    assert!(!closed.contains("http-equiv=\"refresh\""), "{closed}");
    server.shutdown().await;
}
