//! Keys to actions. The help overlay is generated from [`KEY_HELP`], so a
//! key is documented where it is bound.

use super::action::Action;
use super::passphrase::Masked;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// (keys, what they do), in the order the help overlay lists them.
pub const KEY_HELP: &[(&str, &str)] = &[
    ("↑ ↓  k j", "move the selection"),
    ("PgUp PgDn  g G", "page up / down, first / last row"),
    (
        "← →  h l",
        "scroll a table's columns when they do not all fit",
    ),
    (
        "Enter",
        "drill down: panel → device → its parts; cells → cell → disk",
    ),
    ("", "databases → database → instance → NFS server → channel"),
    ("Esc  Backspace", "back up one level"),
    ("Tab  Shift-Tab", "next / previous panel"),
    (
        "1 … 8",
        "overview, disks, cache, NFS, NICs, cells, databases, procs",
    ),
    ("s  S", "sort by the next / previous column"),
    ("r", "reverse the sort order"),
    (
        "/",
        "filter devices by name (Enter keeps it, Esc clears it)",
    ),
    ("P", "show or hide partitions"),
    (
        "a",
        "show or hide loop/ram devices, unused and virtual NICs",
    ),
    ("u", "throughput in kB/s or MB/s"),
    ("d", "a cell's disks: all, DISK only, FLASH only"),
    ("n", "panels show the next database node, then the cluster"),
    ("p", "pause the view (sampling goes on)"),
    ("c", "next theme"),
    (
        "R  m  M",
        "start / stop recording; add a labelled marker; list markers",
    ),
    (
        "Space t T < > b",
        "replay: play/pause, sample -/+, minute -/+, go to a time",
    ),
    (
        "[ ]  + -",
        "replay: previous / next marker, speed ×1 ×2 ×10 ×60",
    ),
    (
        "i",
        "type a passphrase or database password put off with Esc",
    ),
    ("?", "this help"),
    ("q  Ctrl-C", "quit"),
];

/// What the keyboard is talking to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyMode {
    Normal,
    /// The filter prompt takes every key.
    Filter,
    /// The help overlay: the moving keys scroll it, any other closes it.
    Help,
    /// The passphrase prompt takes every key; Ctrl-C still quits.
    Passphrase,
}

/// Maps a key press to an action.
pub fn map_key(key: KeyEvent, mode: KeyMode) -> Option<Action> {
    if mode == KeyMode::Passphrase {
        return map_passphrase(key);
    }
    let action = map_normal(key, mode == KeyMode::Filter);
    if mode == KeyMode::Help && action.is_none() {
        return Some(Action::Back);
    }
    action
}

fn map_passphrase(key: KeyEvent) -> Option<Action> {
    if key.modifiers.contains(KeyModifiers::CONTROL) {
        return match key.code {
            KeyCode::Char('c') => Some(Action::Quit),
            KeyCode::Char('u') => Some(Action::PassphraseClear),
            _ => None,
        };
    }
    match key.code {
        KeyCode::Enter => Some(Action::PassphraseSubmit),
        KeyCode::Esc => Some(Action::PassphraseDismiss),
        KeyCode::Backspace => Some(Action::PassphraseBackspace),
        KeyCode::Char(c) => Some(Action::PassphraseChar(Masked(c))),
        _ => None,
    }
}

