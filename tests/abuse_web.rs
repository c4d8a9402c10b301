//! The web page and recordings read back, attacked as a hostile student would (issue
//! 28, items 2, 4, 10, 13, 17, 18), each at a small scale over real HTTP or TCP:
//! idle sockets and live streams from one address, downloads and replays of a long
//! recording (memory measured on a server process), a hundred sessions hiding the
//! class from the live table, a guest's recording, the login's unknown names, and a
//! CSV field a spreadsheet would run.

mod common;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use arcade::catalog::table::GameKind;
use arcade::records::recording::{encode_input, Start};
use arcade::server::Options;
use arcade::store::{Change, DbUrl, NewRecording, Played, RecordingState, Store};
use common::{Client, TestServer};
use reqwest::StatusCode;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

/// A loopback address of its own (127.0.0.N): another client, as far as the server
/// can tell.
fn loopback(n: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(127, 0, 0, n))
}

/// A TCP connection to `server` from 127.0.0.`n`.
async fn connect_from(n: u8, server: SocketAddr) -> TcpStream {
    common::stream_from([127, 0, 0, n], server).await
}

/// An HTTP client from 127.0.0.`n`, with a short timeout: an answer that does not
/// come is a failure, not a hang.
fn client_from(n: u8) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(loopback(n))
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(5))
        .build()
        .expect("HTTP client")
}

/// `GET path` on `web` from 127.0.0.`n`: status and body, or `None` without an
/// answer in time.
async fn get_from(n: u8, web: SocketAddr, path: &str) -> Option<(StatusCode, String)> {
    let response = client_from(n)
        .get(format!("http://{web}{path}"))
        .send()
        .await
        .ok()?;
    let status = response.status();
    Some((status, response.text().await.ok()?))
}

/// A web page with `Teacher` as its admin and `idle` as its idle timeout.
async fn web_server(idle: Duration) -> TestServer {
    TestServer::start_with(Options {
        http_port: Some(0),
        http_idle_timeout: idle,
        admin: vec![String::from("Teacher")],
        ..Options::default()
    })
    .await
}

