//! The browser harness of `common::browser` on a page of its own, before any test of
//! the web page relies on it: a tiny HTTP server inside the test serves a page whose
//! script changes a line of text after 2 s; the test sees the first text, waits
//! for the change, sees a wait for text that never comes fail with what the page
//! showed, types a name and clicks a button, and keeps a screenshot
//! (`target/screenshots/web-harness.png`).
//!
//! A real Chromium and chromedriver: without them the test prints `skipped: ...`, under
//! `CI=true` it fails (`.ci/run` installs Debian's `chromium` and `chromium-driver`).

mod common;

use std::net::{Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use common::browser::Browser;

/// The page: `#status` says `waiting`, then what [`CHANGED`] says, 2 s after the
/// script runs; the `#greet` button adds a `#greeting` with the name typed in `#name`.
const PAGE: &str = r#"<!doctype html>
<html>
<head><meta charset="utf-8"><title>harness</title></head>
<body>
<h1>Browser harness</h1>
<p id="status">waiting</p>
<input id="name" value="nobody">
<button id="greet" onclick="greet()">Greet</button>
<script>
setTimeout(function () {
  document.getElementById("status").textContent = "changed by JavaScript";
}, 2000);
function greet() {
  var p = document.createElement("p");
  p.id = "greeting";
  p.textContent = "Hello, " + document.getElementById("name").value + "!";
  document.body.appendChild(p);
}
</script>
</body>
</html>
"#;

/// The text the page's script puts in `#status`.
const CHANGED: &str = "changed by JavaScript";

/// The first bytes of every PNG file.
const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

/// Serve [`PAGE`] to every request on 127.0.0.1, one connection each
/// (`Connection: close`), until the test ends; the address.
async fn serve_page() -> SocketAddr {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .await
        .expect("bind the page's server");
    let addr = listener.local_addr().expect("the page server's address");
    tokio::spawn(async move {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                continue;
            };
            tokio::spawn(async move {
                // The request's head is all there is (a GET): read up to its blank line.
                let mut request = Vec::new();
                let mut chunk = [0u8; 1024];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => request.extend_from_slice(&chunk[..n]),
                    }
                }
                let response = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\
                     Content-Length: {}\r\nConnection: close\r\n\r\n{PAGE}",
                    PAGE.len()
                );
                let _ = stream.write_all(response.as_bytes()).await;
                let _ = stream.shutdown().await;
            });
        }
    });
    addr
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_browser_harness_reads_waits_fails_and_takes_screenshots() {
    let started = Instant::now();
    let Some(browser) = Browser::start().await else {
        return;
    };
    let addr = serve_page().await;
    browser.goto(&format!("http://{addr}/")).await;
    assert_eq!(browser.text_of("h1").await, "Browser harness");
    // Read as soon as the page has loaded, well before the script's 2 s (200 ms were not enough on a busy CI machine).
    assert_eq!(browser.text_of("#status").await, "waiting");

    let text = browser
        .wait_for_text("#status", CHANGED, Duration::from_secs(10))
        .await;
    assert_eq!(text, CHANGED);
    assert!(browser.page_source().await.contains(CHANGED));
    assert_eq!(
        browser.attribute("p", "id").await.as_deref(),
        Some("status")
    );

    // A wait for text that never comes fails, and says what the page showed instead.
    let failure = browser
        .try_wait_for_text("#status", "never shown", Duration::from_millis(300))
        .await
        .expect_err("waiting for text that never comes fails");
    assert!(
        failure.contains("never shown") && failure.contains(CHANGED),
        "{failure}"
    );

    // Typing and clicking: the button's script adds an element, waited for.
    browser.fill("#name", "Ada").await;
    browser.click("#greet").await;
    let greeting = browser.wait_for("#greeting", Duration::from_secs(10)).await;
    assert_eq!(
        greeting.text().await.expect("the greeting's text"),
        "Hello, Ada!"
    );

    let path = browser.screenshot("harness").await;
    let png = std::fs::read(&path).expect("read the screenshot back");
    assert!(
        png.starts_with(PNG_SIGNATURE),
        "{} is no PNG",
        path.display()
    );
    assert!(png.len() > 1000, "a {} byte screenshot", png.len());

    browser.close().await;
    println!("the browser harness took {:?}", started.elapsed());
}
