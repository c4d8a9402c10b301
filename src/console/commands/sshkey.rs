//! `sshkey add KEY`, `sshkey list`, `sshkey remove N`: the public keys a registered
//! player logs in with over SSH (SPEC section 11), kept in the store, at most
//! [`MAX_KEYS`] each.

use super::{Args, CommandSpec, Help, Place};
use crate::console::jobs::StoreWork;
use crate::console::{Console, Outcome};
use crate::players::accounts::PlayerName;
use crate::players::ssh_keys::{AuthorizedKey, MAX_KEYS};
use crate::store::{KeyAdded, Store};

/// `sshkey`.
pub const COMMAND: CommandSpec = CommandSpec {
    name: "sshkey",
    place: Place::Everywhere,
    admins_only: false,
    help: Help::Player(
        "  sshkey add KEY     log in over SSH with this public key (sshkey list,\n                     sshkey remove N)\n",
    ),
    run,
};

/// What `sshkey` asks of the store.
pub enum KeyWork {
    /// Keep this key.
    Add(PlayerName, AuthorizedKey),
    /// List the keys.
    List(PlayerName),
    /// Remove the `n`th key of the list (from 1).
    Remove(PlayerName, usize),
}

const USAGE: &str = "Usage: sshkey add KEY, sshkey list, sshkey remove N.\n";

fn run(console: &mut Console, args: Args<'_>) -> Outcome {
    let Some(seat) = console.seat.as_ref() else {
        return console.say(String::new());
    };
    if !seat.is_registered() {
        return console.say(String::from(
            "SSH keys are for registered names: name NAME, then register, first.\n",
        ));
    }
    let name = seat.name().clone();
    let work = match args.word(0).map(str::to_ascii_lowercase).as_deref() {
        Some("add") => match AuthorizedKey::parse(args.after_first()) {
            Ok(key) => KeyWork::Add(name, key),
            Err(error) => return console.say(format!("{error}\n")),
        },
        Some("list") if !args.more_than(1) => KeyWork::List(name),
        Some("remove") if !args.more_than(2) => {
            match args.word(1).and_then(|n| n.parse::<usize>().ok()) {
                Some(n) if n >= 1 => KeyWork::Remove(name, n),
                _ => {
                    return console.say(String::from(
                        "Usage: sshkey remove N (N from sshkey list).\n",
                    ))
                }
            }
        }
        _ => return console.say(String::from(USAGE)),
    };
    console.store_job(StoreWork::SshKeys(work))
}

impl KeyWork {
    /// Do it: what to say.
    pub async fn run(self, store: &Store) -> String {
        let failed = |error: &crate::store::StoreError| {
            format!(
                "Cannot do that now: {}.\n",
                crate::seat::store_failed(error)
            )
        };
        match self {
            KeyWork::Add(name, key) => {
                match store
                    .add_ssh_key(&name.key(), &key.line, &key.fingerprint, MAX_KEYS)
                    .await
                {
                    Ok(KeyAdded::Added) => format!(
                        "Key added: {} {}. ssh {name}@this server now logs in with it.\n",
                        key.kind, key.fingerprint
                    ),
                    Ok(KeyAdded::Known) => format!("You added that key already ({}).\n", key.fingerprint),
                    Ok(KeyAdded::Full) => format!(
                        "You have {MAX_KEYS} keys, the most there can be: sshkey remove N one first.\n"
                    ),
                    Err(error) => failed(&error),
                }
            }
            KeyWork::List(name) => match store.ssh_keys(&name.key()).await {
                Ok(keys) if keys.is_empty() => String::from(
                    "You have no SSH keys. sshkey add KEY adds the line of your .pub file.\n",
                ),
                Ok(keys) => {
                    let mut text = String::from("Your SSH keys:\n");
                    for (n, kept) in keys.iter().enumerate() {
                        let (kind, comment) = match russh::keys::PublicKey::from_openssh(&kept.key)
                        {
                            Ok(key) => {
                                let shown = AuthorizedKey::from_key(&key);
                                (shown.kind, shown.comment)
                            }
                            Err(_) => (String::from("?"), String::new()),
                        };
                        let line = format!("{:>3}. {kind} {} {comment}", n + 1, kept.fingerprint);
                        text.push_str(line.trim_end());
                        text.push('\n');
                    }
                    text
                }
                Err(error) => failed(&error),
            },
            KeyWork::Remove(name, n) => {
                let keys = match store.ssh_keys(&name.key()).await {
                    Ok(keys) => keys,
                    Err(error) => return failed(&error),
                };
                let Some(kept) = keys.get(n - 1) else {
                    return format!("You have no key {n}: sshkey list numbers them.\n");
                };
                match store.remove_ssh_key(&name.key(), kept.id).await {
                    Ok(true) => format!("Key {n} removed ({}).\n", kept.fingerprint),
                    Ok(false) => format!("You have no key {n}: sshkey list numbers them.\n"),
                    Err(error) => failed(&error),
                }
            }
        }
    }
}
