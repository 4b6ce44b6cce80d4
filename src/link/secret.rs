//! Secrets typed in the TUI (identity passphrases, database passwords):
//! kept zeroized, never printed, shared by every transport and by the
//! database source.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tokio::sync::watch;
use zeroize::Zeroizing;

/// What a secret typed in the TUI opens.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Secret {
    /// An encrypted identity file, shared by every host that uses it.
    Identity(PathBuf),
    /// A database's password, by the database's label.
    Database(String),
}

impl From<&Path> for Secret {
    fn from(p: &Path) -> Secret {
        Secret::Identity(p.to_path_buf())
    }
}

impl From<&PathBuf> for Secret {
    fn from(p: &PathBuf) -> Secret {
        Secret::Identity(p.clone())
    }
}

impl From<PathBuf> for Secret {
    fn from(p: PathBuf) -> Secret {
        Secret::Identity(p)
    }
}

impl From<&str> for Secret {
    fn from(p: &str) -> Secret {
        Secret::Identity(PathBuf::from(p))
    }
}

/// Secrets typed once in the TUI: passphrases of encrypted identity files
/// (shared by every host that uses the same file) and database passwords.
#[derive(Clone)]
pub struct PassphraseStore(Arc<PassphraseInner>);

struct PassphraseInner {
    /// Wiped when replaced, forgotten or dropped.
    map: Mutex<HashMap<Secret, Zeroizing<String>>>,
    /// Bumped on every insert, so hosts waiting for a passphrase wake.
    changed: watch::Sender<u64>,
}

impl Default for PassphraseStore {
    fn default() -> Self {
        PassphraseStore(Arc::new(PassphraseInner {
            map: Mutex::new(HashMap::new()),
            changed: watch::Sender::new(0),
        }))
    }
}

impl fmt::Debug for PassphraseStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the passphrases themselves.
        let n = self.0.map.lock().map(|m| m.len()).unwrap_or(0);
        write!(f, "PassphraseStore({n} entries)")
    }
}

impl PassphraseStore {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn insert(&self, key: impl Into<Secret>, secret: impl Into<String>) {
        if let Ok(mut m) = self.0.map.lock() {
            m.insert(key.into(), Zeroizing::new(secret.into()));
        }
        self.0.changed.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// A copy of the secret, wiped when the caller drops it.
    pub fn get(&self, key: impl Into<Secret>) -> Option<Zeroizing<String>> {
        self.0.map.lock().ok()?.get(&key.into()).cloned()
    }

    /// Whether the store holds a secret for `key`, without a copy of it.
    pub fn has(&self, key: impl Into<Secret>) -> bool {
        self.0.map.lock().is_ok_and(|m| m.contains_key(&key.into()))
    }

    /// Drops a secret that did not open what it was for.
    pub fn forget(&self, key: impl Into<Secret>) {
        if let Ok(mut m) = self.0.map.lock() {
            m.remove(&key.into());
        }
    }

    /// Drops `wrong`, the secret a host tried that did not open what it was
    /// for, unless another has replaced it since: hosts that share an
    /// identity file try a typed passphrase each on its own, and a slow
    /// one failing with the first, wrong one would otherwise drop the
    /// right one typed after it, leaving the others asking for ever.
    pub fn forget_if(&self, key: impl Into<Secret>, wrong: &str) {
        if let Ok(mut m) = self.0.map.lock() {
            let key = key.into();
            if m.get(&key).is_some_and(|s| s.as_str() == wrong) {
                m.remove(&key);
            }
        }
    }

    /// Returns once the store holds a passphrase for `identity`.
    pub async fn wait_for(&self, identity: &Path) {
        let mut rx = self.0.changed.subscribe();
        while !self.has(identity) {
            if rx.changed().await.is_err() {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A host that failed with a wrong passphrase after the right one was
    /// typed leaves the right one for the others.
    #[test]
    fn a_wrong_passphrase_is_forgotten_only_while_it_is_the_one_kept() {
        let store = PassphraseStore::new();
        store.insert("/k", "wrong");
        store.insert("/k", "right");
        store.forget_if("/k", "wrong");
        assert_eq!(
            store.get("/k").as_deref().map(String::as_str),
            Some("right")
        );
        store.forget_if("/k", "right");
        assert!(!store.has("/k"));
        store.forget_if("/k", "right");
        assert!(!store.has("/k"));
    }

    #[tokio::test]
    async fn a_waiting_cell_wakes_when_its_passphrase_comes() {
        let store = PassphraseStore::new();
        let p = PathBuf::from("/k/id_ed25519");
        let s2 = store.clone();
        let p2 = p.clone();
        let waiter = tokio::spawn(async move { s2.wait_for(&p2).await });
        tokio::task::yield_now().await;
        store.insert("/k/other", "x");
        tokio::task::yield_now().await;
        assert!(!waiter.is_finished());
        store.insert(p.clone(), "secret");
        tokio::time::timeout(Duration::from_secs(2), waiter)
            .await
            .expect("woken")
            .expect("joined");
        assert_eq!(store.get(&p).as_deref().map(String::as_str), Some("secret"));
        assert!(!format!("{store:?}").contains("secret"));
    }
}
