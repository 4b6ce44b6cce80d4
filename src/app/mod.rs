//! Application state and the one place it changes.
//!
//! Keys become [`Action`]s (keymap), `App::update` applies them, samples
//! arrive through `App::ingest_disks`; the view only reads an `App`.

pub mod action;
pub mod cache;
pub mod cells;
pub mod dnfs;
pub mod input;
pub mod keymap;
pub mod layer;
pub mod list;
pub mod nfs;
pub mod nics;
pub mod passphrase;
pub mod session;
pub mod state;

pub use action::Action;
pub use input::Input;
pub use state::{App, HostInfo, Panel, SelfUsage, View};
