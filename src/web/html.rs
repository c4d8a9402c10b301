//! The page's frame and the fragments every page shares: the layout (head, menu,
//! script), a page that says one thing, the database-down page, URL parts.
//!
//! HTML is written with maud's `html!`, which escapes every value spliced into it
//! (`&`, `<`, `>`, `"`) and always quotes attribute values with `"`: a player's name or
//! a line of chat is text wherever it lands, with no escape call to forget. The scripts
//! read what they need from `data-` attributes, never from inline code (the
//! Content-Security-Policy forbids it).

use std::fmt::Write as _;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use maud::{html, Markup, DOCTYPE};

use super::logins::Admin;

/// `text` as one part of a URL path.
pub fn url_part(text: &str) -> String {
    let mut out = String::new();
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_.~".contains(&byte) {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

/// A whole page: the menu (with the admin's links and logout button for an admin),
/// `body`, and the script named (one of `assets/`).
pub fn layout(title: &str, admin: Option<&Admin>, body: Markup, script: Option<&str>) -> Markup {
    frame(title, admin, body, script, None)
}

/// A whole page, as [`layout`] (no script), that the browser loads again every
/// `seconds`: for numbers that change in the store, which has no stream to follow.
pub fn refreshing(title: &str, admin: Option<&Admin>, body: Markup, seconds: u64) -> Markup {
    frame(title, admin, body, None, Some(seconds))
}

fn frame(
    title: &str,
    admin: Option<&Admin>,
    body: Markup,
    script: Option<&str>,
    refresh: Option<u64>,
) -> Markup {
    html! {
        (DOCTYPE) "\n"
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                @if let Some(seconds) = refresh {
                    meta http-equiv="refresh" content=(seconds);
                }
                title { (title) " · arcade" }
                link rel="stylesheet" href="/assets/style.css";
                @if let Some(script) = script {
                    script src={ "/assets/" (script) } defer {}
                }
            }
            body {
                nav {
                    a href="/" { "Who is playing" } " "
                    a href="/top" { "Leaderboards" } " "
                    a href="/ladders" { "Ladders" } " "
                    a href="/recordings" { "Recordings" }
                    @match admin {
                        Some(admin) => {
                            " " a href="/results.csv" { "Results (CSV)" } " "
                            form class="inline" method="post" action="/logout" {
                                input type="hidden" name="csrf" value=(admin.csrf);
                                button type="submit" { "Log out " (admin.name.as_str()) }
                            }
                        }
                        None => { " " a href="/login" { "Admin login" } }
                    }
                }
                main { "\n" (body) "\n" }
            }
        }
        "\n"
    }
}

/// `markup` as the answer, with `status`.
pub fn page(status: StatusCode, markup: Markup) -> Response {
    (status, markup).into_response()
}

/// A page that says one thing.
pub fn message(status: StatusCode, title: &str, text: &str) -> Response {
    let body = html! { h1 { (title) } p { (text) } };
    page(status, layout(title, None, body, None))
}

/// The page for a store that does not answer (logged here, once).
pub fn store_down(error: &crate::store::StoreError) -> Response {
    tracing::error!(%error, "web page: the database does not answer");
    message(
        StatusCode::SERVICE_UNAVAILABLE,
        "Try again",
        "The database does not answer; try again in a moment.",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOSTILE: &str = "<b>\"Tom\" & 'Jerry'</b>";

    #[test]
    fn html_and_urls_are_escaped() {
        // In text and in attribute values alike (maud quotes every attribute with `"`,
        // so a `'` cannot end one).
        assert_eq!(
            html! { p title=(HOSTILE) { (HOSTILE) } }.into_string(),
            "<p title=\"&lt;b&gt;&quot;Tom&quot; &amp; 'Jerry'&lt;/b&gt;\">\
             &lt;b&gt;&quot;Tom&quot; &amp; 'Jerry'&lt;/b&gt;</p>"
        );
        assert_eq!(url_part("arcade 3/x"), "arcade%203%2Fx");
    }

    #[test]
    fn the_layout_escapes_its_title_and_names_the_script() {
        let page = layout(HOSTILE, None, html! { p { "body" } }, Some("live.js")).into_string();
        assert!(
            page.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"),
            "{page}"
        );
        assert!(
            page.contains(
                "<title>&lt;b&gt;&quot;Tom&quot; &amp; 'Jerry'&lt;/b&gt; · arcade</title>"
            ),
            "{page}"
        );
        assert!(!page.contains("<b>"), "{page}");
        assert!(
            page.contains("<script src=\"/assets/live.js\" defer></script></head>"),
            "{page}"
        );
        assert!(
            page.ends_with("<main>\n<p>body</p>\n</main></body></html>\n"),
            "{page}"
        );
        assert!(!page.contains("refresh"), "{page}");
    }

    #[test]
    fn a_refreshing_page_says_how_often_in_its_head() {
        let page = refreshing("Ladder 1", None, html! { p { "body" } }, 5).into_string();
        assert!(
            page.contains(
                "<meta http-equiv=\"refresh\" content=\"5\"><title>Ladder 1 · arcade</title>"
            ),
            "{page}"
        );
        assert!(!page.contains("<script"), "{page}");
    }
}
