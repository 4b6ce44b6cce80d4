//! strata: a live terminal monitor for the storage path of a database.
//!
//! ```text
//!  source (IO only) ─► Sample ─► model: rates from (prev, cur, interval) ─► store (rings) ─► ui (pure view)
//!  /proc, /sys          │                                                     ▲
//!                       └─► batch printers (same model, no TUI) ──────────────┘
//! ```
//!
//! Parsers are pure, sources only read, the model is arithmetic, the store is
//! bounded and the view is a function of (state, theme).

pub mod app;
pub mod batch;
pub mod cli;
pub mod config;
pub mod format;
pub mod live;
pub mod model;
pub mod parse;
pub mod source;
pub mod store;
pub mod theme;
pub mod ui;
