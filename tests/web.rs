//! The teacher's web page over real HTTP (SPEC section 11), against a server started
//! inside the test with `--http-port`: every page and its refusals, the admin's login,
//! CSRF-checked forms, the results CSV, recordings, `/metrics` and `/healthz`. The
//! same scenarios in a real browser are in tests/web_browser.rs.

mod common;

use std::time::Duration;

use arcade::server::Options;
use common::http::{browser, get};
use common::TestServer;
use reqwest::StatusCode;

/// A server with its web page on, and `Teacher` as its admin.
async fn server() -> TestServer {
    TestServer::start_with(Options {
        http_port: Some(0),
        admin: vec![String::from("Teacher")],
        ..Options::default()
    })
    .await
}

fn base(server: &TestServer) -> String {
    format!("http://{}", server.web_addr.expect("the web page is on"))
}

/// The CSRF token in a page's forms.
fn csrf(page: &str) -> String {
    let (_, rest) = page
        .split_once("name=\"csrf\" value=\"")
        .unwrap_or_else(|| panic!("no CSRF token in {page}"));
    rest.split('"').next().expect("token").to_string()
}

/// Log `name` in through the form; the client keeps the cookie.
async fn log_in(client: &reqwest::Client, base: &str, name: &str, password: &str) -> StatusCode {
    let response = client
        .post(format!("{base}/login"))
        .form(&[("name", name), ("password", password)])
        .send()
        .await
        .expect("POST /login");
    response.status()
}

#[tokio::test]
async fn admin_pages_refuse_everyone_else_with_403() {
    let server = server().await;
    let base = base(&server);
    let anyone = browser();
    let (status, page) = get(&anyone, &format!("{base}/")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains("<table id=\"sessions\">"), "{page}");
    assert!(!page.contains("/admin/broadcast"), "{page}");
    for path in ["/results.csv", "/watch/ann", "/watch/ann/events"] {
        let (status, page) = get(&anyone, &format!("{base}{path}")).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{path}");
        assert!(page.contains("For admins only"), "{path}: {page}");
    }
    for path in ["/admin/broadcast", "/admin/kick", "/logout"] {
        let response = anyone
            .post(format!("{base}{path}"))
            .form(&[("csrf", "x"), ("text", "hi"), ("name", "ann")])
            .send()
            .await
            .expect("POST");
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{path}");
    }

    // A registered player who is not an admin cannot log in.
    let _student = common::registered(server.addr, "Student", "secret-st").await;
    assert_eq!(
        log_in(&anyone, &base, "Student", "secret-st").await,
        StatusCode::FORBIDDEN
    );
    let (status, _) = get(&anyone, &format!("{base}/results.csv")).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    // Nor can the admin's name with a wrong password.
    let _teacher = common::admin(&server, "Teacher", "secret-te").await;
    assert_eq!(
        log_in(&anyone, &base, "Teacher", "wrong-one").await,
        StatusCode::UNAUTHORIZED
    );
    let (status, _) = get(&anyone, &format!("{base}/results.csv")).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    server.shutdown().await;
}

