//! The store's whole interface (SPEC sections 7, 8 and 11), one suite run against
//! both engines: SQLite in a temporary file, and a throwaway PostgreSQL
//! (tests/common/postgres.rs). The same test bodies run on each; where the engines
//! mean to differ (several instances, id blocks, race numbers) the body says so.
//! Then what only PostgreSQL has: migrations by three instances at once, a restart
//! of the database under an open store.

mod common;

use std::time::Duration;

use arcade::catalog::table::Board;
use arcade::games::{Finish, Outcome};
use arcade::records::recording::{self, Start};
use arcade::store::{
    Account, Change, DbUrl, NewRecording, NewResult, Played, RecordingFilter, RecordingState,
    Registered, Store,
};
use common::postgres::Postgres;

/// Where a test's store lives, kept alive as long as the test.
struct Backend {
    url: DbUrl,
    _dir: tempfile::TempDir,
    _postgres: Option<Postgres>,
}

impl Backend {
    fn sqlite() -> Backend {
        let dir = tempfile::tempdir().expect("a temporary directory");
        Backend {
            url: DbUrl::in_data_dir(dir.path()),
            _dir: dir,
            _postgres: None,
        }
    }

    /// `None` when PostgreSQL is not installed (the harness said `skipped: ...`).
    fn postgres() -> Option<Backend> {
        let postgres = Postgres::start()?;
        let url = postgres.database("arcade").parse().expect("a postgres URL");
        Some(Backend {
            url,
            _dir: tempfile::tempdir().expect("a temporary directory"),
            _postgres: Some(postgres),
        })
    }

    async fn open(&self) -> Store {
        Store::open(&self.url)
            .await
            .unwrap_or_else(|error| panic!("open {}: {error}", self.url))
    }
}

/// Each named body, as a test on SQLite and as one on PostgreSQL.
macro_rules! on_both {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name(super::Backend::sqlite()).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    if let Some(backend) = super::Backend::postgres() {
                        super::$name(backend).await;
                    }
                }
            )*
        }
    };
}

on_both!(
    accounts_and_settings_are_kept,
    recordings_are_written_read_listed_and_discarded,
    recordings_are_found_by_player_game_level_and_date,
    results_are_checked_once_and_ranked,
    old_recordings_are_swept,
    input_lines_read_the_same_from_the_log_and_after_they_move,
    ids_and_instances,
    open_recordings_of_gone_instances_are_closed,
    old_2048_results_move_to_the_board_of_their_win_value,
    ssh_keys_are_added_capped_removed_and_gone_with_their_account,
    bot_tokens_are_added_capped_listed_revoked_matched_and_gone_with_their_account,
    ladders_are_opened_listed_and_closed_once,
    ladder_results_are_kept_once_per_seed_listed_and_checked_once,
    ladder_baselines_are_replaced_and_listed,
);

fn start(game: &str) -> Start {
    Start {
        game: String::from(game),
        args: vec![String::from("seed=7")],
        memory: String::from("best=12"),
        world: None,
    }
}

fn open(id: i64, player: &str, registered: bool, started_at: i64) -> Change {
    open_as(id, player, registered, started_at, ("2048", "size=4"), None)
}

/// [`open`] of a game and level, in a race or not.
fn open_as(
    id: i64,
    player: &str,
    registered: bool,
    started_at: i64,
    (game, level): (&str, &str),
    race: Option<i64>,
) -> Change {
    Change::Open(Box::new(NewRecording {
        id,
        player: String::from(player),
        player_key: player.to_lowercase(),
        registered,
        start: start(game),
        level: String::from(level),
        race,
        started_at,
    }))
}

fn state(id: i64, state: RecordingState) -> Change {
    Change::State {
        id,
        state,
        outcome: None,
        played: None,
    }
}

fn result(recording_id: i64, upto: u64, player: &str, moves: u64, gold: bool) -> Change {
    Change::Result(Box::new(NewResult {
        recording_id,
        upto,
        player: String::from(player),
        player_key: player.to_lowercase(),
        registered: true,
        bot: false,
        game: String::from("wumpus"),
        level: String::from("classic"),
        args: String::new(),
        finish: Finish {
            moves,
            gold,
            ..Finish::new(if gold { Outcome::Won } else { Outcome::Stopped })
        },
        duration_ms: 1000 + i64::try_from(moves).unwrap(),
        finished_at: 5000 + i64::try_from(upto).unwrap(),
        helped: false,
    }))
}

async fn accounts_and_settings_are_kept(backend: Backend) {
    let store = backend.open().await;
    assert_eq!(store.account("ann").await.unwrap(), None);
    assert_eq!(
        store
            .register("ann", "Ann", "$hash", "chat=on")
            .await
            .unwrap(),
        Registered::Created
    );
    assert_eq!(
        store.register("ann", "ANN", "$other", "").await.unwrap(),
        Registered::Taken
    );
    store.save_settings("ann", "chat=off").await.unwrap();
    store.close().await;
    let again = backend.open().await;
    assert_eq!(
        again.account("ann").await.unwrap(),
        Some(Account {
            name: String::from("Ann"),
            password_hash: String::from("$hash"),
            settings: String::from("chat=off"),
        })
    );
    assert_eq!(again.account("bo").await.unwrap(), None);
    again.close().await;
}

async fn ssh_keys_are_added_capped_removed_and_gone_with_their_account(backend: Backend) {
    use arcade::store::KeyAdded;
    let store = backend.open().await;
    for name in ["ann", "bo"] {
        store.register(name, name, "$hash", "").await.unwrap();
    }
    let key = |n: u32| {
        (
            format!("ssh-ed25519 AAAA{n} ann@lab"),
            format!("SHA256:{n}"),
        )
    };
    let (one, one_print) = key(1);
    let (two, two_print) = key(2);
    let (three, three_print) = key(3);
    assert_eq!(
        store.add_ssh_key("ann", &one, &one_print, 2).await.unwrap(),
        KeyAdded::Added
    );
    assert_eq!(
        store.add_ssh_key("ann", &one, &one_print, 2).await.unwrap(),
        KeyAdded::Known
    );
    assert_eq!(
        store.add_ssh_key("ann", &two, &two_print, 2).await.unwrap(),
        KeyAdded::Added
    );
    assert_eq!(
        store
            .add_ssh_key("ann", &three, &three_print, 2)
            .await
            .unwrap(),
        KeyAdded::Full
    );
    // Another player's keys are their own, the same key included.
    assert_eq!(
        store.add_ssh_key("bo", &one, &one_print, 2).await.unwrap(),
        KeyAdded::Added
    );
    let kept = store.ssh_keys("ann").await.unwrap();
    let prints: Vec<&str> = kept.iter().map(|k| k.fingerprint.as_str()).collect();
    assert_eq!(prints, ["SHA256:1", "SHA256:2"], "oldest first");
    assert_eq!(kept[0].key, one);
    // A key is removed by its owner only.
    assert!(!store.remove_ssh_key("bo", kept[0].id).await.unwrap());
    assert!(store.remove_ssh_key("ann", kept[0].id).await.unwrap());
    assert!(!store.remove_ssh_key("ann", kept[0].id).await.unwrap());
    assert_eq!(store.ssh_keys("ann").await.unwrap().len(), 1);
    assert_eq!(
        store
            .add_ssh_key("ann", &three, &three_print, 2)
            .await
            .unwrap(),
        KeyAdded::Added
    );
    // Gone with the account, and not back with a new account of the same name.
    assert!(store.delete_account("ann").await.unwrap());
    store.register("ann", "ann", "$new", "").await.unwrap();
    assert!(store.ssh_keys("ann").await.unwrap().is_empty());
    assert_eq!(store.ssh_keys("bo").await.unwrap().len(), 1);
    store.close().await;
}

