//! The admins as hosts of races opened from the page. A race's host is a member of
//! the races like a session (an id, a name, an inbox): each admin who opens a race
//! from the page gets one of their own, kept for the server's life, so that the page's
//! `start` is the host's (`races` names the admin as its host) and what a host hears
//! (who joined, `Go!`, the places) is kept for the page to show, its last
//! [`NEWS_LINES`] lines.
//!
//! At most one host per `--admin` name: the admins are few, and each host is one
//! small task that reads its inbox until shutdown.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};

use tokio_util::sync::CancellationToken;

use crate::players::accounts::PlayerName;
use crate::players::inbox::{self, Delivery, Message};
use crate::players::race_desk::racer_name;
use crate::players::registry::{Member, Registry};

/// The race lines an admin's page shows at most, the newest last.
pub const NEWS_LINES: usize = 20;

/// Each admin's host, by name key.
#[derive(Debug, Default)]
pub struct Hosts {
    hosts: Mutex<HashMap<String, Host>>,
}

/// One admin as the host of races opened from the page.
#[derive(Debug, Clone)]
struct Host {
    member: Member,
    news: Arc<Mutex<VecDeque<String>>>,
}

impl Hosts {
    /// `admin` as a host of races: the same member each time (made, and its inbox
    /// read until `shutdown`, on first use).
    pub fn member(
        &self,
        registry: &Registry,
        admin: &PlayerName,
        shutdown: &CancellationToken,
    ) -> Member {
        let mut hosts = self.hosts.lock().unwrap_or_else(PoisonError::into_inner);
        let host = hosts.entry(admin.key()).or_insert_with(|| {
            let (sender, mut receiver) = inbox::inbox();
            let news = Arc::new(Mutex::new(VecDeque::new()));
            let kept = Arc::clone(&news);
            let shutdown = shutdown.clone();
            tokio::spawn(async move {
                loop {
                    let delivery = tokio::select! {
                        () = shutdown.cancelled() => return,
                        delivery = receiver.recv() => delivery,
                    };
                    // A host who does not race hears lines only.
                    if let Delivery {
                        message: Message::Line(line),
                        ..
                    } = delivery
                    {
                        let mut news = kept.lock().unwrap_or_else(PoisonError::into_inner);
                        if news.len() == NEWS_LINES {
                            news.pop_front();
                        }
                        news.push_back(line.to_string());
                    }
                }
            });
            Host {
                member: Member {
                    id: registry.watcher_id(),
                    name: racer_name(admin),
                    inbox: sender,
                },
                news,
            }
        });
        host.member.clone()
    }

    /// What `admin`'s races told their host lately, oldest first.
    pub fn news(&self, admin: &PlayerName) -> Vec<String> {
        let hosts = self.hosts.lock().unwrap_or_else(PoisonError::into_inner);
        hosts.get(&admin.key()).map_or_else(Vec::new, |host| {
            host.news
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .iter()
                .cloned()
                .collect()
        })
    }

    /// The race `admin` hosts from the page now, if any.
    pub fn race(&self, registry: &Registry, admin: &PlayerName) -> Option<u32> {
        let id = {
            let hosts = self.hosts.lock().unwrap_or_else(PoisonError::into_inner);
            hosts.get(&admin.key())?.member.id
        };
        registry.with_races(|races| races.race_of(id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_admin_is_one_host_whose_news_is_kept_up_to_its_limit() {
        let registry = Registry::new();
        let shutdown = CancellationToken::new();
        let hosts = Hosts::default();
        let teacher = PlayerName::parse("Teacher").unwrap();
        let member = hosts.member(&registry, &teacher, &shutdown);
        assert_eq!(
            hosts.member(&registry, &teacher, &shutdown).id,
            member.id,
            "the same host each time"
        );
        assert_eq!(&*member.name, "Teacher");
        for n in 0..NEWS_LINES + 3 {
            member
                .inbox
                .send(Message::Line(Arc::from(format!("line {n}"))))
                .unwrap();
        }
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            let news = hosts.news(&teacher);
            if news.last() == Some(&format!("line {}", NEWS_LINES + 2)) {
                assert_eq!(news.len(), NEWS_LINES);
                assert_eq!(news[0], "line 3", "the oldest went first");
                break;
            }
            assert!(tokio::time::Instant::now() < deadline, "{news:?}");
            tokio::task::yield_now().await;
        }
        assert!(hosts.race(&registry, &teacher).is_none());
        shutdown.cancel();
    }
}
