//! The page's HTML, and the results CSV: rendering only, from what the store and the
//! registry answer. Everything that came from a player (names, levels) goes through
//! [`escape`]; the scripts read what they need from `data-` attributes, never from
//! inline code (the Content-Security-Policy forbids it).

use std::fmt::Write as _;
use std::time::{Duration, UNIX_EPOCH};

use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum_extra::extract::cookie::CookieJar;
use futures_util::stream::{self, StreamExt};
use serde::Deserialize;

use super::auth::{self, Admin};
use super::{Shared, Web};
use crate::catalog::table::{Board, GameKind};
use crate::records::scores;
use crate::store::{Graded, Listed, Ranked};

/// `text` safe inside HTML text and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `text` as one part of a URL path.
fn url_part(text: &str) -> String {
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

/// A whole page: the menu, `body`, and the scripts named.
fn layout(title: &str, admin: Option<&Admin>, body: &str, script: Option<&str>) -> String {
    let mut menu =
        String::from("<a href=\"/\">Who is playing</a> <a href=\"/top\">Leaderboards</a>");
    match admin {
        Some(admin) => {
            let _ = write!(
                menu,
                " <a href=\"/results.csv\">Results (CSV)</a> \
                 <form class=\"inline\" method=\"post\" action=\"/logout\">\
                 <input type=\"hidden\" name=\"csrf\" value=\"{csrf}\">\
                 <button type=\"submit\">Log out {name}</button></form>",
                csrf = escape(&admin.csrf),
                name = escape(admin.name.as_str()),
            );
        }
        None => menu.push_str(" <a href=\"/login\">Admin login</a>"),
    }
    let script = script
        .map(|name| format!("<script src=\"/assets/{name}\" defer></script>"))
        .unwrap_or_default();
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title} · arcade</title><link rel=\"stylesheet\" href=\"/assets/style.css\">{script}</head>\
         <body><nav>{menu}</nav><main>\n{body}\n</main></body></html>\n",
        title = escape(title),
    )
}

fn page(status: StatusCode, html: String) -> Response {
    (status, Html(html)).into_response()
}

/// A page that says one thing.
pub fn message(status: StatusCode, title: &str, text: &str) -> Response {
    let body = format!("<h1>{}</h1><p>{}</p>", escape(title), escape(text));
    page(status, layout(title, None, &body, None))
}

/// What every admin page answers everyone else.
pub fn forbidden() -> Response {
    let body = "<h1>For admins only</h1><p>This page is for the server's admins \
                (<code>arcade serve --admin NAME</code>). \
                <a href=\"/login\">Log in</a> with an admin's name and password.</p>";
    page(
        StatusCode::FORBIDDEN,
        layout("For admins only", None, body, None),
    )
}

/// `GET /login`, or the form again with why the last try failed.
pub fn login(admin: Option<&Admin>, problem: Option<&str>, status: StatusCode) -> Response {
    let mut body = String::from("<h1>Admin login</h1>");
    if let Some(admin) = admin {
        let _ = write!(
            body,
            "<p>You are logged in as {}.</p>",
            escape(admin.name.as_str())
        );
    }
    if let Some(problem) = problem {
        let _ = write!(
            body,
            "<p class=\"problem\" id=\"problem\">{}</p>",
            escape(problem)
        );
    }
    body.push_str(
        "<p>With the name and password you registered on the server (telnet: \
         <code>name NAME</code>, then <code>register</code>), for a name given with \
         <code>--admin</code>.</p>\
         <form method=\"post\" action=\"/login\" id=\"login\">\
         <label>Name <input name=\"name\" id=\"name\" autocomplete=\"username\" required></label> \
         <label>Password <input name=\"password\" id=\"password\" type=\"password\" autocomplete=\"current-password\" required></label> \
         <button type=\"submit\" id=\"log-in\">Log in</button></form>",
    );
    page(status, layout("Admin login", admin, &body, None))
}