async fn bot_tokens_are_added_capped_listed_revoked_matched_and_gone_with_their_account(
    backend: Backend,
) {
    use arcade::players::bot_tokens::BotToken;
    use arcade::store::TokenAdded;
    let store = backend.open().await;
    for name in ["ann", "bo"] {
        store.register(name, name, "$hash", "").await.unwrap();
    }
    let tokens: Vec<BotToken> = (0..4).map(|_| BotToken::generate()).collect();
    let add = |name: &'static str, token: &BotToken| {
        let store = store.clone();
        let (hash, prefix) = (token.hash(), token.prefix().to_owned());
        async move {
            store
                .add_bot_token(name, hash.as_str(), &prefix, 2)
                .await
                .unwrap()
        }
    };
    let matches = |name: &'static str, token: &BotToken| {
        let store = store.clone();
        let hash = token.hash();
        async move { store.bot_token_matches(name, hash.as_str()).await.unwrap() }
    };
    assert!(store.bot_tokens("ann").await.unwrap().is_empty());
    assert_eq!(add("ann", &tokens[0]).await, TokenAdded::Added(1));
    assert_eq!(add("ann", &tokens[1]).await, TokenAdded::Added(2));
    assert_eq!(add("ann", &tokens[2]).await, TokenAdded::Full);
    assert_eq!(add("bo", &tokens[2]).await, TokenAdded::Added(1));
    let kept = store.bot_tokens("ann").await.unwrap();
    let prefixes: Vec<&str> = kept.iter().map(|t| t.prefix.as_str()).collect();
    assert_eq!(
        prefixes,
        [tokens[0].prefix(), tokens[1].prefix()],
        "oldest first"
    );
    assert!(kept
        .iter()
        .all(|t| t.last_used_at.is_none() && t.created_at > 0));
    // A token logs in its own player only; a token never made logs in no one.
    assert!(matches("ann", &tokens[1]).await);
    assert!(!matches("bo", &tokens[1]).await);
    assert!(!matches("ann", &tokens[2]).await);
    assert!(!matches("ann", &tokens[3]).await);
    let kept = store.bot_tokens("ann").await.unwrap();
    assert_eq!(kept[0].last_used_at, None);
    let used = kept[1].last_used_at.expect("a match sets the last use");
    assert!(used >= kept[1].created_at);
    // Revoked by its place in the list, by its owner only.
    assert_eq!(store.revoke_bot_token("ann", 3).await.unwrap(), None);
    assert_eq!(store.revoke_bot_token("ann", 0).await.unwrap(), None);
    let revoked = store.revoke_bot_token("ann", 1).await.unwrap();
    assert_eq!(
        revoked.map(|t| t.prefix),
        Some(tokens[0].prefix().to_owned())
    );
    assert!(!matches("ann", &tokens[0]).await);
    assert!(
        matches("ann", &tokens[1]).await,
        "the other one still works"
    );
    assert_eq!(store.bot_tokens("ann").await.unwrap().len(), 1);
    assert_eq!(add("ann", &tokens[3]).await, TokenAdded::Added(2));
    // Gone with the account, and not back with a new account of the same name.
    assert!(store.delete_account("ann").await.unwrap());
    store.register("ann", "ann", "$new", "").await.unwrap();
    assert!(store.bot_tokens("ann").await.unwrap().is_empty());
    assert!(!matches("ann", &tokens[1]).await);
    assert!(matches("bo", &tokens[2]).await);
    store.close().await;
}

async fn recordings_are_written_read_listed_and_discarded(backend: Backend) {
    let store = backend.open().await;
    let first = store.recording_ids().await.unwrap().start;
    let (ann, guest) = (first, first + 1);
    let lines = encoded(&[(5, "w")]);
    let more = encoded(&[(9, "a b")]);
    let batch = vec![
        open(ann, "Ann", true, 100),
        open(guest, "guest-1", false, 200),
        Change::Inputs {
            id: ann,
            first: 0,
            lines: lines.clone(),
        },
        Change::Inputs {
            id: ann,
            first: 1,
            lines: more.clone(),
        },
        Change::State {
            id: guest,
            state: RecordingState::Ended,
            outcome: Some(Outcome::Stopped),
            played: Some(Played {
                inputs: 0,
                duration_ms: 40,
            }),
        },
    ];
    store.write(&batch).await.unwrap();
    // The same batch again (a commit whose answer was lost) adds nothing.
    store.write(&batch).await.unwrap();

    let (listed, recording) = recording::load(&store, ann).await.unwrap().expect("ann's");
    assert_eq!(listed.id, ann);
    assert_eq!(listed.player, "Ann");
    assert_eq!(listed.state, RecordingState::Open);
    assert_eq!(listed.started_at, 100);
    assert_eq!(recording.start.game, "2048");
    assert_eq!(recording.start.args, vec![String::from("seed=7")]);
    assert_eq!(recording.start.memory, "best=12");
    let typed: Vec<&str> = recording
        .inputs
        .iter()
        .map(|input| input.line.as_str())
        .collect();
    assert_eq!(typed, ["w", "a b"]);
    assert_eq!(store.recording(first + 99).await.unwrap(), None);

    let all: Vec<(i64, RecordingState)> = store
        .recordings(None, 10)
        .await
        .unwrap()
        .iter()
        .map(|listed| (listed.id, listed.state))
        .collect();
    assert_eq!(
        all,
        [(guest, RecordingState::Ended), (ann, RecordingState::Open)]
    );
    let guests = store.recordings(Some("guest-1"), 10).await.unwrap();
    assert_eq!(guests.len(), 1);
    assert_eq!(guests[0].outcome, Some(Outcome::Stopped));
    assert_eq!(guests[0].duration_ms, 40);
    assert_eq!(store.recordings(None, 1).await.unwrap().len(), 1);

    // Open: the connection may be closing. Unfinished: resume finds it.
    assert_eq!(
        store.waiting_game("ann").await.unwrap(),
        Some((ann, String::from("2048"), RecordingState::Open))
    );
    assert_eq!(store.waiting_game("guest-1").await.unwrap(), None);
    store
        .write(&[state(ann, RecordingState::Unfinished)])
        .await
        .unwrap();
    assert_eq!(
        store.waiting_game("ann").await.unwrap(),
        Some((ann, String::from("2048"), RecordingState::Unfinished))
    );
    store
        .write(&[Change::Discard {
            player_key: String::from("ann"),
        }])
        .await
        .unwrap();
    assert_eq!(store.waiting_game("ann").await.unwrap(), None);
    let (listed, _) = store.recording(ann).await.unwrap().expect("ann's");
    assert_eq!(listed.state, RecordingState::Discarded);

    let stats = store.stats("guest-1").await.unwrap();
    assert_eq!(stats.player.as_deref(), Some("guest-1"));
    assert_eq!((stats.games, stats.played_ms), (1, 40));
    let nobody = store.stats("nobody").await.unwrap();
    assert_eq!((nobody.player, nobody.games), (None, 0));
    store.close().await;
}

