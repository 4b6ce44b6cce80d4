//! The secret prompt: an encrypted identity file is asked for once,
//! whatever the number of cells and nodes that use it, a database's
//! password once per database, and what is typed goes to the
//! [`PassphraseStore`] the cells' and nodes' tasks and the databases'
//! readers wait on. The app never keeps the passphrase after Enter and
//! never shows or logs it; the view only learns whether something was
//! typed.

use super::action::Action;
use super::cells::Cells;
use super::dnfs::Dnfs;
use super::host::NodeState;
use super::state::App;
use crate::layers::dnfs::source::DbStatus;
use crate::link::{HostStatus, PassphraseStore, Secret};
use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;

/// A key typed into the prompt. Its Debug hides the character, so that
/// logging an [`Action`] cannot leak a passphrase.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Masked(pub char);

impl fmt::Debug for Masked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Masked(*)")
    }
}

/// Room for any passphrase a person types: the buffer never grows, so no
/// copy of a half-typed passphrase is left behind in a freed allocation.
const TYPED_CAPACITY: usize = 1024;

/// The open prompt.
pub struct Prompt {
    pub key: Secret,
    /// The previous secret typed for this did not open it.
    pub wrong: bool,
    typed: Vec<char>,
}

impl Prompt {
    fn new(key: Secret, wrong: bool) -> Prompt {
        Prompt {
            key,
            wrong,
            typed: Vec::with_capacity(TYPED_CAPACITY),
        }
    }

    /// Whether anything is typed: all the view may know of the buffer.
    pub fn has_input(&self) -> bool {
        !self.typed.is_empty()
    }

    fn push(&mut self, c: char) {
        if self.typed.len() < TYPED_CAPACITY {
            self.typed.push(c);
        }
    }

    fn backspace(&mut self) {
        if let Some(last) = self.typed.last_mut() {
            *last = '\0';
        }
        self.typed.pop();
    }

    /// Overwrites what was typed before forgetting it; the store wipes the
    /// String it is handed when it drops it.
    fn wipe(&mut self) {
        self.typed.fill('\0');
        std::hint::black_box(&mut self.typed);
        self.typed.clear();
    }

    fn take(&mut self) -> String {
        // room for every char at once: a String that grew would leave the
        // passphrase's beginning in the allocations it outgrew
        let mut s = String::with_capacity(self.typed.len() * 4);
        s.extend(self.typed.iter());
        self.wipe();
        s
    }
}

impl Drop for Prompt {
    fn drop(&mut self) {
        self.wipe();
    }
}

impl fmt::Debug for Prompt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Prompt")
            .field("key", &self.key)
            .field("wrong", &self.wrong)
            .finish_non_exhaustive()
    }
}

/// Which identity files have been asked for, answered or put off.
#[derive(Debug, Default)]
pub struct Passphrases {
    /// Shared with the cells' and nodes' tasks (`SshOptions::passphrases`).
    pub store: PassphraseStore,
    pub prompt: Option<Prompt>,
    /// Put off with Esc: not asked again until the user asks (or a
    /// passphrase for it turns out wrong).
    dismissed: BTreeSet<Secret>,
    /// Given to the store: the cells forget a wrong one, which is how the
    /// app learns it was wrong.
    given: BTreeSet<Secret>,
    /// Forgotten by the cells after a wrong passphrase.
    wrong: BTreeSet<Secret>,
}

impl Passphrases {
    pub fn new(store: PassphraseStore) -> Passphrases {
        Passphrases {
            store,
            ..Passphrases::default()
        }
    }

    /// Opens the prompt for the first file a cell or node waits on,
    /// unless one is open, it has been put off, or the store already holds
    /// its passphrase (the hosts are trying it).
    fn review(&mut self, cells: &Cells, nodes: &[NodeState], dbs: &Dnfs) {
        let forgotten: Vec<Secret> = self
            .given
            .iter()
            .filter(|p| !self.store.has((*p).clone()))
            .cloned()
            .collect();
        for p in forgotten {
            self.given.remove(&p);
            self.dismissed.remove(&p);
            self.wrong.insert(p);
        }
        if self.prompt.is_some() {
            return;
        }
        let next = waiting(cells, nodes, dbs)
            .into_iter()
            .find(|p| !self.store.has(p.clone()) && !self.dismissed.contains(p));
        if let Some(p) = next {
            let wrong = self.wrong.contains(&p);
            self.prompt = Some(Prompt::new(p, wrong));
        }
    }

