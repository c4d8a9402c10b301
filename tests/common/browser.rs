//! A real, headless Chromium driven over WebDriver, for tests of the web page (SPEC
//! section 11): `chromedriver` on a free loopback port, one session in a browser with
//! a fresh profile, and helpers that wait for what a person would see.
//!
//! Both programs are Debian's (`chromium`, `chromium-driver`): without one a test
//! prints `skipped: ...` and passes, under `CI=true` it fails (`.ci/run` installs
//! them). The machine's network is closed, so the browser is told not to reach out to
//! Google (updates, sync, background requests, QUIC).

use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::elements::Element;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::json;

/// How long `chromedriver` may take to listen, and Chromium to open a session (a
/// loaded two-core machine is slow to start a browser).
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// How long one WebDriver command may take before the test fails rather than hangs.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(30);

/// How long `chromedriver` may take to quit its browser and exit before it is killed.
const STOP_TIMEOUT: Duration = Duration::from_secs(5);

/// How often the `wait_for*` helpers look again.
const POLL: Duration = Duration::from_millis(100);

/// A headless Chromium and the `chromedriver` that drives it. [`Browser::close`] ends
/// both; if a test panics first, dropping it stops `chromedriver`, which quits its
/// Chromium (see [`Driver::stop`]), so no process outlives the test.
pub struct Browser {
    client: Client,
    /// Dropped after the client and before the folder (fields drop in this order).
    driver: Driver,
    /// The browser's profile and `chromedriver.log`, removed when dropped.
    dir: tempfile::TempDir,
}

/// The `chromedriver` process, stopped (with its browsers) when dropped.
struct Driver {
    child: Child,
    port: u16,
}

impl Browser {
    /// Start `chromedriver` and open a session in a fresh headless Chromium; `None`
    /// (after `skipped: ...`) when either program is missing. Panics, with the
    /// driver's log, when they are there but do not start.
    pub async fn start() -> Option<Browser> {
        let chromium = super::program("chromium", "chromium");
        let chromedriver = super::program("chromedriver", "chromium-driver");
        let (Some(chromium), Some(chromedriver)) = (chromium, chromedriver) else {
            return None;
        };
        let dir = tempfile::tempdir().expect("a temporary folder for the browser");
        let profile = dir.path().join("profile");
        std::fs::create_dir(&profile).expect("a folder for the browser's profile");
        let log = std::fs::File::create(dir.path().join("chromedriver.log"))
            .expect("create chromedriver.log");
        let port = free_port();
        // Chromium keeps crash reports under $XDG_CONFIG_HOME whatever its profile:
        // there too, the test's own folder rather than the user's.
        let child = Command::new(&chromedriver)
            .arg(format!("--port={port}"))
            .env("XDG_CONFIG_HOME", dir.path().join("config"))
            .env("XDG_CACHE_HOME", dir.path().join("cache"))
            .stdin(Stdio::null())
            .stdout(
                log.try_clone()
                    .expect("a second handle on chromedriver.log"),
            )
            .stderr(log)
            .spawn()
            .expect("start chromedriver");
        let mut driver = Driver { child, port };
        driver.wait_until_listening(dir.path()).await;

        let mut capabilities = serde_json::Map::new();
        capabilities.insert(
            "goog:chromeOptions".to_string(),
            json!({
                "binary": chromium.to_str().expect("chromium's path in UTF-8"),
                "args": [
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--no-first-run",
                    "--disable-background-networking",
                    "--disable-component-update",
                    "--disable-sync",
                    "--disable-quic",
                    "--window-size=1200,900",
                    format!("--user-data-dir={}", profile.display()),
                ],
            }),
        );
        // Plain HTTP to chromedriver on the loopback: no TLS, so no OpenSSL.
        let mut builder = ClientBuilder::new(HttpConnector::new());
        builder.capabilities(capabilities);
        let url = format!("http://127.0.0.1:{port}");
        let session = builder.connect(&url);
        let client = match tokio::time::timeout(START_TIMEOUT, session).await {
            Ok(Ok(client)) => client,
            Ok(Err(error)) => panic!(
                "chromedriver opened no browser session: {error}\n{}",
                driver_log(dir.path())
            ),
            Err(_) => panic!(
                "no browser session within {START_TIMEOUT:?}\n{}",
                driver_log(dir.path())
            ),
        };
        Some(Browser {
            client,
            driver,
            dir,
        })
    }