/// `GET /`: the live table; for an admin, watch links and the broadcast and kick
/// forms.
pub async fn live(State(web): State<Shared>, jar: CookieJar) -> Response {
    let admin = auth::admin(&web, &jar);
    let mut body = String::from(
        "<h1>Who is playing</h1><p id=\"status\">Connecting…</p>\
         <table id=\"sessions\"><thead><tr><th>Name</th><th>Where</th><th>Game</th>\
         <th>Level</th><th>Moves or score</th><th>Idle</th><th>Watchers</th></tr></thead>\
         <tbody></tbody></table>",
    );
    if let Some(admin) = &admin {
        if let Some(notice) = web.logins.take_notice(admin) {
            body = format!(
                "<p class=\"notice\" id=\"notice\">{}</p>{body}",
                escape(&notice)
            );
        }
        let csrf = escape(&admin.csrf);
        let _ = write!(
            body,
            "<h2>Tell everyone</h2>\
             <form method=\"post\" action=\"/admin/broadcast\" id=\"broadcast\">\
             <input type=\"hidden\" name=\"csrf\" value=\"{csrf}\">\
             <input name=\"text\" id=\"broadcast-text\" maxlength=\"300\" size=\"60\" required> \
             <button type=\"submit\">Broadcast</button></form>\
             <h2>Disconnect a player</h2>\
             <form method=\"post\" action=\"/admin/kick\" id=\"kick\">\
             <input type=\"hidden\" name=\"csrf\" value=\"{csrf}\">\
             <label>Name <input name=\"name\" id=\"kick-name\" required></label> \
             <label>Why <input name=\"why\" id=\"kick-why\" maxlength=\"300\"></label> \
             <button type=\"submit\">Kick</button></form>"
        );
    }
    let body = format!(
        "<div id=\"live\" data-admin=\"{}\">{body}</div>",
        u8::from(admin.is_some())
    );
    page(
        StatusCode::OK,
        layout("Who is playing", admin.as_ref(), &body, Some("live.js")),
    )
}

/// `GET /watch/NAME` (admins): the player's board, live.
pub async fn watch(
    State(web): State<Shared>,
    jar: CookieJar,
    Path(name): Path<String>,
) -> Response {
    let Some(admin) = auth::admin(&web, &jar) else {
        return forbidden();
    };
    let Some((_, name, _)) = web.services.registry.find(&name) else {
        return message(
            StatusCode::NOT_FOUND,
            "Not online",
            &format!("No player called {name} is online."),
        );
    };
    let body = format!(
        "<h1>Watching {shown}</h1><p id=\"status\">Connecting…</p>\
         <pre id=\"screen\" data-events=\"/watch/{path}/events\"></pre>",
        shown = escape(name.as_str()),
        path = url_part(name.as_str()),
    );
    page(
        StatusCode::OK,
        layout(
            &format!("Watching {name}"),
            Some(&admin),
            &body,
            Some("watch.js"),
        ),
    )
}

/// `GET /top`: every leaderboard with a result.
pub async fn boards(State(web): State<Shared>, jar: CookieJar) -> Response {
    let admin = auth::admin(&web, &jar);
    let boards = match web.services.store.boards().await {
        Ok(boards) => boards,
        Err(error) => return store_down(&error),
    };
    let mut body = String::from("<h1>Leaderboards</h1>");
    if boards.is_empty() {
        body.push_str("<p>No results yet: finish a game with a name to be the first.</p>");
    } else {
        body.push_str("<table id=\"boards\"><thead><tr><th>Game</th><th>Level</th><th>Results</th></tr></thead><tbody>");
        for (game, level, count) in &boards {
            let _ = write!(
                body,
                "<tr><td>{game}</td><td><a href=\"/top/{game_path}/{level_path}\">{level}</a></td><td>{count}</td></tr>",
                game = escape(game),
                level = escape(level),
                game_path = url_part(game),
                level_path = url_part(level),
            );
        }
        body.push_str("</tbody></table>");
    }
    page(
        StatusCode::OK,
        layout("Leaderboards", admin.as_ref(), &body, None),
    )
}