async fn recordings_are_found_by_player_game_level_and_date(backend: Backend) {
    let store = backend.open().await;
    let id = store.recording_ids().await.unwrap().start;
    const DAY: i64 = 24 * 3600 * 1000;
    store
        .write(&[
            open_as(id, "Ann", true, DAY, ("sokoban", "classic"), None),
            open_as(id + 1, "Ann", true, 2 * DAY, ("wumpus", "classic"), Some(3)),
            open_as(id + 2, "Bo", true, 2 * DAY + 5, ("sokoban", "extra"), None),
            open_as(
                id + 3,
                "guest-1",
                false,
                3 * DAY,
                ("sokoban", "classic"),
                None,
            ),
        ])
        .await
        .unwrap();
    let found = |filter: RecordingFilter, limit: u32| {
        let store = store.clone();
        async move {
            store
                .find_recordings(&filter, limit)
                .await
                .unwrap()
                .iter()
                .map(|listed| listed.id - id)
                .collect::<Vec<i64>>()
        }
    };
    assert_eq!(found(RecordingFilter::default(), 10).await, [3, 2, 1, 0]);
    let ann = RecordingFilter {
        player_key: Some(String::from("ann")),
        ..RecordingFilter::default()
    };
    assert_eq!(found(ann.clone(), 10).await, [1, 0]);
    let sokoban = RecordingFilter {
        game: Some(String::from("sokoban")),
        ..RecordingFilter::default()
    };
    assert_eq!(found(sokoban.clone(), 10).await, [3, 2, 0]);
    let classic = RecordingFilter {
        level: Some(String::from("classic")),
        registered_only: true,
        ..sokoban
    };
    assert_eq!(found(classic, 10).await, [0]);
    let second_day = RecordingFilter {
        from_ms: Some(2 * DAY),
        until_ms: Some(3 * DAY),
        ..RecordingFilter::default()
    };
    assert_eq!(found(second_day, 10).await, [2, 1]);
    // A page at a time: the next starts below the last id shown.
    assert_eq!(found(RecordingFilter::default(), 2).await, [3, 2]);
    let next = RecordingFilter {
        before_id: Some(id + 2),
        ..RecordingFilter::default()
    };
    assert_eq!(found(next, 2).await, [1, 0]);
    // What was typed is a value, never SQL.
    let hostile = RecordingFilter {
        player_key: Some(String::from("ann' OR '1'='1")),
        ..ann
    };
    assert!(found(hostile, 10).await.is_empty());
    store.close().await;
}

async fn results_are_checked_once_and_ranked(backend: Backend) {
    let store = backend.open().await;
    let id = store.recording_ids().await.unwrap().start;
    let batch = vec![
        open(id, "Ann", true, 1),
        // Bo's game was a race's.
        open_as(id + 1, "Bo", true, 2, ("wumpus", "classic"), Some(7)),
        result(id, 3, "Ann", 20, true),
        result(id, 7, "Ann", 14, true),
        result(id + 1, 4, "Bo", 12, true),
        result(id + 1, 9, "Bo", 30, false),
    ];
    store.write(&batch).await.unwrap();
    // Written again: each result is kept once.
    store.write(&batch).await.unwrap();
    let pending = store.pending_results(10).await.unwrap();
    assert_eq!(pending.len(), 4, "{pending:?}");
    assert!(pending.windows(2).all(|two| two[0].id < two[1].id));
    assert_eq!(pending[0].recording_id, id);
    assert_eq!(pending[0].upto, 3);
    let finish = pending[0].finish.clone().expect("a finish");
    assert_eq!(finish.level.as_deref(), Some("classic"));
    assert_eq!(
        (finish.outcome, finish.moves, finish.gold),
        (Outcome::Won, 20, true)
    );
    assert_eq!(store.pending_results(2).await.unwrap().len(), 2);

    // Bo's 12 is kept out; the rest go on the boards.
    let ids: Vec<i64> = pending.iter().map(|pending| pending.id).collect();
    let marks = [
        (ids[0], true),
        (ids[1], true),
        (ids[2], false),
        (ids[3], true),
    ];
    store.set_verified(&marks).await.unwrap();
    // A second verifier's marks change nothing: the first stands.
    store
        .set_verified(&[(ids[2], true), (ids[0], false)])
        .await
        .unwrap();
    assert!(store.pending_results(10).await.unwrap().is_empty());

    let top = store
        .top("wumpus", "classic", Board::Gold, false)
        .await
        .unwrap();
    let lines: Vec<(&str, u64, u64)> = top
        .iter()
        .map(|ranked| (ranked.player.as_str(), ranked.wins, ranked.moves))
        .collect();
    assert_eq!(lines, [("Ann", 2, 14)]);
    assert_eq!(top[0].duration_ms, 1014);
    // Each line names the recording that made it (the web page links it).
    assert_eq!(top[0].recording_id, id);
    let score = store
        .top("wumpus", "classic", Board::Score, false)
        .await
        .unwrap();
    assert_eq!(score.len(), 2, "{score:?}");
    assert!(store
        .top("wumpus", "other", Board::Moves, false)
        .await
        .unwrap()
        .is_empty());
    // Bo's game without the gold ranks on no wumpus board: `top` does not count it
    // either, so the index and `top wumpus` say the same (issue 30).
    assert_eq!(
        store.boards().await.unwrap(),
        [(String::from("wumpus"), String::from("classic"), 2)]
    );

    let stats = store.stats("ann").await.unwrap();
    let moves: Vec<u64> = stats
        .results
        .iter()
        .map(|(_, finish)| finish.moves)
        .collect();
    assert_eq!(moves, [20, 14]);
    assert_eq!(stats.games, 1);
    let bo = store.stats("bo").await.unwrap();
    assert_eq!(
        bo.results.len(),
        1,
        "the result kept out is not Bo's record"
    );

    let graded = store.results_since(0, 0, 10).await.unwrap();
    let graded_ids: Vec<i64> = graded.iter().map(|graded| graded.id).collect();
    assert_eq!(graded_ids, [ids[0], ids[1], ids[3]]);
    assert_eq!(graded[0].outcome, "won");
    // Each names its recording, and its race when it was one's.
    let sources: Vec<(i64, Option<i64>)> = graded
        .iter()
        .map(|graded| (graded.recording_id, graded.race))
        .collect();
    assert_eq!(sources, [(id, None), (id, None), (id + 1, Some(7))]);
    let after = store.results_since(0, ids[0], 10).await.unwrap();
    assert_eq!(after.len(), 2);
    let late = store.results_since(5008, 0, 10).await.unwrap();
    assert_eq!(
        late.iter().map(|graded| graded.id).collect::<Vec<_>>(),
        [ids[3]]
    );
    assert_eq!(store.results_since(0, 0, 1).await.unwrap().len(), 1);
    store.close().await;
}

async fn old_recordings_are_swept(backend: Backend) {
    let store = backend.open().await;
    let id = store.recording_ids().await.unwrap().start;
    let old = arcade::records::recorder::now_ms() - 100 * 24 * 3600 * 1000;
    let now = arcade::records::recorder::now_ms();
    let mut changes = vec![
        // A guest's old game: swept.
        open(id, "guest-1", false, old),
        // Recent: kept.
        open(id + 1, "guest-2", false, now),
        // A registered player's with a result: kept.
        open(id + 2, "Ann", true, old),
        result(id + 2, 1, "Ann", 5, true),
        // Unfinished: kept.
        open(id + 3, "Bo", true, old),
        // Still open: kept.
        open(id + 4, "Cy", true, old),
    ];
    for id in id..id + 3 {
        changes.push(state(id, RecordingState::Ended));
    }
    changes.push(state(id + 3, RecordingState::Unfinished));
    changes.push(inputs(id, 0, &[(5, "w")]));
    store.write(&changes).await.unwrap();
    let deleted =
        arcade::records::recorder::sweep(&store, arcade::records::recorder::Retention::default())
            .await
            .unwrap();
    assert_eq!(deleted, 1);
    assert_eq!(store.recording(id).await.unwrap(), None);
    // Its lines, still in the log when it was swept, went with it.
    assert_eq!(store.logged_inputs().await.unwrap(), 0);
    assert_eq!(store.recording_inputs(id, None, 10).await.unwrap(), []);
    let left: Vec<i64> = store
        .recordings(None, 10)
        .await
        .unwrap()
        .iter()
        .map(|listed| listed.id)
        .collect();
    assert_eq!(left, [id + 4, id + 3, id + 2, id + 1]);
    // Once old, the recent guest's goes too; the rest are kept still.
    assert_eq!(store.sweep(i64::MAX, i64::MAX, 10).await.unwrap(), 1);
    store.close().await;
}

