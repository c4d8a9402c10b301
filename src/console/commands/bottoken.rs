//! `bottoken new`, `bottoken list`, `bottoken revoke N`: the tokens a registered
//! player's bot programs log in with instead of the password (SPEC section 12, `bot
//! NAME TOKEN`), kept in the store as hashes, at most [`MAX_TOKENS`] each. A new
//! token is shown once, to its owner only (not to watchers: a command's answer goes
//! to the player alone), and never again.

use super::{Args, CommandSpec, Help, Place};
use crate::console::jobs::StoreWork;
use crate::console::{Console, Outcome};
use crate::players::accounts::PlayerName;
use crate::players::bot_tokens::{BotToken, MAX_TOKENS};
use crate::store::{Store, TokenAdded};

/// `bottoken`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "bottoken",
    place: Place::Everywhere,
    admins_only: false,
    help: Help::Player(
        "  bottoken new       a token your bot program logs in with (bottoken list,\n                     bottoken revoke N)\n",
    ),
    run,
};

/// What `bottoken` asks of the store.
pub enum TokenWork {
    /// Keep this new token.
    New(PlayerName, BotToken),
    /// List the tokens.
    List(PlayerName),
    /// Revoke the `n`th token of the list (from 1).
    Revoke(PlayerName, usize),
}

const USAGE: &str = "Usage: bottoken new, bottoken list, bottoken revoke N.\n";

fn run(console: &mut Console, args: Args<'_>) -> Outcome {
    let Some(seat) = console.seat.as_ref() else {
        return console.say(String::new());
    };
    if !seat.is_registered() {
        return console.say(String::from(
            "Bot tokens are for registered names: name NAME, then register, first.\n",
        ));
    }
    let name = seat.name().clone();
    let work = match args.word(0).map(str::to_ascii_lowercase).as_deref() {
        Some("new") if !args.more_than(1) => TokenWork::New(name, BotToken::generate()),
        Some("list") if !args.more_than(1) => TokenWork::List(name),
        Some("revoke") if !args.more_than(2) => {
            match args.word(1).and_then(|n| n.parse::<usize>().ok()) {
                Some(n) if n >= 1 => TokenWork::Revoke(name, n),
                _ => {
                    return console.say(String::from(
                        "Usage: bottoken revoke N (N from bottoken list).\n",
                    ))
                }
            }
        }
        _ => return console.say(String::from(USAGE)),
    };
    console.store_job(StoreWork::BotTokens(work))
}

/// A time of the list: `YYYY-MM-DD HH:MM` UTC, as the lists of results show them.
fn when(unix_ms: Option<i64>) -> String {
    unix_ms.map_or_else(|| String::from("never"), crate::text::date)
}

impl TokenWork {
    /// Do it: what to say.
    pub async fn run(self, store: &Store) -> String {
        let failed = |error: &crate::store::StoreError| {
            format!(
                "Cannot do that now: {}.\n",
                crate::seat::store_failed(error)
            )
        };
        match self {
            TokenWork::New(name, token) => {
                match store
                    .add_bot_token(&name.key(), token.hash().as_str(), token.prefix(), MAX_TOKENS)
                    .await
                {
                    Ok(TokenAdded::Added(n)) => format!(
                        "New bot token {n}: {}\n\
                         It is shown only this once: your bot logs in with bot {name} TOKEN.\n\
                         Keep it out of shared files; bottoken revoke {n} ends it.\n",
                        token.secret()
                    ),
                    Ok(TokenAdded::Full) => format!(
                        "You hold {MAX_TOKENS} bot tokens, the most there can be: bottoken revoke N one\n\
                         first (bottoken list numbers them).\n"
                    ),
                    Err(error) => failed(&error),
                }
            }
            TokenWork::List(name) => match store.bot_tokens(&name.key()).await {
                Ok(tokens) if tokens.is_empty() => {
                    String::from("You have no bot tokens. bottoken new makes one.\n")
                }
                Ok(tokens) => {
                    let mut text = String::from("Your bot tokens:\n");
                    for (n, kept) in tokens.iter().enumerate() {
                        text.push_str(&format!(
                            "{:>3}. {}...  made {}, last used {}\n",
                            n + 1,
                            kept.prefix,
                            when(Some(kept.created_at)),
                            when(kept.last_used_at)
                        ));
                    }
                    text
                }
                Err(error) => failed(&error),
            },
            TokenWork::Revoke(name, n) => match store.revoke_bot_token(&name.key(), n).await {
                Ok(Some(kept)) => format!(
                    "Bot token {n} revoked ({}...): no bot logs in with it any more.\n",
                    kept.prefix
                ),
                Ok(None) => format!("You have no bot token {n}: bottoken list numbers them.\n"),
                Err(error) => failed(&error),
            },
        }
    }
}