/// `GET /top/GAME/LEVEL`: the best ten of each of the level's boards.
pub async fn top(
    State(web): State<Shared>,
    jar: CookieJar,
    Path((game, level)): Path<(String, String)>,
) -> Response {
    let admin = auth::admin(&web, &jar);
    let Some(kind) = GameKind::from_name(&game) else {
        return message(
            StatusCode::NOT_FOUND,
            "No such game",
            &format!(
                "Unknown game: {game}. Choose one of: {}.",
                GameKind::names()
            ),
        );
    };
    let mut body = format!("<h1>{} {}</h1>", escape(kind.name), escape(&level));
    for &board in kind.boards {
        let rows = match web.services.store.top(kind.name, &level, board).await {
            Ok(rows) => rows,
            Err(error) => return store_down(&error),
        };
        leaderboard(board, &rows, &mut body);
    }
    page(
        StatusCode::OK,
        layout(
            &format!("{} {level}", kind.name),
            admin.as_ref(),
            &body,
            None,
        ),
    )
}

/// One leaderboard as a table.
fn leaderboard(board: Board, rows: &[Ranked], body: &mut String) {
    let (title, columns) = match board {
        Board::Moves => ("Fewest moves, then pushes", "<th>Moves</th><th>Pushes</th>"),
        Board::Pushes => ("Fewest pushes, then moves", "<th>Pushes</th><th>Moves</th>"),
        Board::Score => ("Highest score", "<th>Score</th><th>Largest tile</th>"),
        Board::Gold => (
            "Most wins with the gold, then fewest actions",
            "<th>Wins</th><th>Actions</th>",
        ),
    };
    let _ = write!(
        body,
        "<h2>{title}</h2><table class=\"leaderboard\"><thead><tr><th>#</th><th>Player</th>{columns}<th>Time</th><th>When</th></tr></thead><tbody>"
    );
    if rows.is_empty() {
        body.push_str("<tr><td colspan=\"6\">No results yet.</td></tr>");
    }
    for (place, row) in rows.iter().enumerate() {
        let (first, second) = match board {
            Board::Moves => (row.moves, row.pushes),
            Board::Pushes => (row.pushes, row.moves),
            Board::Score => (row.score, row.largest_tile),
            Board::Gold => (row.wins, row.moves),
        };
        let _ = write!(
            body,
            "<tr><td>{}</td><td>{}</td><td>{first}</td><td>{second}</td><td>{}</td><td>{}</td></tr>",
            place + 1,
            escape(&row.player),
            scores::duration(row.duration_ms),
            scores::date(row.finished_at),
        );
    }
    body.push_str("</tbody></table>");
}

fn store_down(error: &crate::store::StoreError) -> Response {
    tracing::error!(%error, "web page: the database does not answer");
    message(
        StatusCode::SERVICE_UNAVAILABLE,
        "Try again",
        "The database does not answer; try again in a moment.",
    )
}

/// `?since=DATE` of `/results.csv`.
#[derive(Debug, Deserialize)]
pub struct Since {
    since: Option<String>,
}

/// Results read from the store per query while the CSV streams.
const CSV_PAGE: u32 = 1000;

/// The CSV's first line.
const CSV_HEADER: [&str; 9] = [
    "player",
    "game",
    "level",
    "outcome",
    "moves",
    "pushes",
    "score",
    "seconds",
    "finished_at",
];