    fn submit(&mut self) {
        let Some(mut prompt) = self.prompt.take() else {
            return;
        };
        if !prompt.has_input() {
            // an Enter typed by accident must not count as a wrong try
            self.prompt = Some(prompt);
            return;
        }
        let key = prompt.key.clone();
        self.wrong.remove(&key);
        self.given.insert(key.clone());
        self.store.insert(key, prompt.take());
    }

    fn dismiss(&mut self) {
        if let Some(prompt) = self.prompt.take() {
            self.dismissed.insert(prompt.key.clone());
        }
    }
}

/// What the cells, nodes and databases wait on, each once: the identity
/// files in the cells' then the nodes' order, then the databases'
/// passwords.
fn waiting(cells: &Cells, nodes: &[NodeState], dbs: &Dnfs) -> Vec<Secret> {
    let mut keys: Vec<Secret> = Vec::new();
    let statuses = cells.list.iter().map(|c| &c.link.status);
    for status in statuses.chain(nodes.iter().map(|n| &n.link.status)) {
        if let HostStatus::NeedsPassphrase(p) = status {
            let key = Secret::Identity(p.clone());
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
    }
    for d in dbs.live() {
        if let DbStatus::NoPassword(_) = d.status {
            keys.push(Secret::Database(d.target.label.clone()));
        }
    }
    keys
}

impl App {
    /// Gives the app the store the cells' and nodes' tasks wait on.
    pub fn set_passphrase_store(&mut self, store: PassphraseStore) {
        self.passphrases = Passphrases::new(store);
    }

    /// The open prompt, if any.
    pub fn passphrase_prompt(&self) -> Option<&Prompt> {
        self.passphrases.prompt.as_ref()
    }

    /// Labels of the cells, then of the nodes, waiting on `identity`'s
    /// passphrase.
    pub fn hosts_waiting_on(&self, identity: &Path) -> (Vec<&str>, Vec<&str>) {
        let waits = |s: &HostStatus| matches!(s, HostStatus::NeedsPassphrase(p) if p == identity);
        let cells = self.cells.list.iter().filter(|c| waits(&c.link.status));
        let nodes = self.nodes.iter().filter(|n| waits(&n.link.status));
        (
            cells.map(|c| c.link.target.label.as_str()).collect(),
            nodes.map(|n| n.link.target.label()).collect(),
        )
    }

    /// Opens the prompt when a cell or node waits on a passphrase or a
    /// database on a password nobody was asked for yet; run after every
    /// cell, node status and database event. A replay only shows that they
    /// waited: nothing reads what would be typed.
    pub(super) fn review_passphrases(&mut self) {
        if self.replay.is_some() {
            return;
        }
        let was_open = self.passphrases.prompt.is_some();
        self.passphrases
            .review(&self.cells, &self.nodes, &self.dnfs);
        if !was_open && self.passphrases.prompt.is_some() {
            // the prompt takes the keys: the help overlay would hide it
            self.ui.help = false;
        }
    }

    /// Applies the prompt's actions; false for the others, which the
    /// prompt does not take.
    pub(super) fn update_passphrase(&mut self, action: &Action) -> bool {
        match action {
            Action::PassphraseChar(Masked(c)) => {
                if let Some(p) = &mut self.passphrases.prompt {
                    p.push(*c);
                }
            }
            Action::PassphraseBackspace => {
                if let Some(p) = &mut self.passphrases.prompt {
                    p.backspace();
                }
            }
            Action::PassphraseClear => {
                if let Some(p) = &mut self.passphrases.prompt {
                    p.wipe();
                }
            }
            Action::PassphraseSubmit => {
                self.passphrases.submit();
                self.review_passphrases();
            }
            Action::PassphraseDismiss => {
                self.passphrases.dismiss();
                self.review_passphrases();
            }
            Action::AskPassphrase => {
                self.passphrases.dismissed.clear();
                self.review_passphrases();
                if self.passphrases.prompt.is_none() {
                    self.notice = Some(
                        "no cell or node waits for a passphrase, no database for a password".into(),
                    );
                }
            }
            _ => return false,
        }
        true
    }
}