    /// The WebDriver client, for anything the helpers below do not cover.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Open `url` and wait until it has loaded.
    pub async fn goto(&self, url: &str) {
        self.run(&format!("open {url}"), self.client.goto(url))
            .await;
    }

    /// The element `css` (the first that matches), waiting up to `within` for it to
    /// appear.
    pub async fn wait_for(&self, css: &str, within: Duration) -> Element {
        let start = Instant::now();
        loop {
            let error = match self.client.find(Locator::Css(css)).await {
                Ok(element) => return element,
                Err(error) => error,
            };
            if start.elapsed() >= within {
                panic!(
                    "no element {css:?} within {within:?} ({error})\n{}",
                    self.page_source().await
                );
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// The element `css`, which must be on the page now.
    pub async fn find(&self, css: &str) -> Element {
        self.run(
            &format!("find {css:?}"),
            self.client.find(Locator::Css(css)),
        )
        .await
    }

    /// The text of the element `css` as it is rendered (what a person reads).
    pub async fn text_of(&self, css: &str) -> String {
        let element = self.find(css).await;
        self.run(&format!("the text of {css:?}"), element.text())
            .await
    }

    /// The text of the element `css` once it contains `wanted`, looking every 100 ms
    /// for up to `within` (the element may appear meanwhile). Panics with the last text
    /// seen, so a failure says what the page showed instead.
    pub async fn wait_for_text(&self, css: &str, wanted: &str, within: Duration) -> String {
        match self.try_wait_for_text(css, wanted, within).await {
            Ok(text) => text,
            Err(failure) => panic!("{failure}"),
        }
    }

    /// [`Browser::wait_for_text`], with its failure as a message rather than a panic
    /// (for a test that expects the text not to come).
    pub async fn try_wait_for_text(
        &self,
        css: &str,
        wanted: &str,
        within: Duration,
    ) -> Result<String, String> {
        let start = Instant::now();
        let mut last = String::from("(no such element)");
        loop {
            if let Ok(element) = self.client.find(Locator::Css(css)).await {
                match element.text().await {
                    Ok(text) if text.contains(wanted) => return Ok(text),
                    Ok(text) => last = format!("{text:?}"),
                    // The element was replaced between find and text: look again.
                    Err(error) => last = format!("(unreadable: {error})"),
                }
            }
            if start.elapsed() >= within {
                return Err(format!(
                    "{css:?} never showed {wanted:?} within {within:?}; it showed {last}"
                ));
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// The attribute `name` of the element `css`, if it has one.
    pub async fn attribute(&self, css: &str, name: &str) -> Option<String> {
        let element = self.find(css).await;
        self.run(&format!("the {name} of {css:?}"), element.attr(name))
            .await
    }

    /// Click the element `css` (a button that submits a form, a link).
    pub async fn click(&self, css: &str) {
        let element = self.find(css).await;
        self.run(&format!("click {css:?}"), element.click()).await;
    }

    /// Replace what the field `css` holds with `text`, typed key by key.
    pub async fn fill(&self, css: &str, text: &str) {
        let element = self.find(css).await;
        self.run(&format!("clear {css:?}"), element.clear()).await;
        self.run(&format!("type into {css:?}"), element.send_keys(text))
            .await;
    }

    /// The page's HTML as the browser has it now (after scripts changed it).
    pub async fn page_source(&self) -> String {
        self.run("read the page source", self.client.source()).await
    }

    /// Save what the window shows as `target/screenshots/web-NAME.png` (beside the
    /// terminal screenshots of tests/telnet_keys.rs), so that anyone can look at what
    /// a teacher sees; its path.
    pub async fn screenshot(&self, name: &str) -> PathBuf {
        let png = self
            .run(&format!("screenshot {name}"), self.client.screenshot())
            .await;
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
        std::fs::create_dir_all(&dir).expect("a screenshots folder");
        let path = dir.join(format!("web-{name}.png"));
        std::fs::write(&path, png).expect("save a screenshot");
        path
    }

    /// End the session (Chromium quits) and stop `chromedriver`.
    pub async fn close(self) {
        let Browser {
            client,
            mut driver,
            dir,
        } = self;
        if let Err(error) = tokio::time::timeout(COMMAND_TIMEOUT, client.close())
            .await
            .unwrap_or_else(|_| panic!("the session did not end within {COMMAND_TIMEOUT:?}"))
        {
            panic!(
                "ending the browser session: {error}\n{}",
                driver_log(dir.path())
            );
        }
        driver.stop();
    }

    /// `command`'s result, or a panic that says what failed (and does not hang).
    async fn run<T>(
        &self,
        what: &str,
        command: impl std::future::Future<Output = Result<T, fantoccini::error::CmdError>>,
    ) -> T {
        match tokio::time::timeout(COMMAND_TIMEOUT, command).await {
            Ok(Ok(value)) => value,
            Ok(Err(error)) => panic!("browser: {what}: {error}"),
            Err(_) => panic!(
                "browser: {what}: no answer within {COMMAND_TIMEOUT:?}\n{}",
                driver_log(self.dir.path())
            ),
        }
    }
}

impl Driver {
    /// Wait until `chromedriver` accepts connections on its port; panics, with its log
    /// from `dir`, if it exits or takes longer than [`START_TIMEOUT`].
    async fn wait_until_listening(&mut self, dir: &Path) {
        let address = SocketAddr::from((Ipv4Addr::LOCALHOST, self.port));
        let start = Instant::now();
        loop {
            if tokio::net::TcpStream::connect(address).await.is_ok() {
                return;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("chromedriver exited with {status}\n{}", driver_log(dir));
            }
            if start.elapsed() >= START_TIMEOUT {
                panic!(
                    "chromedriver is not listening on {address} after {START_TIMEOUT:?}\n{}",
                    driver_log(dir)
                );
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// Stop `chromedriver` and reap it (nothing if it is already gone). Asked first
    /// (`GET /shutdown`), because it then quits its browsers: killed outright, it
    /// would leave Chromium running (they talk over a port, not a pipe). Killed if it
    /// has not exited within [`STOP_TIMEOUT`]. Blocking, so that `Drop` can call it.
    fn stop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.ask_to_shut_down();
            let start = Instant::now();
            while let Ok(None) = self.child.try_wait() {
                if start.elapsed() >= STOP_TIMEOUT {
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// `GET /shutdown`: chromedriver quits every session's browser and exits. Errors
    /// are ignored: [`Driver::stop`] kills it anyway.
    fn ask_to_shut_down(&self) {
        use std::io::{Read as _, Write as _};
        let address = SocketAddr::from((Ipv4Addr::LOCALHOST, self.port));
        let Ok(mut stream) = std::net::TcpStream::connect_timeout(&address, STOP_TIMEOUT) else {
            return;
        };
        let _ = stream.set_read_timeout(Some(STOP_TIMEOUT));
        let request =
            format!("GET /shutdown HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n");
        if stream.write_all(request.as_bytes()).is_ok() {
            let _ = stream.read_to_end(&mut Vec::new());
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        self.stop();
    }
}

/// What `chromedriver` logged, for a failure's message.
fn driver_log(dir: &Path) -> String {
    let log = std::fs::read_to_string(dir.join("chromedriver.log")).unwrap_or_default();
    format!("chromedriver's log:\n{log}")
}

/// A port nobody listens on now: bind 127.0.0.1:0, read the port, let it go.
fn free_port() -> u16 {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind a free port");
    listener.local_addr().expect("the free port").port()
}