/// `GET /results.csv?since=DATE` (admins): every checked result finished since DATE
/// (UTC; a day, or a day and a time), for grading, streamed page by page.
pub async fn results(
    State(web): State<Shared>,
    jar: CookieJar,
    Query(since): Query<Since>,
) -> Response {
    if auth::admin(&web, &jar).is_none() {
        return forbidden();
    }
    let since_ms = match since.since.as_deref().map(str::trim) {
        None | Some("") => 0,
        Some(text) => match parse_since(text) {
            Some(ms) => ms,
            None => {
                return (
                    StatusCode::BAD_REQUEST,
                    format!(
                        "since={text}: give a day as 2026-11-23, or a day and a time as 2026-11-23T14:00:00 (UTC)\n"
                    ),
                )
                    .into_response()
            }
        },
    };
    let store = web.services.store.clone();
    let header = csv_line(&CSV_HEADER);
    // The state: the last id sent, or None once the store has no more.
    let pages = stream::unfold(Some(0i64), move |after| {
        let store = store.clone();
        async move {
            let after = after?;
            match store.results_since(since_ms, after, CSV_PAGE).await {
                Ok(rows) if rows.is_empty() => None,
                Ok(rows) => {
                    let next = rows.last().map(|row| row.id);
                    let text: String = rows.iter().map(csv_row).collect();
                    Some((Ok::<_, std::io::Error>(text), next))
                }
                Err(error) => {
                    tracing::error!(%error, "results.csv: the database does not answer");
                    Some((Err(std::io::Error::other(error.to_string())), None))
                }
            }
        }
    });
    let body = stream::iter([Ok(header)]).chain(pages);
    (
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8"),
            (
                header::CONTENT_DISPOSITION,
                "attachment; filename=\"arcade-results.csv\"",
            ),
        ],
        Body::from_stream(body),
    )
        .into_response()
}

/// `2026-11-23` or `2026-11-23T14:00:00` (UTC), as Unix milliseconds.
pub fn parse_since(text: &str) -> Option<i64> {
    let full = if text.len() == 10 {
        format!("{text}T00:00:00Z")
    } else if text.ends_with('Z') {
        text.to_string()
    } else {
        format!("{text}Z")
    };
    let time = humantime::parse_rfc3339_weak(&full).ok()?;
    let since = time.duration_since(UNIX_EPOCH).ok()?;
    i64::try_from(since.as_millis()).ok()
}

/// A Unix time in milliseconds as `2026-11-23T14:05:09Z`.
fn rfc3339(ms: i64) -> String {
    let ms = u64::try_from(ms).unwrap_or(0);
    let time = UNIX_EPOCH + Duration::from_millis(ms);
    humantime::format_rfc3339_seconds(time).to_string()
}

fn csv_row(row: &Graded) -> String {
    let seconds = format!("{:.1}", row.duration_ms as f64 / 1000.0);
    csv_line(&[
        &row.player,
        &row.game,
        &row.level,
        &row.outcome,
        &row.moves.to_string(),
        &row.pushes.to_string(),
        &row.score.to_string(),
        &seconds,
        &rfc3339(row.finished_at),
    ])
}

/// One CSV line, quoted where needed by the csv crate. A field that a spreadsheet
/// would take for a formula (`=`, `+`, `-`, `@` first) gets a `'` before it, as
/// OWASP advises: a player's name must not run in the teacher's spreadsheet.
fn csv_line(fields: &[&str]) -> String {
    let mut writer = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(Vec::new());
    let guarded: Vec<String> = fields
        .iter()
        .map(|field| {
            if field.starts_with(['=', '+', '-', '@']) && field.parse::<f64>().is_err() {
                format!("'{field}")
            } else {
                field.to_string()
            }
        })
        .collect();
    // Writing to memory cannot fail.
    let _ = writer.write_record(&guarded);
    let bytes = writer.into_inner().unwrap_or_default();
    String::from_utf8(bytes).unwrap_or_default()
}

/// The recording numbered `id` (as in the URL), or the page that says why not.
async fn find_recording(
    web: &Web,
    id: &str,
) -> Result<(i64, Listed, crate::records::recording::Recording), Response> {
    let not_found = |text: &str| message(StatusCode::NOT_FOUND, "No such recording", text);
    let Ok(id) = id.parse::<i64>() else {
        return Err(not_found("Recordings are numbered: /recordings/12."));
    };
    match crate::records::recording::load(&web.services.store, id).await {
        Ok(Some((listed, recording))) => Ok((id, listed, recording)),
        Ok(None) => Err(not_found(&format!("There is no recording {id}."))),
        Err(error) => Err(store_down(&error)),
    }
}