/// Whether `stream` is closed by the server within `within` (end of file or reset).
async fn closed_within(stream: &mut TcpStream, within: Duration) -> bool {
    let mut buffer = vec![0; 4096];
    let deadline = tokio::time::Instant::now() + within;
    loop {
        match tokio::time::timeout_at(deadline, stream.read(&mut buffer)).await {
            Err(_) => return false,
            Ok(Ok(0) | Err(_)) => return true,
            Ok(Ok(_)) => {}
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_sockets_and_streams_from_some_addresses_leave_the_page_to_the_others() {
    let server = web_server(Duration::from_secs(60)).await;
    let web = server.web_addr.expect("the web page is on");
    // Live streams from one address: its share, then 429 with a line saying why.
    let streams = client_from(2);
    let mut open = Vec::new();
    for _ in 0..arcade::web::STREAMS_PER_ADDRESS {
        let response = streams
            .get(format!("http://{web}/events"))
            .send()
            .await
            .expect("a stream");
        assert_eq!(response.status(), StatusCode::OK);
        open.push(response);
    }
    let refused = streams
        .get(format!("http://{web}/events"))
        .send()
        .await
        .expect("an answer");
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(
        refused.text().await.expect("the refusal"),
        "Too many live pages are open from your address: close some and try again.\n"
    );
    // 256 idle sockets from another address: its share, then each of the others is
    // answered 429 at once (or on a reserved place) and closed.
    let mut idle = Vec::new();
    for _ in 0..256 {
        idle.push(connect_from(3, web).await);
    }
    // The first beyond its share and the reserved places: refused at once.
    let first_refused = arcade::web::CONNECTIONS_PER_ADDRESS + 4;
    let mut refusal = String::new();
    tokio::time::timeout(
        common::TIMEOUT,
        idle[first_refused].read_to_string(&mut refusal),
    )
    .await
    .expect("the socket beyond the share is answered")
    .expect("read");
    assert!(refusal.starts_with("HTTP/1.1 429"), "{refusal}");
    assert!(
        refusal.ends_with(
            "Too many connections to this page from your address: close some pages and try again.\n"
        ),
        "{refusal}"
    );
    // Everyone else still has the page, and the load balancer its health check.
    let (status, page) = get_from(4, web, "/").await.expect("/ answers");
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains("Who is playing"), "{page}");
    let (status, ok) = get_from(4, web, "/healthz")
        .await
        .expect("/healthz answers");
    assert_eq!((status, ok.as_str()), (StatusCode::OK, "ok\n"));
    let checked =
        tokio::task::spawn_blocking(move || arcade::web::check_health(web, Duration::from_secs(5)))
            .await
            .expect("the check runs");
    assert!(checked.is_ok(), "{checked:?}");
    drop(open);
    drop(idle);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_whole_page_full_still_answers_healthz_and_says_why_to_the_rest() {
    let server = web_server(Duration::from_secs(60)).await;
    let web = server.web_addr.expect("the web page is on");
    let mut idle = Vec::new();
    for n in 2..6 {
        for _ in 0..arcade::web::CONNECTIONS_PER_ADDRESS {
            idle.push(connect_from(n, web).await);
        }
    }
    assert_eq!(idle.len(), arcade::web::MAX_CONNECTIONS);
    let (status, ok) = get_from(9, web, "/healthz")
        .await
        .expect("/healthz answers on a reserved place");
    assert_eq!((status, ok.as_str()), (StatusCode::OK, "ok\n"));
    let (status, why) = get_from(9, web, "/").await.expect("/ answers why not");
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(why, "The page is full: try again in a moment.\n");
    // A place freed: the page again.
    drop(idle.pop());
    let mut served = false;
    for _ in 0..50 {
        if let Some((StatusCode::OK, _)) = get_from(9, web, "/").await {
            served = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(served, "/ is served again once a place is free");
    drop(idle);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_and_slow_connections_are_closed_after_the_idle_timeout() {
    let server = web_server(Duration::from_secs(1)).await;
    let web = server.web_addr.expect("the web page is on");
    // Nothing sent at all.
    let mut silent = connect_from(2, web).await;
    // Half a request's headers, then nothing (slowloris).
    let mut slow = connect_from(2, web).await;
    slow.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n")
        .await
        .expect("send");
    // A request answered, then kept alive and idle.
    let mut kept = connect_from(2, web).await;
    kept.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .expect("send");
    // A form whose body never comes.
    let mut body = connect_from(2, web).await;
    body.write_all(
        b"POST /login HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\nname=",
    )
    .await
    .expect("send");
    for (what, stream) in [
        ("silent", &mut silent),
        ("slow headers", &mut slow),
        ("kept alive", &mut kept),
        ("slow body", &mut body),
    ] {
        assert!(
            closed_within(stream, common::TIMEOUT).await,
            "the {what} connection stays open"
        );
    }
    server.shutdown().await;
}

/// Write a finished sokoban recording of `inputs` moves by `player` into the store at
/// `url`: what a long game leaves (a recording at its size limit is 4 MiB of input).
async fn long_recording(url: &DbUrl, player: &str, registered: bool, inputs: usize) -> i64 {
    let store = Store::open(url).await.expect("open the store");
    let id = store.recording_ids().await.expect("ids").start;
    let kind = GameKind::from_name("sokoban").expect("sokoban");
    let start = Start {
        game: String::from("sokoban"),
        args: (kind.recorded_args)(Vec::new()),
        memory: String::new(),
        world: None,
    };
    let mut changes = vec![Change::Open(Box::new(NewRecording {
        id,
        player: player.to_string(),
        player_key: player.to_ascii_lowercase(),
        registered,
        start,
        level: String::new(),
        race: None,
        // Now: an old recording would be swept at start.
        started_at: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |now| i64::try_from(now.as_millis()).unwrap_or(0)),
    }))];
    const LINES_PER_ROW: usize = 50;
    let mut first = 0;
    while first < inputs {
        let mut lines = String::new();
        for n in first..(first + LINES_PER_ROW).min(inputs) {
            // Back and forth: the game never ends, every move draws the board.
            let line = if n % 2 == 0 { "d" } else { "a" };
            encode_input(n as u64 * 100, line, &mut lines);
        }
        changes.push(Change::Inputs {
            id,
            first: first as u64,
            lines,
        });
        first += LINES_PER_ROW;
        if changes.len() >= 200 {
            store.write(&changes).await.expect("write");
            changes.clear();
        }
    }
    changes.push(Change::State {
        id,
        state: RecordingState::Ended,
        outcome: None,
        played: Some(Played {
            inputs: inputs as u64,
            duration_ms: inputs as u64 * 100,
        }),
    });
    store.write(&changes).await.expect("write");
    store.close().await;
    id
}

/// Waits until the server of `data` has moved its inputs' log (read through a
/// connection of this test's own, as `arcade admin` reads the file beside a server).
async fn moved_at_start(data: &std::path::Path) {
    let options = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(data.join("arcade.db"))
        .read_only(true);
    let pool = sqlx::SqlitePool::connect_with(options)
        .await
        .expect("the server's database");
    for _ in 0..600 {
        let logged: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM input_log")
            .fetch_one(&pool)
            .await
            .expect("the log's rows");
        if logged == 0 {
            pool.close().await;
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the server never moved its inputs' log");
}

/// A free port on 127.0.0.1 (bound, then let go).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

/// The most resident memory of `pid` seen while `work` runs, sampled every 20 ms.
async fn peak_while<T>(pid: u32, work: impl std::future::Future<Output = T>) -> (u64, T) {
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sampler = {
        let stop = std::sync::Arc::clone(&stop);
        std::thread::spawn(move || {
            let mut peak = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                peak = peak.max(common::resident_bytes(pid));
                std::thread::sleep(Duration::from_millis(20));
            }
            peak
        })
    };
    let done = work.await;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    (sampler.join().expect("the sampler"), done)
}

/// Inputs of the long recordings below: enough that a whole replay held in memory
/// shows (the old download held every frame and the file, tens of megabytes), few
/// enough for a debug build.
const LONG: usize = 200_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_recording_downloads_in_flat_memory() {
    let data = tempfile::tempdir().expect("a data directory");
    let id = long_recording(&DbUrl::in_data_dir(data.path()), "ann", true, LONG).await;
    let port = free_port();
    let port_text = port.to_string();
    let (mut child, _, log) = common::spawn_server_in(
        data.path(),
        &["--http-port", &port_text, "--http-bind", "127.0.0.1"],
    );
    let web = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    // Ready when /healthz answers.
    let mut ready = false;
    for _ in 0..100 {
        if let Some((StatusCode::OK, _)) = get_from(1, web, "/healthz").await {
            ready = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(ready, "the web page never answered");
    // The server moves the lines `long_recording` left in the inputs' log when it
    // starts, which takes SQLite some megabytes (its sort and its cache) for a few
    // seconds in a debug build: measured from after that, the download's own.
    moved_at_start(data.path()).await;
    let pid = child.id();
    let before = common::resident_bytes(pid);
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(300))
        .build()
        .expect("client");
    let (peak, length) = peak_while(pid, async {
        let mut response = client
            .get(format!("http://{web}/recordings/{id}.cast"))
            .send()
            .await
            .expect("GET");
        assert_eq!(response.status(), StatusCode::OK);
        let mut length = 0;
        let mut lines = 0;
        while let Some(chunk) = response.chunk().await.expect("a chunk") {
            length += chunk.len();
            lines += chunk.iter().filter(|byte| **byte == b'\n').count();
        }
        // The header, the first screen, and two frames per input.
        assert_eq!(lines, 2 + 2 * LONG);
        length
    })
    .await;
    let grown = peak.saturating_sub(before);
    println!(
        "download of {LONG} inputs: {} MB written, RSS {} MB before, grew by {} MB at most",
        length / 1_000_000,
        before / 1_000_000,
        grown / 1_000_000
    );
    assert!(length > 20_000_000, "a long file: {length} bytes");
    assert!(
        grown < 20 * 1024 * 1024,
        "the server grew by {grown} bytes writing a {length}-byte file"
    );
    drop(log);
    let _ = child.kill();
    let _ = child.wait();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn downloads_beyond_the_limits_are_refused_and_guests_recordings_are_for_admins() {
    let server = web_server(Duration::from_secs(60)).await;
    let web = server.web_addr.expect("the web page is on");
    // The page answers once the server's store is open (and migrated): only then is a
    // second connection to it opened here.
    let (status, _) = get_from(1, web, "/healthz").await.expect("/healthz");
    assert_eq!(status, StatusCode::OK);
    let url = DbUrl::in_data_dir(server.data_dir());
    // Long enough that two downloads left unread cannot fit in loopback's socket buffers
    // (autotuned to megabytes) and end, giving their places back: they must hold them.
    let ann = long_recording(&url, "ann", true, 100_000).await;
    let guest = long_recording(&url, "guest-7", false, 10).await;
    // Two downloads from one address, left unread: they hold their places.
    let reader = client_from(2);
    let mut held = Vec::new();
    for _ in 0..2 {
        let response = reader
            .get(format!("http://{web}/recordings/{ann}.cast"))
            .timeout(Duration::from_secs(120))
            .send()
            .await
            .expect("GET");
        assert_eq!(response.status(), StatusCode::OK);
        held.push(response);
    }
    let (status, why) = get_from(2, web, &format!("/recordings/{ann}.cast"))
        .await
        .expect("an answer");
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(why, "Too many downloads at once, try again in a moment.\n");
    // Another address still downloads.
    let (status, _) = get_from(3, web, &format!("/recordings/{guest}.cast"))
        .await
        .expect("an answer");
    // ... but not a guest's recording, unless an admin.
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, page) = get_from(3, web, &format!("/recordings/{guest}"))
        .await
        .expect("an answer");
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(page.contains("only an admin can see it"), "{page}");
    let _teacher = common::admin(&server, "Teacher", "secret-te").await;
    let admin = logged_in_admin(web, 3).await;
    let response = admin
        .get(format!("http://{web}/recordings/{guest}.cast"))
        .send()
        .await
        .expect("GET");
    assert_eq!(response.status(), StatusCode::OK);
    let cast = response.text().await.expect("the file");
    assert_eq!(cast.lines().count(), 2 + 2 * 10);
    drop(held);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replays_beyond_the_limits_are_refused_and_read_in_flat_memory() {
    let data = tempfile::tempdir().expect("a data directory");
    let id = long_recording(&DbUrl::in_data_dir(data.path()), "ann", true, LONG).await;
    let (mut child, addr, log) = common::spawn_server_in(data.path(), &[]);
    let pid = child.id();
    let before = common::resident_bytes(pid);
    // Replays from one address that nobody reads: its share, then a refusal.
    let mut viewers = Vec::new();
    for n in 0..arcade::seat::REPLAYS_PER_ADDRESS {
        let mut viewer = Client::connect(addr).await;
        viewer.send(&format!("name viewer{n}")).await;
        viewer.read_text_until("> ").await;
        viewer.send(&format!("replay {id}")).await;
        let started = viewer.read_text_until("Type anything to stop.").await;
        assert!(started.contains(&format!("Recording {id}")), "{started}");
        viewers.push(viewer);
    }
    let mut late = Client::connect(addr).await;
    late.send(&format!("replay {id}")).await;
    assert_eq!(
        late.read_text_until("> ").await,
        "Too many replays are running, try again in a moment.\r\n> "
    );
    // Give them a moment to run, then measure.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let during = common::resident_bytes(pid);
    let grown = during.saturating_sub(before);
    println!(
        "{} replays of {LONG} inputs: RSS {} MB before, {} MB during",
        viewers.len(),
        before / 1_000_000,
        during / 1_000_000
    );
    assert!(
        grown < 24 * 1024 * 1024,
        "{} replays grew the server by {grown} bytes",
        viewers.len()
    );
    // One stopped: its place is free again.
    viewers[0].send("").await;
    viewers[0].read_text_until("> ").await;
    let mut again = false;
    'tries: for _ in 0..50 {
        late.send(&format!("replay {id}")).await;
        // Line by line: a replay that starts sends no prompt.
        loop {
            let line = late.read_text_until("\n").await;
            if line.contains(&format!("Recording {id}")) {
                again = true;
                break 'tries;
            }
            if line.contains("Too many replays") {
                late.read_text_until("> ").await;
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(again, "a replay starts once another has stopped");
    drop(viewers);
    drop(log);
    let _ = child.kill();
    let _ = child.wait();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_sessions_named_to_sort_first_do_not_hide_the_class() {
    let server = web_server(Duration::from_secs(60)).await;
    let web = server.web_addr.expect("the web page is on");
    // The class: three players in games.
    let mut class = Vec::new();
    for name in ["ann", "bob", "cy"] {
        let mut player = common::named(&server, name).await;
        player.send("play wumpus").await;
        player.read_text_until("Enter command: ").await;
        class.push(player);
    }
    // A hundred idle sessions whose names sort before theirs.
    let mut crowd = Vec::new();
    for n in 0..100 {
        crowd.push(common::named(&server, &format!("--{n:02}")).await);
    }
    let first = first_event(web, "/events").await;
    let names = row_names(&first);
    assert_eq!(first["total"], 103);
    assert_eq!(names.len(), 100);
    for name in ["ann", "bob", "cy"] {
        assert!(
            names.contains(&name.to_string()),
            "{name} hidden: {names:?}"
        );
    }
    assert_eq!(&names[..3], ["ann", "bob", "cy"]);
    // Every row on demand, and the page that asks for them.
    let all = first_event(web, "/events?all").await;
    assert_eq!(row_names(&all).len(), 103);
    let (status, page) = get_from(1, web, "/?all").await.expect("/?all");
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains("data-all=\"1\""), "{page}");
    drop(crowd);
    drop(class);
    server.shutdown().await;
}

/// The first event of the live table's stream at `path`, as JSON.
async fn first_event(web: SocketAddr, path: &str) -> serde_json::Value {
    let mut response = client_from(1)
        .get(format!("http://{web}{path}"))
        .send()
        .await
        .expect("the stream");
    let mut text = String::new();
    while !text.contains("\n\n") {
        let chunk = response
            .chunk()
            .await
            .expect("a chunk")
            .expect("the stream goes on");
        text.push_str(&String::from_utf8_lossy(&chunk));
    }
    let data = text
        .lines()
        .find_map(|line| line.strip_prefix("data: "))
        .unwrap_or_else(|| panic!("no data in {text}"));
    serde_json::from_str(data).expect("JSON")
}

fn row_names(snapshot: &serde_json::Value) -> Vec<String> {
    snapshot["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|row| row["name"].as_str().expect("a name").to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_name_a_spreadsheet_reads_as_a_formula_is_guarded_in_the_csv() {
    let server = web_server(Duration::from_secs(60)).await;
    let web = server.web_addr.expect("the web page is on");
    let _teacher = common::admin(&server, "Teacher", "secret-te").await;
    // `-inf` is a name, and Rust's float parser reads it as a number.
    let _player = common::won_wumpus(&server, "-inf", "secret-pw", Duration::ZERO).await;
    let admin = logged_in_admin(web, 1).await;
    let csv = admin
        .get(format!("http://{web}/results.csv"))
        .send()
        .await
        .expect("GET")
        .text()
        .await
        .expect("the CSV");
    let row = csv.lines().nth(1).unwrap_or_else(|| panic!("{csv}"));
    assert!(row.starts_with("'-inf,wumpus,"), "{csv}");
    server.shutdown().await;
}

/// A client from 127.0.0.`n`, logged in as the admin `Teacher` (its cookie kept).
async fn logged_in_admin(web: SocketAddr, n: u8) -> reqwest::Client {
    let admin = client_from(n);
    let response = admin
        .post(format!("http://{web}/login"))
        .form(&[("name", "Teacher"), ("password", "secret-te")])
        .send()
        .await
        .expect("log in");
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    admin
}

/// The admin's cookie from a login from 127.0.0.`n`, with `X-Forwarded-Proto` if given.
async fn admin_cookie(web: SocketAddr, n: u8, proto: Option<&str>) -> String {
    let mut request = client_from(n)
        .post(format!("http://{web}/login"))
        .form(&[("name", "Teacher"), ("password", "secret-te")]);
    if let Some(proto) = proto {
        request = request.header("X-Forwarded-Proto", proto);
    }
    let response = request.send().await.expect("log in");
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    response.headers()["set-cookie"]
        .to_str()
        .expect("ASCII")
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cookie_is_secure_when_a_trusted_proxy_says_https() {
    let server = TestServer::start_with(Options {
        http_port: Some(0),
        admin: vec![String::from("Teacher")],
        proxy_from: vec!["127.0.0.1/32".parse().expect("a network")],
        ..Options::default()
    })
    .await;
    let web = server.web_addr.expect("the web page is on");
    let _teacher = common::admin(&server, "Teacher", "secret-te").await;
    let secure = |cookie: &str| {
        cookie
            .split(';')
            .any(|part| part.trim().eq_ignore_ascii_case("secure"))
    };
    // The proxy, over HTTPS.
    let cookie = admin_cookie(web, 1, Some("https")).await;
    assert!(secure(&cookie), "{cookie}");
    assert!(cookie.contains("HttpOnly"), "{cookie}");
    // The proxy, over plain HTTP; no proxy at all.
    let cookie = admin_cookie(web, 1, Some("http")).await;
    assert!(!secure(&cookie), "{cookie}");
    let cookie = admin_cookie(web, 1, None).await;
    assert!(!secure(&cookie), "{cookie}");
    // A client that is no proxy is not believed.
    let cookie = admin_cookie(web, 2, Some("https")).await;
    assert!(!secure(&cookie), "{cookie}");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_download_nobody_reads_gives_its_place_back_after_the_idle_timeout() {
    let server = web_server(Duration::from_secs(1)).await;
    let web = server.web_addr.expect("the web page is on");
    let (status, _) = get_from(1, web, "/healthz").await.expect("/healthz");
    assert_eq!(status, StatusCode::OK);
    let id = long_recording(&DbUrl::in_data_dir(server.data_dir()), "ann", true, LONG).await;
    // Two downloads asked for and never read: far more than the sockets' buffers.
    let mut unread = Vec::new();
    for _ in 0..arcade::web::DOWNLOADS_PER_ADDRESS {
        let mut stream = connect_from(2, web).await;
        stream
            .write_all(format!("GET /recordings/{id}.cast HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes())
            .await
            .expect("send");
        let mut start = [0; 12];
        tokio::time::timeout(Duration::from_secs(60), stream.read_exact(&mut start))
            .await
            .expect("the download starts")
            .expect("read");
        assert_eq!(&start, b"HTTP/1.1 200");
        unread.push(stream);
    }
    let (status, _) = get_from(2, web, &format!("/recordings/{id}"))
        .await
        .expect("the page");
    assert_eq!(status, StatusCode::OK);
    // Their places come back once the writes have stalled for the idle timeout.
    let mut again = false;
    for _ in 0..100 {
        let response = client_from(2)
            .get(format!("http://{web}/recordings/{id}.cast"))
            .timeout(Duration::from_secs(60))
            .send()
            .await
            .expect("an answer");
        if response.status() == StatusCode::OK {
            again = true;
            break;
        }
        assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(again, "the unread downloads kept their places");
    drop(unread);
    server.shutdown().await;
}

/// Item 17: the web login checks an unknown name's password against a stand-in hash,
/// so that it is answered no sooner than a wrong password (counted, not timed: the
/// count of password checks grows for an unknown name as for a known one).
#[tokio::test]
async fn an_unknown_name_costs_the_login_a_password_check() {
    let server = web_server(Duration::from_secs(60)).await;
    let web = server.web_addr.expect("the web page is on");
    let checks = |metrics: &str| -> u64 {
        metrics
            .lines()
            .find_map(|line| line.strip_prefix("arcade_password_checks_total "))
            .and_then(|count| count.trim().parse().ok())
            .expect("the count of password checks")
    };
    let (_, before) = get_from(1, web, "/metrics").await.expect("an answer");
    let response = client_from(2)
        .post(format!("http://{web}/login"))
        .form(&[("name", "nobody-here"), ("password", "a-guess")])
        .send()
        .await
        .expect("log in");
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    let (_, after) = get_from(1, web, "/metrics").await.expect("an answer");
    assert_eq!(checks(&after), checks(&before) + 1, "{after}");
    server.shutdown().await;
}