fn inputs(id: i64, first: u64, typed: &[(u64, &str)]) -> Change {
    let lines = encoded(typed);
    Change::Inputs { id, first, lines }
}

/// `typed` (when, line) as the store keeps it.
fn encoded(typed: &[(u64, &str)]) -> String {
    let mut lines = String::new();
    for (at_ms, line) in typed {
        recording::encode_input(*at_ms, line, &mut lines);
    }
    lines
}

async fn input_lines_read_the_same_from_the_log_and_after_they_move(backend: Backend) {
    let store = backend.open().await;
    let id = store.recording_ids().await.unwrap().start;
    let other = id + 1;
    let first = vec![
        open(id, "Ann", true, 100),
        open(other, "guest-1", false, 100),
        inputs(id, 0, &[(5, "w"), (7, "a")]),
        inputs(other, 0, &[(6, "d")]),
    ];
    store.write(&first).await.unwrap();
    // The same batch again (a commit whose answer was lost): logged twice, read once.
    store.write(&first).await.unwrap();
    store
        .write(&[inputs(id, 2, &[(9, "s\\n")]), inputs(other, 1, &[(8, "u")])])
        .await
        .unwrap();
    assert_eq!(store.logged_inputs().await.unwrap(), 6);
    let typed = |recording: Option<(_, arcade::records::recording::Recording)>| -> Vec<String> {
        let (_, recording) = recording.expect("the recording");
        recording
            .inputs
            .into_iter()
            .map(|input| input.line)
            .collect()
    };
    let whole = typed(recording::load(&store, id).await.unwrap());
    assert_eq!(whole, ["w", "a", "s\\n"]);
    let paged = |store: Store| async move {
        let mut pages = Vec::new();
        let mut after = None;
        loop {
            let page = store.recording_inputs(id, after, 1).await.unwrap();
            let Some((batch, _)) = page.last() else { break };
            after = Some(*batch);
            pages.push(page);
        }
        pages
    };
    let logged_pages = paged(store.clone()).await;
    assert_eq!(logged_pages.len(), 2, "two batches, one a page");
    assert_eq!(logged_pages[1][0].0, 2, "numbered by their first line");

    // Moved: the rows written twice are one, and everything reads the same. (On
    // SQLite a move joins a recording's batches into one row, numbered by its first
    // line; PostgreSQL keeps them as written.)
    let text = |pages: Vec<Vec<(i64, String)>>| -> String {
        pages
            .into_iter()
            .flatten()
            .map(|(_, lines)| lines)
            .collect()
    };
    assert!(store.compact_inputs().await.unwrap() >= 4);
    assert_eq!(store.logged_inputs().await.unwrap(), 0);
    assert_eq!(typed(recording::load(&store, id).await.unwrap()), whole);
    let moved_pages = paged(store.clone()).await;
    assert_eq!(text(moved_pages.clone()), text(logged_pages.clone()));
    if store.is_shared() {
        assert_eq!(moved_pages, logged_pages);
    } else {
        assert_eq!(moved_pages.len(), 1, "joined: {moved_pages:?}");
        assert_eq!(moved_pages[0][0].0, 0);
    }
    assert_eq!(
        typed(recording::load(&store, other).await.unwrap()),
        ["d", "u"]
    );

    // Lines after the move are read after those moved. A batch moved and logged
    // again is read once, and moved again adds nothing: the last write retried with
    // what was played since (its answer lost, and another server sharing the file
    // moved the log in between). A retry holds what failed and what came after it, so
    // a copy is always of the last batches moved for its recording.
    store
        .write(&[
            inputs(id, 2, &[(9, "s\\n")]),
            inputs(other, 1, &[(8, "u")]),
            inputs(id, 3, &[(12, "q")]),
        ])
        .await
        .unwrap();
    assert_eq!(
        typed(recording::load(&store, id).await.unwrap()),
        ["w", "a", "s\\n", "q"]
    );
    // Paged, the moved batches come by key and the logged ones after them.
    let numbered = |pages: Vec<Vec<(i64, String)>>| -> Vec<i64> {
        pages
            .into_iter()
            .flatten()
            .map(|(batch, _)| batch)
            .collect()
    };
    assert_eq!(numbered(paged(store.clone()).await), [0, 2, 3]);
    store.compact_inputs().await.unwrap();
    assert_eq!(
        typed(recording::load(&store, id).await.unwrap()),
        ["w", "a", "s\\n", "q"]
    );
    assert_eq!(
        typed(recording::load(&store, other).await.unwrap()),
        ["d", "u"]
    );
    assert_eq!(
        store.compact_inputs().await.unwrap(),
        0,
        "nothing left to move"
    );
    store.close().await;
}

async fn ids_and_instances(backend: Backend) {
    let store = backend.open().await;
    assert!(store.instance() > 0);
    let ids = store.recording_ids().await.unwrap();
    assert!(!ids.is_empty());
    store
        .write(&[open(ids.start + 5, "Ann", true, 1)])
        .await
        .unwrap();
    let next = store.recording_ids().await.unwrap();
    if store.is_shared() {
        // Another instance on the same database: its own id, its own block of ids,
        // none another's.
        let other = backend.open().await;
        assert_ne!(other.instance(), store.instance());
        let theirs = other.recording_ids().await.unwrap();
        for block in [&next, &theirs] {
            assert_eq!(block.end - block.start, arcade::store::RECORDING_ID_BLOCK);
        }
        for (a, b) in [(&ids, &next), (&ids, &theirs), (&next, &theirs)] {
            assert!(a.end <= b.start || b.end <= a.start, "{a:?} {b:?}");
        }
        // A stopped instance's number is the next one's: numbers stay small.
        let stopped = other.instance();
        other.close().await;
        let next_one = backend.open().await;
        assert_eq!(next_one.instance(), stopped);
        next_one.close().await;
    } else {
        // One instance per file: every id from the first free one, races counted by
        // the server itself.
        assert_eq!(next.start, ids.start + 6);
    }
    store.close().await;
}