#[tokio::test]
async fn the_admin_logs_in_broadcasts_and_kicks_with_csrf_checked_forms() {
    let server = server().await;
    let base = base(&server);
    let _teacher = common::admin(&server, "Teacher", "secret-te").await;
    let mut ann = common::named(&server, "ann").await;
    let mut bob = common::named(&server, "bob").await;

    let admin = browser();
    let response = admin
        .post(format!("{base}/login"))
        .form(&[("name", "teacher"), ("password", "secret-te")])
        .send()
        .await
        .expect("POST /login");
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let cookie = response
        .headers()
        .get("set-cookie")
        .expect("a session cookie")
        .to_str()
        .expect("ASCII")
        .to_string();
    assert!(cookie.starts_with("arcade_admin="), "{cookie}");
    assert!(cookie.contains("HttpOnly"), "{cookie}");
    assert!(cookie.contains("SameSite=Strict"), "{cookie}");

    let (status, page) = get(&admin, &format!("{base}/")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains("Log out Teacher"), "{page}");
    let token = csrf(&page);

    // Without the form's token, nothing is sent.
    let forged = admin
        .post(format!("{base}/admin/broadcast"))
        .form(&[("csrf", "0123"), ("text", "forged")])
        .send()
        .await
        .expect("POST");
    assert_eq!(forged.status(), StatusCode::FORBIDDEN);

    let sent = admin
        .post(format!("{base}/admin/broadcast"))
        .form(&[("csrf", token.as_str()), ("text", "Hand in by 3pm\x1b[2J")])
        .send()
        .await
        .expect("POST");
    assert_eq!(sent.status(), StatusCode::SEE_OTHER);
    // Control characters never reach a terminal.
    assert_eq!(
        ann.read_text_until("> ").await,
        "\r\n[Teacher to everyone] Hand in by 3pm[2J\r\n> "
    );
    let (_, page) = get(&admin, &format!("{base}/")).await;
    assert!(page.contains("Sent to 3 players."), "{page}");

    let kicked = admin
        .post(format!("{base}/admin/kick"))
        .form(&[
            ("csrf", token.as_str()),
            ("name", "BOB"),
            ("why", "time is up"),
        ])
        .send()
        .await
        .expect("POST");
    assert_eq!(kicked.status(), StatusCode::SEE_OTHER);
    assert!(bob
        .read_to_end()
        .await
        .ends_with("You were disconnected by Teacher: time is up.\r\n"));
    let (_, page) = get(&admin, &format!("{base}/")).await;
    assert!(page.contains("bob is disconnected."), "{page}");

    // Logged out: admin pages refuse again.
    let out = admin
        .post(format!("{base}/logout"))
        .form(&[("csrf", token.as_str())])
        .send()
        .await
        .expect("POST");
    assert_eq!(out.status(), StatusCode::SEE_OTHER);
    let (status, _) = get(&admin, &format!("{base}/results.csv")).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    server.shutdown().await;
}

