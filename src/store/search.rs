//! Recordings found by who played, which game and level, and when: the web page's
//! list of recordings (`/recordings`), a page at a time, newest first.
//!
//! The query is written once for both engines like every other (`engine`): only the
//! conditions a filter asks for are added, each with its value bound, never spliced.

use super::engine::on_engine;
use super::recordings::{Listed, ListedRow, LISTED};
use super::{Store, StoreError};

/// Which recordings to list. Every field set narrows the list; none lists all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecordingFilter {
    /// The player's name in lower case.
    pub player_key: Option<String>,
    /// The game's name.
    pub game: Option<String>,
    /// The leaderboard's level (recordings made before levels were kept have none,
    /// and are not found by it).
    pub level: Option<String>,
    /// Started at or after this, Unix milliseconds.
    pub from_ms: Option<i64>,
    /// Started before this, Unix milliseconds.
    pub until_ms: Option<i64>,
    /// Registered players' recordings only (a guest's are the admins' only).
    pub registered_only: bool,
    /// Ids below this only: the next page after one that ended at this id.
    pub before_id: Option<i64>,
}

/// A value a condition binds.
enum Value<'a> {
    Text(&'a str),
    Number(i64),
}

impl RecordingFilter {
    /// The `WHERE` clause (empty for no condition) and its values in order.
    fn conditions(&self) -> (String, Vec<Value<'_>>) {
        let mut conditions = Vec::new();
        let mut values = Vec::new();
        if let Some(key) = &self.player_key {
            conditions.push("player_key = ?");
            values.push(Value::Text(key));
        }
        if let Some(game) = &self.game {
            conditions.push("game = ?");
            values.push(Value::Text(game));
        }
        if let Some(level) = &self.level {
            conditions.push("level = ?");
            values.push(Value::Text(level));
        }
        if let Some(from) = self.from_ms {
            conditions.push("started_at >= ?");
            values.push(Value::Number(from));
        }
        if let Some(until) = self.until_ms {
            conditions.push("started_at < ?");
            values.push(Value::Number(until));
        }
        if self.registered_only {
            conditions.push("registered");
        }
        if let Some(before) = self.before_id {
            conditions.push("id < ?");
            values.push(Value::Number(before));
        }
        let clause = if conditions.is_empty() {
            String::new()
        } else {
            format!(" WHERE {}", conditions.join(" AND "))
        };
        (clause, values)
    }
}

impl Store {
    /// Up to `limit` recordings that `filter` lets through, newest first.
    ///
    /// # Errors
    /// [`StoreError::Query`].
    pub async fn find_recordings(
        &self,
        filter: &RecordingFilter,
        limit: u32,
    ) -> Result<Vec<Listed>, StoreError> {
        let (clause, values) = filter.conditions();
        // Built from the constant conditions above only: what was typed is bound.
        let text = format!("{LISTED}{clause} ORDER BY id DESC LIMIT ?");
        on_engine!(self, |pool, sql| {
            let mut query = sqlx::query_as::<_, ListedRow>(sql(&text));
            for value in &values {
                query = match value {
                    Value::Text(text) => query.bind(*text),
                    Value::Number(number) => query.bind(*number),
                };
            }
            let rows = query.bind(i64::from(limit)).fetch_all(pool).await?;
            Ok(rows.into_iter().map(Listed::from).collect())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_conditions_asked_for_are_added_in_order() {
        let none = RecordingFilter::default();
        let (clause, values) = none.conditions();
        assert_eq!((clause.as_str(), values.len()), ("", 0));
        let filter = RecordingFilter {
            player_key: Some(String::from("ann")),
            level: Some(String::from("classic")),
            until_ms: Some(5),
            registered_only: true,
            ..RecordingFilter::default()
        };
        let (clause, values) = filter.conditions();
        assert_eq!(
            clause,
            " WHERE player_key = ? AND level = ? AND started_at < ? AND registered"
        );
        assert!(matches!(
            values.as_slice(),
            [Value::Text("ann"), Value::Text("classic"), Value::Number(5)]
        ));
    }
}
