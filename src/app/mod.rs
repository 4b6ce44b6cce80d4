//! Application state and the one place it changes.
//!
//! Keys become [`Action`]s (keymap), `App::update` applies them, samples
//! arrive through `App::ingest_disks`; the view only reads an `App`.

pub mod action;
pub mod cache;
pub mod cells;
pub mod cluster;
pub mod disks;
pub mod dnfs;
pub mod host;
pub mod input;
pub mod keymap;
pub mod link;
pub mod list;
pub mod nfs;
pub mod nics;
pub mod passphrase;
pub mod procs;
pub mod session;
pub mod state;
pub(crate) mod views;

pub use action::Action;
pub use input::Input;
// The app's state carries them, so they are part of what `app` offers.
pub use state::{App, HEADLESS_TICKS, Panel, View};