async fn open_recordings_of_gone_instances_are_closed(backend: Backend) {
    let store = backend.open().await;
    let id = store.recording_ids().await.unwrap().start;
    if store.is_shared() {
        // Another instance plays Bo's and a guest's game.
        let other = backend.open().await;
        other
            .write(&[open(id, "Bo", true, 1), open(id + 1, "guest-1", false, 1)])
            .await
            .unwrap();
        // It is alive: nothing of it is taken.
        assert_eq!(store.close_open_recordings().await.unwrap(), 0);
        assert_eq!(
            store.waiting_game("bo").await.unwrap(),
            Some((id, String::from("2048"), RecordingState::Open))
        );
        // It stops (its row gone, as a stale heartbeat would be): Bo's game is
        // reported unfinished to whoever asks first, the guest's ended.
        other.close().await;
        assert_eq!(
            store.waiting_game("bo").await.unwrap(),
            Some((id, String::from("2048"), RecordingState::Unfinished))
        );
        assert_eq!(store.close_open_recordings().await.unwrap(), 1);
    } else {
        // After a crash: whatever is open belonged to the run that is gone.
        store
            .write(&[open(id, "Bo", true, 1), open(id + 1, "guest-1", false, 1)])
            .await
            .unwrap();
        assert_eq!(store.close_open_recordings().await.unwrap(), 2);
        assert_eq!(
            store.waiting_game("bo").await.unwrap(),
            Some((id, String::from("2048"), RecordingState::Unfinished))
        );
    }
    let (guest, _) = store.recording(id + 1).await.unwrap().expect("the guest's");
    assert_eq!(guest.state, RecordingState::Ended);
    // Our own open game is ours: never closed while we run.
    store.write(&[open(id + 2, "Cy", true, 1)]).await.unwrap();
    if store.is_shared() {
        assert_eq!(store.close_open_recordings().await.unwrap(), 0);
    }
    store.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_instances_migrate_one_empty_database_at_once() {
    let Some(postgres) = Postgres::start() else {
        return;
    };
    let url: DbUrl = postgres.database("arcade").parse().unwrap();
    let opens = (0..3).map(|_| {
        let url = url.clone();
        tokio::spawn(async move { Store::open(&url).await })
    });
    let mut instances = Vec::new();
    for open in opens {
        let store = open
            .await
            .unwrap()
            .unwrap_or_else(|error| panic!("{error}"));
        instances.push(store.instance());
        assert_eq!(
            store
                .register(&format!("p{}", store.instance()), "P", "$h", "")
                .await
                .unwrap(),
            Registered::Created
        );
    }
    instances.sort_unstable();
    instances.dedup();
    assert_eq!(instances.len(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_store_reconnects_after_postgresql_restarts() {
    let Some(postgres) = Postgres::start() else {
        return;
    };
    let url: DbUrl = postgres.database("arcade").parse().unwrap();
    let store = Store::open(&url).await.unwrap();
    store.register("ann", "Ann", "$h", "").await.unwrap();
    let id = store.recording_ids().await.unwrap().start;
    postgres.stop();
    // Down: an error, not a hang (the acquire timeout bounds it).
    let down = tokio::time::timeout(Duration::from_secs(30), store.account("ann")).await;
    assert!(matches!(down, Ok(Err(_))), "{down:?}");
    postgres.start_again();
    assert!(store.account("ann").await.unwrap().is_some());
    store.write(&[open(id, "Ann", true, 1)]).await.unwrap();
    assert!(store.recording(id).await.unwrap().is_some());
    store.close().await;
}

/// An instance whose heartbeat stopped for longer than the limit (the database out of
/// its reach) has its number taken by the next instance to start; it then never
/// renews nor frees that number, which is the other's now.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_number_taken_over_is_not_renewed_by_its_old_instance() {
    let Some(postgres) = Postgres::start() else {
        return;
    };
    let text = postgres.database("arcade");
    let url: DbUrl = text.parse().unwrap();
    let old = Store::open(&url).await.unwrap();
    let sql = sqlx::PgPool::connect(&text).await.unwrap();
    // As if the old instance's heartbeat had stopped long ago. The old instance's
    // next heartbeat (every second) renews its claim if it comes between this and
    // the new instance's claim: then the new one takes another number, and the
    // takeover is tried again.
    let mut new = None;
    for _ in 0..10 {
        sqlx::query("UPDATE instances SET heartbeat_at = 1 WHERE id = $1")
            .bind(old.instance())
            .execute(&sql)
            .await
            .unwrap();
        let opened = Store::open(&url).await.unwrap();
        if opened.instance() == old.instance() {
            new = Some(opened);
            break;
        }
        opened.close().await;
    }
    let new = new.expect("a stale instance's number is taken over by the next instance");
    assert_eq!(new.instance(), old.instance());
    let claim = "SELECT started_at, heartbeat_at FROM instances WHERE id = $1";
    let (claimed, _): (i64, i64) = sqlx::query_as(claim)
        .bind(new.instance())
        .fetch_one(&sql)
        .await
        .unwrap();
    // The old instance's heartbeats (every second) and its close leave the new
    // claim alone.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    old.close().await;
    let (still, beat): (i64, i64) = sqlx::query_as(claim)
        .bind(new.instance())
        .fetch_one(&sql)
        .await
        .unwrap();
    assert_eq!(still, claimed);
    assert!(
        beat > 0,
        "the old instance's close freed the new one's number"
    );
    new.close().await;
}

/// PostgreSQL: a token added while another session's add is not yet committed counts
/// that one, so two sessions adding at once cannot pass the cap. The other session is
/// a transaction held open here; the store's add must wait for it (seen in
/// `pg_stat_activity`) rather than count without it.
/// Wait until `adding` waits for a row lock on PostgreSQL (a `FOR UPDATE` in
/// `pg_stat_activity`), or has ended; fails after 20 s of neither.
async fn wait_for_a_lock<T>(sql: &sqlx::PgPool, adding: &tokio::task::JoinHandle<T>) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let waiting: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM pg_stat_activity \
             WHERE wait_event_type = 'Lock' AND query LIKE '%FOR UPDATE%'",
        )
        .fetch_one(sql)
        .await
        .unwrap();
        if waiting > 0 || adding.is_finished() {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the add neither waited nor ended"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bot_tokens_added_at_once_do_not_pass_the_cap() {
    use arcade::players::bot_tokens::BotToken;
    use arcade::store::TokenAdded;
    let Some(postgres) = Postgres::start() else {
        return;
    };
    let text = postgres.database("arcade");
    let url: DbUrl = text.parse().unwrap();
    let store = Store::open(&url).await.unwrap();
    store.register("ann", "Ann", "$hash", "").await.unwrap();
    let first = BotToken::generate();
    assert_eq!(
        store
            .add_bot_token("ann", first.hash().as_str(), first.prefix(), 2)
            .await
            .unwrap(),
        TokenAdded::Added(1)
    );
    // The other session: its add of the second token, not committed yet.
    let sql = sqlx::PgPool::connect(&text).await.unwrap();
    let mut other = sql.begin().await.unwrap();
    let second = BotToken::generate();
    sqlx::query(
        "INSERT INTO bot_tokens (name_key, token_hash, prefix, created_at) \
         VALUES ('ann', $1, $2, 1)",
    )
    .bind(second.hash().as_str())
    .bind(second.prefix())
    .execute(&mut *other)
    .await
    .unwrap();
    let third = BotToken::generate();
    let adding = tokio::spawn({
        let store = store.clone();
        async move {
            store
                .add_bot_token("ann", third.hash().as_str(), third.prefix(), 2)
                .await
                .unwrap()
        }
    });
    // Until the add waits for a lock, or (what must not happen) ends without waiting.
    wait_for_a_lock(&sql, &adding).await;
    other.commit().await.unwrap();
    assert_eq!(adding.await.unwrap(), TokenAdded::Full);
    assert_eq!(store.bot_tokens("ann").await.unwrap().len(), 2);
    store.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ssh_keys_added_at_once_do_not_pass_the_cap() {
    use arcade::store::KeyAdded;
    let Some(postgres) = Postgres::start() else {
        return;
    };
    let text = postgres.database("arcade");
    let url: DbUrl = text.parse().unwrap();
    let store = Store::open(&url).await.unwrap();
    store.register("ann", "Ann", "$hash", "").await.unwrap();
    assert_eq!(
        store
            .add_ssh_key("ann", "ssh-ed25519 AAAA1 ann", "SHA256:1", 2)
            .await
            .unwrap(),
        KeyAdded::Added
    );
    // Another add of the second key, under way: the account locked, the key inserted,
    // not committed yet (what a second add_ssh_key at the same moment does).
    let sql = sqlx::PgPool::connect(&text).await.unwrap();
    let mut other = sql.begin().await.unwrap();
    sqlx::query("SELECT 1 FROM accounts WHERE name_key = 'ann' FOR UPDATE")
        .execute(&mut *other)
        .await
        .unwrap();
    sqlx::query(
        "INSERT INTO ssh_keys (name_key, key, fingerprint, added_at) \
         VALUES ('ann', 'ssh-ed25519 AAAA2 ann', 'SHA256:2', 1)",
    )
    .execute(&mut *other)
    .await
    .unwrap();
    let adding = tokio::spawn({
        let store = store.clone();
        async move {
            store
                .add_ssh_key("ann", "ssh-ed25519 AAAA3 ann", "SHA256:3", 2)
                .await
                .unwrap()
        }
    });
    wait_for_a_lock(&sql, &adding).await;
    other.commit().await.unwrap();
    assert_eq!(adding.await.unwrap(), KeyAdded::Full);
    assert_eq!(store.ssh_keys("ann").await.unwrap().len(), 2);
    store.close().await;
}

#[test]
fn a_postgres_url_never_shows_its_password() {
    let url: DbUrl = "postgres://arcade:hunter2@127.0.0.1:5432/arcade"
        .parse()
        .unwrap();
    assert_eq!(
        url.to_string(),
        "postgres://arcade:***@127.0.0.1:5432/arcade"
    );
    assert!(!format!("{url:?}").contains("hunter2"));
    let query: DbUrl = "postgresql://db.local/arcade?user=a&password=hunter2"
        .parse()
        .unwrap();
    assert!(!query.to_string().contains("hunter2"), "{query}");
    let bad = "mysql://a:hunter2@x/y"
        .parse::<DbUrl>()
        .unwrap_err()
        .to_string();
    assert!(!bad.contains("hunter2"), "{bad}");
    assert!(
        bad.contains("postgres://USER:PASSWORD@HOST:PORT/DATABASE"),
        "{bad}"
    );
}

/// 2048 results written before the level named the win value (keyed `size=4` for any
/// win value) are moved by migration 0004 to the board of their win value; the
/// default's stay where they were.
async fn old_2048_results_move_to_the_board_of_their_win_value(backend: Backend) {
    // The schema as it was before migration 0004: the earlier files alone.
    let engine = match &backend.url {
        DbUrl::Postgres(_) => "postgres",
        _ => "sqlite",
    };
    let earlier = tempfile::tempdir().expect("a temporary directory");
    let all = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("migrations")
        .join(engine);
    for file in [
        "0001_accounts.sql",
        "0002_recordings.sql",
        "0003_instances.sql",
    ] {
        std::fs::copy(all.join(file), earlier.path().join(file)).expect("copy a migration");
    }
    let migrator = sqlx::migrate::Migrator::new(earlier.path())
        .await
        .expect("the earlier migrations");
    // (args, level as written then)
    let rows = [
        ("size=4 win=64 seed=1", "size=4"),
        ("seed=2 WIN=0064", "size=4"),
        ("win=2048 seed=3", "size=4"),
        ("seed=4", "size=4"),
        ("size=5 win=128 style=ascii seed=5", "size=5"),
    ];
    let (yes, no) = if engine == "postgres" {
        ("TRUE", "FALSE")
    } else {
        ("1", "0")
    };
    let insert = |(index, (args, level)): (usize, &(&str, &str))| {
        format!(
            "INSERT INTO results (recording_id, upto, player, player_key, registered, game, \
             level, args, outcome, moves, pushes, score, largest_tile, gold, duration_ms, \
             finished_at, verified) VALUES ({index}, 1, 'ann', 'ann', {yes}, '2048', '{level}', \
             '{args}', 'won', 10, 0, 100, 64, {no}, 1000, 1, {yes})"
        )
    };
    match &backend.url {
        DbUrl::Sqlite(path) => {
            let options = sqlx::sqlite::SqliteConnectOptions::new()
                .filename(path)
                .create_if_missing(true);
            let pool = sqlx::SqlitePool::connect_with(options).await.unwrap();
            migrator.run(&pool).await.unwrap();
            for row in rows.iter().enumerate() {
                sqlx::query(sqlx::AssertSqlSafe(insert(row)))
                    .execute(&pool)
                    .await
                    .unwrap();
            }
            pool.close().await;
        }
        DbUrl::Postgres(text) => {
            let pool = sqlx::PgPool::connect(text).await.unwrap();
            migrator.run(&pool).await.unwrap();
            for row in rows.iter().enumerate() {
                sqlx::query(sqlx::AssertSqlSafe(insert(row)))
                    .execute(&pool)
                    .await
                    .unwrap();
            }
            pool.close().await;
        }
        DbUrl::Memory => unreachable!("the backends are a file or a server"),
    }
    let store = backend.open().await;
    let boards: Vec<(String, u64)> = store
        .boards()
        .await
        .unwrap()
        .into_iter()
        .map(|(_, level, count)| (level, count))
        .collect();
    assert_eq!(
        boards,
        [
            (String::from("size=4"), 2),
            (String::from("size=4 win=64"), 2),
            (String::from("size=5 win=128"), 1),
        ]
    );
    // Opened again (the migration has run): nothing moves twice.
    drop(store);
    let store = backend.open().await;
    assert_eq!(store.boards().await.unwrap().len(), 3);
}

/// A ladder on `game` over seeds `first..=last`.
fn ladder_spec(game: &str, first: u64, last: u64) -> arcade::store::LadderSpec {
    arcade::store::LadderSpec {
        game: String::from(game),
        first_seed: first,
        last_seed: last,
        move_ms: Some(200),
        until: Some(1_796_083_200_000),
        humans: true,
        opened_by: String::from("admin"),
    }
}

async fn ladders_are_opened_listed_and_closed_once(backend: Backend) {
    let store = backend.open().await;
    assert!(store.ladders(true).await.unwrap().is_empty());
    let wumpus = store
        .open_ladder(&ladder_spec("wumpus", 1, 100), 1000)
        .await
        .unwrap();
    let mut sokoban_spec = ladder_spec("sokoban", 0, i64::MAX as u64);
    (
        sokoban_spec.move_ms,
        sokoban_spec.until,
        sokoban_spec.humans,
    ) = (None, None, false);
    let sokoban = store.open_ladder(&sokoban_spec, 2000).await.unwrap();
    assert_ne!(wumpus, sokoban);
    // Kept as opened, every field read back.
    let kept = store.ladder(wumpus).await.unwrap().expect("the ladder");
    assert_eq!(
        kept,
        arcade::store::Ladder {
            id: wumpus,
            game: String::from("wumpus"),
            first_seed: 1,
            last_seed: 100,
            move_ms: Some(200),
            until: Some(1_796_083_200_000),
            humans: true,
            opened_by: String::from("admin"),
            opened_at: 1000,
            closed_at: None,
        }
    );
    let kept = store.ladder(sokoban).await.unwrap().expect("the ladder");
    assert_eq!(
        (kept.last_seed, kept.move_ms, kept.until, kept.humans),
        (i64::MAX as u64, None, None, false)
    );
    assert_eq!(store.ladder(sokoban + wumpus + 1).await.unwrap(), None);
    // Seeds the wrong way round are refused by the table.
    assert!(store
        .open_ladder(&ladder_spec("wumpus", 9, 3), 3000)
        .await
        .is_err());
    let ids = |ladders: Vec<arcade::store::Ladder>| -> Vec<i64> {
        ladders.iter().map(|ladder| ladder.id).collect()
    };
    assert_eq!(ids(store.ladders(false).await.unwrap()), [sokoban, wumpus]);
    // Closed once: the first close stands.
    assert!(store.close_ladder(wumpus, 5000).await.unwrap());
    assert!(!store.close_ladder(wumpus, 6000).await.unwrap());
    assert!(!store
        .close_ladder(sokoban + wumpus + 1, 6000)
        .await
        .unwrap());
    assert_eq!(
        store.ladder(wumpus).await.unwrap().map(|l| l.closed_at),
        Some(Some(5000))
    );
    assert_eq!(ids(store.ladders(false).await.unwrap()), [sokoban]);
    let all = store.ladders(true).await.unwrap();
    assert_eq!(ids(all.clone()), [sokoban, wumpus], "newest first");
    assert_eq!(all[1].closed_at, Some(5000));
    assert_eq!(all[0].closed_at, None);
    store.close().await;
}

/// `player` played `seed` of `ladder`, recorded as `recording` unless `None`.
fn ladder_result(
    ladder: i64,
    player: &str,
    seed: u64,
    recording: Option<i64>,
    score: i64,
    forfeit: bool,
) -> arcade::store::NewLadderResult {
    arcade::store::NewLadderResult {
        ladder_id: ladder,
        player: String::from(player),
        player_key: player.to_lowercase(),
        bot: player.starts_with("Bo"),
        seed,
        recording_id: recording,
        score,
        moves: 17,
        outcome: String::from(if forfeit { "forfeit" } else { "won" }),
        forfeit,
        finished_at: 10_000 + i64::try_from(seed).unwrap(),
    }
}

async fn ladder_results_are_kept_once_per_seed_listed_and_checked_once(backend: Backend) {
    let store = backend.open().await;
    let ladder = store
        .open_ladder(&ladder_spec("wumpus", 1, 3), 1)
        .await
        .unwrap();
    let other = store
        .open_ladder(&ladder_spec("wumpus", 1, 3), 2)
        .await
        .unwrap();
    // Added out of order, by three entrants; "bo1" sorts before "bo_2" by bytes.
    let added = [
        ladder_result(ladder, "Bo_2", 2, Some(102), 950, false),
        ladder_result(ladder, "Bo_2", 1, Some(101), -1010, false),
        ladder_result(ladder, "ann", 1, Some(201), 990, false),
        // Forfeit with a recording, and without one: neither waits for a replay.
        ladder_result(ladder, "ann", 2, Some(202), -1, true),
        ladder_result(ladder, "ann", 3, None, 0, true),
        // Played, but nothing recorded: nothing to replay.
        ladder_result(ladder, "Bo1", 3, None, 500, false),
        ladder_result(other, "ann", 1, Some(301), 7, false),
    ];
    let mut ids = Vec::new();
    for result in &added {
        ids.push(store.add_ladder_result(result).await.unwrap().expect("new"));
    }
    // A seed is played once: a second result for it is not kept, the first stands.
    let again = ladder_result(ladder, "BO_2", 2, Some(999), 1, false);
    assert_eq!(store.add_ladder_result(&again).await.unwrap(), None);
    // No such ladder.
    let nowhere = ladder_result(ladder + other + 1, "ann", 1, Some(1), 1, false);
    assert!(store.add_ladder_result(&nowhere).await.is_err());

    let results = store.ladder_results(ladder).await.unwrap();
    let order: Vec<(&str, u64)> = results
        .iter()
        .map(|result| (result.player_key.as_str(), result.seed))
        .collect();
    assert_eq!(
        order,
        [
            ("ann", 1),
            ("ann", 2),
            ("ann", 3),
            ("bo1", 3),
            ("bo_2", 1),
            ("bo_2", 2)
        ],
        "by entrant, then seed"
    );
    // Every field read back as added, not yet checked.
    let first = &results[4];
    assert_eq!(
        arcade::store::LadderResult {
            id: ids[1],
            ladder_id: ladder,
            player: String::from("Bo_2"),
            player_key: String::from("bo_2"),
            bot: true,
            seed: 1,
            recording_id: Some(101),
            score: -1010,
            moves: 17,
            outcome: String::from("won"),
            forfeit: false,
            finished_at: 10_001,
            verified: None,
        },
        *first
    );
    assert_eq!(
        results[5].score, 950,
        "the first result for the seed stands"
    );
    let bo: Vec<(u64, Option<i64>)> = store
        .ladder_results_of(ladder, "bo_2")
        .await
        .unwrap()
        .iter()
        .map(|result| (result.seed, result.recording_id))
        .collect();
    assert_eq!(bo, [(1, Some(101)), (2, Some(102))], "by seed");
    assert!(store
        .ladder_results_of(ladder, "nobody")
        .await
        .unwrap()
        .is_empty());
    let elsewhere = store.ladder_results(other).await.unwrap();
    assert_eq!(elsewhere.len(), 1);
    assert_eq!(elsewhere[0].id, ids[6]);

    // Pending: recorded, not forfeit, not checked; oldest first, over every ladder.
    let pending_ids = |pending: Vec<arcade::store::LadderResult>| -> Vec<i64> {
        pending.iter().map(|result| result.id).collect()
    };
    let pending = pending_ids(store.pending_ladder_results(10).await.unwrap());
    assert_eq!(pending, [ids[0], ids[1], ids[2], ids[6]]);
    assert_eq!(
        pending_ids(store.pending_ladder_results(2).await.unwrap()),
        [ids[0], ids[1]]
    );
    // Checked: Bo_2's seed 1 is kept out. A forfeit is never marked.
    store
        .set_ladder_verified(&[(ids[0], true), (ids[1], false), (ids[3], true)])
        .await
        .unwrap();
    assert_eq!(
        pending_ids(store.pending_ladder_results(10).await.unwrap()),
        [ids[2], ids[6]]
    );
    // A second verifier's marks change nothing: the first stands.
    store
        .set_ladder_verified(&[(ids[1], true), (ids[0], false), (ids[2], true)])
        .await
        .unwrap();
    let marks: Vec<(u64, Option<bool>)> = store
        .ladder_results_of(ladder, "bo_2")
        .await
        .unwrap()
        .iter()
        .map(|result| (result.seed, result.verified))
        .collect();
    assert_eq!(marks, [(1, Some(false)), (2, Some(true))]);
    let ann: Vec<Option<bool>> = store
        .ladder_results_of(ladder, "ann")
        .await
        .unwrap()
        .iter()
        .map(|result| result.verified)
        .collect();
    assert_eq!(ann, [Some(true), None, None]);
    assert_eq!(
        pending_ids(store.pending_ladder_results(10).await.unwrap()),
        [ids[6]]
    );
    store.close().await;
}

async fn ladder_baselines_are_replaced_and_listed(backend: Backend) {
    let store = backend.open().await;
    let ladder = store
        .open_ladder(&ladder_spec("2048", 1, 3), 1)
        .await
        .unwrap();
    let other = store
        .open_ladder(&ladder_spec("2048", 1, 3), 2)
        .await
        .unwrap();
    assert!(store.ladder_baselines(ladder).await.unwrap().is_empty());
    for (seed, agent, score) in [
        (2, "random", 300),
        (1, "random", 200),
        (1, "expectimax", 9000),
        (2, "expectimax", 8000),
    ] {
        store
            .set_ladder_baseline(ladder, seed, agent, score)
            .await
            .unwrap();
    }
    store
        .set_ladder_baseline(other, 1, "random", 5)
        .await
        .unwrap();
    // Played again: the new score replaces the old.
    store
        .set_ladder_baseline(ladder, 2, "random", -4)
        .await
        .unwrap();
    let baselines = store.ladder_baselines(ladder).await.unwrap();
    let expected: Vec<(u64, String, i64)> = [
        (1, "expectimax", 9000),
        (1, "random", 200),
        (2, "expectimax", 8000),
        (2, "random", -4),
    ]
    .into_iter()
    .map(|(seed, agent, score)| (seed, String::from(agent), score))
    .collect();
    assert_eq!(baselines, expected, "by seed, then agent");
    assert_eq!(
        store.ladder_baselines(other).await.unwrap(),
        [(1, String::from("random"), 5)]
    );
    assert!(store
        .set_ladder_baseline(ladder + other + 1, 1, "random", 1)
        .await
        .is_err());
    store.close().await;
}

/// SQLite's `inputs` (migration 0012): each recording's logged batches joined into one
/// row a move, a new row a 1,024 lines, a batch written twice joined once, and a copy
/// of a batch already moved read once (the longer row kept when both begin with it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_joins_each_recordings_batches_and_a_copy_moved_later_is_read_once() {
    let backend = Backend::sqlite();
    let store = backend.open().await;
    let id = store.recording_ids().await.unwrap().start;
    let (other, script) = (id + 1, id + 2);
    store
        .write(&[
            open(id, "Ann", true, 100),
            open(other, "guest-1", false, 100),
            open(script, "guest-2", false, 100),
        ])
        .await
        .unwrap();
    let twice = inputs(id, 2, &[(9, "s")]);
    for second in [
        vec![
            inputs(id, 0, &[(5, "w"), (7, "a")]),
            inputs(other, 0, &[(6, "d")]),
        ],
        vec![twice.clone()],
        vec![twice.clone(), inputs(other, 1, &[(8, "u")])],
    ] {
        store.write(&second).await.unwrap();
    }
    // A script's batches of 1,000 lines: those that begin in one block of 1,024
    // lines share a row (0 and 1,000), the others do not.
    let thousand: Vec<(u64, &str)> = (0..1000).map(|at_ms| (at_ms, "x")).collect();
    for batch in 0..4 {
        store
            .write(&[inputs(script, batch * 1000, &thousand)])
            .await
            .unwrap();
    }
    assert_eq!(store.logged_inputs().await.unwrap(), 9);
    assert_eq!(store.compact_inputs().await.unwrap(), 9, "the log emptied");
    let rows = |id: i64| {
        let store = store.clone();
        async move { store.recording_inputs(id, None, 64).await.unwrap() }
    };
    let expected = encoded(&[(5, "w"), (7, "a"), (9, "s")]);
    assert_eq!(
        rows(id).await,
        [(0, expected.clone())],
        "joined, the copy once"
    );
    assert_eq!(rows(other).await.len(), 1);
    let script_rows: Vec<i64> = rows(script).await.iter().map(|(batch, _)| *batch).collect();
    assert_eq!(script_rows, [0, 2000, 3000], "a row a 1,024 lines");

    // A copy of a batch already moved, logged after the move (two servers sharing the
    // file during an upgrade), is not looked for: its row shares a line with the row
    // before it, and is read once.
    store
        .write(&[twice.clone(), inputs(id, 3, &[(12, "q")])])
        .await
        .unwrap();
    assert_eq!(store.compact_inputs().await.unwrap(), 2);
    let again = encoded(&[(9, "s"), (12, "q")]);
    assert_eq!(rows(id).await, [(0, expected.clone()), (2, again.clone())]);

    // A copy of a batch that began a row begins a row with the same key: the longer
    // is kept, which holds the other and the lines played after the copy.
    let alone = inputs(id, 4, &[(14, "r")]);
    store.write(std::slice::from_ref(&alone)).await.unwrap();
    assert_eq!(store.compact_inputs().await.unwrap(), 1);
    store
        .write(&[alone, inputs(id, 5, &[(15, "t")])])
        .await
        .unwrap();
    assert_eq!(store.compact_inputs().await.unwrap(), 2);
    let longer = encoded(&[(14, "r"), (15, "t")]);
    assert_eq!(rows(id).await, [(0, expected), (2, again), (4, longer)]);
    let (_, whole) = recording::load(&store, id).await.unwrap().unwrap();
    let typed: Vec<String> = whole.inputs.into_iter().map(|input| input.line).collect();
    assert_eq!(typed, ["w", "a", "s", "q", "r", "t"]);
    store.close().await;
}

/// A row of recording 40 into `inputs`, and into `input_log`, as a server writes them.
const INTO_INPUTS: &str = "INSERT INTO inputs (recording_id, batch, lines) VALUES (40, ?, ?)";
const INTO_LOG: &str = "INSERT INTO input_log (recording_id, batch, lines) VALUES (40, ?, ?)";

/// `rows` (batch, lines) put with `into`, [`INTO_INPUTS`] or [`INTO_LOG`].
async fn put_rows(pool: &sqlx::SqlitePool, into: &'static str, rows: &[(i64, &String)]) {
    for (batch, lines) in rows {
        sqlx::query(into)
            .bind(batch)
            .bind(lines.as_str())
            .execute(pool)
            .await
            .unwrap();
    }
}

/// A database made before migration 0012 (its `inputs` kept in recording order)
/// keeps its lines through the migration, and a server of the version before, which
/// moves and reads with its own statements, still can on the migrated table: its
/// move of a batch (one row a batch, `ON CONFLICT DO NOTHING`) and a copy of a
/// batch inside a joined row, which its moves may store, are read once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inputs_stored_before_migration_0012_and_by_the_version_before_read_the_same() {
    use sqlx::sqlite::SqliteConnectOptions;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("arcade.db");
    let before = tempfile::tempdir().unwrap();
    let migrations = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations/sqlite");
    for entry in std::fs::read_dir(&migrations).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.as_str() < "0012" {
            std::fs::copy(&path, before.path().join(&name)).unwrap();
        }
    }
    let options = SqliteConnectOptions::new()
        .filename(&file)
        .create_if_missing(true);
    let pool = sqlx::SqlitePool::connect_with(options).await.unwrap();
    sqlx::migrate::Migrator::new(before.path())
        .await
        .unwrap()
        .run(&pool)
        .await
        .unwrap();
    let first = encoded(&[(5, "w"), (7, "a")]);
    let second = encoded(&[(9, "s")]);
    put_rows(&pool, INTO_INPUTS, &[(0, &first), (2, &second)]).await;
    pool.close().await;

    let store = Store::open(&DbUrl::Sqlite(file.clone())).await.unwrap();
    store.write(&[open(40, "Ann", true, 100)]).await.unwrap();
    let read = |store: Store| async move {
        let mut reader = arcade::records::reader::Inputs::new(store, 40);
        let mut typed = Vec::new();
        while let Some(page) = reader.next_page().await.unwrap() {
            typed.extend(page.into_iter().map(|input| input.line));
        }
        typed
    };
    assert_eq!(read(store.clone()).await, ["w", "a", "s"], "kept");
    let pool = sqlx::SqlitePool::connect_with(SqliteConnectOptions::new().filename(&file))
        .await
        .unwrap();
    let plan: Vec<(i64, i64, i64, String)> = sqlx::query_as(
        "EXPLAIN QUERY PLAN SELECT batch, lines FROM inputs WHERE recording_id = 40 \
         AND batch > 0 ORDER BY batch",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert!(
        plan.iter()
            .any(|(_, _, _, step)| step.contains("inputs_by_recording")),
        "read by its index: {plan:?}"
    );

    // The version before's move, on the migrated table: one row a batch, a batch the
    // table holds already is one row.
    let third = encoded(&[(11, "d")]);
    put_rows(&pool, INTO_LOG, &[(2, &second), (3, &third)]).await;
    sqlx::query(
        "INSERT INTO inputs (recording_id, batch, lines) \
         SELECT recording_id, batch, lines FROM input_log WHERE true \
         ORDER BY recording_id, batch ON CONFLICT DO NOTHING",
    )
    .execute(&pool)
    .await
    .unwrap();
    sqlx::query("DELETE FROM input_log")
        .execute(&pool)
        .await
        .unwrap();
    assert_eq!(read(store.clone()).await, ["w", "a", "s", "d"]);

    // A copy of a batch that a joined row holds, stored by the version before (its
    // batch number is not the joined row's, so its key does not stop it): read once.
    sqlx::query("DELETE FROM inputs WHERE recording_id = 40")
        .execute(&pool)
        .await
        .unwrap();
    let joined = format!("{first}{second}");
    put_rows(
        &pool,
        INTO_INPUTS,
        &[(0, &joined), (2, &second), (3, &third)],
    )
    .await;
    assert_eq!(read(store.clone()).await, ["w", "a", "s", "d"], "paged");
    let (_, whole) = recording::load(&store, 40).await.unwrap().unwrap();
    let typed: Vec<String> = whole.inputs.into_iter().map(|input| input.line).collect();
    assert_eq!(typed, ["w", "a", "s", "d"], "whole");
    pool.close().await;
    store.close().await;
}