/// `GET /recordings/ID`: the recording played in the browser.
pub async fn recording(web: &Web, admin: Option<&Admin>, id: &str) -> Response {
    let (id, listed, _) = match find_recording(web, id).await {
        Ok(found) => found,
        Err(refusal) => return refusal,
    };
    let title = format!("{} playing {} {}", listed.player, listed.game, listed.args);
    let body = format!(
        "<h1>Recording {id}</h1><p>{title}, {when}, {inputs} lines.</p>\
         <div id=\"player\" data-cast=\"/recordings/{id}.cast\" data-max-pause=\"{pause}\">\
         <p class=\"controls\"><button type=\"button\" id=\"play\">Pause</button> \
         <label>Speed <select id=\"speed\"><option value=\"0.5\">0.5×</option>\
         <option value=\"1\" selected>1×</option><option value=\"2\">2×</option>\
         <option value=\"4\">4×</option><option value=\"8\">8×</option></select></label> \
         <button type=\"button\" id=\"restart\">From the start</button> \
         <span id=\"position\"></span> \
         <a href=\"/recordings/{id}.cast\" download=\"arcade-{id}.cast\" id=\"download\">Download (asciicast)</a></p>\
         <pre id=\"screen\"></pre></div>",
        title = escape(title.trim_end()),
        when = escape(&scores::date(listed.started_at)),
        inputs = listed.inputs,
        pause = crate::console::MAX_PAUSE.as_secs(),
    );
    page(
        StatusCode::OK,
        layout(&format!("Recording {id}"), admin, &body, Some("player.js")),
    )
}

/// `GET /recordings/ID.cast`: the asciicast file, as `arcade export ID` writes it.
pub async fn cast(web: &Web, id: &str) -> Response {
    let (id, listed, recording) = match find_recording(web, id).await {
        Ok(found) => found,
        Err(refusal) => return refusal,
    };
    let context = web.services.contexts.current();
    let title = format!("{} playing {} {}", listed.player, listed.game, listed.args);
    // Replaying is the games' work, not the event loop's.
    let cast = tokio::task::spawn_blocking(move || {
        crate::records::recording::asciicast(
            &recording,
            title.trim_end(),
            listed.started_at / 1000,
            &context,
        )
    })
    .await;
    match cast {
        Ok(Ok(cast)) => (
            [
                (header::CONTENT_TYPE, "application/x-asciicast".to_string()),
                (
                    header::CONTENT_DISPOSITION,
                    format!("attachment; filename=\"arcade-{id}.cast\""),
                ),
            ],
            cast,
        )
            .into_response(),
        Ok(Err(error)) => message(
            StatusCode::UNPROCESSABLE_ENTITY,
            "Cannot replay",
            &format!("Recording {id} cannot be played again: {error}"),
        ),
        Err(_) => message(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Cannot replay",
            "Replaying this recording failed.",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_and_urls_are_escaped() {
        assert_eq!(
            escape("<b>\"Tom\" & 'Jerry'</b>"),
            "&lt;b&gt;&quot;Tom&quot; &amp; &#39;Jerry&#39;&lt;/b&gt;"
        );
        assert_eq!(url_part("arcade 3/x"), "arcade%203%2Fx");
    }

    #[test]
    fn since_takes_a_day_or_a_day_and_time_in_utc() {
        assert_eq!(parse_since("1970-01-02"), Some(86_400_000));
        assert_eq!(parse_since("1970-01-01T00:01:00"), Some(60_000));
        assert_eq!(parse_since("1970-01-01 00:01:00"), Some(60_000));
        assert_eq!(parse_since("yesterday"), None);
        assert_eq!(parse_since("2026-13-01"), None);
        assert_eq!(rfc3339(86_400_000), "1970-01-02T00:00:00Z");
    }

    #[test]
    fn csv_fields_are_quoted_and_formulas_defused() {
        assert_eq!(csv_line(&["a", "b c", "x,y"]), "a,b c,\"x,y\"\r\n");
        assert_eq!(csv_line(&["=cmd()", "-12", "@x"]), "'=cmd(),-12,'@x\r\n");
    }
}