fn map_normal(key: KeyEvent, filtering: bool) -> Option<Action> {
    if key.modifiers.contains(KeyModifiers::CONTROL) {
        return match key.code {
            KeyCode::Char('c') => Some(Action::Quit),
            _ => None,
        };
    }
    if filtering {
        return match key.code {
            KeyCode::Enter => Some(Action::FilterCommit),
            KeyCode::Esc => Some(Action::FilterCancel),
            KeyCode::Backspace => Some(Action::FilterBackspace),
            KeyCode::Char(c) => Some(Action::FilterChar(c)),
            _ => None,
        };
    }
    let action = match key.code {
        KeyCode::Char('q') => Action::Quit,
        KeyCode::Up | KeyCode::Char('k') => Action::Up,
        KeyCode::Down | KeyCode::Char('j') => Action::Down,
        KeyCode::PageUp => Action::PageUp,
        KeyCode::PageDown => Action::PageDown,
        KeyCode::Home | KeyCode::Char('g') => Action::Top,
        KeyCode::End | KeyCode::Char('G') => Action::Bottom,
        KeyCode::Left | KeyCode::Char('h') => Action::Left,
        KeyCode::Right | KeyCode::Char('l') => Action::Right,
        KeyCode::Enter => Action::Enter,
        KeyCode::Esc | KeyCode::Backspace => Action::Back,
        KeyCode::Tab => Action::NextPanel,
        KeyCode::BackTab => Action::PrevPanel,
        KeyCode::Char(c @ '1'..='9') => Action::GotoPanel(c as usize - '1' as usize),
        KeyCode::Char('p') | KeyCode::Char(' ') => Action::TogglePause,
        KeyCode::Char('?') => Action::ToggleHelp,
        KeyCode::Char('c') => Action::CycleTheme,
        KeyCode::Char('t') => Action::StepBack,
        KeyCode::Char('T') => Action::StepForward,
        KeyCode::Char('<') => Action::JumpBack,
        KeyCode::Char('>') => Action::JumpForward,
        KeyCode::Char('b') => Action::JumpToTime,
        KeyCode::Char('[') => Action::PrevMarker,
        KeyCode::Char(']') => Action::NextMarker,
        KeyCode::Char('+') => Action::Faster,
        KeyCode::Char('-') => Action::Slower,
        KeyCode::Char('R') => Action::ToggleRecord,
        KeyCode::Char('m') => Action::AddMarker,
        KeyCode::Char('M') => Action::ListMarkers,
        KeyCode::Char('s') => Action::SortNext,
        KeyCode::Char('S') => Action::SortPrev,
        KeyCode::Char('r') => Action::SortReverse,
        KeyCode::Char('/') => Action::StartFilter,
        KeyCode::Char('P') => Action::TogglePartitions,
        KeyCode::Char('a') => Action::ToggleAllDevices,
        KeyCode::Char('u') => Action::ToggleUnits,
        KeyCode::Char('i') => Action::AskPassphrase,
        KeyCode::Char('d') => Action::CycleGroup,
        KeyCode::Char('n') => Action::CycleNode,
        _ => return None,
    };
    Some(action)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(c: KeyCode) -> KeyEvent {
        KeyEvent::new(c, KeyModifiers::NONE)
    }

    #[test]
    fn filter_prompt_takes_letters() {
        assert_eq!(
            map_key(key(KeyCode::Char('q')), KeyMode::Filter),
            Some(Action::FilterChar('q'))
        );
        assert_eq!(
            map_key(key(KeyCode::Char('q')), KeyMode::Normal),
            Some(Action::Quit)
        );
        assert_eq!(
            map_key(key(KeyCode::Char('M')), KeyMode::Normal),
            Some(Action::ListMarkers)
        );
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(map_key(ctrl_c, KeyMode::Filter), Some(Action::Quit));
    }

    #[test]
    fn the_passphrase_prompt_takes_every_key_but_ctrl_c() {
        let m = KeyMode::Passphrase;
        assert_eq!(
            map_key(key(KeyCode::Char('q')), m),
            Some(Action::PassphraseChar(Masked('q')))
        );
        assert_eq!(
            map_key(key(KeyCode::Char('?')), m),
            Some(Action::PassphraseChar(Masked('?')))
        );
        assert_eq!(
            map_key(key(KeyCode::Esc), m),
            Some(Action::PassphraseDismiss)
        );
        assert_eq!(
            map_key(key(KeyCode::Enter), m),
            Some(Action::PassphraseSubmit)
        );
        let ctrl = |c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL);
        assert_eq!(map_key(ctrl('u'), m), Some(Action::PassphraseClear));
        assert_eq!(map_key(ctrl('c'), m), Some(Action::Quit));
        assert_eq!(map_key(key(KeyCode::Tab), m), None);
        // what was typed never shows in an action's Debug
        assert!(!format!("{:?}", Action::PassphraseChar(Masked('z'))).contains('z'));
        assert_eq!(
            map_key(key(KeyCode::Char('i')), KeyMode::Normal),
            Some(Action::AskPassphrase)
        );
    }

    #[test]
    fn any_key_closes_help() {
        assert_eq!(
            map_key(key(KeyCode::Char('x')), KeyMode::Help),
            Some(Action::Back)
        );
        assert_eq!(
            map_key(key(KeyCode::F(5)), KeyMode::Help),
            Some(Action::Back)
        );
        assert_eq!(
            map_key(key(KeyCode::Char('q')), KeyMode::Help),
            Some(Action::Quit)
        );
    }
}
