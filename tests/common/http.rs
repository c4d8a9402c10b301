//! The web page's tests as a browser sees it: a client that keeps cookies and does
//! not follow redirects (the tests look at them), and a GET's status and body.

use std::time::Duration;

use reqwest::redirect::Policy;
use reqwest::StatusCode;

/// A browser-like client: keeps cookies, does not follow redirects.
pub fn browser() -> reqwest::Client {
    reqwest::Client::builder()
        .cookie_store(true)
        .redirect(Policy::none())
        .timeout(Duration::from_secs(10))
        .build()
        .expect("HTTP client")
}

/// GET `url`: its status and body.
pub async fn get(client: &reqwest::Client, url: &str) -> (StatusCode, String) {
    let response = client.get(url).send().await.expect("GET");
    let status = response.status();
    (status, response.text().await.expect("body"))
}