#[tokio::test]
async fn results_leaderboards_recordings_and_metrics() {
    let server = server().await;
    let base = base(&server);
    let _teacher = common::admin(&server, "Teacher", "secret-te").await;
    let mut ann = common::won_wumpus(&server, "ann", "secret-pw", Duration::ZERO).await;
    ann.send("say done").await;
    ann.read_text_until("> ").await;

    // Leaderboards are public.
    let anyone = browser();
    let (status, page) = get(&anyone, &format!("{base}/top")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains("href=\"/top/wumpus/classic\""), "{page}");
    let (status, page) = get(&anyone, &format!("{base}/top/wumpus/classic")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        page.contains("<td>1</td><td>ann</td><td>1</td><td>18</td>"),
        "{page}"
    );
    let (status, _) = get(&anyone, &format!("{base}/top/chess/x")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // The CSV, for the admin.
    let admin = browser();
    assert_eq!(
        log_in(&admin, &base, "Teacher", "secret-te").await,
        StatusCode::SEE_OTHER
    );
    let response = admin
        .get(format!("{base}/results.csv?since=2020-01-01"))
        .send()
        .await
        .expect("GET");
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        response.headers()["content-type"],
        "text/csv; charset=utf-8"
    );
    let csv = response.text().await.expect("CSV");
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "player,game,level,outcome,moves,pushes,score,seconds,finished_at,recording_id,race_id,hints_used"
    );
    assert_eq!(lines.len(), 2, "{csv}");
    assert!(
        lines[1].starts_with("ann,wumpus,classic,won,18,0,0,"),
        "{csv}"
    );
    let finished = lines[1].split(',').nth(8).expect("finished_at");
    assert!(
        finished.starts_with("20") && finished.ends_with('Z'),
        "{finished}"
    );
    // Since a later day: nothing; a bad date: why.
    let (status, csv) = get(&admin, &format!("{base}/results.csv?since=2999-01-01")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(csv.lines().count(), 1, "{csv}");
    let (status, why) = get(&admin, &format!("{base}/results.csv?since=monday")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(why.contains("2026-11-23"), "{why}");

    // The recording: its page, and its asciicast file.
    ann.send("recordings ann").await;
    let list = ann.read_text_until("> ").await;
    let id: i64 = list
        .lines()
        .find(|line| line.contains("wumpus"))
        .and_then(|line| line.split_whitespace().next())
        .and_then(|id| id.parse().ok())
        .unwrap_or_else(|| panic!("{list}"));
    let (status, page) = get(&anyone, &format!("{base}/recordings/{id}")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        page.contains(&format!("data-cast=\"/recordings/{id}.cast\"")),
        "{page}"
    );
    assert!(page.contains("ann playing wumpus"), "{page}");
    let response = anyone
        .get(format!("{base}/recordings/{id}.cast"))
        .send()
        .await
        .expect("GET");
    assert_eq!(response.status(), StatusCode::OK);
    assert!(response.headers()["content-disposition"]
        .to_str()
        .expect("ASCII")
        .starts_with("attachment"));
    let cast = response.text().await.expect("cast");
    let header: serde_json::Value =
        serde_json::from_str(cast.lines().next().expect("header")).expect("JSON header");
    assert_eq!(header["version"], 2);
    assert!(cast.contains("You are out with the gold."), "{cast}");
    let (status, _) = get(&anyone, &format!("{base}/recordings/99999")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // Metrics and health, as Docker's HEALTHCHECK asks (`arcade healthcheck`).
    let (status, ok) = get(&anyone, &format!("{base}/healthz")).await;
    assert_eq!((status, ok.as_str()), (StatusCode::OK, "ok\n"));
    let web_addr = server.web_addr.expect("web page");
    let checked = tokio::task::spawn_blocking(move || {
        arcade::web::check_health(web_addr, Duration::from_secs(5))
    })
    .await
    .expect("the check runs");
    assert!(checked.is_ok(), "{checked:?}");
    // The game's port is not the web page: not healthy.
    let game_addr = server.addr;
    let checked = tokio::task::spawn_blocking(move || {
        arcade::web::check_health(game_addr, Duration::from_millis(500))
    })
    .await
    .expect("the check runs");
    assert!(checked.is_err(), "{checked:?}");
    let (status, metrics) = get(&anyone, &format!("{base}/metrics")).await;
    assert_eq!(status, StatusCode::OK);
    let commands = sample(&metrics, "arcade_commands_total");
    assert!(commands >= 20.0, "{metrics}");
    assert_eq!(sample(&metrics, "arcade_chat_lines_total"), 1.0);
    assert_eq!(
        sample(&metrics, "arcade_sessions{game=\"\",place=\"lobby\"}"),
        2.0,
        "{metrics}"
    );
    assert!(
        sample(&metrics, "arcade_store_writes_total") > 0.0,
        "{metrics}"
    );
    assert_eq!(
        sample(&metrics, "arcade_command_seconds_count"),
        commands,
        "{metrics}"
    );
    check_with_promtool(&metrics);
    server.shutdown().await;
}

/// The value of the sample named `name` (with its labels, as written).
fn sample(metrics: &str, name: &str) -> f64 {
    metrics
        .lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(' '))
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or_else(|| panic!("no sample {name} in\n{metrics}"))
}

/// Prometheus' own checker, `promtool check metrics`, reads the text (Debian's
/// `prometheus` package; `.ci/run` installs it).
fn check_with_promtool(metrics: &str) {
    use std::io::Write as _;
    let Some(promtool) = common::program("promtool", "prometheus") else {
        return;
    };
    let mut child = std::process::Command::new(promtool)
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run promtool");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(metrics.as_bytes())
        .expect("write to promtool");
    let output = child.wait_with_output().expect("promtool's answer");
    assert!(
        output.status.success(),
        "promtool check metrics: {}{}\n{metrics}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[tokio::test]
async fn the_live_table_and_a_watched_board_stream_as_events() {
    let server = server().await;
    let base = base(&server);
    let _teacher = common::admin(&server, "Teacher", "secret-te").await;
    let admin = browser();
    assert_eq!(
        log_in(&admin, &base, "Teacher", "secret-te").await,
        StatusCode::SEE_OTHER
    );
    let mut table = Events::open(&admin, &format!("{base}/events")).await;
    let first = table.next("sessions").await;
    let snapshot: serde_json::Value = serde_json::from_str(&first).expect("JSON");
    assert_eq!(snapshot["total"], 1, "{first}");

    // A player enters a game: the row appears, with where and how far.
    let mut ann = common::named(&server, "ann").await;
    ann.send("play sokoban classic").await;
    ann.read_text_until("Enter command: ").await;
    ann.send("w1").await;
    ann.read_text_until("Enter command: ").await;
    let row = table
        .until("sessions", |json| {
            json.contains("\"progress\":\"0/2 boxes, 1 move\"")
        })
        .await;
    let snapshot: serde_json::Value = serde_json::from_str(&row).expect("JSON");
    let ann_row = snapshot["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|row| row["name"] == "ann")
        .unwrap_or_else(|| panic!("{row}"));
    assert_eq!(ann_row["place"], "sokoban classic");
    assert_eq!(ann_row["game"], "sokoban");
    assert_eq!(ann_row["level"], "classic");
    assert_eq!(ann_row["playing"], true);

    // The admin watches the board: the current one at once, then every move.
    let mut board = Events::open(&admin, &format!("{base}/watch/ann/events")).await;
    let frame: String = serde_json::from_str(&board.next("frame").await).expect("JSON");
    assert!(frame.contains('#'), "{frame}");
    let table_row = table
        .until("sessions", |json| json.contains("\"watchers\":1"))
        .await;
    assert!(table_row.contains("\"name\":\"ann\""), "{table_row}");
    ann.send("s1").await;
    let moved = ann.read_text_until("Enter command: ").await;
    let frame: String = serde_json::from_str(&board.next("frame").await).expect("JSON");
    assert_eq!(frame.replace('\n', "\r\n"), moved);
    // A second look at the board, closed by its browser: that watching stops.
    let mut second = Events::open(&admin, &format!("{base}/watch/ann/events")).await;
    second.next("frame").await;
    table
        .until("sessions", |json| json.contains("\"watchers\":2"))
        .await;
    drop(second);
    table
        .until("sessions", |json| json.contains("\"watchers\":1"))
        .await;
    // The game ends: so does the board's stream.
    ann.send("/leave").await;
    ann.read_text_until("> ").await;
    board.until("ended", |_| true).await;
    server.shutdown().await;
}

/// A Server-Sent Events stream, read event by event.
struct Events {
    response: reqwest::Response,
    buffer: String,
}

impl Events {
    async fn open(client: &reqwest::Client, url: &str) -> Events {
        let response = client.get(url).send().await.expect("GET events");
        assert_eq!(response.status(), StatusCode::OK, "{url}");
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        Events {
            response,
            buffer: String::new(),
        }
    }

    /// The next event's data, which must be of kind `kind`.
    async fn next(&mut self, kind: &str) -> String {
        let (name, data) = self.next_any().await;
        assert_eq!(name, kind, "{data}");
        data
    }

    /// The next event: its kind and its data.
    async fn next_any(&mut self) -> (String, String) {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let event: String = self.buffer.drain(..end + 2).collect();
                if event.starts_with(':') {
                    continue; // a keep-alive
                }
                let name = event
                    .lines()
                    .find_map(|line| line.strip_prefix("event: "))
                    .unwrap_or("message");
                let data: Vec<&str> = event
                    .lines()
                    .filter_map(|line| line.strip_prefix("data: "))
                    .collect();
                return (name.to_string(), data.join("\n"));
            }
            let chunk = tokio::time::timeout(common::TIMEOUT, self.response.chunk())
                .await
                .unwrap_or_else(|_| panic!("no event in time; have {:?}", self.buffer))
                .expect("read events")
                .expect("the stream goes on");
            self.buffer.push_str(&String::from_utf8_lossy(&chunk));
        }
    }

    /// Events until one of kind `kind` whose data `wanted` accepts.
    async fn until(&mut self, kind: &str, wanted: impl Fn(&str) -> bool) -> String {
        loop {
            let (name, data) = self.next_any().await;
            if name == kind && wanted(&data) {
                return data;
            }
        }
    }
}

#[tokio::test]
async fn idle_connections_can_fill_the_page_but_never_the_game_nor_healthz() {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let server = server().await;
    let web = server.web_addr.expect("the web page is on");
    let mut held = Vec::new();
    for _ in 0..arcade::web::MAX_CONNECTIONS {
        held.push(tokio::net::TcpStream::connect(web).await.expect("connect"));
    }
    // One more, from another address (a load balancer): /healthz is still answered
    // (tests/abuse_web.rs has the rest).
    let socket = tokio::net::TcpSocket::new_v4().expect("socket");
    socket
        .bind(std::net::SocketAddr::from(([127, 0, 0, 2], 0)))
        .expect("bind");
    let mut late = socket.connect(web).await.expect("connect");
    late.write_all(b"GET /healthz HTTP/1.0\r\n\r\n")
        .await
        .expect("send");
    // The game is not touched by it.
    let mut ann = common::named(&server, "ann").await;
    ann.send("who").await;
    assert!(ann.read_text_until("> ").await.contains("ann"));
    let mut answer = Vec::new();
    tokio::time::timeout(common::TIMEOUT, late.read_to_end(&mut answer))
        .await
        .expect("answered")
        .expect("read");
    let answer = String::from_utf8_lossy(&answer);
    assert!(
        answer.starts_with("HTTP/1.0 200") || answer.starts_with("HTTP/1.1 200"),
        "{answer}"
    );
    drop(held);
    server.shutdown().await;
}

/// POST a form; the answer's status.
async fn post(client: &reqwest::Client, url: &str, form: &[(&str, &str)]) -> StatusCode {
    client
        .post(url)
        .form(form)
        .send()
        .await
        .expect("POST")
        .status()
}

/// The id of `name`'s newest recording of `game` (anyone's for an empty name), as
/// `recordings [NAME]` lists it once the recorder has written it.
async fn recording_of(player: &mut common::Client, name: &str, game: &str) -> i64 {
    let command = format!("recordings {name}");
    let list = common::eventually(player, command.trim_end(), game).await;
    list.lines()
        .find(|line| line.contains(game))
        .and_then(|line| line.split_whitespace().next())
        .and_then(|id| id.parse().ok())
        .unwrap_or_else(|| panic!("no {game} recording in {list}"))
}

/// Today (UTC) as the list's day filter takes it.
fn today() -> String {
    arcade::text::rfc3339(arcade::records::recorder::now_ms())[..10].to_string()
}

#[tokio::test]
async fn recordings_are_listed_filtered_and_linked_from_the_leaderboards_and_the_csv() {
    let server = server().await;
    let base = base(&server);
    let _teacher = common::admin(&server, "Teacher", "secret-te").await;
    let mut ann = common::won_wumpus(&server, "ann", "secret-pw", Duration::ZERO).await;
    let ann_game = recording_of(&mut ann, "ann", "wumpus").await;
    // A guest's game: listed for admins only.
    let mut guest = common::Client::connect(server.addr).await;
    guest.send("play sokoban classic").await;
    guest.read_text_until("Enter command: ").await;
    guest.send("/leave").await;
    guest.read_text_until("> ").await;
    let guest_game = recording_of(&mut ann, "", "sokoban").await;
    let link = |id: i64| format!("<a href=\"/recordings/{id}\">{id}</a>");

    let anyone = browser();
    let (status, page) = get(&anyone, &format!("{base}/recordings")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains("<form method=\"get\" action=\"/recordings\" id=\"filters\">"));
    assert!(page.contains(&link(ann_game)), "{page}");
    assert!(!page.contains(&link(guest_game)), "{page}");
    assert!(page.contains("listed for admins only"), "{page}");

    let admin = browser();
    assert_eq!(
        log_in(&admin, &base, "Teacher", "secret-te").await,
        StatusCode::SEE_OTHER
    );
    let list = |query: &str| {
        let admin = admin.clone();
        let url = format!("{base}/recordings?{query}");
        async move { get(&admin, &url).await }
    };
    let (_, page) = list("").await;
    assert!(page.contains(&link(ann_game)) && page.contains(&link(guest_game)));
    let day = today();
    for (query, ann_found, guest_found) in [
        ("player=ANN".to_string(), true, false),
        ("game=sokoban".to_string(), false, true),
        ("game=wumpus&level=classic".to_string(), true, false),
        ("game=wumpus&level=other".to_string(), false, false),
        (format!("date={day}"), true, true),
        ("date=2020-01-01".to_string(), false, false),
        (
            format!("player=ann&game=wumpus&level=classic&date={day}"),
            true,
            false,
        ),
    ] {
        let (status, page) = list(&query).await;
        assert_eq!(status, StatusCode::OK, "{query}");
        assert_eq!(page.contains(&link(ann_game)), ann_found, "{query}: {page}");
        assert_eq!(
            page.contains(&link(guest_game)),
            guest_found,
            "{query}: {page}"
        );
        if !ann_found && !guest_found {
            assert!(page.contains("No recordings match."), "{query}: {page}");
        }
    }
    // A filter that cannot be used says why; what was typed comes back as text.
    let (status, page) = list("game=chess").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(page.contains("Unknown game: chess."), "{page}");
    let (status, page) = list("date=monday").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(page.contains("Give the day as 2026-11-23"), "{page}");
    let (status, page) = list("player=%3Cb%3Ex%22").await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains("value=\"&lt;b&gt;x&quot;\""), "{page}");
    assert!(!page.contains("<b>x"), "{page}");

    // Each leaderboard line links to the recording that made it.
    let (_, page) = get(&anyone, &format!("{base}/top/wumpus/classic")).await;
    assert!(
        page.contains(&format!(
            "<td><a href=\"/recordings/{ann_game}\">watch</a></td>"
        )),
        "{page}"
    );
    // The CSV names the recording, and no race.
    let (_, csv) = get(&admin, &format!("{base}/results.csv")).await;
    let row = csv.lines().nth(1).unwrap_or_else(|| panic!("{csv}"));
    assert!(row.ends_with(&format!(",{ann_game},,no")), "{csv}");
    server.shutdown().await;
}

#[tokio::test]
async fn an_admin_opens_and_starts_a_race_and_reloads_levels_from_the_page() {
    let server = server().await;
    let base = base(&server);
    let _teacher = common::admin(&server, "Teacher", "secret-te").await;
    let mut ann = common::registered(server.addr, "ann", "secret-pw").await;

    // Nobody else may, logged in or not.
    let anyone = browser();
    for path in [
        "/admin/race",
        "/admin/start",
        "/admin/leave",
        "/admin/reload",
    ] {
        let status = post(
            &anyone,
            &format!("{base}{path}"),
            &[("csrf", "x"), ("game", "wumpus")],
        )
        .await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{path}");
    }
    let (_, page) = get(&anyone, &format!("{base}/")).await;
    assert!(!page.contains("/admin/race"), "{page}");

    let admin = browser();
    assert_eq!(
        log_in(&admin, &base, "Teacher", "secret-te").await,
        StatusCode::SEE_OTHER
    );
    let (_, page) = get(&admin, &format!("{base}/")).await;
    assert!(page.contains("action=\"/admin/race\""), "{page}");
    assert!(page.contains("action=\"/admin/reload\""), "{page}");
    assert!(
        !page.contains("action=\"/admin/start\""),
        "no race yet: {page}"
    );
    let token = csrf(&page);
    // Without the login's token, nothing opens.
    let forged = post(
        &admin,
        &format!("{base}/admin/race"),
        &[("csrf", "0123"), ("game", "wumpus")],
    )
    .await;
    assert_eq!(forged, StatusCode::FORBIDDEN);
    let mut table = Events::open(&admin, &format!("{base}/events")).await;

    // A wrong game is answered as `race` answers it.
    let opened = post(
        &admin,
        &format!("{base}/admin/race"),
        &[("csrf", &token), ("game", "chess")],
    )
    .await;
    assert_eq!(opened, StatusCode::SEE_OTHER);
    let (_, page) = get(&admin, &format!("{base}/")).await;
    assert!(page.contains("Unknown game: chess."), "{page}");

    // A race nobody joined, left: it closes, and another may be opened.
    let opened = post(
        &admin,
        &format!("{base}/admin/race"),
        &[("csrf", &token), ("game", "sokoban"), ("args", "classic")],
    )
    .await;
    assert_eq!(opened, StatusCode::SEE_OTHER);
    let invited = ann.read_text_until("> ").await;
    assert!(
        invited.contains("invites you to race sokoban classic"),
        "{invited}"
    );
    let (_, page) = get(&admin, &format!("{base}/")).await;
    assert!(page.contains("action=\"/admin/leave\""), "{page}");
    let left = post(&admin, &format!("{base}/admin/leave"), &[("csrf", &token)]).await;
    assert_eq!(left, StatusCode::SEE_OTHER);
    let (_, page) = get(&admin, &format!("{base}/")).await;
    assert!(page.contains("You left race "), "{page}");
    assert!(!page.contains("action=\"/admin/start\""), "{page}");

    let opened = post(
        &admin,
        &format!("{base}/admin/race"),
        &[
            ("csrf", &token),
            ("game", "wumpus"),
            ("args", ""),
            ("time", "5m"),
        ],
    )
    .await;
    assert_eq!(opened, StatusCode::SEE_OTHER);
    let invited = ann.read_text_until("> ").await;
    let race: u32 = invited
        .split("[race ")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .and_then(|id| id.parse().ok())
        .unwrap_or_else(|| panic!("{invited}"));
    assert!(
        invited.contains(&format!(
            "Teacher invites you to race wumpus (time 5m00s): type join {race}."
        )),
        "{invited}"
    );
    let (_, page) = get(&admin, &format!("{base}/")).await;
    assert!(
        page.contains(&format!("Race {race} is open: wumpus (time 5m00s).")),
        "{page}"
    );
    assert!(page.contains("action=\"/admin/start\""), "{page}");

    // The live table shows the race, its host and its standings.
    ann.send(&format!("join {race}")).await;
    ann.read_text_until("> ").await;
    let snapshot = table
        .until("sessions", |json| json.contains("\"standings\":[\"1. ann"))
        .await;
    let snapshot: serde_json::Value = serde_json::from_str(&snapshot).expect("JSON");
    let shown = &snapshot["races"][0];
    assert_eq!(shown["id"], race);
    assert_eq!(shown["host"], "Teacher");
    assert_eq!(shown["racers"], 1);
    assert_eq!(shown["started"], serde_json::Value::Null);

    let token_again = csrf(&get(&admin, &format!("{base}/")).await.1);
    let started = post(
        &admin,
        &format!("{base}/admin/start"),
        &[("csrf", token_again.as_str())],
    )
    .await;
    assert_eq!(started, StatusCode::SEE_OTHER);
    let go = ann.read_text_until("Enter command: ").await;
    assert!(go.contains(&format!("Race {race}: go!")), "{go}");
    let (_, page) = get(&admin, &format!("{base}/")).await;
    assert!(page.contains(&format!("Race {race} starts now.")), "{page}");
    table
        .until("sessions", |json| {
            json.contains("\"started\":") && !json.contains("\"started\":null")
        })
        .await;

    // ann wins the race: the host's page shows what the race said, the CSV its number.
    for line in common::TO_THE_GOLD.iter().chain(common::BACK_OUT) {
        ann.send(line).await;
        ann.read_text_until("Enter command: ").await;
    }
    ann.send("climb").await;
    ann.read_text_until("Race over. Places:").await;
    ann.read_text_until("> ").await;
    let game = recording_of(&mut ann, "ann", "wumpus").await;
    let (_, page) = get(&admin, &format!("{base}/")).await;
    assert!(
        page.contains(&format!("[race {race}] ann joined")),
        "{page}"
    );
    assert!(
        page.contains(&format!("[race {race}] Race over. Places:")),
        "{page}"
    );
    assert!(
        !page.contains("action=\"/admin/start\""),
        "the race is over: {page}"
    );
    common::eventually(&mut ann, "top wumpus", "ann").await;
    let (_, csv) = get(&admin, &format!("{base}/results.csv")).await;
    let row = csv.lines().nth(1).unwrap_or_else(|| panic!("{csv}"));
    assert!(row.starts_with("ann,wumpus,classic,won,18,"), "{csv}");
    assert!(row.ends_with(&format!(",{game},{race},no")), "{csv}");

    // Reload: the levels read again, and what was found.
    let reloaded = post(
        &admin,
        &format!("{base}/admin/reload"),
        &[("csrf", token.as_str())],
    )
    .await;
    assert_eq!(reloaded, StatusCode::SEE_OTHER);
    let (_, page) = get(&admin, &format!("{base}/")).await;
    assert!(page.contains("Levels reloaded:"), "{page}");
    server.shutdown().await;
}
